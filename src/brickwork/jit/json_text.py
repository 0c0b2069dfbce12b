"""JSON on the warm path without the ``json`` package: a cached launch reads two small JSON files (an
entry's ``meta.json``, the toolchain note), and importing ``json`` (its decoder, encoder and their
regular expressions) took 1.2 ms of a 3 ms warm load.

``loads`` runs CPython's C scanner (``_json``, what ``json.loads`` itself runs) with a plain context
of the same settings; where ``_json`` is missing it is ``json.loads``. Malformed text raises
``ValueError`` (``json.JSONDecodeError``) as ``json.loads`` does. (The scanner raises its errors through
``json.decoder``, which it looks up in ``sys.modules`` and does not import: before ``json`` was imported, a
truncated ``meta.json``, as a build killed or a full disk leaves, was a ``SystemError`` that failed the launch
instead of a damaged entry that is rebuilt.)

``seal``/``sealed_digest`` tie a JSON text to a digest of its exact bytes, written into the text
itself: checking it needs neither the encoder (to re-encode the fields) nor the parse.
"""

from __future__ import annotations

import hashlib

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Settings:
    """The context the C scanner reads: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


try:
    import _json

    _scan = _json.make_scanner(_Settings())
except (ImportError, AttributeError, TypeError):  # another Python: the package's own loads
    _scan = None


def loads(text: str | bytes):
    """The value of the JSON document ``text`` (UTF-8 bytes or str)."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    if _scan is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except (StopIteration, SystemError):  # SystemError: the scanner's error needs json.decoder, not imported yet
        return _fail(text)
    if text[end:].strip(_WHITESPACE):
        return _fail(text)  # more after the value
    return value


def _fail(text: str):
    import json

    return json.loads(text)  # raises json's JSONDecodeError, with its message and position


#: The value a digest field holds while the text is hashed.
UNSEALED = "0" * 64


def _field(name: str, value: str) -> str:
    return f'"{name}": "{value}"'


def seal(text: str, name: str) -> str:
    """``text`` (JSON written with ``": "`` after keys, holding ``"name": "<64 zeros>"`` once) with that
    field set to the SHA-256 of the whole text as it was (see ``sealed_digest``)."""
    placeholder = _field(name, UNSEALED)
    if text.count(placeholder) != 1:
        raise ValueError(f"seal: the text must hold {placeholder} exactly once")
    return text.replace(placeholder, _field(name, hashlib.sha256(text.encode()).hexdigest()))


def sealed_digest(raw: bytes, name: str, digest: str) -> bool:
    """Whether ``raw`` is a text ``seal`` wrote whose field ``name`` holds ``digest``: any other change
    to its bytes, layout included, breaks it."""
    field = _field(name, digest).encode()
    if len(digest) != 64 or raw.count(field) != 1:
        return False
    return hashlib.sha256(raw.replace(field, _field(name, UNSEALED).encode())).hexdigest() == digest
