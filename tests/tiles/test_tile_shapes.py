"""Tile shapes and linear algebra against numpy (float32 and float64, on the CPU and the GPU emulation):
tile_transpose, tile_broadcast, tile_reshape, tile_squeeze, tile_view, tile_assign, tile_matmul, tile_axpy,
tile_diag_add, the Cholesky factorization and the triangular solves; and the errors of wrong arguments.

Three generic kernels compute every function, each result stored to its own output array.
"""

from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

pytestmark = pytest.mark.compiles_for_cuda

# each kernel for both dtypes on the CPU, and once (float32) on the GPU emulation, which NVRTC also compiles
CASES = [("cpu", np.float32), ("cpu", np.float64), ("cuda-emulation", np.float32)]


@wp.kernel
def shapes(a: wp.array2d(dtype=Any), s: wp.array2d(dtype=Any), v: wp.array(dtype=Any), z: wp.array2d(dtype=Any),
           at: wp.array(dtype=int),
           t_out: wp.array2d(dtype=Any), b1_out: wp.array2d(dtype=Any), b2_out: wp.array3d(dtype=Any),
           r1_out: wp.array3d(dtype=Any), r2_out: wp.array(dtype=Any), q1_out: wp.array2d(dtype=Any),
           q2_out: wp.array2d(dtype=Any), v1_out: wp.array2d(dtype=Any), v2_out: wp.array2d(dtype=Any),
           v3_out: wp.array(dtype=Any), v4_out: wp.array2d(dtype=Any), a1_out: wp.array2d(dtype=Any),
           a2_out: wp.array2d(dtype=Any)):
    ta = wp.tile_load(a, shape=(4, 8))
    wp.tile_store(t_out, wp.tile_transpose(ta))
    wp.tile_store(b1_out, wp.tile_broadcast(wp.tile_load(s, shape=(1, 8)), shape=(4, 8)))
    wp.tile_store(b2_out, wp.tile_broadcast(wp.tile_load(v, shape=8), shape=(3, 2, 8)))
    wp.tile_store(r1_out, wp.tile_reshape(ta, shape=(2, -1, 4)))
    flat = wp.tile_reshape(ta, shape=(32,))
    wp.tile_store(r2_out, flat)
    col = wp.tile_reshape(ta, shape=(4, 1, 8, 1))
    wp.tile_store(q1_out, wp.tile_squeeze(col))
    wp.tile_store(q2_out, wp.tile_squeeze(col, axis=(1, -1)))
    wp.tile_store(v1_out, wp.tile_view(ta, offset=(1, 2), shape=(2, 3)))
    wp.tile_store(v2_out, wp.tile_view(ta, offset=(at[0], at[1]), shape=(2, 3)))
    wp.tile_store(v3_out, wp.tile_view(ta, offset=(at[0],)))
    # a runtime offset past the edge: those elements read as zero (Warp: undefined)
    wp.tile_store(v4_out, wp.tile_view(ta, offset=(at[0] + 2, at[1]), shape=(2, 3)))
    dst = wp.tile_load(z, shape=(6, 10))
    wp.tile_assign(dst, ta, offset=(1, 2))
    wp.tile_store(a1_out, dst)
    dst2 = wp.tile_load(z, shape=(6, 10))
    wp.tile_assign(dst2, wp.tile_view(ta, offset=(0, 0), shape=(2, 3)), offset=(at[0], at[1]))
    wp.tile_assign(dst2, wp.tile_view(dst2, offset=(0, 0), shape=(4, 8)), offset=(2, 2))  # overlapping shift
    wp.tile_store(a2_out, dst2)


def _on(target, kernel, inputs):
    with config.override(target=target):
        wp.launch_tiled(kernel, dim=[1], inputs=inputs, block_dim=32)


