"""numpy's host habits on an array (``a.sum()``, ``a.astype(...)``, ``a.T``, ``a > 0``, ``abs(a)``, ``a @ b``)
that Warp's arrays do not have either: each is still the AttributeError or TypeError Python gives, now with what
to write instead. brickwork is not a numpy clone, so none of them computes anything.

The names are properties that raise, not ``__getattr__``: ``hasattr(a, "sum")`` stays False (duck-typing code
that looks for numpy arrays must not take an array for one), and a missing slot costs nothing more."""

from __future__ import annotations

_HOST = "np.{0}(a) on the host (an array reads as a numpy array; from a device, a copy)"
_REDUCTION = _HOST + ", or on a's device a kernel that combines each thread's a[i] with wp.atomic_{0}"

#: What to write instead of each numpy method or attribute, by name ("a" is the array).
ATTRIBUTE_HINTS = {
    "astype": "a.numpy().astype(np.float64) for a numpy copy, wp.array(a.numpy(), dtype=wp.float64) for a new "
              "array, or wp.utils.array_cast(a, out) into an array of the new dtype on a's device",
    "T": "a.transpose() is the transposed view (Warp's name)",
    "sum": "np.sum(a) on the host, or wp.utils.array_sum(a) on a's device",
    "mean": "np.mean(a) on the host, or wp.utils.array_sum(a) / a.size on a's device",
    "max": _REDUCTION.format("max"),
    "min": _REDUCTION.format("min"),
    "argmax": _HOST.format("argmax"),
    "argmin": _HOST.format("argmin"),
    "prod": _HOST.format("prod"),
    "std": _HOST.format("std"),
    "var": _HOST.format("var"),
    "any": _HOST.format("any"),
    "all": _HOST.format("all"),
    "cumsum": "np.cumsum(a) on the host, or wp.utils.array_scan(a, out, inclusive=True) on a's device",
    "dot": "np.dot(a, b) on the host, or wp.utils.array_inner(a, b) on a's device",
    "clip": "np.clip(a, lo, hi) on the host, or a kernel writing wp.clamp(a[i], lo, hi)",
    "sort": "np.sort(a) on the host (a sorted copy), or wp.utils.radix_sort_pairs(keys, values, count) on a's "
            "device",
    "copy": "wp.clone(a) makes a new array on a's device (as copy.copy(a)); a.numpy().copy() a numpy array",
    "tolist": "a.list() (Warp's name) or a.numpy().tolist()",
    "item": "a[0] reads one element of a 1-D array (a Python number for scalar elements), or a.numpy().item()",
    "squeeze": "a.reshape(shape) without the 1s (a view), or a.numpy().squeeze()",
    "ravel": "a.flatten() (Warp's name)",
    "fill": "a.fill_(value) fills in place (Warp's name)",
    "nbytes": "a.size * wp.types.type_size_in_bytes(a.dtype)",
    "itemsize": "wp.types.type_size_in_bytes(a.dtype)",
    "swapaxes": "a.transpose(axes) (a view)",
}

_COMPARISON = ("comparing an array ({0!r}) is not mapped on the host, in Warp as here: np.asarray(a) {0} x compares "
               "the values (a numpy bool array), a.numpy()[a.numpy() {0} x] selects them (a copy: a[mask] is "
               "refused), and wp.map(lambda v: wp.where(v {0} x, 1, 0), a) computes 0/1 into an array on a's device")


def _missing_attribute(name: str, hint: str):
    def refuse(self):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}': brickwork arrays, as "
                             f"Warp's, have no numpy methods; {hint}", name=name, obj=self)

    return property(refuse)


def _comparison(symbol: str):
    def refuse(self, other):
        raise TypeError(_COMPARISON.format(symbol))

    return refuse


def _absolute(self):
    raise TypeError("abs() of an array is not mapped on the host, in Warp as here: wp.map(wp.abs, a) makes a new "
                    "array on a's device, np.abs(a) a numpy array")


def _matmul(self, other):
    operator = getattr(type(other), "__rmatmul__", None)
    if operator is not None and operator is not _matmul and type(other).__module__.split(".")[0] != "numpy":
        return NotImplemented  # another type's own operator takes it: x @ A of a sparse matrix A (brickwork.sparse)
    raise TypeError("a @ b of arrays is not mapped on the host, in Warp as here: np.matmul(a.numpy(), b.numpy()) "
                    "on the host, or in a kernel wp.tile_matmul of tiles (a matrix per element: wp.mat33 "
                    "elements and a[i] @ b[i])")


def install_numpy_hints(cls) -> None:
    """Give an array class the refusals above: numpy's method names, comparisons, ``abs`` and ``@``."""
    for name, hint in ATTRIBUTE_HINTS.items():
        setattr(cls, name, _missing_attribute(name, hint))
    for python, symbol in (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
        setattr(cls, f"__{python}__", _comparison(symbol))
    cls.__abs__ = _absolute
    cls.__matmul__ = cls.__rmatmul__ = _matmul
