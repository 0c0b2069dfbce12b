"""What a Jacobian is taken of: the labels, dtypes and differentiable arrays of a kernel or function."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from ..lang.kernel import Kernel
from ..lang.modules import backward_enabled
from ..types.arrays import array

BACKWARD_DISABLED = "Kernel must have backward pass enabled to compute Jacobians"


@dataclass
class FunctionMetadata:
    """Names and types of a kernel's (or Python function's) inputs and outputs, for Jacobian plots.

    ``key`` names the kernel or function; ``input_labels``/``output_labels`` name each argument;
    ``input_dtypes``/``output_dtypes`` are the array dtypes (None for a non-array argument);
    ``input_strides``/``output_strides`` are the arrays' strides (None where unknown).
    """

    key: str | None = None
    input_labels: list = field(default_factory=list)
    output_labels: list = field(default_factory=list)
    input_strides: list = field(default_factory=list)
    output_strides: list = field(default_factory=list)
    input_dtypes: list = field(default_factory=list)
    output_dtypes: list = field(default_factory=list)


def _dtypes(values) -> list:
    return [v.dtype if isinstance(v, array) else None for v in values]


def _strides(values) -> list:
    return [v.strides if isinstance(v, array) else None for v in values]


def kernel_metadata(kernel: Kernel, inputs, outputs) -> FunctionMetadata:
    """The metadata of a launch of ``kernel``: its parameter names split after ``len(inputs)``."""
    names = [name for name, _ in kernel.params]
    if len(inputs) + len(outputs) != len(names):
        raise ValueError(f"kernel '{kernel.key}' has {len(names)} parameters ({', '.join(names)}), got "
                         f"{len(inputs)} inputs and {len(outputs)} outputs")
    return FunctionMetadata(key=kernel.key, input_labels=names[:len(inputs)], output_labels=names[len(inputs):],
                            input_strides=_strides(inputs), output_strides=_strides(outputs),
                            input_dtypes=_dtypes(inputs), output_dtypes=_dtypes(outputs))


def function_metadata(function, inputs, outputs) -> FunctionMetadata:
    """The metadata of a Python function called with ``inputs`` that returned ``outputs``."""
    try:
        params = [p.name for p in inspect.signature(function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):  # no signature (a builtin, a C callable)
        params = []
    labels = [params[i] if i < len(params) else f"input_{i}" for i in range(len(inputs))]
    return FunctionMetadata(key=getattr(function, "__name__", None), input_labels=labels,
                            output_labels=[f"output_{j}" for j in range(len(outputs))],
                            input_strides=_strides(inputs), output_strides=_strides(outputs),
                            input_dtypes=_dtypes(inputs), output_dtypes=_dtypes(outputs))


def differentiable(value) -> bool:
    """Whether ``value`` is an array of floating-point components with a gradient array."""
    return isinstance(value, array) and value.grad is not None and value.numpy().dtype.kind == "f"


def components(a: array) -> int:
    """The number of scalars of one element of ``a`` (3 for a ``vec3``)."""
    return int(np.prod(a.numpy().shape[a.ndim:], dtype=np.int64))


def check_backward(kernel) -> None:
    """Raise ValueError when ``kernel`` (by its own or its module's option) has no backward pass."""
    if not backward_enabled(kernel):
        raise ValueError(f"{BACKWARD_DISABLED} (kernel '{kernel.key}' is built with enable_backward=False)")


def _resolve(entry, labels: list, what: str) -> int:
    if isinstance(entry, str):
        if entry not in labels:
            raise ValueError(f"input_output_mask: no {what} named {entry!r} (the {what}s are "
                             f"{', '.join(map(str, labels)) or 'none'})")
        return labels.index(entry)
    if isinstance(entry, (int, np.integer)) and not isinstance(entry, bool):
        if not 0 <= entry < len(labels):
            raise ValueError(f"input_output_mask: {what} index {entry} is out of range (there are {len(labels)} "
                             f"{what}s)")
        return int(entry)
    raise TypeError(f"input_output_mask: each {what} must be a name (str) or an index (int), got "
                    f"{type(entry).__name__}")


def jacobian_pairs(meta: FunctionMetadata, inputs, outputs, mask) -> list:
    """The (input index, output index) pairs to differentiate, in order: both differentiable arrays and, when
    ``mask`` (pairs of names or indices) is given, named by it."""
    if mask is None:
        wanted = None
    else:
        wanted = set()
        for pair in mask:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"input_output_mask: each entry must be an (input, output) pair, got {pair!r}")
            wanted.add((_resolve(pair[0], meta.input_labels, "input"),
                        _resolve(pair[1], meta.output_labels, "output")))
    return [(i, j) for i, x in enumerate(inputs) if differentiable(x)
            for j, y in enumerate(outputs) if differentiable(y) and (wanted is None or (i, j) in wanted)]
