"""The Lipschitz octree of Warp 1.19's ``warp.geometry.lipschitz_octree``: the finest cells of a cubic root box
that the level set of a Lipschitz-bounded implicit function may cross, found top-down without a dense grid.

A cell of half-diagonal ``r`` whose centre value is farther than ``lipschitz_bound * r`` from the isovalue
cannot hold the level set, nor can any cell inside it; the others split into their 8 children until the
finest level. Every step is a kernel on the device of the query points (centres, band test, compaction with
an exclusive scan, subdivision); only the number of cells kept at each level comes back to the host, to size
the next level, as in Warp. The field is the caller's batched evaluator, checked by :func:`make_evaluator`.

Cells are integer subscripts of their minimum corner (``vec3i``): cell ``(i, j, k)`` covers
``origin + width * [(i, j, k), (i + 1, j + 1, k + 1)]``.
"""

from __future__ import annotations

import numpy as np

from ..lang.function import Function
from ..lang.kernel import Kernel
from ..runtime import device_sort
from ..runtime.launch import launcher
from ..runtime.warp_names import wp

__all__ = ["lipschitz_octree"]

_BATCHING_HINT = """`field` must be a batched callable with signature evaluate(points: wp.array[wp.vec3]) -> \
wp.array[wp.float32], not a single-point @wp.func. Wrap it in a small kernel that evaluates it over the batch, \
e.g.:

    @wp.kernel
    def eval_kernel(points: wp.array[wp.vec3], values: wp.array[wp.float32]):
        i = wp.tid()
        values[i] = my_sdf(points[i])

    def evaluate(points):
        values = wp.empty(points.shape[0], dtype=wp.float32, device=points.device)
        wp.launch(eval_kernel, dim=points.shape[0], inputs=[points], outputs=[values], device=points.device)
        return values

This keeps the evaluation on the device of the points."""


def make_evaluator(field, device):
    """``field`` as ``evaluate(points) -> values``, checking what it returns at each call.

    A single-point ``@wp.func`` is refused (with how to batch it) rather than wrapped in a hidden per-call
    launch; a kernel (which the caller launches) and anything not callable are refused. Values must be a float32
    array of one value per point on the points' device: a silent copy would hide a transfer at every level of
    the octree.
    """
    if isinstance(field, Function):
        raise TypeError(_BATCHING_HINT)
    if isinstance(field, Kernel):
        raise TypeError(f"`field` is the kernel '{field.key}', which cannot be called: pass a function of the points "
                        "that launches it, evaluate(points: wp.array[wp.vec3]) -> wp.array[wp.float32], returning "
                        "the values it wrote.")
    if not callable(field):
        raise TypeError("`field` must be a callable mapping a warp.array[wp.vec3] batch of query points to a "
                        f"warp.array[wp.float32] of distances, but got {type(field)}.")

    def evaluate(points):
        values = field(points)
        if not isinstance(values, wp.array):
            raise TypeError("The implicit function callable must return a warp.array of float32 distance values, "
                            f"but returned {type(values)}.")
        if values.shape[0] != points.shape[0]:
            raise ValueError(f"The implicit function returned {values.shape[0]} values for {points.shape[0]} "
                             "query points.")
        if values.device != points.device:
            raise ValueError(f"The implicit function returned values on device '{values.device}', but the query "
                             f"points are on device '{points.device}'. Evaluate the field on the device of the "
                             "points it is given.")
        if values.dtype != wp.float32 or values.ndim != 1:
            raise TypeError("The implicit function must return a warp.array of float32 distance values, got "
                            f"{values.dtype.__name__} of shape {tuple(values.shape)}.")
        return values

    return evaluate


# -- scans of flags --------------------------------------------------------------------------------------------


def _work(device):
    return lambda name, shape: wp.empty(shape, dtype=wp.int32, device=device)


def scan_counts(counts, n: int, device) -> int:
    """Replace ``counts[:n + 1]`` (int32, ``counts[n] == 0``) by their exclusive prefix sums on the device and
    return the total (``counts[n]`` afterwards: the one number that comes back to the host)."""
    device_sort.exclusive_scan(counts, n + 1, _work(device), launcher(device), device_sort.GPU.segment)
    return int(counts[n:].numpy()[0])


