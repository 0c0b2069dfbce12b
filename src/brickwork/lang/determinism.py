"""Deterministic results of floating-point atomics, as Warp's ``DeterministicMode`` chooses them.

Floating-point addition does not associate, so atomics that add into one element give results that
depend on the order the threads arrive in. On the CPU a launch above ``config.parallel_threshold``
runs on several threads, in an order that changes from run to run. A kernel whose module asks for
``RUN_TO_RUN`` or ``GPU_TO_GPU`` runs on one thread, in thread-id order: its atomics then add in the
same order on every run (and on every machine, since the compiled order is the same).
"""

from __future__ import annotations

from ..config import DeterministicMode


def check_deterministic(value) -> None:
    """Raise ``ValueError`` unless ``value`` is a ``DeterministicMode`` member."""
    if not isinstance(value, DeterministicMode):
        raise ValueError(f"deterministic must be a brickwork.DeterministicMode value, got {value!r}")


def check_max_records(value) -> None:
    """Raise unless ``value`` is a non-negative int (Warp's bound on the records per deterministic
    atomic; brickwork's one-thread order needs no records, so it is kept and checked only)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"deterministic_max_records must be a non-negative integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"deterministic_max_records must be non-negative, got {value}")


def is_deterministic(options: dict) -> bool:
    """Whether module ``options`` ask for atomics in a fixed order."""
    return options.get("deterministic", DeterministicMode.NOT_GUARANTEED) != DeterministicMode.NOT_GUARANTEED


def runs_serially(kernel) -> bool:
    """Whether a launch of ``kernel`` must run on one thread (its module asks for determinism)."""
    module = getattr(kernel, "module", None) or getattr(getattr(kernel, "kernel", None), "module", None)
    return module is not None and is_deterministic(module.options)
