"""``config.print_launches`` (Warp's debugging aid): a line per kernel that runs, before it runs."""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork import config, la


@wp.kernel
def scaled(a: wp.float32, x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = a * x[i]


@wp.kernel
def squares(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i]


THIS_FILE = __file__


def lines(capsys) -> list:
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith("kernel")]


def test_each_launch_prints_its_kernel_grid_arguments_and_device_before_it_runs(capsys):
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    wp.launch(scaled, 4, inputs=[2.0, x, y])  # compiled or loaded: not printed, the setting is off
    assert lines(capsys) == []
    with config.override(print_launches=True):
        wp.launch(scaled, 4, inputs=[3.0, x], outputs=[y])
        wp.launch(scaled, (2,), inputs=[4.0, x, y])
    got = lines(capsys)
    line = scaled.func.__code__.co_firstlineno
    assert got == [
        f"kernel: {scaled.key} ({THIS_FILE}:{line}) dim: 4 inputs: [3.0, array(float32, shape=(4,), device=cpu)] "
        f"outputs: [array(float32, shape=(4,), device=cpu)] device: cpu",
        f"kernel: {scaled.key} ({THIS_FILE}:{line}) dim: (2,) inputs: [4.0, array(float32, shape=(4,), device=cpu), "
        f"array(float32, shape=(4,), device=cpu)] outputs: [] device: cpu"]
    assert np.array_equal(y.numpy(), [0.0, 4.0, 6.0, 9.0])  # the launches ran as without the setting
    wp.launch(scaled, 4, inputs=[2.0, x, y])
    assert lines(capsys) == []


def test_a_recorded_command_prints_when_it_runs_and_long_values_are_cut(capsys):
    x = wp.array(np.ones(3, dtype=np.float32))
    y = wp.zeros(3, dtype=wp.float32)
    with config.override(print_launches=True):
        cmd = wp.launch(scaled, 3, inputs=[1.5, x, y], record_cmd=True)
        assert lines(capsys) == []
        cmd.launch()
        assert len(lines(capsys)) == 1
        np_input = np.ones(3, dtype=np.float32)  # a numpy array: summarized as an array too
        wp.launch(squares, 3, inputs=[np_input, y])
    got = lines(capsys)
    assert got[0].endswith("inputs: [ndarray(float32, shape=(3,)), array(float32, shape=(3,), device=cpu)] "
                           "outputs: [] device: cpu")
    from brickwork.runtime.launch_printing import describe

    assert describe("x" * 100) == repr("x" * 100)[:57] + "..."


def test_backward_kernels_of_a_tape_print_as_backward(capsys):
    x = wp.array(np.arange(3, dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(squares, 3, inputs=[x, y])
    capsys.readouterr()
    with config.override(print_launches=True):
        tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32))})
    got = lines(capsys)
    assert len(got) == 1 and got[0].startswith(f"kernel backward: {squares.key} (")
    assert np.array_equal(x.grad.numpy(), [0.0, 2.0, 4.0])


def test_loop_abstraction_launches_print_their_body_kernel(capsys):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, nblocks=1, nx=4, ny=2, nz=2, nghost=1)
    u = wp.array(np.arange(96, dtype=np.float64).reshape(1, 4, 4, 6), dtype=wp.float64)
    out = wp.zeros((1, 4, 4, 6), dtype=wp.float64)

    def double_it(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = wp.float64(2.0) * u[b, k, j, i]

    la.outer(space, double_it)  # compiled, and the repeated launch's fast path set up
    capsys.readouterr()
    with config.override(print_launches=True):
        la.outer(space, double_it)
    got = lines(capsys)
    assert len(got) == 1 and got[0].startswith("kernel: ") and "device: cpu" in got[0]
    la.outer(space, double_it)
    assert lines(capsys) == []
    interior = (0, slice(1, 3), slice(1, 3), slice(1, 5))
    assert np.array_equal(out.numpy()[interior], 2.0 * u.numpy()[interior])
