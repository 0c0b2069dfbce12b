"""Nested parallelism over index ranges: ``par_for``, ``par_for_outer`` and (in kernels)
``par_for_inner``, as Parthenon spells them, with JIT-compiled Python loop bodies.

    par_for("update", kb, jb, ib, lambda k, j, i: ...)          # or a def, ranges inclusive
    par_for_outer("recon", scratch_bytes, 0, kb, jb, body)      # body(member, k, j)

A range is an object with ``s`` and ``e`` (``IndexRange``), an inclusive ``(s, e)`` pair, or a
count ``n`` meaning ``(0, n - 1)``. On the CPU the outer loops run in parallel (OpenMP) and the
innermost loop of ``par_for`` (and every ``par_for_inner``) is a simd loop.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import KernelSyntaxError, LaunchError
from ..frontend.limits import INDEX_LIMIT
from ..lang.body import body_kernel
from .launch import launch


def _integer(value, what: str, name: str) -> int:
    """``value`` as an int: Python and numpy integers only (``int(2.5)`` would drop the fraction)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LaunchError(f"{what}: {name} must be an integer, got {value!r}")
    return int(value)


def _ranges(items, what) -> list[tuple[int, int]]:
    out = []
    for r in items:
        if hasattr(r, "s") and hasattr(r, "e"):
            out.append((_integer(r.s, what, "a range's start"), _integer(r.e, what, "a range's end")))
        elif isinstance(r, tuple) and len(r) == 2:
            out.append((_integer(r[0], what, "a range's start"), _integer(r[1], what, "a range's end")))
        elif isinstance(r, (int, np.integer)) and not isinstance(r, bool):
            if r < 0:  # it ran nothing without a word; an empty (s, e) range with e < s still runs nothing
                raise LaunchError(f"{what}: a count must not be negative, got {int(r)} (a count n is the range 0..n-1)")
            out.append((0, int(r) - 1))
        else:
            raise LaunchError(f"{what}: a range must be an IndexRange, an inclusive (s, e) pair or a count, "
                              f"got {r!r}")
    for s, e in out:
        # Indices stay within +-2**30, so index arithmetic with small offsets cannot overflow int32
        # (the compiler relies on it to keep that arithmetic plain and vectorizable).
        if not (-INDEX_LIMIT <= s and e <= INDEX_LIMIT):
            raise LaunchError(f"{what}: range ({s}, {e}) reaches beyond +-2**30, the index range of loop bodies")
    return out


def _split(args, what, leading: int):
    args = list(args)
    if args and isinstance(args[0], str):
        args.pop(0)  # the name, as in Parthenon (used for profiling there)
    if len(args) < leading + 2 or not callable(args[-1]):
        raise LaunchError(f"{what}: expected {'scratch_bytes, scratch_level, ' if leading else ''}ranges and a "
                          f"body function")
    return args[:leading], _ranges(args[leading:-1], what), args[-1]


def _flat_bounds_hint(args, leading: int) -> str:
    """On an error path: when the ranges of a call are an even number of plain integers, the sentence that
    says they are counts here, and how Parthenon's flat bounds (``b0, b1, jb.s, jb.e, ...``) are written."""
    items = list(args[1:] if args and isinstance(args[0], str) else args)[leading:-1]
    if len(items) < 2 or len(items) % 2 or not all(
            isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in items):
        return ""
    pairs = ", ".join(f"({int(s)}, {int(e)})" for s, e in zip(items[::2], items[1::2]))
    return (f"; the {len(items)} integers are {len(items)} counts here (a count n is the range 0..n-1): if they are "
            f"Parthenon's inclusive bounds (b0, b1, jb.s, jb.e, ...), pass each pair as one range, {pairs}, or "
            f"IndexRanges (nblocks, jb, ib)")


def par_for(*args) -> None:
    """``par_for([name,] r0, ..., body)``: ``body(i0, ...)`` for every index of 1 to 4 inclusive ranges."""
    _, ranges, body = _split(args, "par_for", 0)
    if not 1 <= len(ranges) <= 4:
        raise LaunchError(f"par_for: 1 to 4 ranges, got {len(ranges)}{_flat_bounds_hint(args, 0)}")
    try:
        kernel = body_kernel(body, "for", len(ranges))
    except KernelSyntaxError as error:
        hint = _flat_bounds_hint(args, 0)
        if hint and "index parameter(s)" in error.message:
            raise KernelSyntaxError(error.message + hint, error.location) from None
        raise
    _run(kernel, ranges, None)


def par_for_outer(*args) -> None:
    """``par_for_outer([name,] scratch_bytes, scratch_level, r0, ..., body)``: ``body(member, i0, ...)``
    once per outer index (1 to 3 ranges); inside, ``par_for_inner`` and ``ScratchPad1D/2D/3D``."""
    (scratch_bytes, level), ranges, body = _split(args, "par_for_outer", 2)
    if not 1 <= len(ranges) <= 3:
        raise LaunchError(f"par_for_outer: 1 to 3 outer ranges, got {len(ranges)}{_flat_bounds_hint(args, 2)}")
    # a range or a count in its place: scratch_level forgotten
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level not in (0, 1):
        raise LaunchError(f"par_for_outer: scratch_level must be 0 or 1 (Kokkos's two scratch levels), got "
                          f"{level!r}: the arguments are ([name,] scratch_bytes, scratch_level, ranges..., body)")
    scratch_bytes = _integer(scratch_bytes, "par_for_outer", "scratch_bytes")
    if scratch_bytes < 0:
        raise LaunchError(f"par_for_outer: scratch_bytes must not be negative, got {scratch_bytes}")
    if scratch_bytes > _memory():  # each thread's teams share one buffer of at least this size
        raise MemoryError(f"par_for_outer: scratch_bytes={scratch_bytes} is more than this machine's memory "
                          f"({_memory()} bytes)")
    kernel = body_kernel(body, "outer", len(ranges))
    kernel.work_per_item = 64  # a team runs inner loops: worth a thread at far fewer grid points
    _run(kernel, ranges, scratch_bytes)


def _memory() -> int:
    """This machine's physical memory in bytes, read once: two system calls (3 us) that each launch would make."""
    global _MEMORY
    if _MEMORY is None:
        _MEMORY = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return _MEMORY


_MEMORY = None


def _run(kernel, ranges, scratch_bytes) -> None:
    sizes = tuple(e - s + 1 for s, e in ranges)
    if min(sizes) <= 0:
        return  # an empty range: nothing to do
    launch(kernel, dim=sizes, inputs=kernel.arguments([s for s, _ in ranges], scratch_bytes))
