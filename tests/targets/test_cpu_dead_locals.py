"""targets/cpu/dead_locals.py: a backward kernel's assignments whose values reach no effect are dropped before
its C++ is written (tile_fft's forward replay of its pass buffers, which the adjoint butterflies never read);
effects, what they read, and debug builds stay. Gradients stay numpy's."""

import numpy as np

import brickwork as wp
from brickwork import ir, pipeline
from brickwork.targets.cpu.dead_locals import drop_dead_locals
from brickwork.types.kernel_params import KEEP_PARAM
from brickwork.types.scalars import float32, int32, uint64
from brickwork.types.tiles import TileType


def _fft_kernel(n):
    @wp.kernel
    def rows_fft(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d)):
        i = wp.tid()
        t = wp.tile_load(x, shape=(1, n), offset=(i, 0))
        wp.tile_fft(t)
        wp.tile_store(y, t, offset=(i, 0))

    return rows_fft


def test_tile_fft_backward_keeps_no_forward_butterflies_and_gives_the_adjoint_transform():
    n = 64
    array = wp.array2d(dtype=wp.vec2d)
    text = pipeline.generate(_fft_kernel(n), [array, array], "rows_fft", mode="release:adjoint")[0]
    # the forward replay wrote 6 pass buffers (n elements each) that only dead reads used, and the reverse
    # sweep's replay recomputed each butterfly's difference v0 - v1 (v0 + v1 too): none of them is left
    assert text.count("bw::sub(v__tmp") == 0
    rng = np.random.default_rng(8)
    z = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    g = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    x = wp.array(np.stack([z.real, z.imag], -1), dtype=wp.vec2d, requires_grad=True)
    y = wp.zeros((3, n), dtype=wp.vec2d, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(_fft_kernel(n), dim=3, inputs=[x, y], block_dim=8)
    tape.backward(grads={y: wp.array(np.stack([g.real, g.imag], -1), dtype=wp.vec2d)})
    grad = x.grad.numpy()
    np.testing.assert_allclose(grad[..., 0] + 1j * grad[..., 1], n * np.fft.ifft(g, axis=-1), atol=1e-11)


def test_debug_builds_keep_every_replayed_value():
    array = wp.array2d(dtype=wp.vec2d)
    text = pipeline.generate(_fft_kernel(64), [array, array], "rows_fft", mode="debug:adjoint")[0]
    # the butterflies' differences: the forward replay's six passes and the reverse sweep's six replays
    assert text.count("bw::sub(v__tmp") == 12


def _local(name, t=float32):
    return ir.IRLocal(name, t)


def _function(body, locals_, params=()):
    return ir.IRFunction("k", list(params), dict(locals_), body, is_kernel=True)


def test_only_pure_values_that_reach_no_effect_are_dropped():
    tile_t = TileType(float32, (4,))
    a, b, c, d = (_local(n) for n in "abcd")
    tile, k = _local("tile", tile_t), _local("k", int32)
    one = ir.IRConst(1.0, float32)
    out = _local("out", TileType(float32, (4,)))  # a parameter: stores into it are effects
    body = [
        ir.IRAssign(a, one),
        ir.IRAssign(b, ir.IRCall("add", [a, one], float32)),  # feeds only c, which is dead
        ir.IRAssign(c, ir.IRCall("mul", [b, b], float32)),
        ir.IRAssign(d, ir.IRCall("sqrt", [a], float32)),  # not a listed pure op: kept, and a with it
        ir.IRAssign(tile, ir.IRCall("fixed_zeros", [], tile_t)),
        ir.IRFor(k, ir.IRConst(0, int32), ir.IRConst(4, int32), ir.IRConst(1, int32), [
            ir.IRAssign(ir.IRArrayElem(tile, [k], float32), b),  # a local tile nothing reads
            ir.IRPush(k),
            ir.IRAssign(ir.IRArrayElem(out, [k], float32), a),  # an effect: reads a
        ]),
    ]
    locals_ = {"a": float32, "b": float32, "c": float32, "d": float32, "tile": tile_t, "k": int32}
    # a forward kernel (no keep parameter: passes/adjoint.py gives every backward kernel one) is not walked
    assert drop_dead_locals(_function(body, locals_, params=[("out", out.type)])).body is body
    fn = _function(body, locals_, params=[("out", out.type), (KEEP_PARAM, uint64)])
    kept = drop_dead_locals(fn)
    targets = [s.target for s in ir.walk(kept.body) if isinstance(s, ir.IRAssign)]
    names = [t.name if isinstance(t, ir.IRLocal) else t.array.name for t in targets]
    assert names == ["a", "d", "out"]
    assert fn.body[0] is body[0] and len(fn.body) == 6  # the function it was given is unchanged


def test_a_function_without_saved_loop_values_is_left_alone():
    a = _local("a")
    fn = _function([ir.IRAssign(a, ir.IRConst(1.0, float32))], {"a": float32})
    assert drop_dead_locals(fn) is fn
