"""``wp.config.verify_fp``: after each launch, report non-finite values in the arrays the kernel writes
(docs/kernel_language.md, "Debugging").

The check runs on the host once the launch has finished: every floating-point component of the
written arrays (struct fields, vector and matrix components included) is tested, and each array with
a NaN or an infinity is printed to stdout with the kernel, the argument and the first index found.
A value that was already non-finite before the launch is reported too.
"""

from __future__ import annotations

import sys

import numpy as np

from ..types.arrays import array


def check_launch(kernel, inst, args) -> None:
    """Print a line for each array argument of ``kernel`` that ``inst`` writes and that holds a NaN or an
    infinity after the launch."""
    names = [name for name, _ in getattr(inst, "kernel", kernel).params]
    lines = []
    for i in inst.access[1]:  # the arrays it stores to or updates atomically
        a = args[i] if i < len(args) else None
        if not isinstance(a, array) or a.device.is_cuda or a.size == 0:
            continue
        found = _non_finite(a)
        if found is not None:
            what, index = found
            where = ", ".join(str(int(x)) for x in index)
            lines.append(f"verify_fp: kernel {kernel.key} wrote {what} to argument '{names[i]}' (first at index "
                         f"[{where}])")
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()


def _non_finite(a: array):
    """("nan" / "inf" / "nan and inf", index of the first element holding one) or None."""
    data = a.numpy()
    bad = np.zeros(a.shape, dtype=bool)
    kinds = set()
    for part in _float_parts(data, a.ndim):
        nan, inf = np.isnan(part), np.isinf(part)
        if nan.any():
            kinds.add("nan")
        if inf.any():
            kinds.add("inf")
        hit = nan | inf
        bad |= hit.reshape(a.shape + (-1,)).any(axis=-1) if hit.ndim > a.ndim else hit
    if not kinds:
        return None
    return " and ".join(sorted(kinds, reverse=True)), np.argwhere(bad)[0]


def _float_parts(data: np.ndarray, ndim: int):
    """The floating-point parts of ``data`` (an element array): itself, or its struct fields' parts."""
    if data.dtype.names is not None:
        for name in data.dtype.names:
            yield from _float_parts(data[name], ndim)
    elif data.dtype.kind == "f":
        yield data
