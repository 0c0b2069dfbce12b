"""The stack a function's locals take: a kernel's or function's locals (tiles and fixed-size arrays among them) are
C++ locals of the thread that runs a point, on its stack, and so are copies of a kernel's by-value arguments.
Locals that alone fill the whole stack cannot run: the process would die of a segmentation fault at the launch (a
tile of 2**20 float32 values and the copy tile_load makes of it: 8 MiB). The typer refuses them at the statement
that declares the last of them instead (a kernel's arguments: at its def)."""

from __future__ import annotations

import math

from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.fixed_arrays import FixedArrayType
from ..types.type_sizes import type_size_in_bytes

#: Locals below this many bytes are not weighed against the stack (no thread's stack is smaller)
STACK_CHECK_FROM = 1 << 20

#: Copies of a kernel's by-value arguments on the stack of the thread that runs it: the entry's locals, the
#: thread's own (OpenMP's firstprivate) and the body's parameters. Measured: a 3 MiB matrix argument crashed an
#: 8 MiB stack, a 2 MiB one ran.
KERNEL_ARGUMENT_COPIES = 3

_stack_limit: list = []  # [bytes or None], found once per process


def local_bytes(t) -> int:
    """Bytes a local of type ``t`` takes (0 where the size is unknown: an array reference, a tuple)."""
    if isinstance(t, FixedArrayType):  # tiles too: the elements inline
        return math.prod(t.shape) * local_bytes(t.dtype)
    try:
        return type_size_in_bytes(t)
    except (TypeError, AttributeError, KeyError):
        return 0


def thread_stack_bytes() -> int | None:
    """The stack of the thread a launch runs on: the soft ``ulimit -s`` (the main thread's, and OpenMP's threads'
    where OMP_STACKSIZE does not set theirs); None where it is unlimited or unknown."""
    if not _stack_limit:
        try:
            import resource

            soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
            _stack_limit.append(None if soft == resource.RLIM_INFINITY or soft <= 0 else soft)
        except (ImportError, OSError, ValueError):
            _stack_limit.append(None)
    return _stack_limit[0]


def argument_bytes(params: list) -> int:
    """Bytes the copies of a kernel's by-value arguments ``[(name, type)]`` take on its thread's stack."""
    return KERNEL_ARGUMENT_COPIES * sum(local_bytes(t) for _, t in params)


def check_frame(typer, node) -> None:
    """Refuse the function typed by ``typer`` at statement ``node`` when its locals, with the frames of the deepest
    function it calls, take the whole thread stack."""
    limit = thread_stack_bytes()
    own, (called, callee) = typer.symbols.frame_bytes, typer.callee_stack
    if limit is None or own + called < limit:
        return
    sizes = [(local_bytes(t), _shown(name), t) for name, t in typer.symbols.locals.items()]
    if typer.is_kernel:  # by-value arguments: their copies
        sizes += [(argument_bytes([(name, t)]), f"argument '{name}' ({KERNEL_ARGUMENT_COPIES} copies)", t)
                  for name, t in typer.params]
    sizes.sort(key=lambda e: e[0], reverse=True)
    largest = ", ".join(f"{name} ({type_name(t)}, {_mib(n)})" for n, name, t in sizes[:3] if n * 16 >= own)
    kind = "kernel" if typer.is_kernel else "function"
    calls = f" and function '{callee}' it calls takes {_mib(called)} on top of them" if called else ""
    raise typer.error(KernelTypeError, f"the locals of {kind} '{typer.source.qualname}' take {_mib(own)} up to here"
                      f"{calls}: {own + called} bytes, at least the whole stack of the thread that runs a point "
                      f"({_mib(limit)}, ulimit -s){'; the largest are ' + largest if largest else ''}. A tile, "
                      f"fixed-size array or by-value argument is a local of that thread (tile operations make copies "
                      f"of their tiles): use smaller tiles (load parts of the array in a loop), pass large values in "
                      f"arrays, or raise the stack limit", node)


def _shown(name: str) -> str:
    return "a temporary value" if name.startswith("_") else f"'{name}'"


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"
