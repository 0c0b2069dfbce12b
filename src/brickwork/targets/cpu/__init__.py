"""The CPU target: C++ with OpenMP through the system compiler, loaded with ctypes."""

from __future__ import annotations

import ctypes

from ...jit import compile as jit
from ...jit.toolchain import identity
from ...passes import (
    ExpandLoopAbstraction,
    InlineLocalFunctions,
    LowerPackAccess,
    LowerReductions,
    LowerTeams,
    SelectBuiltins,
)
from ..base import Target
from .builtins import CPU_BUILTINS
from .unit import ENTRY_SYMBOL, render_translation_unit


class CpuTarget(Target):
    """Today's behaviour: slices and teams run on one thread each, simd inner loops, OpenMP grid."""

    name = "cpu"

    def identity(self) -> str:
        return identity()

    def passes(self) -> tuple:
        return (InlineLocalFunctions(), ExpandLoopAbstraction("cpu_rows"), LowerTeams(), LowerReductions(),
                LowerPackAccess(), SelectBuiltins("cpu", CPU_BUILTINS))

    def render(self, kernel, callees, label) -> str:
        return render_translation_unit(kernel, callees, label)

    def compile_many(self, jobs: list) -> list:
        return jit.compile_many(jobs)

    def load(self, path: str, meta: dict):
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        fn = getattr(lib, ENTRY_SYMBOL)
        fn.argtypes = [ctypes.c_char_p]
        fn.restype = None
        fn._bw_library = lib  # the library stays loaded as long as its entry point lives
        return fn


CPU = CpuTarget()
