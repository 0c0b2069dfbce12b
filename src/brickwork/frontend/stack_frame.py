"""The stack a function's locals take: a kernel's or function's locals (tiles and fixed-size arrays among them) are
C++ locals of the thread that runs a point, on its stack, and so are copies of a kernel's by-value arguments.
Locals that alone fill the whole stack cannot run: the process would die of a segmentation fault at the launch (a
tile of 2**20 float32 values and the copy tile_load makes of it: 8 MiB). The typer refuses them at the statement
that declares the last of them instead (a kernel's arguments: at its def)."""

from __future__ import annotations

import ctypes
import math
import os
import threading

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

_stack_limit: list = []  # [(bytes or None, where the size comes from)], found once per process

#: libgomp's units of OMP_STACKSIZE (kilobytes without one)
_UNITS = {"": 2**10, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30}


def local_bytes(t) -> int:
    """Bytes a local of type ``t`` takes (0 where the size is unknown: an array reference, a tuple)."""
    if isinstance(t, FixedArrayType):  # tiles too: the elements inline
        return math.prod(t.shape) * local_bytes(t.dtype)
    try:
        return type_size_in_bytes(t)
    except (TypeError, AttributeError, KeyError):
        return 0


def thread_stack_bytes() -> int | None:
    """The smallest stack of the threads a launch runs points on; None where no limit is known."""
    return stack_limit()[0]


def stack_limit() -> tuple[int | None, str]:
    """``(bytes, source)`` of the smallest stack a point may run on: the main thread's (the soft ``ulimit -s``) or
    another thread's (OpenMP's workers, a Python thread): OMP_STACKSIZE (or GOMP_STACKSIZE) for OpenMP's, else the
    default of new threads, which glibc takes from a finite ``ulimit -s`` and sets to a few MiB under an unlimited
    one (so ``ulimit -s unlimited`` checked nothing and a launch over OpenMP's 2 MiB stacks died, attacker probe)."""
    if not _stack_limit:
        found = [(n, source) for n, source in (_main_stack(), omp_stack() or _default_thread_stack()) if n]
        _stack_limit.append(min(found, key=lambda e: e[0]) if found else (None, "unknown"))  # ties: ulimit -s
    python_threads = threading.stack_size()  # threads started from here on (0: the default); read at each check
    if python_threads and (_stack_limit[0][0] is None or python_threads < _stack_limit[0][0]):
        return python_threads, "threading.stack_size()"
    return _stack_limit[0]


def _main_stack() -> tuple[int | None, str]:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    except (ImportError, OSError, ValueError):
        return None, ""
    return (None if soft == resource.RLIM_INFINITY or soft <= 0 else soft), "ulimit -s"


def omp_stack() -> tuple[int, str] | None:
    """The stack OpenMP's workers get from OMP_STACKSIZE or GOMP_STACKSIZE, read as libgomp reads them (a number
    and a unit, B, K, M or G; K without one); None where neither is set to a size (libgomp ignores such a value)."""
    for name in ("OMP_STACKSIZE", "GOMP_STACKSIZE"):
        text = os.environ.get(name, "").strip().lower()
        number, unit = (text[:-1].strip(), text[-1]) if text and text[-1] in "bkmg" else (text, "")
        if number.isdigit() and number.isascii() and int(number) > 0:
            return int(number) * _UNITS[unit], name
    return None


def _default_thread_stack() -> tuple[int | None, str]:
    """The stack size glibc gives a new thread by default (pthread_attr_getstacksize of a fresh attribute)."""
    try:
        libc = ctypes.CDLL(None)
        attr, size = ctypes.create_string_buffer(256), ctypes.c_size_t(0)  # larger than any pthread_attr_t
        if libc.pthread_attr_init(attr) != 0:
            return None, ""
        try:
            ok = libc.pthread_attr_getstacksize(attr, ctypes.byref(size)) == 0
        finally:
            libc.pthread_attr_destroy(attr)
    except (OSError, AttributeError, TypeError):  # no C library to ask (TypeError: CDLL(None) on Windows)
        return None, ""
    return (size.value if ok and size.value > 0 else None), "the default stack of new threads, OpenMP's among them"


def argument_bytes(params: list) -> int:
    """Bytes the copies of a kernel's by-value arguments ``[(name, type)]`` take on its thread's stack."""
    return KERNEL_ARGUMENT_COPIES * sum(local_bytes(t) for _, t in params)


def check_frame(typer, node) -> None:
    """Refuse the function typed by ``typer`` at statement ``node`` when its locals, with the frames of the deepest
    function it calls, take the whole thread stack."""
    limit, source = stack_limit()
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
                      f"({_mib(limit)}, {source}){'; the largest are ' + largest if largest else ''}. A tile, "
                      f"fixed-size array or by-value argument is a local of that thread (tile operations make copies "
                      f"of their tiles): use smaller tiles (load parts of the array in a loop), pass large values in "
                      f"arrays, or raise the stack limit", node)


def _shown(name: str) -> str:
    return "a temporary value" if name.startswith("_") else f"'{name}'"


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"