# -- kernels ---------------------------------------------------------------------------------------------------


@wp.kernel(enable_backward=False)
def _centres(cells: wp.array[wp.vec3i], origin: wp.vec3, width: wp.vec3, centres: wp.array[wp.vec3]):
    t = wp.tid()
    c = cells[t]
    centres[t] = origin + wp.cw_mul(width, wp.vec3(float(c[0]) + 0.5, float(c[1]) + 0.5, float(c[2]) + 0.5))


@wp.kernel(enable_backward=False)
def _in_band(values: wp.array[wp.float32], isovalue: wp.float32, band: wp.float32, keep: wp.array[wp.int32]):
    # |f(centre) - isovalue| > L * half-diagonal: the level set misses the whole cell
    t = wp.tid()
    keep[t] = wp.where(wp.abs(values[t] - isovalue) <= band, 1, 0)


@wp.kernel(enable_backward=False)
def _in_grid(cells: wp.array[wp.vec3i], ncells: wp.vec3i, keep: wp.array[wp.int32]):
    t = wp.tid()
    c = cells[t]
    keep[t] = wp.where(c[0] < ncells[0] and c[1] < ncells[1] and c[2] < ncells[2], 1, 0)


@wp.kernel(enable_backward=False)
def _compact(cells: wp.array[wp.vec3i], offsets: wp.array[wp.int32], kept: wp.array[wp.vec3i]):
    t = wp.tid()
    at = offsets[t]
    if offsets[t + 1] > at:
        kept[at] = cells[t]


@wp.kernel(enable_backward=False)
def _split_kept(cells: wp.array[wp.vec3i], offsets: wp.array[wp.int32], children: wp.array[wp.vec3i]):
    # the 8 children of each kept cell, in the kept cells' order: child bits (x, y, z) = (1, 2, 4)
    t = wp.tid()
    at = offsets[t]
    if offsets[t + 1] > at:
        c = cells[t] * 2
        for child in range(8):
            children[8 * at + child] = c + wp.vec3i(child & 1, (child >> 1) & 1, (child >> 2) & 1)


# -- host drivers ----------------------------------------------------------------------------------------------


def _select(cells, keep, n: int, device):
    """The cells whose flag in ``keep`` (``n + 1`` int32, scanned in place) is set, and how many."""
    total = scan_counts(keep, n, device)
    kept = wp.empty(total, dtype=wp.vec3i, device=device)
    if total:
        wp.launch(_compact, n, inputs=[cells, keep], outputs=[kept], device=device, record_tape=False)
    return kept, total


def _flags(n: int, device):
    return wp.zeros(n + 1, dtype=wp.int32, device=device)


def build_octree(evaluate, origin, root_width, max_depth: int, isovalue: float, lipschitz_bound: float, device):
    """The leaf subscripts (``vec3i``, at resolution ``2**max_depth``) of the cells of the box ``origin +
    [0, root_width]`` (per-axis widths, a ``vec3``) that the level set may cross; None when no cell survives."""
    cells, n = wp.array([(0, 0, 0)], dtype=wp.vec3i, device=device), 1
    origin = wp.vec3(*origin)
    for depth in range(max_depth + 1):
        # per-axis widths in float32 (halving is exact), the band in double from them
        width = np.float32(root_width) / np.float32(1 << depth)
        band = float(lipschitz_bound) * 0.5 * float(np.linalg.norm(width.astype(np.float64)))
        centres = wp.empty(n, dtype=wp.vec3, device=device)
        wp.launch(_centres, n, inputs=[cells, origin, wp.vec3(*width.tolist())], outputs=[centres], device=device,
                  record_tape=False)
        values = evaluate(centres)
        keep = _flags(n, device)
        wp.launch(_in_band, n, inputs=[values, wp.float32(isovalue), wp.float32(band)], outputs=[keep],
                  device=device, record_tape=False)
        if depth == max_depth:
            kept, total = _select(cells, keep, n, device)
            return kept if total else None
        total = scan_counts(keep, n, device)
        if total == 0:
            return None
        children = wp.empty(8 * total, dtype=wp.vec3i, device=device)
        wp.launch(_split_kept, n, inputs=[cells, keep], outputs=[children], device=device, record_tape=False)
        cells, n = children, 8 * total
    raise AssertionError("unreachable: the last level returns")


