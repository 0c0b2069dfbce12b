"""``wp.map``: apply a function to arrays element by element (Warp's ``wp.map``).

``map(f, *inputs)`` types ``f`` (a builtin, a ``@func``, or a Python function or lambda, which becomes a
``@func``) for the inputs' element types, writes a kernel that reads one element of each array input
(broadcast as numpy broadcasts: shapes aligned on the right, extents of 1 stretched), passes the other
inputs as they are, and stores each result in an output array; then launches it over the broadcast
shape. Kernels are written once per function, input kinds and broadcast pattern.
"""

from __future__ import annotations

import hashlib
import linecache

import numpy as np

from ..builtins import BuiltinFunction, Mismatch
from ..builtins.registry import resolve
from ..lang.function import Function
from ..lang.function_from_python import create_warp_function
from ..lang.kernel import Kernel, kernel
from ..types import array_arithmetic as _array_arithmetic
from ..types.array_constructors import empty
from ..types.arrays import ArrayType, array, type_name
from ..types.generic import type_of_value
from ..types.indexed_arrays import indexedarray
from ..types.opaque import TupleType
from .launch import launch

_KERNELS: dict = {}  # (function, input descriptors, output count) -> Kernel

_ARRAYS = (array, indexedarray)  # what map takes and fills: arrays and indexed arrays (not fabric arrays)


def _function_name(fn) -> str:
    if isinstance(fn, BuiltinFunction):
        return fn.name
    return fn.qualname.replace("<", "").replace(">", "").replace(".", "__")


def _broadcast(shapes: list[tuple]) -> tuple:
    shape = shapes[0]
    for other in shapes[1:]:
        n = max(len(shape), len(other))
        a, b = (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(other)) + tuple(other)
        if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
            raise ValueError(f"Shapes {shape} and {other} are not broadcastable")
        shape = tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(a, b))
    return shape


def _result_types(fn, arg_types: list) -> list:
    """The types ``fn`` returns for ``arg_types`` (one per output); TypeError when it cannot take them."""
    try:
        if isinstance(fn, BuiltinFunction):
            from ..builtins import table  # noqa: F401 - registers the typing rules (loaded on first use)

            result = resolve(fn.name, list(arg_types))[1]
        else:
            from .. import pipeline  # typing is part of the compiler, imported on first use

            overload = fn.select(list(arg_types))
            result = overload.instantiate(list(arg_types), pipeline._compiler().InstantiationContext()).return_type
    except Mismatch:
        got = ", ".join(type_name(t) for t in arg_types)
        raise TypeError(f"Function {_function_name(fn)} does not support the provided argument types {got}") from None
    if result is None:
        raise TypeError("The provided function must return a value")
    return list(result.types) if isinstance(result, TupleType) else [result]


def _check_outputs(out, shape: tuple, types: list) -> list:
    if isinstance(out, _ARRAYS):
        if len(types) != 1:
            dtypes = ", ".join(type_name(t) for t in types)
            raise TypeError(f"Invalid output provided, expected {len(types)} Warp arrays with shape {shape} and "
                            f"dtypes ({dtypes})")
        outs, labels = [out], ["Output array"]
    else:
        outs = list(out)
        if len(outs) != len(types):
            raise TypeError(f"Number of provided output arrays ({len(outs)}) does not match expected number of "
                            f"function outputs ({len(types)})")
        labels = [f"Output array {i}" for i in range(len(outs))]
    for label, a, t in zip(labels, outs, types):
        if not isinstance(a, _ARRAYS):
            raise TypeError(f"{label} must be an array, got {type(a).__name__}")
        if a.dtype is not t:
            raise TypeError(f"{label} dtype {type_name(a.dtype)} does not match expected dtype {type_name(t)}")
        if tuple(a.shape) != shape:
            raise TypeError(f"{label} shape {tuple(a.shape)} does not match expected shape {shape}")
    return outs


def _source(name: str, inputs: list, shape: tuple, n_out: int) -> str:
    """The text of the kernel: parameters ``in0..`` (annotated ``A0..``), ``out0..`` (``O0..``), one call."""
    ndim = len(shape)
    tids = [f"i{d}" for d in range(ndim)]
    args = []
    for k, value in enumerate(inputs):
        if not isinstance(value, _ARRAYS):
            args.append(f"in{k}")
            continue
        lead = ndim - value.ndim
        index = ["0" if extent == 1 and shape[lead + j] != 1 else tids[lead + j]  # a stretched extent of 1
                 for j, extent in enumerate(value.shape)]
        args.append(f"in{k}[{', '.join(index)}]")
    params = [f"in{k}: A{k}" for k in range(len(inputs))] + [f"out{k}: O{k}" for k in range(n_out)]
    results = [f"r{k}" for k in range(n_out)]
    lines = [f"def {name}({', '.join(params)}):",
             f"    {', '.join(tids)} = wp.tid()",
             f"    {', '.join(results)} = F({', '.join(args)})"]
    lines += [f"    out{k}[{', '.join(tids)}] = r{k}" for k in range(n_out)]
    return "\n".join(lines) + "\n"