@pytest.mark.parametrize("target, dtype", CASES)
def test_shapes_match_numpy(target, dtype):
    rng = np.random.default_rng(1)
    a, s, v, z = (rng.standard_normal(sh).astype(dtype) for sh in ((4, 8), (1, 8), (8,), (6, 10)))
    at = np.array([1, 2], np.int32)
    outs = {name: np.zeros(sh, dtype) for name, sh in [
        ("t", (8, 4)), ("b1", (4, 8)), ("b2", (3, 2, 8)), ("r1", (2, 4, 4)), ("r2", (32,)), ("q1", (4, 8)),
        ("q2", (4, 8)), ("v1", (2, 3)), ("v2", (2, 3)), ("v3", (8,)), ("v4", (2, 3)), ("a1", (6, 10)), ("a2", (6, 10))]}
    arrays = {k: wp.array(x) for k, x in outs.items()}
    _on(target, shapes, [wp.array(a), wp.array(s), wp.array(v), wp.array(z), wp.array(at), *arrays.values()])
    got = {k: x.numpy() for k, x in arrays.items()}
    a1 = z.copy()
    a1[1:5, 2:10] = a
    a2 = z.copy()
    a2[1:3, 2:5] = a[:2, :3]
    a2[2:6, 2:10] = a2[0:4, 0:8].copy()
    want = dict(t=a.T, b1=np.broadcast_to(s, (4, 8)), b2=np.broadcast_to(v, (3, 2, 8)), r1=a.reshape(2, 4, 4),
                r2=a.reshape(32), q1=a, q2=a, v1=a[1:3, 2:5], v2=a[1:3, 2:5], v3=a[1],
                v4=np.vstack([a[3, 2:5], np.zeros(3, dtype)]), a1=a1, a2=a2)
    for name, expected in want.items():
        np.testing.assert_array_equal(got[name], expected, err_msg=name)


@wp.kernel
def linalg(a: wp.array2d(dtype=Any), b: wp.array2d(dtype=Any), c: wp.array2d(dtype=Any), d: wp.array(dtype=Any),
           p: wp.array(dtype=Any), ab_out: wp.array2d(dtype=Any), scaled_out: wp.array2d(dtype=Any),
           acc_out: wp.array2d(dtype=Any), fresh_out: wp.array2d(dtype=Any), run_out: wp.array2d(dtype=Any),
           axpy_out: wp.array2d(dtype=Any), diag_out: wp.array2d(dtype=Any)):
    ta = wp.tile_load(a, shape=(5, 7))
    tb = wp.tile_load(b, shape=(7, 6))
    wp.tile_store(ab_out, wp.tile_matmul(ta, tb))
    wp.tile_store(scaled_out, wp.tile_matmul(ta, tb, alpha=p[0]))
    acc = wp.tile_load(c, shape=(5, 6))
    wp.tile_matmul(ta, tb, acc, alpha=0.5, beta=2.0)
    wp.tile_store(acc_out, acc)
    fresh = wp.tile_load(c, shape=(5, 6))
    wp.tile_matmul(ta, tb, fresh, beta=0.0)
    wp.tile_store(fresh_out, fresh)
    run = wp.tile_load(c, shape=(5, 6))
    wp.tile_matmul(ta, tb, run, p[0], p[1])
    wp.tile_store(run_out, run)
    dest = wp.tile_load(c, shape=(5, 6))
    wp.tile_axpy(p[0], wp.tile_matmul(ta, tb), dest)
    wp.tile_axpy(type(p[0])(-1.5), wp.tile_load(c, shape=(5, 6)), dest)
    wp.tile_store(axpy_out, dest)
    sq = wp.tile_load(a, shape=(5, 5))
    wp.tile_store(diag_out, wp.tile_diag_add(sq, wp.tile_load(d, shape=5)))


@pytest.mark.parametrize("target, dtype", CASES)
def test_linear_algebra_matches_numpy(target, dtype):
    rng = np.random.default_rng(2)
    a, b, c, d = (rng.standard_normal(sh).astype(dtype) for sh in ((5, 7), (7, 6), (5, 6), (5,)))
    c_nan = c.copy()
    c_nan[0, 0] = np.nan  # beta=0: out is not read (BLAS), so a NaN in it does not spread
    p = np.array([0.25, -3.0], dtype)
    names = ["ab", "scaled", "acc", "fresh", "run", "axpy"]
    outs = [wp.array(np.zeros((5, 6), dtype)) for _ in names] + [wp.array(np.zeros((5, 5), dtype))]
    inputs = [wp.array(a), wp.array(b), wp.array(c_nan), wp.array(d), wp.array(p)]
    _on(target, linalg, inputs + outs)
    got = dict(zip(names + ["diag"], (o.numpy() for o in outs)))
    ab = a.astype(np.float64) @ b
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["ab"], ab, **tol)
    np.testing.assert_allclose(got["scaled"], 0.25 * ab, **tol)
    np.testing.assert_allclose(got["acc"][1:], (0.5 * ab + 2.0 * c)[1:], **tol)
    assert np.isnan(got["acc"][0, 0])
    np.testing.assert_allclose(got["fresh"], ab, **tol)
    np.testing.assert_allclose(got["run"][1:], (0.25 * ab - 3.0 * c)[1:], **tol)
    np.testing.assert_allclose(got["axpy"][1:], (c + 0.25 * ab - 1.5 * c)[1:], **tol)
    np.testing.assert_allclose(got["diag"], a[:, :5] + np.diag(d), **tol)


