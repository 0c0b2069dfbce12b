"""Lines of a cached instance's messages, relative to the functions its key covers.

A release build's cache key covers the text of the kernel and of the functions it reaches, not where they are: the
same text in another file, at another line, or in a clone of the project elsewhere loads the same entry. So what
the entry holds names no file: an access's or slice's line is ``"+N"`` (N lines past the kernel's first) or
``"+N#k"`` (past the first line of the k-th function the key's fingerprint reached), and the loader makes it
``file:line`` of the kernel that loads the entry (``absolute``).
"""

from __future__ import annotations

#: builtins whose compiled message names its own file and line (printed by the kernel: no loader reads it back)
_PRINTS_LOCATION = frozenset({"expect_eq", "expect_neq", "expect_near"})


def relative(sources: list, where: str) -> str:
    """``"file:line"`` in one of ``sources`` (the kernel's first, then those its fingerprint reached) as
    ``"+N"`` or ``"+N#k"``; else as it is (a line of no function the key covers)."""
    filename, _, line = where.rpartition(":")
    if not line.isdigit():
        return where
    n = int(line)
    for k, source in enumerate(sources):
        if source.filename == filename and 0 <= n - source.first_line < len(source.text.splitlines()):
            return f"+{n - source.first_line}" + (f"#{k}" if k else "")
    return where


def absolute(where: str, first, reached) -> str:
    """A ``"+N"`` or ``"+N#k"`` line as ``file:line``: ``first`` is the loading kernel's source, ``reached()``
    gives the list of ``relative`` (called only where a ``#k`` asks for it); anything else as it is."""
    if not where.startswith("+"):
        return where
    offset, _, k = where[1:].partition("#")
    source = first
    if k:
        listed = reached()
        if not k.isdigit() or int(k) >= len(listed):
            return where
        source = listed[int(k)]
    return f"{source.filename}:{source.first_line + int(offset)}"


def names_locations(sources: list) -> bool:
    """Whether one of ``sources`` calls a builtin whose compiled message names its file and line (the key then
    covers where they are)."""
    from ..frontend.fingerprint import _chains

    for source in sources:
        found = getattr(source, "_prints_location", None)
        if found is None:
            found = source._prints_location = any(chain[-1] in _PRINTS_LOCATION for chain in _chains(source))
        if found:
            return True
    return False
