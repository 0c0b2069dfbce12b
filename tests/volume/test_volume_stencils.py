"""Trilinear samples bit for bit: every 2x2x2 stencil kind the CPU walk treats apart (the 8 corners in one leaf,
across 2, 4 or 8 leaves, in a leaf beside the background or a tile, in the background alone) gives the sum
numpy forms in float32 in Warp's order (weights wx * wy * wz, corners 000, 001, ..., 111), for a sparse float
grid, a vec3 grid, an OnIndex grid with inactive voxels read through ``volume_sample_index``, and the float
grid read through ``volume_sample_index``."""

import numpy as np
import pytest

import brickwork as wp

BG = np.float32(-3.5)
TILES = np.array([[0, 0, 0], [8, 0, 0], [0, 8, 8], [8, 8, 8], [24, 0, 0]], np.int32)  # tile origins


def _f(i, j, k):
    """The kernel's stored value, in float32 in its order."""
    i, j, k = (np.asarray(a, np.float32) for a in (i, j, k))
    f32 = np.float32
    return f32(0.37) * i - f32(1.1) * j + f32(0.01) * k * k + f32(0.5)


def _in_tiles(c):
    t = (c // 8) * 8
    return (t[..., None, :] == TILES).all(-1).any(-1)


@wp.kernel
def _store(vid: wp.uint64, ijk: wp.array(dtype=wp.vec3i)):
    t = wp.tid()
    c = ijk[t]
    f = 0.37 * float(c[0]) - 1.1 * float(c[1]) + 0.01 * float(c[2]) * float(c[2]) + 0.5
    wp.volume_store_f(vid, c[0], c[1], c[2], f)
    wp.volume_store_v(vid, c[0], c[1], c[2], wp.vec3(f, -f, 2.0 * f))


@wp.kernel
def _sample(fid: wp.uint64, vid: wp.uint64, iid: wp.uint64, data: wp.array(dtype=float), fdata: wp.array(dtype=float),
            pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float), vout: wp.array(dtype=wp.vec3),
            iout: wp.array(dtype=float), fout: wp.array(dtype=float)):
    t = wp.tid()
    p = pts[t]
    out[t] = wp.volume_sample_f(fid, p, wp.Volume.LINEAR)
    vout[t] = wp.volume_sample_v(vid, p, wp.Volume.LINEAR)
    iout[t] = wp.volume_sample_index(iid, p, wp.Volume.LINEAR, data, -3.5)
    fout[t] = wp.volume_sample_index(fid, p, wp.Volume.LINEAR, fdata, -3.5)


def _trilinear(lookup, p):
    """The sum in float32, Warp's order: val = val + (wx * wy * wz) * v over corners 000, 001, ..., 111."""
    base = np.floor(p)
    f = (p - base).astype(np.float32)
    w = [np.stack([np.float32(1) - f[:, a], f[:, a]]) for a in range(3)]
    c = base.astype(np.int64)
    val = None
    for o in range(8):
        ox, oy, oz = o >> 2, (o >> 1) & 1, o & 1
        v = lookup(c + [ox, oy, oz])
        wt = (w[0][ox] * w[1][oy] * w[2][oz]).astype(np.float32)
        term = (wt[:, None] * v if v.ndim == 2 else wt * v).astype(np.float32)
        val = term if val is None else (val + term).astype(np.float32)
    return val


def _points():
    # every fractional stencil position around the leaf boundaries of the tiles and the background beyond
    axis = np.arange(-2, 34, dtype=np.float32)
    g = np.stack(np.meshgrid(axis, np.arange(-2, 18, dtype=np.float32), np.arange(-2, 18, dtype=np.float32),
                             indexing="ij"), -1).reshape(-1, 3)
    return (g + np.float32(0.3125) * np.float32([1, 2, 3]) % 1).astype(np.float32)


@pytest.mark.parametrize("threads", [1, 2])
def test_trilinear_samples_equal_numpys_float32_sum_at_every_stencil_kind(threads, monkeypatch):
    monkeypatch.setenv("BRICKWORK_NUM_THREADS", str(threads))
    tiles = wp.array(TILES, dtype=wp.vec3i)
    fvol = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=float(BG))
    vvol = wp.Volume.allocate_by_tiles(tiles, voxel_size=1.0, bg_value=wp.vec3(BG, BG, BG))
    voxels = fvol.get_voxels(out=wp.empty(fvol.get_voxel_count(), dtype=wp.vec3i))
    wp.launch(_store, voxels.shape[0], [fvol.id, voxels])
    wp.launch(_store, voxels.shape[0], [vvol.id, voxels])
    # the index grid: the tiles' voxels with i + j + k not a multiple of 3 (leaves with inactive voxels)
    all_voxels = voxels.numpy()
    active = all_voxels[all_voxels.sum(1) % 3 != 0]
    ivol = wp.Volume.allocate_by_voxels(wp.array(active, dtype=wp.vec3i), voxel_size=1.0)
    order = ivol.get_voxels().numpy()
    data = wp.array(_f(*order.T) * np.float32(2), dtype=float)
    forder = fvol.get_voxels().numpy()  # a float grid's voxel indices: every voxel of every leaf
    fdata = wp.array(_f(*forder.T) - np.float32(1), dtype=float)

    pts = _points()
    n = len(pts)
    outs = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=float), wp.zeros(n, dtype=float)]
    wp.launch(_sample, n, [fvol.id, vvol.id, ivol.id, data, fdata, wp.array(pts, dtype=wp.vec3), *outs])
    out, vout, iout, fout = (o.numpy() for o in outs)

    def grid(c):
        return np.where(_in_tiles(c), _f(*c.T), BG).astype(np.float32)

    def vgrid(c):
        v = grid(c)
        return np.where(_in_tiles(c)[:, None], np.stack([v, -v, np.float32(2) * v], 1), BG).astype(np.float32)

    def index_grid(c):
        on = _in_tiles(c) & (c.sum(1) % 3 != 0)
        return np.where(on, _f(*c.T) * np.float32(2), BG).astype(np.float32)

    def float_as_index(c):
        return np.where(_in_tiles(c), _f(*c.T) - np.float32(1), BG).astype(np.float32)

    np.testing.assert_array_equal(out, _trilinear(grid, pts))
    np.testing.assert_array_equal(vout, _trilinear(vgrid, pts))
    np.testing.assert_array_equal(iout, _trilinear(index_grid, pts))
    np.testing.assert_array_equal(fout, _trilinear(float_as_index, pts))
    # the points cover each kind of stencil: all in one leaf, across leaves, partly and wholly outside
    c = np.floor(pts).astype(np.int64)
    inside = np.stack([_in_tiles(c + [o >> 2, (o >> 1) & 1, o & 1]) for o in range(8)], 1).sum(1)
    one_leaf = ((c & 7) != 7).all(1)
    assert (one_leaf & (inside == 8)).any() and (~one_leaf & (inside == 8)).any()
    assert ((inside > 0) & (inside < 8)).any() and (inside == 0).any()
