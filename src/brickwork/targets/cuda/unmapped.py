"""The CUDA target's guard: loop-abstraction and nested-parallelism kernels need the GPU mapping.

Until that mapping (blocks for slices, threads for inner loops, shared-memory scratch) is part of
the CUDA pass list, such a kernel stops here with an error that says so, before any code is written.
"""

from __future__ import annotations

import dataclasses

from ... import ir
from ...errors import TargetUnsupportedError

#: IR nodes of the loop abstraction and of nested parallelism (teams, slices, scratch, views).
_UNMAPPED_PREFIXES = ("IRLA", "IRTeam", "IRSlice")


@dataclasses.dataclass(frozen=True)
class RequirePlainKernel:
    name: str = "require_plain_kernel"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        for node in ir.walk(fn.body):
            kind = type(node).__name__
            if kind.startswith(_UNMAPPED_PREFIXES):
                raise TargetUnsupportedError(
                    f"{fn.label or fn.name}: loop-abstraction and nested-parallelism kernels are not yet mapped "
                    f"for CUDA ({kind}); run them on the CPU (device='cpu')")
        return fn