def cull_to_grid(cells, ncells: tuple, device):
    """``(cells inside the first ncells of each axis, how many were dropped)``: the cells that exist only
    because the root box was padded to a power of two."""
    n = cells.shape[0]
    keep = _flags(n, device)
    wp.launch(_in_grid, n, inputs=[cells, wp.vec3i(*ncells)], outputs=[keep], device=device, record_tape=False)
    kept, total = _select(cells, keep, n, device)
    return kept, n - total


def real_number(name: str, value) -> float:
    """``value`` as a float (a Python, numpy or brickwork number), or a TypeError naming ``name``."""
    if not isinstance(value, (bool, str, bytes)):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")


def _integer(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    return int(value)


def check_lipschitz_bound(lipschitz_bound) -> float:
    bound = real_number("lipschitz_bound", lipschitz_bound)
    if not bound >= 0.0:
        raise ValueError(f"lipschitz_bound must be non-negative, got {lipschitz_bound}.")
    return bound


def as_point(name: str, value) -> tuple:
    """``value`` as three floats (a ``vec3``, a tuple or an array of 3), or a TypeError naming ``name``."""
    try:
        point = tuple(float(x) for x in value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a point of 3 coordinates, got {value!r}.") from None
    if len(point) != 3:
        raise ValueError(f"{name} must be a point of 3 coordinates, got {len(point)}.")
    return point


def lipschitz_octree(field, origin, root_width: float, max_depth: int, threshold: float = 0.0,
                     lipschitz_bound: float = 1.0, device=None):
    """The finest cells of an octree that may intersect the ``threshold`` level set of a Lipschitz field.

    The root cell is the cube of side ``root_width`` from ``origin``; a cell of width ``h`` centred at ``c`` is
    kept (and split, down to ``max_depth``) when ``|field(c) - threshold| <= lipschitz_bound * sqrt(3) / 2 * h``.

    - field: the implicit function as a batched callable ``evaluate(points: wp.array[wp.vec3]) ->
      wp.array[wp.float32]`` returning its values on the points' device (a single-point ``@wp.func`` is
      refused: wrap it in a kernel).
    - origin: the minimum corner of the root cell; root_width: its side (positive).
    - max_depth: the number of subdivisions (0 to 30): leaves have width ``root_width / 2**max_depth``.
    - threshold: the isovalue; lipschitz_bound: a bound (0 or more) on the field's Lipschitz constant.
    - device: the device to run on (the current one by default).

    Returns ``(cells, cell_width)``: the leaves' minimum-corner subscripts (``wp.array[wp.vec3i]``, empty when
    the level set is not bracketed), in :func:`sparse_marching_cubes_from_cells`'s convention, and their width
    (a float). Selecting cells is discrete: nothing of it is recorded on a ``wp.Tape``.
    """
    depth = _integer("max_depth", max_depth)
    if depth < 0:
        raise ValueError(f"max_depth must be non-negative, got {max_depth}.")
    if depth > 30:
        raise ValueError(f"max_depth must be at most 30 (cell subscripts are int32), got {max_depth}.")
    width = real_number("root_width", root_width)
    if not width > 0.0:
        raise ValueError(f"root_width must be positive, got {root_width}.")
    bound = check_lipschitz_bound(lipschitz_bound)
    origin = as_point("origin", origin)
    isovalue = real_number("threshold", threshold)
    device = wp.get_device(device)
    evaluate = make_evaluator(field, device)
    root = np.full(3, width, dtype=np.float32)
    cells = build_octree(evaluate, origin, root, depth, isovalue, bound, device)
    cell_width = width / float(1 << depth)
    if cells is None:
        return wp.empty(0, dtype=wp.vec3i, device=device), cell_width
    return cells, cell_width
