"""The shared corners of a sparse set of grid cells, for :mod:`.sparse_marching_cubes`: each cell's 8 corners
numbered once across all the cells that touch them, on the cells' device.

Each corner gets a 64-bit code (its subscript relative to the smallest one, packed with a per-axis stride),
split into two int32 words that ``device_sort`` sorts stably (the low word, then the high one only when the
codes need it). The first of each run of equal codes starts a new corner; a scan numbers them in code order,
so the numbering is Warp's. Each unique corner remembers its first source (``cell * 8 + corner``: the
smallest, the sort being stable), from which its position is computed and, for explicit corner values, its
value gathered. Only the number of unique corners comes back to the host.
"""

from __future__ import annotations

from ..runtime import device_sort
from ..runtime.launch import launcher
from ..runtime.warp_names import wp
from .marching_cubes_tables import device_tables
from .octree import scan_counts

_LOW_WORD = 0xFFFFFFFF
#: the CPU's sorts: a few long chunks (the GPU's plan clears and scans a table of 256 counters per 64 items)
CPU_PLAN = device_sort.Plan(bits=8, items=1 << 15, max_chunks=64)


@wp.kernel(enable_backward=False)
def _corner_codes(cells: wp.array[wp.vec3i], corner_offsets: wp.array2d[wp.int32], low: wp.vec3i, stride: wp.int64,
                  lo: wp.array[wp.int32], hi: wp.array[wp.int32]):
    f = wp.tid()
    cell = f // 8
    corner = f - 8 * cell
    c = cells[cell]
    code = wp.int64(0)
    for a in range(3):
        code = code * stride + wp.int64(c[a] + corner_offsets[corner, a] - low[a])
    lo[f] = wp.int32(code & wp.int64(_LOW_WORD))
    hi[f] = wp.int32(code >> wp.int64(32))


@wp.kernel(enable_backward=False)
def _run_starts(lo: wp.array[wp.int32], hi: wp.array[wp.int32], first: wp.array[wp.int32]):
    # hi is empty when the codes fit the low word
    i = wp.tid()
    start = 1
    if i > 0:
        start = wp.where(lo[i] != lo[i - 1], 1, 0)
        if hi.shape[0] > 0 and hi[i] != hi[i - 1]:
            start = 1
    first[i] = start


@wp.kernel(enable_backward=False)
def _number_corners(ids: wp.array[wp.int32], offsets: wp.array[wp.int32], cell_corners: wp.array[wp.int32],
                    source: wp.array[wp.int32]):
    i = wp.tid()
    at = offsets[i]
    end = offsets[i + 1]
    if end > at:
        source[at] = ids[i]
    cell_corners[ids[i]] = end - 1


@wp.kernel(enable_backward=False)
def _corner_positions(cells: wp.array[wp.vec3i], corner_offsets: wp.array2d[wp.int32], source: wp.array[wp.int32],
                      low: wp.vec3i, base: wp.vec3, width: wp.vec3, positions: wp.array[wp.vec3]):
    # relative subscripts stay small, so float32 holds them exactly whatever the absolute ones
    u = wp.tid()
    f = source[u]
    cell = f // 8
    corner = f - 8 * cell
    c = cells[cell]
    rel = wp.vec3(float(c[0] + corner_offsets[corner, 0] - low[0]), float(c[1] + corner_offsets[corner, 1] - low[1]),
                  float(c[2] + corner_offsets[corner, 2] - low[2]))
    positions[u] = base + wp.cw_mul(width, rel)


@wp.kernel
def gather_corner_values(source: wp.array[wp.int32], per_cell: wp.array[wp.float32],
                         values: wp.array[wp.float32]):
    """Each unique corner's value from its first source: one reader per entry, so its adjoint is exact."""
    u = wp.tid()
    values[u] = per_cell[source[u]]


def check_stride(stride: int) -> None:
    if stride**3 >= 2**63:
        raise ValueError(f"Cell subscript range spans {stride} nodes per axis, too large to pack into 64-bit corner "
                         "codes.")


def dedupe_corners(cells, low: tuple, stride: int, origin, width, device):
    """``(cell_corners, positions, source)`` of the ``n`` cells (``vec3i``): ``cell_corners`` (``8 n`` int32) the
    unique corner of each cell's corner ``c`` at ``8 * cell + c``, ``positions`` (``vec3``) where each unique
    corner is, ``source`` its first ``cell * 8 + corner``. ``low`` is the smallest subscript, ``stride`` more
    than the span of subscripts on any axis (``check_stride``), ``origin``/``width`` (3 floats each) place
    subscript ``(0, 0, 0)`` and one cell."""
    n = cells.shape[0]
    m = 8 * n
    tables = device_tables(device)
    run = launcher(device)
    lo = wp.empty(m, dtype=wp.int32, device=device)
    hi = wp.empty(m, dtype=wp.int32, device=device)
    run(_corner_codes, m, cells, tables.corner_offsets, wp.vec3i(*low), wp.int64(stride), lo, hi)
    bound = stride**3  # codes are below it
    plan = CPU_PLAN if device.is_cpu else device_sort.GPU
    passes = [(0, shift) for shift in plan.digits(min(bound, 2**32))]
    words, sorted_words = [lo], [wp.empty(m, dtype=wp.int32, device=device)]
    if bound > 2**32:
        passes += [(1, shift) for shift in plan.digits(((bound - 1) >> 32) + 1)]
        words.append(hi)
        sorted_words.append(wp.empty(m, dtype=wp.int32, device=device))
    ids = wp.empty(m, dtype=wp.int32, device=device)
    device_sort.sort(words, passes, m, ids, sorted_words,
                     lambda name, shape: wp.empty(shape, dtype=wp.int32, device=device), run, plan)
    none = wp.empty(0, dtype=wp.int32, device=device)
    starts = wp.zeros(m + 1, dtype=wp.int32, device=device)
    run(_run_starts, m, sorted_words[0], sorted_words[1] if len(sorted_words) > 1 else none, starts)
    n_unique = scan_counts(starts, m, device)
    cell_corners = wp.empty(m, dtype=wp.int32, device=device)
    source = wp.empty(n_unique, dtype=wp.int32, device=device)
    run(_number_corners, m, ids, starts, cell_corners, source)
    # the offset folded into the origin in double precision: the kernel adds small relative subscripts only
    base = wp.vec3(*(float(origin[a]) + float(width[a]) * low[a] for a in range(3)))
    positions = wp.empty(n_unique, dtype=wp.vec3, device=device)
    run(_corner_positions, n_unique, cells, tables.corner_offsets, source, wp.vec3i(*low), base,
        wp.vec3(*(float(w) for w in width)), positions)
    return cell_corners, positions, source
