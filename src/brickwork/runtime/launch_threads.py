"""The threads of a parallel launch: ``config.num_threads`` checked and clamped, whether the process is starved of
CPU time (``starvation.py``), and one thread in a child forked after a parallel launch."""

from __future__ import annotations

import numbers
import os

from .. import config
from . import starvation as _starvation


def thread_count() -> int:
    """The threads of a parallel launch: ``config.num_threads`` (else ``default_threads``), at most
    ``config.MAX_THREADS``; a value assigned at run time that is not a whole number is a ``SettingError``
    (the environment variables are checked when brickwork is imported)."""
    n = config.num_threads or config.default_threads
    if type(n) is not int:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise config.SettingError(f"brickwork.config.num_threads must be a positive integer or None, got "
                                      f"{n!r}")
        n = int(n)
    if n < 1:  # off the common path: positive counts return below
        raise config.SettingError(f"brickwork.config.num_threads must be a positive integer or None, got {n!r}")
    n = n if n <= config.MAX_THREADS else config.MAX_THREADS
    if n > 1 and not _pool_started:
        _starting_pool()
    return n


_pool_started = False


def _starting_pool() -> None:
    """Before the first parallel region: refuse an OMP_STACKSIZE (or GOMP_STACKSIZE) whose stacks cannot be mapped
    (``100000G``): GNU OpenMP ends the process at that region ('libgomp: Thread creation failed'), with no Python
    error and nothing saved (attacker probe). The stack is mapped once here, untouched, as glibc maps a thread's."""
    global _pool_started
    from ..frontend.stack_frame import omp_stack

    found = omp_stack()
    if found is not None and found[0] < 2**64:  # beyond: libgomp finds the value invalid and ignores it
        import mmap

        try:
            mmap.mmap(-1, found[0], flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS).close()
        except (OSError, OverflowError, ValueError) as e:
            value = os.environ.get(found[1], "")
            raise config.SettingError(
                f"environment variable {found[1]}={value!r} asks for a stack of {found[0] / 2**30:.1f} GiB for each "
                f"OpenMP thread, which this machine cannot map ({e.strerror or e}): GNU OpenMP would end the process "
                f"at this parallel launch. Set it to a size the memory holds (e.g. 64M), or unset it") from None
    _pool_started = True  # the caller may run a parallel region now: OpenMP's threads exist (_serial_after_fork)


def starved() -> bool:
    """Whether launches that would run on several threads run on one now (``config.adaptive_threads``)."""
    return config.adaptive_threads and _starvation.GUARD.threads(2) == 1


def _serial_after_fork() -> None:
    """A child forked after a parallel launch runs its launches on one thread (``config.MAX_THREADS`` 1): the
    OpenMP pool's threads do not exist in the child, and GNU OpenMP's next parallel region there waited for
    them for ever (the child hung at its first parallel launch; Warp's CPU kernels use one thread)."""
    if _pool_started:
        config.MAX_THREADS = 1


os.register_at_fork(after_in_child=_serial_after_fork)

