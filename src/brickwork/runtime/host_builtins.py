"""The host versions of random numbers and noise: ``wp.rand_init(42)``, ``wp.randf(state)``,
``wp.noise(state, p)`` called from Python.

As in Warp, these builtins also run on the host, and give there the values a kernel gives: each call runs
the builtin in a one-thread CPU kernel (compiled once per builtin and argument types, then cached), so the
host and kernels share one implementation, bit for bit. The arguments keep their kernel types (a Python
int is an int32, wrapping; a float a float32); the state is passed by value, so a host call does not
advance it. Results come back as Warp returns them: a Python float for float32, an int for int32, else a
scalar or vector of the result's type.
"""

from __future__ import annotations

from typing import Any

from .. import config
from ..builtins import FUNCTIONS
from ..builtins.functions import KERNEL_EVALUATED
from ..builtins.host_typing import kernel_type, no_overload, typed_result
from ..builtins.param_names import BindError, bind_keywords
from ..types.scalars import float32

_KERNELS: dict = {}  # (builtin name, number of arguments) -> kernel


def install_host_builtins() -> None:
    """Give each builtin of ``KERNEL_EVALUATED`` its host version (called once, by ``import brickwork``)."""
    for name in KERNEL_EVALUATED:
        FUNCTIONS[name].host = host_via_kernel(name)


def host_via_kernel(name: str):
    """The host version of builtin ``name``: the builtin evaluated by a one-thread CPU kernel."""

    def host(*args, **kwargs):
        args = _bind(name, args, kwargs)
        types = [_argument_type(a) for a in args]
        if any(t is None for t in types):
            raise no_overload(name, args)
        from ..builtins.registry import Unsupported
        from ..builtins.table import Mismatch, resolve

        try:
            _, result = resolve(name, types)
        except (Mismatch, Unsupported):
            raise no_overload(name, args) from None
        return _run(name, args, types, result)

    host.__name__ = name
    return host


def _bind(name: str, args: tuple, kwargs: dict) -> tuple:
    """Positional arguments, then keywords by Warp's parameter names (trailing optional ones left out)."""
    if not kwargs:
        return args
    try:
        return tuple(bind_keywords(name, list(args), list(kwargs.items()), _host_default))
    except BindError as e:
        raise TypeError(str(e)) from None


def _host_default(value, t):
    """A default of ``PARAM_DEFAULTS`` as a host argument: a Python float for float32 (as a caller writes it),
    else a value of its type."""
    return value if t is float32 else t(value)


def _argument_type(x):
    """The kernel type of a host argument: a scalar's (see ``kernel_type``), a vector's own; None otherwise."""
    from ..types.composite import CompositeBase

    if isinstance(x, CompositeBase):
        return type(x)
    return kernel_type(x)


def _run(name: str, args: tuple, types: list, result):
    from ..types.array_constructors import empty
    from ..types.arrays import array
    from .launch import launch_now

    inputs = [array([t._convert(a) if hasattr(t, "_convert") and not isinstance(a, t) else a], dtype=t,
                    device="cpu") for a, t in zip(args, types)]
    out = empty(1, dtype=result, device="cpu")
    # run now, also during a graph capture (a host call's value is wanted at once; it was read unwritten)
    if config.print_launches:  # a host call is no launch of the program's (Warp's compute natively): not printed
        with config.override(print_launches=False):
            launch_now(_kernel(name, len(args)), 1, "cpu", *inputs, out)
    else:
        launch_now(_kernel(name, len(args)), 1, "cpu", *inputs, out)
    value = out.numpy()[0]
    if getattr(result, "_shape", None) is not None:  # a vector
        return result(value)
    return typed_result(value, result)


def _kernel(name: str, arity: int):
    found = _KERNELS.get((name, arity))
    if found is None:
        from ..lang.kernel import kernel

        found = _KERNELS[(name, arity)] = kernel(_BODIES[arity](FUNCTIONS[name]), module="unique",
                                                 enable_backward=False)
    return found


def _body1(f):
    def call1(a: Any, out: Any):
        out[0] = f(a[0])
    return call1


def _body2(f):
    def call2(a: Any, b: Any, out: Any):
        out[0] = f(a[0], b[0])
    return call2


def _body3(f):
    def call3(a: Any, b: Any, c: Any, out: Any):
        out[0] = f(a[0], b[0], c[0])
    return call3


def _body4(f):
    def call4(a: Any, b: Any, c: Any, d: Any, out: Any):
        out[0] = f(a[0], b[0], c[0], d[0])
    return call4


def _body5(f):
    def call5(a: Any, b: Any, c: Any, d: Any, e: Any, out: Any):
        out[0] = f(a[0], b[0], c[0], d[0], e[0])
    return call5


def _body6(f):
    def call6(a: Any, b: Any, c: Any, d: Any, e: Any, g: Any, out: Any):
        out[0] = f(a[0], b[0], c[0], d[0], e[0], g[0])
    return call6


_BODIES = {1: _body1, 2: _body2, 3: _body3, 4: _body4, 5: _body5, 6: _body6}
