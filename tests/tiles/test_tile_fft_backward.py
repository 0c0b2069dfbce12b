"""The backward kernel of tile_fft on radix-2 rows: the adjoint transform (numpy's) for a row tile ``(1, n)``
and for several rows, with the twiddle table left out of the reverse sweep (no parameter reaches it: no
adjoint, its loop neither recorded nor reversed) and no tile saved on the tape."""

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import pipeline


def _complex(a):
    return a[..., 0] + 1j * a[..., 1]


def _pairs(z):
    return np.stack([z.real, z.imag], -1)


def _row_kernel(rows, n, inverse):
    @wp.kernel
    def rows_fft(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d)):
        i = wp.tid()
        t = wp.tile_load(x, shape=(rows, n), offset=(i * rows, 0))
        if wp.static(inverse):
            wp.tile_ifft(t)
        else:
            wp.tile_fft(t)
        wp.tile_store(y, t, offset=(i * rows, 0))

    return rows_fft


@pytest.mark.parametrize("rows, n, inverse", [(1, 64, False), (1, 32, True), (3, 16, False), (1, 2, True)])
def test_gradient_is_numpys_adjoint_transform(rows, n, inverse):
    rng = np.random.default_rng(rows * 100 + n)
    launches = 3
    z = rng.standard_normal((launches * rows, n)) + 1j * rng.standard_normal((launches * rows, n))
    g = rng.standard_normal(z.shape) + 1j * rng.standard_normal(z.shape)
    x = wp.array(_pairs(z), dtype=wp.vec2d, requires_grad=True)
    y = wp.zeros(z.shape, dtype=wp.vec2d, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(_row_kernel(rows, n, inverse), dim=launches, inputs=[x, y], block_dim=8)
    tape.backward(grads={y: wp.array(_pairs(g), dtype=wp.vec2d)})
    forward = np.fft.ifft(z, axis=-1) * n if inverse else np.fft.fft(z, axis=-1)
    np.testing.assert_allclose(_complex(y.numpy()), forward, atol=1e-11)
    # y = F z: the gradient of sum(Re(conj(g) y)) is conj(F)^T g
    adjoint = np.fft.fft(g, axis=-1) if inverse else n * np.fft.ifft(g, axis=-1)
    np.testing.assert_allclose(_complex(x.grad.numpy()), adjoint, atol=1e-11)
    assert np.abs(adjoint).min() > 1e-3  # every element has a gradient to compare


def _backward_source(rows, n):
    array = wp.array2d(dtype=wp.vec2d)
    return pipeline.generate(_row_kernel(rows, n, False), [array, array], "rows_fft", mode="release:adjoint")[0]


def test_the_twiddle_table_has_no_adjoint():
    text = _backward_source(1, 64)
    # the twiddles are read from the unit's table (include/brickwork_tile_fft.h) by the replays: nothing
    # computes them per tile, and the derivatives of cos and sin (-sin, cos) are not there
    assert "bw::fft_twiddle<bw::vec<2, double>, int32_t(32), int32_t(64), int32_t(-1)>(" in text
    assert "bw::cos(" not in text and "bw::sin(" not in text


def test_a_row_tile_saves_only_trip_counts():
    text = _backward_source(1, 64)
    pops = re.findall(r"bw_tape\.pop<([^>]*)>\(\)", text)
    # the load, 6 passes, the copy back and the store: one trip count each; no tile, no twiddle loop
    assert pops == ["int32_t"] * 9
