"""An instance is compiled with its unit-stride body only; the first launch with an array of another
innermost stride builds the general version (both bodies), which serves every later launch."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import compile as jit


@wp.kernel
def double_into(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * 2.0


@wp.kernel
def scaled_sum(x: wp.array(dtype=wp.float64), s: wp.float64, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(out, 0, s * x[i] * x[i])


def _doubler():
    """A kernel object of its own (a fresh launch table), the same source as ``double_into``."""

    @wp.kernel
    def doubler(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
        i = wp.tid()
        y[i] = x[i] * 2.0

    return doubler


@pytest.fixture
def no_pending():
    """No instance of another test waiting to be built: a build takes every pending instance along, so
    one declared and left unbuilt elsewhere (an explicit overload) would count as this test's compile."""
    from brickwork.lang.instance import _pending

    saved = _pending[:]
    _pending.clear()
    yield
    _pending[:0] = [p for p in saved if p not in _pending]


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_strided_launch_builds_the_general_version_once(target, tmp_path, monkeypatch, no_pending):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))  # an empty cache: every build compiles
    values = np.arange(40, dtype=np.float32)
    kernel = _doubler()
    with config.override(target=target, compile_module=False):  # this kernel alone, not its module's others
        x, y = wp.array(values), wp.zeros(40, dtype=wp.float32)
        before = jit.compiler_calls
        wp.launch(kernel, dim=40, inputs=[x, y])
        assert jit.compiler_calls == before + 1
        np.testing.assert_array_equal(y.numpy(), 2 * values)
        (inst, _pack), = kernel.launch_table.values()
        assert inst._general is None  # contiguous arrays: the unit-stride library only

        every_other = wp.array(values)[::2]
        y2 = wp.zeros(20, dtype=wp.float32)
        wp.launch(kernel, dim=20, inputs=[every_other, y2])
        assert jit.compiler_calls == before + 2
        np.testing.assert_array_equal(y2.numpy(), 2 * values[::2])

        y3 = wp.zeros(20, dtype=wp.float32)
        wp.launch(kernel, dim=20, inputs=[every_other, y3])  # both kinds again: nothing more compiles
        wp.launch(kernel, dim=40, inputs=[x, y])
        assert jit.compiler_calls == before + 2
        np.testing.assert_array_equal(y3.numpy(), 2 * values[::2])
        np.testing.assert_array_equal(y.numpy(), 2 * values)
        assert inst.fn is inst._general.fn
        assert inst._general.key() != inst.key()


def test_the_unit_stride_library_has_no_general_body():
    from brickwork import pipeline

    text, _ = pipeline.generate(double_into, [wp.array(dtype=wp.float32)] * 2, "double_into")
    general, _ = pipeline.generate(double_into, [wp.array(dtype=wp.float32)] * 2, "double_into",
                                   mode="release:strided")
    assert "run<false>" not in text and "if (!h.unit_inner) return 1;" in text
    assert "if (h.unit_inner) run<true>(h, a); else run<false>(h, a);" in general


def test_a_captured_strided_launch_replays_through_the_general_version():
    values = np.linspace(0.0, 1.0, 30, dtype=np.float32)
    src = wp.array(values)[::3]
    dst = wp.zeros(10, dtype=wp.float32)
    kernel = _doubler()
    wp.launch(kernel, dim=10, inputs=[wp.array(values[:10].copy()), dst])  # the unit-stride instance, loaded
    dst.zero_()
    wp.capture_begin()
    try:
        wp.launch(kernel, dim=10, inputs=[src, dst])
    finally:
        graph = wp.capture_end()
    assert not dst.numpy().any()  # recorded, not run
    wp.capture_launch(graph)
    np.testing.assert_array_equal(dst.numpy(), 2 * values[::3])


def test_debug_mode_bounds_checks_hold_on_the_general_version():
    values = np.arange(12, dtype=np.float32)
    with config.override(mode="debug"):
        y = wp.zeros(6, dtype=wp.float32)
        wp.launch(double_into, dim=6, inputs=[wp.array(values)[::2], y])
        np.testing.assert_array_equal(y.numpy(), 2 * values[::2])
        short = wp.zeros(3, dtype=wp.float32)
        with pytest.raises(wp.BoundsError, match="double_into"):
            wp.launch(double_into, dim=6, inputs=[wp.array(values)[::2], short])


def test_gradients_through_strided_arrays_use_the_general_backward_kernel():
    values = np.linspace(-1.0, 2.0, 16)
    x = wp.array(values, requires_grad=True)
    view = x[::2]
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scaled_sum, dim=8, inputs=[view, 3.0, out])
    tape.backward(loss=out)
    expected = np.zeros(16)
    expected[::2] = 6.0 * values[::2]
    np.testing.assert_allclose(out.numpy()[0], 3.0 * np.sum(values[::2] ** 2))
    np.testing.assert_allclose(x.grad.numpy(), expected)
