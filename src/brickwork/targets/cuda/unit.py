"""The CUDA translation unit of one GPU-mapped kernel instance.

The GPU mapping's passes (``passes.gpu_pass_list``) have already turned the kernel into the code of
one thread of a one-dimensional grid of blocks (``IRFunction.gpu_launch``): a plain kernel is one
thread per launch point with a bounds guard, a loop-abstraction slice or ``par_for_outer`` team is
one block. This module declares what the mapped code needs around it:

- ``body<UNIT>``: the kernel's code as a ``__device__`` function of the arguments, the launch's
  extents ``n0..n3``, the block's scratch arena (a kernel with one: ``bw_blk``, whose type, a
  template parameter, says which memory it is in) and the static shared buffers;
- ``bw_entry(const Packed p, char* bw_arena_global)``: the ``extern "C" __global__`` function. ``p``
  is the same packed argument block as the CPU entry's (``bw::launch_header``, then ``Args``). The
  static shared buffers (the reduction tree) are declared here, as bytes (shared memory cannot run
  constructors); the arena, if any, is the dynamic shared memory;
- ``bw_entry_global``, beside it where the arena's size depends on the arguments: the same body with
  the block's part of the launch's global scratch buffer ``bw_arena_global`` as its arena, which the
  host launches where the arena does not fit in shared memory (null for every other launch). Two
  entries rather than a base chosen at run time: the body of ``bw_entry`` then knows its scratch is
  in shared memory and uses shared-memory instructions (a generic load or store otherwise).

An instance is first built with the unit-stride body only (``body<true>`` in each entry): NVRTC's time
grows with each instantiation of the body, and nearly every launch passes arrays of unit innermost stride
(and, on a GPU, of fewer than 2**31 elements: ``DeviceArray._unit_inner``). The host reads the packed
header's ``unit_inner`` before the launch (``runtime/cuda_launch.py``); a launch without it runs the
instance's ``strided`` variant (``Instance.general_entry``, built the first time), whose entry holds
both bodies and whose global entry the general one (right for every launch), as the CPU target does with
a declined launch (``cpu.unit._entry``).
"""

from __future__ import annotations

from ... import ir
from ..cpu.cnames import c_type
from ..cpu.render import local
from ..cpu.unit import UnitScan, _locals, struct_declarations
from . import ENTRY_SYMBOL, GLOBAL_ENTRY_SYMBOL
from .geometry import arena_always_fits
from .render import CudaRenderer, shared_name


def render_translation_unit(kernel: ir.IRFunction, callees: list, label: str, general_strides: bool = False) -> str:
    """CUDA C++ of one GPU-mapped kernel instance and every function and struct it reaches: its entries
    run the unit-stride body only, or both bodies where ``general_strides`` (the ``strided`` variant)."""
    launch = kernel.gpu_launch
    if launch is None:
        raise ValueError(f"{label}: the kernel was not mapped to a GPU grid (run the GPU pass list first)")
    r = CudaRenderer()
    scan = UnitScan([*callees, kernel])
    out = [f"// brickwork CUDA kernel instance {label}", '#include "brickwork_cuda.h"', *scan.includes,
           "namespace {", ""]
    out.extend(struct_declarations(scan))
    for fn in callees:
        out.extend(_function(r, fn, id(fn) in scan.taped))
    shared = shared_buffers(kernel)
    arena = ir.contains(kernel.body, ir.IRGpuArena)
    out.extend(_kernel_body(r, kernel, shared, arena, id(kernel) in scan.taped))
    out.append("}  // namespace")
    if not arena:
        out.extend(_entry(kernel, launch, shared, ENTRY_SYMBOL, None, general_strides))
    else:
        out.extend(_entry(kernel, launch, shared, ENTRY_SYMBOL, "shared", general_strides))
        if not arena_always_fits(launch.get("arena"), int(launch.get("shared_limit", 0))):
            out.extend(_entry(kernel, launch, shared, GLOBAL_ENTRY_SYMBOL, "global", general_strides))
    return "\n".join(out) + "\n"


