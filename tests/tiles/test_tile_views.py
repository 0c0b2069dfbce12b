"""Tile views and gathers against numpy: a name bound to a part of a tile (``r = t[i]``, ``t[1:3, ::2]``,
``wp.tile_view``) shares the tile's elements, as in Warp; an integer index tile gathers along one axis;
chained subscripts, ``slice()`` objects, runtime negative indices; gradients; and Warp's refusals.
"""

import numpy as np
import pytest

import brickwork as wp

pytestmark = pytest.mark.compiles_for_cuda

M, N = 4, 6
SRC = np.arange(M * N, dtype=np.float32).reshape(M, N) + 1.0


def _run(kernel, *inputs, out_shape=(M, N), src=SRC):
    out = wp.zeros(out_shape, dtype=float)
    wp.launch_tiled(kernel, dim=[1], inputs=[wp.array(src), *inputs, out], block_dim=8)
    return out.numpy()


@wp.func
def zero_first(x: wp.tile[float, N]):
    x[0] = 0.0


@wp.kernel
def writes_through_views(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    for i in range(M):
        r = t[i]  # rebound each iteration: the same view, another row
        r[1] = float(i) * 10.0
    block = t[1:3, ::2]
    wp.tile_assign(block, wp.tile_ones(shape=(1, 3), dtype=float), offset=(1, 0))
    col = wp.tile_view(t, offset=(0, 5), shape=(M, 1))
    col += wp.tile_full(shape=(M, 1), value=100.0, dtype=float)
    last = t[3]
    zero_first(last)  # a @func writing its argument writes the view
    inner = block[0]  # a view of a view: a part of t
    inner[2] = -1.0
    wp.tile_store(dst, t)


def test_writes_through_a_view_reach_its_tile():
    expected = SRC.copy()
    expected[:, 1] = [0.0, 10.0, 20.0, 30.0]
    expected[2, ::2] = 1.0
    expected[:, 5] += 100.0
    expected[3, 0] = 0.0
    expected[1, 4] = -1.0
    np.testing.assert_array_equal(_run(writes_through_views), expected)


@wp.kernel
def reads_see_the_tile_now(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    r = t[2]
    t[2, 3] = 55.0  # written through the tile: the view sees it
    wp.tile_store(dst[0], r)
    wp.tile_store(dst[1], wp.tile_reshape(t[1:3], shape=(12,))[6:])  # a contiguous view reshapes


def test_a_view_reads_its_tile_when_used():
    out = _run(reads_see_the_tile_now, out_shape=(2, N))
    row = SRC[2].copy()
    row[3] = 55.0
    np.testing.assert_array_equal(out, [row, row])


@wp.kernel
def copy_rows(src: wp.array2d(dtype=float), w: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    a = wp.tile_load(src, shape=(M, N))
    b = wp.tile_zeros(shape=(M, N), dtype=float)
    for i in range(M):
        row_src = a[M - 1 - i]
        row_dst = b[i]
        wp.tile_assign(row_dst, row_src)
    wp.tile_store(dst, b * wp.tile_load(w, shape=(M, N)))


def test_gradients_flow_through_views():
    src = wp.array(SRC, requires_grad=True)
    w_np = np.arange(M * N, dtype=np.float32).reshape(M, N) * 0.5
    dst = wp.zeros((M, N), dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(copy_rows, dim=[1], inputs=[src, wp.array(w_np), dst], block_dim=8)
    np.testing.assert_array_equal(dst.numpy(), SRC[::-1] * w_np)
    dst.grad = wp.ones_like(dst)
    tape.backward()
    np.testing.assert_array_equal(src.grad.numpy(), w_np[::-1])


@wp.kernel
def gathers(src: wp.array2d(dtype=float), idx: wp.array(dtype=int), rows: wp.array2d(dtype=float),
            cols: wp.array2d(dtype=float), chained: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    i = wp.tile_load(idx, shape=4)
    wp.tile_store(rows, t[i, :])
    wp.tile_store(cols, t[:, i])
    wp.tile_store(chained[0], t[1][i][::-1])
    wp.tile_store(chained[1], t[::-1][2][i])
    wp.tile_store(chained[2], t[wp.tile_arange(0, 4, dtype=int) * 2 - 4][3][0:4])


def test_an_index_tile_gathers_and_gradients_add_up():
    idx_np = np.array([-1, 0, 0, 2], dtype=np.int32)
    src = wp.array(SRC, requires_grad=True)
    rows = wp.zeros((4, N), dtype=float, requires_grad=True)
    cols = wp.zeros((M, 4), dtype=float, requires_grad=True)
    chained = wp.zeros((3, 4), dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(gathers, dim=[1], inputs=[src, wp.array(idx_np), rows, cols, chained], block_dim=8)
    np.testing.assert_array_equal(rows.numpy(), SRC[idx_np])
    np.testing.assert_array_equal(cols.numpy(), SRC[:, idx_np])
    np.testing.assert_array_equal(chained.numpy(), [SRC[1][idx_np][::-1], SRC[::-1][2][idx_np],
                                                    SRC[np.arange(4) * 2 - 4][3][0:4]])
    adj = np.arange(4 * N, dtype=np.float32).reshape(4, N)
    rows.grad = wp.array(adj)
    tape.backward()
    expected = np.zeros_like(SRC)
    np.add.at(expected, idx_np % M, adj)  # row 0 is gathered twice: its gradients add up
    np.testing.assert_array_equal(src.grad.numpy(), expected)


@wp.kernel
def indices_and_slices(src: wp.array2d(dtype=float), k: int, dst: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(M, N))
    i = k  # a runtime index: negative counts from the end
    wp.tile_store(dst[0], t[i, :])
    wp.tile_store(dst[1], t[slice(1, 3), slice(None, None, -1)][1])
    wp.tile_store(dst[2], wp.tile_view(t, offset=(slice(-1, M, 1),))[0])
    wp.tile_store(dst[3], t[::-1][1:][::2][0])


@pytest.mark.parametrize("k", [-1, -M, 2])
def test_runtime_negative_indices_and_slice_objects(k):
    out = _run(indices_and_slices, k, out_shape=(4, N))
    np.testing.assert_array_equal(out, [SRC[k], SRC[1:3, ::-1][1], SRC[-1:][0], SRC[::-1][1:][::2][0]])


def _refused(body: str, match: str, cls, tmp_path, name: str):
    """A kernel made of ``body`` is refused with ``cls`` and ``match``, naming its file, before it runs."""
    path = tmp_path / f"{name}.py"
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    path.write_text(f"import brickwork as wp\n\n\n@wp.kernel\ndef {name}(a: wp.array2d(dtype=float), n: int):\n"
                    f"    t = wp.tile_load(a, shape=(4, 6))\n{indented}\n    wp.tile_store(a, t * 2.0)\n")
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = wp.array(SRC)
    with pytest.raises(cls, match=match) as e:
        wp.launch_tiled(getattr(module, name), dim=[1], inputs=[a, 2], block_dim=8)
    assert f"{name}.py" in str(e.value)
    np.testing.assert_array_equal(a.numpy(), SRC)  # nothing ran


_ERRORS = [
    ("t[0:2, :] = 1.0", r"assigning to the tile view 't\[0:2, :\]' requires a tile of matching shape \(2, 6\)",
     wp.KernelValueError),
    ("t[3] = 0.0", r"requires a tile of matching shape \(6,\) on the right-hand side, got a value of type float32",
     wp.KernelValueError),
    ("t[0:2, :] += wp.tile_ones(shape=(2, 6), dtype=float)", r"Compound assignment to a tile view is not supported",
     wp.KernelValueError),
    ("t[0] += wp.tile_ones(shape=(6,), dtype=float)", r"Compound assignment to a tile view", wp.KernelValueError),
    ("t[0:2, :] = wp.tile_ones(shape=(3, 6), dtype=float)", r"shape mismatch: cannot assign a tile\(dtype=float32, "
     r"shape=\(3, 6\)\) to 't\[0:2, :\]', a part of shape \(2, 6\)", wp.KernelValueError),
    ("r = t[9, :]", r"index 9 is out of bounds for axis 0 of a tile of shape \(4, 6\)", wp.KernelValueError),
    ("r = t[2:2]", r"the slice '2:2' of an extent of 4 selects nothing: a zero-length axis", wp.KernelValueError),
    ("r = t[1.5, :]", r"tile indices must be integers or slices, got float32", wp.KernelTypeError),
    ("r = t[0:n]", r"a tile slice's stop must be a compile-time constant int, got 'n'", wp.KernelValueError),
    ("r = t[wp.tile_arange(0.0, 2.0, 1.0, dtype=float), :]", r"tile indexing requires an integer index tile, got a "
     r"tile of float32", wp.KernelValueError),
    ("r = t[wp.tile_arange(0, 2, dtype=int), 1:5]", r"requires ':' on all other axes", wp.KernelValueError),
    ("r = t[wp.tile_zeros(shape=(2, 2), dtype=int)]", r"requires a 1D integer index tile, got 2 dimensions",
     wp.KernelValueError),
    ("r = wp.tile_view(t, offset=(1.5,))", r"tile_view\(\): 'offset' entries must be integers or slices, got "
     r"float32", wp.KernelValueError),
    ("r = wp.tile_view(t, offset=(-1,))", r"tile_view\(\): offset -1 is out of bounds for axis 0",
     wp.KernelValueError),
    ("r = wp.tile_view(t, offset=(3, 0), shape=(2, 6))", r"a view of shape \(2, 6\) at offset 3 is out of bounds: it "
     r"does not fit axis 0", wp.KernelValueError),
    ("r = wp.tile_view(t, offset=(slice(0, 2, 1),), shape=(2, 6))", r"'shape' together with a slice offset",
     wp.KernelValueError),
    ("r = wp.tile_view(t, offset=(slice(0, n, 1),))", r"must be a compile-time constant", wp.KernelValueError),
    ("r = wp.tile_reshape(t[::2, :], shape=(12,))", r"tile_reshape\(\): requires a contiguous tile: the view "
     r"'t\[::2, :\]' of shape \(2, 6\)", wp.KernelValueError),
    ("r = t[0]\nr = t[0:2]", r"'r' is a view of shape \(6,\) of the tile 't' and cannot be rebound to a view of "
     r"shape \(2, 6\)", wp.KernelTypeError),
    ("r = t[0]\nr = r * 2.0", r"'r' is a view of the tile 't' \(it shares its elements\) and cannot be rebound",
     wp.KernelTypeError),
    ("r = wp.tile_zeros(shape=(6,), dtype=float)\nr = t[0]", r"'r' already holds a value of type "
     r"tile\(dtype=float32, shape=\(6,\)\); a view of a tile needs a name of its own", wp.KernelTypeError),
    ("r = wp.tile_transpose(t)\nr = wp.tile_broadcast(t, shape=(2, 4, 6))", r"'r' is a view of shape \(6, 4\) of "
     r"the tile 't' and cannot be rebound to a view of shape \(2, 4, 6\)", wp.KernelTypeError),
    ("r = wp.tile_broadcast(t[0], shape=(3, 6))\nr = wp.tile_broadcast(t[0:1], shape=(3, 6))", r"'r' is a view of "
     r"shape \(3, 6\) of the tile 't' and cannot be rebound to a view of shape \(3, 6\) of 't' with other slices",
     wp.KernelTypeError),
    ("r = wp.tile_transpose(t[0])", r"tile_transpose\(\): 'a' must be a 2-D tile, got shape \(6,\)",
     wp.KernelTypeError),
    ("r = wp.tile_broadcast(t, shape=(4, 5))", r"tile_broadcast\(\): cannot broadcast a tile of shape \(4, 6\) to "
     r"shape \(4, 5\)", wp.KernelTypeError),
    ("r = wp.tile_squeeze(t, axis=1)", r"tile_squeeze\(\): cannot squeeze axis 1 of a tile of shape \(4, 6\)",
     wp.KernelTypeError),
]


@pytest.mark.parametrize("body, match, cls", _ERRORS)
def test_wrong_views_and_indices_are_refused(body, match, cls, tmp_path):
    _refused(body, match, cls, tmp_path, f"view_error_{_ERRORS.index((body, match, cls))}")
