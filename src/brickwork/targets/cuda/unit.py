"""The CUDA translation unit of one plain kernel instance: one thread per launch point.

``bw_entry`` is an ``extern "C" __global__`` function taking, by value, the same packed argument
block as the CPU entry (``bw::launch_header`` then the ``Args`` struct, laid out by
``types/layout.py``): the launch passes the packed bytes as the kernel's only parameter. Thread
``i = blockIdx.x * blockDim.x + threadIdx.x`` of a ``ceil(n / BLOCK_SIZE)``-block grid returns if
``i >= n`` and otherwise splits ``i`` into the launch's indices (row-major, the last fastest).
"""

from __future__ import annotations

from ... import ir
from ..cpu.cnames import c_type
from ..cpu.render import local
from ..cpu.unit import _extra_includes, _locals, _struct_decl, declared_types
from . import ENTRY_SYMBOL
from .arch import BLOCK_SIZE
from .render import CudaRenderer


def render_translation_unit(kernel: ir.IRFunction, callees: list, label: str) -> str:
    """CUDA C++ of one kernel instance and every function and struct it reaches."""
    r = CudaRenderer()
    out = [f"// brickwork CUDA kernel instance {label}", '#include "brickwork_cuda.h"',
           *_extra_includes([*callees, kernel]), "namespace {", ""]
    for t in declared_types([*callees, kernel]):
        out.extend(_struct_decl(t))
    for fn in callees:
        out.extend(_function(r, fn))
    out.extend(_kernel_body(r, kernel))
    out.append("}  // namespace")
    out.extend(_entry(kernel))
    return "\n".join(out) + "\n"


def _function(r: CudaRenderer, fn: ir.IRFunction) -> list[str]:
    """A ``@func`` instance as a ``__device__`` function (templated on unit innermost strides, as on the CPU)."""
    params = ", ".join(f"{c_type(t)} {local(n)}" for n, t in fn.params)
    lines = [f"// {fn.label}", f"template <bool UNIT> __device__ __forceinline__ {c_type(fn.return_type)} "
             f"{fn.name}({params}) {{"]
    lines += _locals(fn, 4)
    lines += r.block(fn.body, 4)
    return lines + ["}", ""]


def _kernel_body(r: CudaRenderer, fn: ir.IRFunction) -> list[str]:
    # The arguments by value: assigning to a parameter stays local to one thread, as in Python.
    sig = ", ".join([f"{c_type(t)} {local(n)}" for n, t in fn.params] + [f"int32_t tid{d}" for d in range(fn.tid_dims)])
    lines = ["template <bool UNIT>", f"__device__ __forceinline__ void body({sig}) {{"]
    lines += _locals(fn, 4)
    lines += r.block(fn.body, 4)
    lines += ["}", "", "struct Args {"]
    lines += [f"    {c_type(t)} {local(n)};" for n, t in fn.params] or ["    char unused;"]
    lines += ["};", "", "struct Packed {  // the CPU entry's buffer: header, then the arguments",
              "    bw::launch_header h;", "    Args a;", "};", ""]
    return lines


def _entry(fn: ir.IRFunction) -> list[str]:
    dims = fn.tid_dims
    lines = [f'extern "C" __global__ void __launch_bounds__({BLOCK_SIZE}) {ENTRY_SYMBOL}(const Packed p) {{',
             "    const int64_t total = " + " * ".join(f"p.h.dim[{d}]" for d in range(dims)) + ";",
             "    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;",
             "    if (i >= total) return;"]
    # row-major: the last launch dimension varies fastest, as the CPU loops run
    for d in range(dims - 1, 0, -1):
        lines += [f"    const int32_t t{d} = (int32_t)(i % p.h.dim[{d}]);", f"    i /= p.h.dim[{d}];"]
    lines.append("    const int32_t t0 = (int32_t)i;")
    args = ", ".join([f"p.a.{local(n)}" for n, _ in fn.params] + [f"t{d}" for d in range(dims)])
    lines += [f"    if (p.h.unit_inner) body<true>({args}); else body<false>({args});", "}"]
    return lines