@wp.kernel
def mixed_matmul(a: wp.array2d(dtype=wp.float32), b: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64),
                 out16: wp.array2d(dtype=wp.float16)):
    ta = wp.tile_load(a, shape=(3, 4))
    tb = wp.tile_load(b, shape=(4, 2))
    acc = wp.tile_load(out, shape=(3, 2))
    wp.tile_matmul(ta, tb, acc)  # Warp: accumulates in out's dtype, the operands converted
    wp.tile_store(out, acc)
    h = wp.tile_astype(ta, wp.float16)
    wp.tile_store(out16, wp.tile_matmul(h, wp.tile_astype(tb, wp.float16)))


def test_matmul_of_mixed_dtypes_accumulates_in_the_output_dtype():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 2))
    out = wp.array(np.ones((3, 2)))
    out16 = wp.zeros((3, 2), dtype=wp.float16)
    wp.launch_tiled(mixed_matmul, dim=[1], inputs=[wp.array(a), wp.array(b), out, out16], block_dim=8)
    np.testing.assert_allclose(out.numpy(), a.astype(np.float64) @ b + 1.0, rtol=1e-12)
    np.testing.assert_allclose(out16.numpy(), a @ b, rtol=2e-2, atol=2e-2)


@wp.kernel
def solves(a: wp.array2d(dtype=Any), y: wp.array(dtype=Any), ym: wp.array2d(dtype=Any),
           l_out: wp.array2d(dtype=Any), u_out: wp.array2d(dtype=Any), li_out: wp.array2d(dtype=Any),
           x_out: wp.array(dtype=Any), xm_out: wp.array2d(dtype=Any), xu_out: wp.array(dtype=Any),
           xi_out: wp.array2d(dtype=Any), low_out: wp.array(dtype=Any), lowm_out: wp.array2d(dtype=Any),
           up_out: wp.array(dtype=Any), upm_out: wp.array2d(dtype=Any)):
    ta = wp.tile_load(a, shape=(6, 6))
    ty = wp.tile_load(y, shape=6)
    tym = wp.tile_load(ym, shape=(6, 3))
    L = wp.tile_cholesky(ta)
    U = wp.tile_cholesky(ta, fill_mode="upper")
    wp.tile_store(l_out, L)
    wp.tile_store(u_out, U)
    li = wp.tile_load(a, shape=(6, 6))
    wp.tile_cholesky_inplace(li, "lower")
    wp.tile_store(li_out, li)
    wp.tile_store(x_out, wp.tile_cholesky_solve(L, ty))
    wp.tile_store(xm_out, wp.tile_cholesky_solve(L, tym))
    wp.tile_store(xu_out, wp.tile_cholesky_solve(U, ty, fill_mode="upper"))
    xi = wp.tile_load(ym, shape=(6, 3))
    wp.tile_cholesky_solve_inplace(U, xi, fill_mode="upper")
    wp.tile_store(xi_out, xi)
    wp.tile_store(low_out, wp.tile_lower_solve(L, ty))
    lowm = wp.tile_load(ym, shape=(6, 3))
    wp.tile_lower_solve_inplace(L, lowm)
    wp.tile_store(lowm_out, lowm)
    wp.tile_store(up_out, wp.tile_upper_solve(U, ty))
    upm = wp.tile_load(ym, shape=(6, 3))
    wp.tile_upper_solve_inplace(U, upm)
    wp.tile_store(upm_out, upm)


@pytest.mark.parametrize("target, dtype", CASES)
def test_cholesky_and_solves_match_numpy(target, dtype):
    rng = np.random.default_rng(4)
    m = rng.standard_normal((6, 6))
    spd = m @ m.T + 6 * np.eye(6)
    y, ym = rng.standard_normal(6), rng.standard_normal((6, 3))
    shapes_out = [(6, 6)] * 3 + [(6,), (6, 3), (6,), (6, 3), (6,), (6, 3), (6,), (6, 3)]
    outs = [wp.array(np.zeros(sh, dtype)) for sh in shapes_out]
    _on(target, solves, [wp.array(spd.astype(dtype)), wp.array(y.astype(dtype)), wp.array(ym.astype(dtype)), *outs])
    L, U, Li, x, xm, xu, xi, low, lowm, up, upm = (o.numpy() for o in outs)
    want_l = np.linalg.cholesky(spd)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(L, want_l, **tol)
    np.testing.assert_allclose(U, want_l.T, **tol)
    np.testing.assert_allclose(Li, want_l, **tol)
    np.testing.assert_allclose(x, np.linalg.solve(spd, y), **tol)
    np.testing.assert_allclose(xm, np.linalg.solve(spd, ym), **tol)
    np.testing.assert_allclose(xu, np.linalg.solve(spd, y), **tol)
    np.testing.assert_allclose(xi, np.linalg.solve(spd, ym), **tol)
    np.testing.assert_allclose(low, np.linalg.solve(want_l, y), **tol)
    np.testing.assert_allclose(lowm, np.linalg.solve(want_l, ym), **tol)
    np.testing.assert_allclose(up, np.linalg.solve(want_l.T, y), **tol)
    np.testing.assert_allclose(upm, np.linalg.solve(want_l.T, ym), **tol)


