"""The CPU unit declares a tile (a fixed-size local array) without zeroing it when a statement of the body's
top level assigns it whole before anything names it; every other local keeps its zeroing declaration (an
adjoint tile accumulates from zero, a tile first assigned in a branch or loop may be read before). Values
and gradients stay numpy's."""

import re

import numpy as np

import brickwork as wp
from brickwork import pipeline


@wp.kernel
def branchy(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x[i], shape=8)
    acc = wp.tile_zeros(shape=8, dtype=float)
    for k in range(2):
        u = t * float(k + 1)  # first assigned in a loop: keeps its zeroing declaration
        acc += u
    if x[i, 0] > 0.5:
        acc = acc + t
    wp.tile_store(y[i], acc)


def _declarations(text: str) -> dict:
    """Local name -> whether its declaration zeroes it, for the fixed-size arrays of a unit."""
    return {m.group(1): m.group(2) == "{}" for m in re.finditer(r"bw::fixedarray_t<[^;=]*> (v_\w+)(\{\})?;", text)}


def test_tiles_assigned_at_the_top_level_first_are_declared_without_zeroing():
    array = wp.array2d(dtype=float)
    decl = _declarations(pipeline.generate(branchy, [array, array], "branchy")[0])
    assert decl["v_t"] is False and decl["v_acc"] is False
    assert decl["v_u"] is True  # assigned in the loop only
    adjoint = pipeline.generate(branchy, [array, array], "branchy", mode="release:adjoint")[0]
    assert re.search(r"bw::fixedarray_t<float, 8> v__adj_\w+\{\};", adjoint)  # adjoints accumulate from zero
    assert not re.search(r"bw::fixedarray_t<float, 8> v__adj_\w+;", adjoint)


def test_values_and_gradients_are_numpys():
    rng = np.random.default_rng(2)
    x = rng.random((4, 8), dtype=np.float32)
    x[0, 0], x[1, 0] = 0.9, 0.1  # both branches
    xa = wp.array(x, requires_grad=True)
    ya = wp.zeros((4, 8), dtype=float, requires_grad=True)
    seed = rng.random((4, 8), dtype=np.float32)
    with wp.Tape() as tape:
        wp.launch_tiled(branchy, dim=4, inputs=[xa, ya], block_dim=8)
    tape.backward(grads={ya: wp.array(seed)})
    scale = np.where(x[:, :1] > 0.5, 4.0, 3.0).astype(np.float32)
    np.testing.assert_allclose(ya.numpy(), x * scale, rtol=1e-6)
    np.testing.assert_allclose(xa.grad.numpy(), seed * scale, rtol=1e-6)
