"""Deterministic results of floating-point atomics, as Warp's ``DeterministicMode`` chooses them.

Floating-point addition does not associate, so atomics that add into one element give results that
depend on the order the threads arrive in. On the CPU a launch above ``config.parallel_threshold``
runs on several threads, in an order that changes from run to run. A kernel whose module asks for
``RUN_TO_RUN`` or ``GPU_TO_GPU`` runs on one thread, in thread-id order: its atomics then add in the
same order on every run (and on every machine, since the compiled order is the same). The one limit
(``DeterminismError``, Warp's ``WarpDeterminismError``): such a kernel that uses an atomic's result
cannot be differentiated by replay (``check_backward``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap

from ..config import DeterministicMode
from ..errors import DeterminismError

#: atomics whose returned value is the element before the update
_ATOMICS = {"atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
            "atomic_cas", "atomic_exch"}


def check_deterministic(value) -> None:
    """Raise ``ValueError`` unless ``value`` is a ``DeterministicMode`` member."""
    if not isinstance(value, DeterministicMode):
        raise ValueError(f"deterministic must be a brickwork.DeterministicMode value, got {value!r}")


def check_config(deterministic, max_records) -> None:
    """Raise unless ``config.deterministic`` and ``config.deterministic_max_records`` are valid."""
    if not isinstance(deterministic, DeterministicMode):
        raise ValueError(f"brickwork.config.deterministic must be a brickwork.DeterministicMode value, "
                         f"got {deterministic!r}")
    check_max_records(max_records, "brickwork.config.deterministic_max_records")


def check_max_records(value, name: str = "deterministic_max_records") -> None:
    """Raise unless ``value`` is a non-negative int (Warp's bound on the records per deterministic
    atomic; brickwork's one-thread order needs no records, so it is kept and checked only)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a non-negative integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")


#: read once: an enum member looked up on its class costs most of a CUDA launch's check (0.7 us of ~1)
_ANY_ORDER = DeterministicMode.NOT_GUARANTEED


def is_deterministic(options: dict) -> bool:
    """Whether module ``options`` ask for atomics in a fixed order."""
    return options.get("deterministic", _ANY_ORDER) != _ANY_ORDER


def runs_serially(kernel) -> bool:
    """Whether a launch of ``kernel`` must run on one thread (its module asks for determinism)."""
    module = getattr(kernel, "module", None) or getattr(getattr(kernel, "kernel", None), "module", None)
    return module is not None and is_deterministic(module.options)


def check_backward(kernel) -> None:
    """Raise ``DeterminismError`` before the backward launch of a deterministic kernel that uses the value
    an atomic returns (a slot from a counter, say): the backward kernel replays the forward code, and by
    then the atomic's target holds its final value, so the replay would read other slots than the
    forward pass did (and gradients would land in the wrong, possibly out-of-bounds, elements)."""
    if not runs_serially(kernel):
        return
    k = getattr(kernel, "kernel", kernel)
    found = k.__dict__.get("_consumed_atomic", False)
    if found is False:
        found = k.__dict__["_consumed_atomic"] = _consumed_atomic(k.func, set())
    if found is not None:
        name, where = found
        raise DeterminismError(
            f"Deterministic mode cannot differentiate kernel '{k.key}' automatically: the forward pass uses "
            f"the value returned by {name}() ({where}), and the backward pass would replay it after the target "
            f"array has changed. Fix: save the forward slots in an array and read them in a @wp.func_replay, "
            f"set enable_backward=False when the kernel needs no gradient, or disable deterministic mode")


def _consumed_atomic(pyfunc, seen: set):
    """``(atomic name, "file:line")`` of the first atomic call in ``pyfunc`` or the ``@func`` functions it
    calls whose returned value is used (not a bare statement), or None. Functions with a
    ``@func_replay`` are not looked into: their replay, not their body, runs in the backward pass."""
    if id(pyfunc) in seen:
        return None
    seen.add(id(pyfunc))
    try:
        source = textwrap.dedent(inspect.getsource(pyfunc))
        filename = inspect.getsourcefile(pyfunc) or "<unknown>"
        first = inspect.getsourcelines(pyfunc)[1]
    except (OSError, TypeError):  # no source (built at run time): nothing to look into
        return None
    tree = ast.parse(source)
    bare = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    scope = dict(getattr(pyfunc, "__globals__", {}))
    closure = getattr(pyfunc, "__closure__", None) or ()
    scope.update((n, c.cell_contents) for n, c in zip(pyfunc.__code__.co_freevars, closure) if _filled(c))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name in _ATOMICS and id(node) not in bare:
            return name, f"{filename}:{first + node.lineno - 1}"
        callee = scope.get(name) if isinstance(node.func, ast.Name) else None
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):  # helpers.f(...)
            callee = getattr(scope.get(node.func.value.id), name, None)
        for inner in _func_bodies(callee):
            found = _consumed_atomic(inner, seen)
            if found is not None:
                return found
    return None


def _filled(cell) -> bool:
    try:
        return cell.cell_contents is not _filled  # only reads it: an unbound free variable raises
    except ValueError:
        return False


def _func_bodies(callee) -> list:
    """The Python functions of the overloads of a ``@func`` without a ``@func_replay`` (else none)."""
    from .function import Function

    if not isinstance(callee, Function) or callee.custom_replays:
        return []
    return [o.pyfunc for o in callee.overloads]