@wp.kernel
def lower_only(a: wp.array2d(dtype=float), l_out: wp.array2d(dtype=float), u_out: wp.array2d(dtype=float)):
    ta = wp.tile_load(a, shape=(3, 3))
    wp.tile_store(l_out, wp.tile_cholesky(ta))
    wp.tile_store(u_out, wp.tile_cholesky(ta, fill_mode="upper"))


def test_cholesky_reads_one_triangle_and_gives_nan_for_a_non_spd_tile():
    """As Warp: fill_mode picks the triangle read, the other is zeroed; a negative pivot gives NaN."""
    spd = np.array([[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]], np.float32)
    a = spd.copy()
    a[0, 1] = a[1, 2] = 77.0  # the upper triangle: garbage for the lower factor
    lo, up = wp.zeros((3, 3), dtype=float), wp.zeros((3, 3), dtype=float)
    wp.launch_tiled(lower_only, dim=[1], inputs=[wp.array(a), lo, up], block_dim=8)
    np.testing.assert_allclose(lo.numpy(), np.linalg.cholesky(spd), rtol=1e-6)
    bad = np.array([[4.0, 2.0, 0.0], [2.0, -3.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
    wp.launch_tiled(lower_only, dim=[1], inputs=[wp.array(bad), lo, up], block_dim=8)
    assert lo.numpy()[0, 0] == 2.0 and np.isnan(lo.numpy()[1, 1])
    assert np.all(np.triu(up.numpy(), 0)[np.tril_indices(3, -1)] == 0)


# -- errors ----------------------------------------------------------------------------------------------

_ERRORS = [
    ("wp.tile_transpose(wp.tile_load(v, shape=8))", r"tile_transpose\(\): 'a' must be a 2-D tile, got shape \(8,\)"),
    ("wp.tile_transpose(1.0)", r"tile_transpose\(\): 'a' must be a tile, got a value of type float32"),
    ("wp.tile_broadcast(m, shape=(4, 3))", r"tile_broadcast\(\): cannot broadcast a tile of shape \(4, 8\) to shape "
                                           r"\(4, 3\)"),
    ("wp.tile_broadcast(m, shape=8)", r"cannot broadcast a tile of shape \(4, 8\) to shape \(8,\)"),
    ("wp.tile_reshape(m, shape=(5, 6))", r"tile_reshape\(\): cannot reshape a tile of shape \(4, 8\) \(32 elements\) "
                                         r"to shape \(5, 6\) \(30 elements\)"),
    ("wp.tile_reshape(m, shape=(-1, -1))", r"at most one extent of 'shape' may be -1"),
    ("wp.tile_reshape(m, shape=(5, -1))", r"to shape \(5, -1\): 32 is not a multiple of 5"),
    ("wp.tile_reshape(m, shape=(0, 4))", r"'shape' must have 1 to 4 positive extents, got \(0, 4\)"),
    ("wp.tile_squeeze(m, axis=0)", r"tile_squeeze\(\): cannot squeeze axis 0 of a tile of shape \(4, 8\): its "
                                   r"extent is 4, not 1"),
    ("wp.tile_squeeze(wp.tile_load(v, shape=1))", r"leaves no dimension"),
    ("wp.tile_view(m, offset=(1, 2, 3))", r"'offset' needs 1 to 2 entries for a tile of 2 dimensions, got 3"),
    ("wp.tile_view(m, offset=(0, 0), shape=8)", r"'shape' must have one extent per dimension of the tile \(2\)"),
    ("wp.tile_view(m, offset=(1, 2))", r"names one element \(use tile_extract\)"),
    ("wp.tile_assign(m, wp.tile_load(v, shape=8))", r"tile_assign\(\): 'dst' and 'src' must have the same number of "
                                                    r"dimensions, got shapes \(4, 8\) and \(8,\)"),
    ("wp.tile_assign(m, m, offset=(1, 0))", r"'src' of shape \(4, 8\) at offset 1 of extent 4 does not fit axis 0"),
    ("wp.tile_matmul(m, m)", r"tile_matmul\(\): the shapes of 'a' \(4, 8\) and 'b' \(4, 8\) do not chain"),
    ("wp.tile_matmul(m, wp.tile_transpose(m), m)", r"tile_matmul\(\): 'out' must have shape \(4, 4\) for 'a' \(4, 8\)"
                                                   r" and 'b' \(8, 4\), got \(4, 8\)"),
    ("wp.tile_matmul(m, wp.tile_load(v, shape=8))", r"tile_matmul\(\): 'b' must be a 2-D tile, got shape \(8,\)"),
    ("wp.tile_matmul(wp.tile_load(iv, shape=(2, 2)), wp.tile_load(iv, shape=(2, 2)))",
     r"tile_matmul\(\): 'a' must be a tile of float16, bfloat16, float32, float64, got a tile of int32"),
    ("wp.tile_axpy(2.0, m, wp.tile_transpose(m))", r"tile_axpy\(\): 'src' and 'dest' must have one shape and dtype"),
    ("wp.tile_axpy(wp.float64(2.0), m, m)", r"tile_axpy\(\): 'alpha' must be a float32 \(the tiles' scalar type\), "
                                            r"got a value of type float64"),
    ("wp.tile_diag_add(m, wp.tile_load(v, shape=8))", r"tile_diag_add\(\): 'a' must be a square tile, got shape "
                                                      r"\(4, 8\)"),
    ("wp.tile_diag_add(wp.tile_load(m2, shape=(4, 4)), wp.tile_load(v, shape=8))",
     r"'d' must have one element per row of 'a' \(4\), got shape \(8,\)"),
    ("wp.tile_cholesky(m)", r"tile_cholesky\(\): 'A' must be a square tile, got shape \(4, 8\)"),
    ("wp.tile_cholesky(wp.tile_load(m2, shape=(4, 4)), fill_mode='full')",
     r"tile_cholesky\(\): fill_mode must be 'lower' or 'upper', got 'full'"),
    ("wp.tile_cholesky(wp.tile_astype(wp.tile_load(m2, shape=(4, 4)), wp.float16))",
     r"'A' must be a tile of float32, float64, got a tile of float16"),
    ("wp.tile_cholesky_solve(wp.tile_load(m2, shape=(4, 4)), wp.tile_load(v, shape=8))",
     r"tile_cholesky_solve\(\): 'y' must have one row per row of 'L' \(4\), got shape \(8,\)"),
    ("wp.tile_lower_solve(wp.tile_load(m2, shape=(4, 4)), wp.tile_load(m3, shape=(4, 2, 2)))",
     r"tile_lower_solve\(\): 'y' must be a 1-D or 2-D tile, got shape \(4, 2, 2\)"),
    ("wp.tile_upper_solve(wp.tile_load(m2, shape=(4, 4)), wp.tile_load(dv, shape=4))",
     r"tile_upper_solve\(\): 'U' and 'z' must have one dtype, got float32 and float64"),
    ("wp.tile_upper_solve_inplace(wp.tile_load(m2, shape=(4, 4)))", r"tile_upper_solve_inplace\(\) missing required "
                                                                     r"argument 'z'"),
]


@pytest.mark.parametrize("expr, message", _ERRORS)
def test_wrong_arguments_are_refused(tmp_path, expr, message):
    import importlib.util

    path = tmp_path / "tile_shape_errors.py"
    path.write_text("import brickwork as wp\n\n\n@wp.kernel\n"
                    "def k(a: wp.array2d(dtype=float), v: wp.array(dtype=float), iv: wp.array2d(dtype=int),\n"
                    "      dv: wp.array(dtype=wp.float64), m3: wp.array3d(dtype=float)):\n"
                    "    m = wp.tile_load(a, shape=(4, 8))\n"
                    "    m2 = a\n"
                    f"    x = {expr}\n")
    spec = importlib.util.spec_from_file_location("tile_shape_errors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    inputs = [wp.zeros((4, 8), dtype=float), wp.zeros(8, dtype=float), wp.zeros((2, 2), dtype=int),
              wp.zeros(4, dtype=wp.float64), wp.zeros((4, 2, 2), dtype=float)]
    with pytest.raises(wp.KernelTypeError, match=message) as e:
        wp.launch_tiled(module.k, dim=[1], inputs=inputs, block_dim=8)
    assert "tile_shape_errors.py" in str(e.value)