def shared_buffers(fn: ir.IRFunction) -> dict:
    """name -> IRSharedBuffer of every static shared buffer the kernel uses (one per name)."""
    found: dict = {}
    for node in ir.walk(fn.body):
        if isinstance(node, ir.IRSharedBuffer):
            found.setdefault(node.name, node)
    return found


def _function(r: CudaRenderer, fn: ir.IRFunction, taped: bool) -> list[str]:
    """A ``@func`` instance as a ``__device__`` function (templated on unit innermost strides, as on the CPU)."""
    params = ", ".join(f"{c_type(t)} {local(n)}" for n, t in fn.params)
    attribute = "__noinline__" if fn.inline is False else "__forceinline__"  # @func(inline=False): out of line
    lines = [f"// {fn.label}", f"template <bool UNIT> __device__ {attribute} {c_type(fn.return_type)} "
             f"{fn.name}({params}) {{"]
    lines += _locals(fn, 4, taped)
    lines += r.begin(fn).block(fn.body, 4)
    return lines + ["}", ""]


def _kernel_body(r: CudaRenderer, fn: ir.IRFunction, shared: dict, arena: bool, taped: bool) -> list[str]:
    # The arguments by value: assigning to a parameter stays local to one thread, as in Python.
    sig = [f"{c_type(t)} {local(n)}" for n, t in fn.params]
    sig += [f"const int32_t n{d}" for d in range(fn.tid_dims)]
    sig += ["const ARENA bw_blk"] if arena else []  # bw::gpu_shared_arena or bw::gpu_global_arena
    sig += [f"{c_type(b.type.dtype)}* {shared_name(n)}" for n, b in shared.items()]
    lines = ["template <bool UNIT, class ARENA>" if arena else "template <bool UNIT>",
             f"__device__ __forceinline__ void body({', '.join(sig)}) {{"]
    lines += [f"    (void)n{d};" for d in range(fn.tid_dims)]
    lines += _locals(fn, 4, taped)
    lines += r.begin(fn).block(fn.body, 4)
    lines += ["}", "", "struct Args {"]
    lines += [f"    {c_type(t)} {local(n)};" for n, t in fn.params] or ["    char unused;"]
    lines += ["};", "", "struct Packed {  // the CPU entry's buffer: header, then the arguments",
              "    bw::launch_header h;", "    Args a;", "};", ""]
    return lines


def _entry(fn: ir.IRFunction, launch: dict, shared: dict, name: str, arena: str | None,
           general_strides: bool) -> list[str]:
    """The ``__global__`` function ``name``: its static shared buffers and its arena (``arena``: "shared",
    "global" or None), then the unit-stride body; where ``general_strides``, the body for unit or general
    innermost strides (the global arena's: general only, the rarer launch compiles one body)."""
    lines = [f'extern "C" __global__ void __launch_bounds__({launch["block"]}) '
             f"{name}(const Packed p, char* bw_arena_global) {{"]
    if arena == "shared":
        lines.append("    extern __shared__ __align__(64) unsigned char bw_arena_shared[];  // the arena: it fits")
    for n, b in shared.items():  # bytes: a shared variable cannot have a constructor
        t = c_type(b.type.dtype)
        lines.append(f"    __shared__ __align__(16) unsigned char {shared_name(n)}_bytes[{b.count} * sizeof({t})];")
    args = [f"p.a.{local(n)}" for n, _ in fn.params] + [f"(int32_t)p.h.dim[{d}]" for d in range(fn.tid_dims)]
    if arena == "shared":
        args.append("bw::gpu_shared_arena{bw_arena_shared}")
    elif arena == "global":
        args.append("bw::gpu_global_arena{bw_arena_global}")
    args += [f"reinterpret_cast<{c_type(b.type.dtype)}*>({shared_name(n)}_bytes)" for n, b in shared.items()]
    args_text = ", ".join(args)
    if not general_strides:
        lines += [f"    body<true>({args_text});", "}"]
    elif arena == "global":
        lines += [f"    body<false>({args_text});", "}"]
    else:
        lines += [f"    if (p.h.unit_inner) body<true>({args_text}); else body<false>({args_text});", "}"]
    return lines