def _map_kernel(fn, inputs: list, arg_types: list, shape: tuple, result_types: list, out_types=None) -> Kernel:
    """The map kernel; ``out_types`` are the output parameters' array types (default: new arrays)."""
    out_types = tuple(out_types or (ArrayType(t, len(shape)) for t in result_types))
    pattern = tuple((t, (type(v), tuple(e == 1 for e in v.shape)) if isinstance(v, _ARRAYS) else None)
                    for v, t in zip(inputs, arg_types))
    key = (fn, pattern, len(shape), tuple(e == 1 for e in shape), out_types)
    found = _KERNELS.get(key)
    if found is not None:
        return found
    name = "map_" + hashlib.sha256(repr((_function_name(fn), pattern, shape, out_types)).encode()).hexdigest()[:16]
    text = _source(name, inputs, shape, len(result_types))
    filename = f"<brickwork map kernel {name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    import brickwork  # the generated text spells the kernel language as users do (wp.tid)

    namespace = {"wp": brickwork, "F": fn, "__name__": __name__}
    for k, (value, t) in enumerate(zip(inputs, arg_types)):
        namespace[f"A{k}"] = value._key if isinstance(value, _ARRAYS) else t  # an array or indexed array type
    for k, t in enumerate(out_types):
        namespace[f"O{k}"] = t
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - text written above from types only
    made = kernel(namespace[name])
    _KERNELS[key] = made
    return made


def map(func, *inputs, out=None, return_kernel: bool = False, block_dim=None, device=None):  # noqa: A001
    """Apply ``func`` element by element to ``inputs``, as Warp's ``wp.map``.

    ``func`` is a builtin (``wp.sin``), a ``@func`` or a Python function or lambda (made a ``@func`` by
    ``create_warp_function``). Array inputs are broadcast against each other as numpy broadcasts; other
    inputs (numbers, vectors, structs) are passed to every call. Returns a new array of the results (a
    list of arrays when ``func`` returns several values), or fills ``out`` (an array, or a list of them)
    and returns it. ``return_kernel=True`` returns the generated kernel (inputs, then outputs) instead of
    running it. The outputs have gradients when an input has one, so ``wp.Tape`` differentiates the map.
    """
    if not isinstance(func, (Function, BuiltinFunction)):
        func = create_warp_function(func)[0]
    arrays = [v for v in inputs if isinstance(v, _ARRAYS)]
    if not arrays:
        raise ValueError("map requires at least one warp.array input")
    if isinstance(func, Function):
        counts = {len(o.params) for o in func.overloads}
        if len(inputs) not in counts:
            raise TypeError(f"Number of input arguments ({len(inputs)}) does not match expected number of function "
                            f"arguments ({max(counts)})")
    arg_types = [v.dtype if isinstance(v, _ARRAYS) else type_of_value(v) for v in inputs]
    for k, t in enumerate(arg_types):
        if t is None:
            raise TypeError(f"map input {k} is a {type(inputs[k]).__name__}, which kernels cannot take")
    result_types = _result_types(func, arg_types)
    shape = _broadcast([tuple(a.shape) for a in arrays])
    outs = None if out is None else _check_outputs(out, shape, result_types)
    made = _map_kernel(func, list(inputs), arg_types, shape, result_types, outs and [o._key for o in outs])
    if return_kernel:
        return made
    dev = arrays[0].device if device is None else device
    if out is None:
        grad = any(a.requires_grad for a in arrays)
        outs = [empty(shape, dtype=t, device=dev, requires_grad=grad) for t in result_types]
    launch(made, dim=shape, inputs=list(inputs), outputs=outs, device=dev)
    if out is not None:
        return out
    return outs[0] if len(outs) == 1 else outs


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**", "neg": "-",
            "pos": "+"}


def _operand(value) -> str:
    return f"array({type_name(value.dtype)})" if isinstance(value, _ARRAYS) else type(value).__name__


def _element_type(value):
    return value.dtype if isinstance(value, _ARRAYS) else type_of_value(value)


def _python_number(scalar, value, op: str, operands: tuple):
    """``value`` (a Python int or float next to an array of scalar type ``scalar``) as that type: an int
    that does not fit and a float where the type is an integer are refused (numpy's rule), not wrapped or
    truncated."""
    text = f"{_operand(operands[0])} {_SYMBOLS.get(op, op)} {_operand(operands[1])}"
    kind = np.dtype(scalar._np).kind
    if isinstance(value, float) and kind in "iu":
        raise TypeError(f"{text}: the Python float {value!r} is not an integer and the array's scalar type is "
                        f"{type_name(scalar)} (use an integer, or an array of floats)")
    if isinstance(value, int) and kind in "iu":
        info = np.iinfo(scalar._np)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{text}: the Python integer {value} is out of bounds for {type_name(scalar)}")
    return scalar(value)


def _array_operator(op: str, operands: tuple, out):
    """An arithmetic operator of arrays (``a + b``, ``2.0 * a``, ``a += 1``, ``-a``) as Warp's: a map of the
    kernel operator; a Python number takes the scalar type of the array it meets (an int that does not fit
    it, or a float next to an integer array, is refused)."""
    from ..builtins.functions import FUNCTIONS

    like = next(o for o in operands if isinstance(o, _ARRAYS))
    scalar = getattr(like.dtype, "_dtype", like.dtype)
    numbers = scalar is not None and hasattr(scalar, "_np")
    typed = [_python_number(scalar, o, op, operands) if isinstance(o, (int, float)) and not isinstance(o, bool)
             and numbers else o for o in operands]
    if any(not isinstance(o, _ARRAYS) and type_of_value(o) is None for o in typed):
        return NotImplemented  # a numpy array, a list: Python tries the other operand's operator
    if len(typed) == 2:
        types = [_element_type(o) for o in typed]
        try:
            _result_types(FUNCTIONS[op], types)
        except TypeError:
            raise TypeError(f"unsupported operand types for {_SYMBOLS[op]}: {_operand(operands[0])} and "
                            f"{_operand(operands[1])} (the kernel operator {op} does not take "
                            f"{type_name(types[0])} and {type_name(types[1])}; nothing is converted, as in "
                            f"Warp: wp.utils.array_cast casts an array)") from None
    return map(FUNCTIONS[op], *typed, out=out)


_array_arithmetic.elementwise_operator = _array_operator
