"""The CPU target: one C++ translation unit per kernel instance, with OpenMP loops.

A launch of ``D`` dimensions becomes ``D`` nested loops (no division or modulo per element):
the outer loops run in parallel (``collapse`` over all but the innermost) when the launch is
large enough, the innermost is ``#pragma omp simd``. Arguments are copied to locals. The body
is instantiated twice: with unit innermost array strides (vectorizable) and general strides.
"""

from __future__ import annotations

from ..frontend import ir
from ..types.structs import is_struct_type
from .cpp import CppRenderer, local
from .ctypes_names import c_type, generated_name

ENTRY_SYMBOL = "bw_entry"  # lang.instance looks this symbol up


def render_translation_unit(kernel: ir.IRFunction, callees: list, structs: list, label: str) -> str:
    """C++ source of one kernel instance and every function and struct it reaches."""
    r = CppRenderer()
    out = [f"// brickwork kernel instance {label}", '#include "brickwork.h"', "namespace {", ""]
    for t in structs:
        out.extend(_struct_decl(t))
    for fn in callees:
        out.extend(_function(r, fn))
    out.extend(_kernel(r, kernel))
    out.append("}  // namespace")
    out.extend(_entry(kernel))
    return "\n".join(out) + "\n"


def _struct_decl(t) -> list[str]:
    name = generated_name(t)
    if isinstance(t, ir.TupleType):
        fields = [f"    {c_type(ft)} f{i};" for i, ft in enumerate(t.types)]
    elif is_struct_type(t):
        fields = [f"    {c_type(ft)} m_{n};" for n, ft in t._fields]
    else:
        return []
    return [f"struct {name} {{", *fields, "};", ""]


def _locals(fn: ir.IRFunction, indent: int) -> list[str]:
    return [" " * indent + f"{c_type(t)} {local(n)}{{}};" for n, t in fn.locals.items()]


def _function(r: CppRenderer, fn: ir.IRFunction) -> list[str]:
    params = ", ".join(f"{c_type(t)} {local(n)}" for n, t in fn.params)
    head = f"template <bool UNIT> static inline __attribute__((always_inline)) {c_type(fn.return_type)} "
    lines = [f"// {fn.label}", head + f"{fn.name}({params}) {{"]
    lines += _locals(fn, 4)
    lines += r.block(fn.body, 4)
    lines += ["}", ""]
    return lines


def _kernel(r: CppRenderer, fn: ir.IRFunction) -> list[str]:
    lines = ["struct Args {"]
    lines += [f"    {c_type(t)} {local(n)};" for n, t in fn.params] or ["    char unused;"]
    lines += ["};", "", "template <bool UNIT>", "static void run(const bw::launch_header& h, const Args& a) {"]
    # Arguments copied to locals: the compiler then keeps pointers and strides in registers.
    lines += [f"    {c_type(t)} {local(n)} = a.{local(n)};" for n, t in fn.params]
    dims = fn.tid_dims
    tids = ", ".join(f"int32_t tid{d}" for d in range(dims))
    lines.append(f"    auto body = [&]({tids}) __attribute__((always_inline)) {{")
    lines += _locals(fn, 8)
    lines += r.block(fn.body, 8)
    lines.append("    };")
    lines += [f"    const int64_t n{d} = h.dim[{d}];" for d in range(dims)]
    call = "body(" + ", ".join(f"(int32_t)t{d}" for d in range(dims)) + ");"
    omp = "if(h.parallel) num_threads(h.nthreads) schedule(static)"
    if dims == 1:
        lines.append(f"    #pragma omp parallel for simd {omp}")
        lines.append(f"    for (int64_t t0 = 0; t0 < n0; ++t0) {call}")
    else:
        collapse = f" collapse({dims - 1})" if dims > 2 else ""
        lines.append(f"    #pragma omp parallel for{collapse} {omp}")
        for d in range(dims - 1):
            lines.append("    " + "    " * d + f"for (int64_t t{d} = 0; t{d} < n{d}; ++t{d})")
        pad = "    " + "    " * (dims - 1)
        lines.append(pad + "{")
        lines.append(pad + "    #pragma omp simd")
        lines.append(pad + f"    for (int64_t t{dims - 1} = 0; t{dims - 1} < n{dims - 1}; ++t{dims - 1}) {call}")
        lines.append(pad + "}")
    lines += ["}", ""]
    return lines


def _entry(fn: ir.IRFunction) -> list[str]:
    return [
        f'extern "C" BW_EXPORT void {ENTRY_SYMBOL}(const char* buf) {{',
        "    const bw::launch_header& h = *reinterpret_cast<const bw::launch_header*>(buf);",
        "    const Args& a = *reinterpret_cast<const Args*>(buf + sizeof(bw::launch_header));",
        "    if (h.unit_inner) run<true>(h, a); else run<false>(h, a);",
        "}",
    ]
