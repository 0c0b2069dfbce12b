"""The Python names of the tile functions (``wp.tile_load``, ``wp.tile_sum``, ...) and ``wp.tile[...]``.

They are kernel functions: inside a kernel or ``@func`` the frontend turns each call into loops over the
tiles' elements (``frontend/tiles.py`` and its family modules); called from ordinary Python they say so.
``wp.tile[dtype, m, n]`` names a tile type, for annotations.
"""

from __future__ import annotations

from ..types.scalars import python_annotation_type
from ..types.tile_stacks import TileStackType
from ..types.tiles import TileType


class TileFunction:
    """A tile function of the kernel language, exposed as a Python name."""

    __slots__ = ("name", "doc")

    def __init__(self, name: str, doc: str):
        self.name = name
        self.doc = doc

    @property
    def __name__(self):
        return self.name

    @property
    def __doc__(self):
        return self.doc

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.name}() can only be called inside a @kernel or @func (tiles live in kernels "
                           f"launched with wp.launch_tiled)")

    def __repr__(self):
        return f"<brickwork tile function {self.name}>"


class _TileConstructor(TileFunction):
    """``wp.tile(x)`` in kernels; ``wp.tile[dtype, *shape]`` (or, as Warp's annotations, ``wp.tile(dtype=...,
    shape=...)`` from Python) names a tile type."""

    __slots__ = ()
    names_tile_types = True  # what wp.types.type_is_tile asks

    def __call__(self, *args, **kwargs):
        if args or set(kwargs) != {"dtype", "shape"}:  # wp.tile(x) of a thread's value: kernels only
            return super().__call__(*args, **kwargs)
        shape = kwargs["shape"]
        return self[(kwargs["dtype"], *(shape if isinstance(shape, (tuple, list)) else (shape,)))]

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) < 2:
            raise TypeError("wp.tile[dtype, *shape] needs a dtype and 1 to 4 extents, e.g. wp.tile[float, 4, 8]")
        dtype, *shape = key
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = list(shape[0])
        return TileType(python_annotation_type(dtype), shape)


class _TileStackConstructor(TileFunction):
    """``wp.tile_stack(capacity, dtype)``: an empty stack in kernels; from Python, the stack's type (for
    annotations of ``@func`` parameters)."""

    __slots__ = ()

    def __call__(self, capacity=None, dtype=None):
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity <= 0:
            raise ValueError(f"tile_stack(): capacity must be a positive integer, got {capacity!r}")
        if dtype is None:
            raise TypeError("tile_stack(): needs a dtype")
        return TileStackType(dtype, capacity)


