"""Sanitizers whose runtime a kernel library cannot bring with it.

``BRICKWORK_CFLAGS=-fsanitize=address`` builds kernels that link AddressSanitizer's runtime, which must be
loaded when the program starts, before any other library: loaded later, by the ``dlopen`` of a kernel, it
prints "ASan runtime does not come first in initial library list" and ends the process (a notebook's kernel
dies; no exception reaches Python). ThreadSanitizer's and LeakSanitizer's fail the ``dlopen`` instead
("cannot allocate memory in static TLS block"). ``runtime_problem`` says so before the load, naming the
preload that makes it work; UndefinedBehaviorSanitizer needs none.
"""

from __future__ import annotations

import ctypes
import functools

#: ``-fsanitize=`` names whose runtime must be preloaded: a symbol the runtime defines, and its library
PRELOADED = {"address": ("__asan_init", "libasan.so"), "hwaddress": ("__hwasan_init", "libhwasan.so"),
             "thread": ("__tsan_init", "libtsan.so"), "memory": ("__msan_init", "libmsan.so"),
             "leak": ("__lsan_init", "liblsan.so")}


@functools.cache
def runtime_problem(cflags: str, cxx: str = "g++") -> str | None:
    """The message for ``cflags`` (``BRICKWORK_CFLAGS``) asking for a sanitizer whose runtime this process has
    not loaded, or None (no such flag, or its runtime preloaded). Once per value: a dict lookup afterwards."""
    names = [name for flag in cflags.split() if flag.startswith("-fsanitize=")
             for name in flag[len("-fsanitize="):].split(",")]
    process = None
    for name in names:
        if name in PRELOADED:
            symbol, library = PRELOADED[name]
            process = process or ctypes.CDLL(None)
            if not hasattr(process, symbol):
                return (f"BRICKWORK_CFLAGS={cflags!r} builds kernels with -fsanitize={name}, whose runtime must be "
                        f"loaded when the program starts, before any other library; loaded with a kernel it "
                        f"{'ends the process' if name in ('address', 'hwaddress', 'memory') else 'fails'}. Run "
                        f"Python under LD_PRELOAD=$({cxx} -print-file-name={library}), or leave -fsanitize={name} "
                        f"out of BRICKWORK_CFLAGS")
    return None
