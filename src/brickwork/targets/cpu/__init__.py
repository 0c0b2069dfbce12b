"""The CPU target: C++ with OpenMP through the system compiler, loaded with ctypes.

Loading a cached instance needs only ``identity`` and ``load``; the passes and the renderer are
imported when an instance is first generated, so start-up and the warm path stay cheap.
"""

from __future__ import annotations

import ctypes
import re
import threading

from ... import config
from ...config import SettingError
from ...errors import BoundsError, SliceStepError
from ...jit.sanitizers import runtime_problem
from ...jit.store import symbol
from ...jit.toolchain import identity, settings
from ..base import Target

ENTRY_SYMBOL = "bw_entry"  # the exported entry point of every instance library (see unit.py)
BOUNDS_SYMBOL = "bw_bounds_error"  # debug-mode libraries: the first out-of-bounds access, as text
_RELATIVE = re.compile(r" at (\+\d+(?:#\d+)?)")  # a release line: "+N" (the kernel's), "+N#k" (targets/locations)
_record_locks: dict = {}  # a checked library's handle -> the lock its launches hold (its error record is global)


class CpuTarget(Target):
    """Today's behaviour: slices and teams run on one thread each, simd inner loops, OpenMP grid."""

    name = "cpu"

    def identity(self) -> str:
        return identity()

    def passes(self, mode: str = "release") -> tuple:
        from ...passes import (
            AdjointGather,
            CheckBounds,
            ExpandLoopAbstraction,
            InlineLocalFunctions,
            LowerPackAccess,
            LowerReductions,
            LowerTeams,
            ProveNoOverflow,
            SelectBranches,
            SelectBuiltins,
            SequenceEffects,
            SplitInterior,
            UnrollConstantLoops,
        )
        from .builtins import CPU_BUILTINS, CPU_WRAPPING

        checks = (CheckBounds(),) if mode == "debug" else ()
        return (SequenceEffects(), ProveNoOverflow(), InlineLocalFunctions(), UnrollConstantLoops(),
                ExpandLoopAbstraction("cpu_rows"),
                LowerTeams(), LowerReductions(), LowerPackAccess(checked=mode == "debug"), SplitInterior(),
                AdjointGather(), SelectBranches(), *checks, SelectBuiltins("cpu", CPU_BUILTINS, CPU_WRAPPING))

    def render(self, kernel, callees, label, general_strides: bool = False) -> str:
        from .unit import render_translation_unit

        return render_translation_unit(kernel, callees, label, general_strides)

    def compile_many(self, jobs: list) -> list:
        from ...jit import compile as jit

        return jit.compile_many(jobs)

    def load(self, path: str, meta: dict):
        if runtime_problem(config.extra_cflags) is not None:  # -fsanitize=address without its runtime ends the process
            raise SettingError(runtime_problem(config.extra_cflags, settings().cxx))
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        fn = getattr(lib, symbol(meta, ENTRY_SYMBOL))
        # no argtypes: the packed bytes pass as char* without a converter call; 1 = declined (see unit._entry)
        fn.restype = ctypes.c_int
        fn._bw_library = lib  # the library stays loaded as long as its entry point lives
        if meta.get("mode") == "debug" or meta.get("field_checks"):
            return _checked_entry(fn, lib, meta.get("label", "kernel"), symbol(meta, BOUNDS_SYMBOL),
                                  meta.get("where", str))
        return fn


def recorded_error(label: str, message: str) -> Exception:
    """The exception of what a launch of kernel ``label`` recorded (``message``, its ``where`` resolved): a
    slice's zero step (``SliceStepError``), else an access out of bounds (``BoundsError``)."""
    from ...ir.field_checks import without_note_for_set_arrays  # the error path only

    if message.startswith("slice step cannot be zero"):
        return SliceStepError(f"kernel '{label}': {message}")
    # a struct field's array that was set, indexed past its end, is a plain out-of-bounds access: no note
    return BoundsError(f"kernel '{label}': {without_note_for_set_arrays(message)}")


def _checked_entry(fn, lib, label: str, bounds_symbol: str, where=str):
    """Debug mode, or a release kernel with checked accesses of struct array fields (``ir/field_checks``): after
    each launch, raise the first out-of-bounds access the kernel recorded. ``where`` turns a release build's
    ``"+N"`` line (relative to the kernel's first) into ``file:line``."""
    take = getattr(lib, bounds_symbol, None)
    if take is None:  # a kernel without array, pack or scratch accesses
        return fn
    take.restype = ctypes.c_int  # no argtypes: the buffer and its size pass without a converter call
    text = ctypes.create_string_buffer(512)
    # The record is one per library: two Python threads launching it at once (ctypes releases the GIL) would
    # each take the other's error, or none. Their launches of it run one after the other instead.
    lock = _record_locks.setdefault(lib._handle, threading.Lock())

    def entry(buf):
        with lock:
            if fn(buf):
                return 1  # declined: nothing ran
            if not take(text, 512):
                return None
            message = _RELATIVE.sub(lambda m: f" at {where(m.group(1))}", text.value.decode(errors="replace"), 1)
        raise recorded_error(label, message)

    entry._bw_library = lib
    return entry


CPU = CpuTarget()