_DOCS = {
    "tile": "A tile from a value of each thread of the block (shape (1,) on the CPU, where a block is one thread): "
            "``wp.tile(x, preserve_type=False)``; a vector or matrix value gives its components as leading "
            "dimensions unless ``preserve_type``.",
    "untile": "The value of this thread's element of a tile made by ``wp.tile``.",
    "tile_zeros": "A tile of zeros: ``tile_zeros(shape, dtype=float, storage='register')``.",
    "tile_ones": "A tile of ones: ``tile_ones(shape, dtype=float, storage='register')``.",
    "tile_full": "A tile filled with ``value``: ``tile_full(shape, value, dtype=float, storage='register')``.",
    "tile_empty": "A tile whose elements are to be written (zeros here): ``tile_empty(shape, dtype=float)``.",
    "tile_arange": "A 1-D tile of evenly spaced values: ``tile_arange(stop)``, ``tile_arange(start, stop[, step], "
                   "dtype=...)``.",
    "tile_load": "A tile read from an array: ``tile_load(a, shape, offset=0, storage='register', "
                 "bounds_check=True)``; elements outside the array read as zero.",
    "tile_store": "Write a tile into an array: ``tile_store(a, t, offset=0, bounds_check=True)``; elements outside "
                  "the array are not written.",
    "tile_atomic_add": "Add a tile into an array atomically: ``tile_atomic_add(a, t, offset=0, bounds_check=True)``; "
                       "returns a tile of the values the array held.",
    "tile_extract": "One element of a tile: ``tile_extract(t, i, j)`` (the same as ``t[i, j]``).",
    "tile_assign": "Copy tile ``src`` into tile ``dst`` at ``offset``: ``tile_assign(dst, src, offset)``.",
    "tile_view": "A copy of a part of a tile: ``tile_view(t, offset, shape=None)``.",
    "tile_map": "Apply a function to each element (or to the elements of several tiles of one shape).",
    "tile_astype": "A tile's elements converted to another scalar type: ``tile_astype(t, dtype)``.",
    "tile_transpose": "The transpose of a 2-D tile.",
    "tile_broadcast": "A tile broadcast to a shape (numpy's rules): ``tile_broadcast(t, shape)``.",
    "tile_reshape": "A tile's elements in row-major order with another shape of the same size.",
    "tile_squeeze": "A tile without its extents of 1 (or the one at ``axis``).",
    "tile_sum": "The sum of a tile's elements as a tile of shape (1,); ``axis=k`` sums along dimension k.",
    "tile_min": "The least element of a tile, as a tile of shape (1,).",
    "tile_max": "The greatest element of a tile, as a tile of shape (1,).",
    "tile_argmin": "The row-major index of a tile's least element (first if tied), as an int32 tile of shape (1,).",
    "tile_argmax": "The row-major index of a tile's greatest element (first if tied), as an int32 tile of shape (1,).",
    "tile_reduce": "A tile's elements folded with a binary function, as a tile of shape (1,); ``axis=k`` folds "
                   "along dimension k.",
    "tile_scan_inclusive": "Inclusive prefix sums of a tile's elements in row-major order (a tile of its shape).",
    "tile_scan_exclusive": "Exclusive prefix sums of a tile's elements in row-major order (the first is 0).",
    "tile_scan_max_inclusive": "Running maxima of a tile's elements in row-major order.",
    "tile_scan_min_inclusive": "Running minima of a tile's elements in row-major order.",
    "tile_matmul": "The matrix product of two 2-D tiles (``tile_matmul(a, b)``), or ``out += a @ b`` with an "
                   "output tile (``tile_matmul(a, b, out, alpha=1.0, beta=1.0)``: out = alpha a b + beta out).",
    "tile_dot": "The sum of the elementwise products of two tiles of one shape, as a tile of shape (1,).",
    "tile_axpy": "``dest += alpha * src`` for tiles of one shape, in place: ``tile_axpy(alpha, src, dest)``.",
    "tile_diag_add": "A square tile plus a diagonal (a tile of its diagonal entries): ``tile_diag_add(a, d)``.",
    "tile_cholesky": "The Cholesky factor of a symmetric positive-definite tile: ``tile_cholesky(A, fill_mode="
                     "'lower')``.",
    "tile_cholesky_inplace": "Factor a tile in place (its Cholesky factor overwrites it).",
    "tile_cholesky_solve": "Solve A x = y given A's Cholesky factor: ``tile_cholesky_solve(L, y, fill_mode='lower')``.",
    "tile_cholesky_solve_inplace": "Solve A x = y in place of y, given A's Cholesky factor.",
    "tile_lower_solve": "Solve L z = y for a lower-triangular tile L: ``tile_lower_solve(L, y)``.",
    "tile_lower_solve_inplace": "Solve L z = y in place of y.",
    "tile_upper_solve": "Solve U x = z for an upper-triangular tile U: ``tile_upper_solve(U, z)``.",
    "tile_upper_solve_inplace": "Solve U x = z in place of z.",
    "tile_load_indexed": "A tile read from an array whose indices along ``axis`` are given by a tile of int32: "
                         "``tile_load_indexed(a, indices, shape, offset=0, axis=0)``.",
    "tile_store_indexed": "Write a tile into an array at indices along ``axis`` given by a tile of int32.",
    "tile_atomic_add_indexed": "Add a tile into an array atomically at indices along ``axis`` given by a tile of "
                               "int32.",
    "tile_from_thread": "A tile of ``shape`` filled with the value of thread ``thread_idx`` of the block (the one "
                        "thread here): ``tile_from_thread(shape, value, thread_idx)``.",
    "tile_randi": "A tile of random int32 values from a random state: ``tile_randi(shape, rng[, min, max])``.",
    "tile_randf": "A tile of random float32 values in [0, 1) (or [min, max)) from a random state.",
    "tile_scatter_add": "Add a value into one element of a tile when ``has_value``: ``tile_scatter_add(a, i[, j, ...], "
                        "value, has_value, atomic=True)``.",
    "tile_scatter_masked": "Write a value into one element of a tile when ``has_value``: ``tile_scatter_masked(a, "
                           "i[, j, ...], value, has_value)``.",
    "tile_add_inplace": "Add a value into one element of a tile: ``tile_add_inplace(a, i[, j, ...], value)`` "
                        "(``a[i] += value``).",
    "tile_sub_inplace": "Subtract a value from one element of a tile (``a[i] -= value``).",
    "tile_fft": "The discrete Fourier transform along the last dimension of a tile of complex numbers (vec2f or "
                "vec2d: real, imaginary), in place and unnormalized, as numpy.fft.fft.",
    "tile_ifft": "The inverse transform of ``tile_fft`` (exponent +2 pi i k n / N), in place and unnormalized.",
    "tile_stack": "An empty stack of at most ``capacity`` values of ``dtype`` in a kernel: ``tile_stack(capacity, "
                  "dtype)``.",
    "tile_stack_push": "Push a value onto a tile stack when ``has_value``: ``tile_stack_push(s, value, has_value)``; "
                       "returns its slot, or -1 when the stack is full (the value is dropped) or nothing was pushed.",
    "tile_stack_pop": "Pop the top value of a tile stack: ``value, slot = tile_stack_pop(s)``; slot is -1 (and the "
                      "value zero) when the stack is empty.",
    "tile_stack_count": "The number of values on a tile stack.",
    "tile_stack_clear": "Empty a tile stack.",
    "block_dim": "The number of threads of a block of a tiled launch: 1 (a block is one thread here).",
    "tile_sort": "Sort a tile of keys in place (row-major order, stable), carrying a tile of values along: "
                 "``tile_sort(keys, values)``.",
}

_CLASSES = {"tile": _TileConstructor, "tile_stack": _TileStackConstructor}
TILE_FUNCTIONS = {name: _CLASSES.get(name, TileFunction)(name, doc) for name, doc in _DOCS.items()}
