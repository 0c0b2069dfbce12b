"""``Launch``: a launch recorded to run later (``launch(..., record_cmd=True)``, or Warp's constructor), its
arguments and grid changed between runs."""

from __future__ import annotations

import numpy as np

from ..errors import BrickworkError, LaunchArgumentError
from ..types.arrays import ArrayType, array, type_name
from ..types.composite import is_composite_type
from ..types.generic import is_generic
from ..types.scalars import ScalarBase, is_scalar_type
from ..types.structs import is_struct_type


class UnknownParameterError(BrickworkError, ValueError, KeyError):
    """A parameter name the recorded launch's kernel lacks: a ``ValueError``, as Warp's (and a ``KeyError``, as
    brickwork's was, and a ``BrickworkError`` as every error brickwork raises), its message unquoted."""

    __str__ = Exception.__str__


class Launch:
    """A recorded launch (``launch(..., record_cmd=True)``): run it with ``launch()``, change its
    arguments with ``set_param_at_index``/``set_param_by_name``/``set_params`` and its grid with
    ``set_dim``. Each ``launch()`` goes through ``brickwork.launch`` with the current values.

    An adjoint launch (``adjoint=True``) runs the backward kernel; its adjoint arguments are set with
    ``adjoint=True`` on the setters. An array argument whose adjoint is unset accumulates into its own
    ``.grad`` (as Warp, where an array's gradient takes precedence)."""

    def __init__(self, kernel, device=None, hooks=None, params=None, params_addr=None, bounds=None, max_blocks=0,
                 block_dim=256, adjoint=False, adj_params=None):
        """Warp's constructor: ``Launch(kernel, device)`` starts with each parameter at its zero value (an
        empty array, a zero scalar, vector or struct) and ``dim`` 1; ``params``/``bounds`` give them."""
        self.kernel, self.device, self.adjoint = kernel, device, bool(adjoint)
        self.params = list(params) if params is not None else [_zero_argument(t) for _, t in kernel.params]
        self.adj_params = list(adj_params) if adj_params is not None else [None] * len(self.params)
        self.dim = bounds if bounds is not None else 1

    def _index(self, index: int) -> int:
        if not 0 <= index < len(self.params):
            raise IndexError(f"kernel '{self.kernel.key}' has {len(self.params)} parameters, no index {index}")
        return index

    def set_param_at_index(self, index: int, value, adjoint: bool = False) -> None:
        name, t = self.kernel.params[self._index(index)]
        if is_composite_type(t) and (isinstance(value, (int, float, ScalarBase)) or np.ndim(value) == 0):
            raise LaunchArgumentError(f"kernel '{self.kernel.key}': argument '{name}' expects {type_name(t)} but got "
                                      f"a single value")
        if adjoint:
            if not self.adjoint:
                raise ValueError(f"kernel '{self.kernel.key}': the launch is not an adjoint launch, so it has no "
                                 f"adjoint of '{name}' to set")
            self.adj_params[index] = value
        else:
            self.params[index] = value

    def set_param_at_index_from_ctype(self, index: int, value, adjoint: bool = False) -> None:
        """Warp's setter without conversion: the same as ``set_param_at_index`` here (values made by
        ``__ctype__()`` carry the value they were made from)."""
        self.set_param_at_index(index, _from_ctype(value), adjoint)

    def set_param_by_name(self, name: str, value, adjoint: bool = False) -> None:
        self.set_param_at_index(self._name_index(name), value, adjoint)

    def set_param_by_name_from_ctype(self, name: str, value) -> None:
        self.set_param_at_index_from_ctype(self._name_index(name), value)

    def _name_index(self, name: str) -> int:
        names = [n for n, _ in self.kernel.params]
        if name not in names:
            raise UnknownParameterError(f"kernel '{self.kernel.key}' has no parameter {name!r} "
                                        f"(it has {', '.join(names)})")
        return names.index(name)

    def set_params(self, values) -> None:
        values = list(values)
        if len(values) != len(self.params):
            raise ValueError(f"kernel '{self.kernel.key}' takes {len(self.params)} parameters, got {len(values)}")
        self.params = values

    def set_params_from_ctypes(self, values) -> None:
        self.set_params([_from_ctype(v) for v in values])

    def set_dim(self, dim) -> None:
        self.dim = dim

    def launch(self, stream=None) -> None:
        if self.adjoint:
            from .tape import launch_adjoint

            adjs = grads_for_missing(self.params, self.adj_params)
            launch_adjoint(self.kernel, self.dim, self.params, (), adjs, None, self.device)
            return
        (_launch or _import_launch())(self.kernel, self.dim, inputs=self.params, device=self.device)


def grads_for_missing(args, adjs) -> list:
    """The adjoints of a backward launch: where one is missing (None), an array argument's own ``.grad``."""
    if len(adjs) != len(args):
        return adjs  # launch_adjoint reports the count
    return [a.grad if adj is None and isinstance(a, array) and a.grad is not None else adj
            for a, adj in zip(args, adjs)]


def _from_ctype(value):
    """The value a ``__ctype__()`` result stands for (other values as they are)."""
    return getattr(value, "_bw_value", value)


def _zero_argument(t):
    """The value a parameter of declared type ``t`` has in a Launch built by hand (None: an empty array)."""
    if is_generic(t) or isinstance(t, ArrayType):
        return None
    if is_composite_type(t):
        return t(0)  # zero-initialized, as Warp (a transform's rotation too)
    if is_scalar_type(t) or is_struct_type(t):
        return t()
    return None


_launch = None  # runtime.launch.launch, imported at the first run (runtime.launch imports this module)


def _import_launch():
    global _launch
    from .launch import launch

    _launch = launch
    return launch
