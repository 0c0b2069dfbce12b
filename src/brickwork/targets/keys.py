"""Cache keys of kernel instances for a target: what a key covers (``key_parts``) and the key itself.

Everything here is known before typing, so a warm launch computes its key, finds the entry
(``store``) and loads it without importing the compiler (``brickwork.pipeline``).
"""

from __future__ import annotations

import hashlib

from .._version import __version__
from ..frontend.fingerprint import _chains as source_chains  # cached per source
from ..frontend.fingerprint import function_fingerprint
from ..jit.toolchain import generator_digest
from ..types.keys import type_key
from .locations import names_locations


def key_parts(kernel, arg_types, mode: str, target, sources: list | None = None) -> dict:
    """What the cache key of ``kernel`` for ``arg_types`` on ``target`` in ``mode`` covers. A release build's
    lines are relative to its functions (``locations``); a debug build, or one whose kernel prints a message
    naming file:line itself (``wp.expect_eq``), also covers where the kernel and the functions it reaches are:
    the compiled code holds their file:line, so the same text in another file, or moved in its own, must not
    reuse its entry. ``sources`` (an empty list) receives ``reached_sources(kernel)`` of this walk: a cold
    build's code generation and a loaded entry's lines take them from there, without walking again."""
    sources = [] if sources is None else sources
    parts = {
        "mode": mode,
        "brickwork version": __version__, "target": target.name, "compiler and flags": target.identity(),
        "code generator and runtime header": generator_digest(),
        "kernel source and reached functions/constants": function_fingerprint(kernel.source,
                                                                              chains=_static_chains(kernel),
                                                                              sources=sources),
        "argument types": ",".join(type_key(t) for t in arg_types),
        "kernel form": kernel.form,
    }
    unroll = getattr(kernel, "max_unroll", 16)
    if unroll != 16:  # a limit other than Warp's default: part of the key (default keys keep their parts)
        parts["max_unroll (constant loops unrolled)"] = str(unroll)
    inputs = getattr(getattr(kernel, "module", None), "build_inputs", None)
    extra = inputs.key(target.name) if inputs is not None else ""
    if extra:  # the module's wp.ModuleBuildOptions: preamble, include directories, dependencies' contents
        parts["module build options"] = extra
    if mode.startswith("debug") or names_locations(sources):
        parts["files and lines of the kernel and its functions (messages)"] = ";".join(
            f"{s.filename}:{s.first_line}" for s in sources)
    return parts


def reached_sources(kernel) -> list:
    """The kernel's source, then those of the functions its key's fingerprint reached (``locations.relative``)."""
    sources: list = []
    function_fingerprint(kernel.source, chains=_static_chains(kernel), sources=sources)
    return sources


def _static_chains(kernel) -> list | None:
    """The name chains a loop body's fingerprint covers: not those of its captured runtime values (launch arguments,
    whose types the key covers); their values made a first launch's key differ with, for instance, a time step
    that the body reads from a captured vector (and a warm cache missed). None for other kernels: every chain."""
    captured = getattr(kernel, "capture_names", None)
    if not captured:
        return None
    return [chain for chain in source_chains(kernel.source) if chain[0] not in captured]


def prepare(target) -> None:
    """Work out now what every cache key of ``target`` shares: the compiler's identity and the code
    generator's digest, each computed once per process (``wp.init`` calls this, so a program's first
    launch only fingerprints its kernel and loads the entry)."""
    from ..jit import store  # noqa: F401  (the lookup's module, imported here rather than by the first launch)

    target.identity()
    generator_digest()


def cache_key(parts: dict) -> str:
    """The 40-hex-digit key (entry directory name) of ``key_parts``."""
    return hashlib.sha256("|".join(parts.values()).encode()).hexdigest()[:40]
