"""brickwork.autograd (Warp's warp.autograd): Jacobians by autodiff and finite differences, gradient checks."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.autograd import FunctionMetadata, gradcheck, gradcheck_tape, jacobian, jacobian_fd, jacobian_plot


@wp.kernel
def scale_and_square(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2), s: float,
                     out: wp.array(dtype=wp.vec2), sq: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = b[i] * a[i] * s
    sq[i] = a[i] * a[i]


@wp.kernel
def cube(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


@wp.kernel
def add_one(v: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v[i] = v[i] + wp.float64(1.0)


@wp.kernel
def set_one(v: wp.array(dtype=wp.float64)):
    v[wp.tid()] = wp.float64(1.0)


@wp.kernel
def weighted_cube(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = w[i] * x[i] * x[i] * x[i]


@wp.func
def square(x: float):
    return x * x


@wp.func_grad(square)
def adj_square_wrong_sign(x: float, adj: float):
    wp.adjoint[x] -= 2.0 * x * adj


@wp.kernel
def wrong_gradient(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = square(a[i])


@wp.kernel(enable_backward=False)
def no_backward(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = 2.0 * a[i]


def _mixed_args():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b = wp.array([[1.0, 2.0], [3.0, 4.0]], dtype=wp.vec2, requires_grad=True)
    out = wp.full(2, wp.vec2(7.0, 7.0), dtype=wp.vec2, requires_grad=True)
    sq = wp.zeros(2, dtype=float, requires_grad=True)
    return [a, b, 2.0], [out, sq]


def test_jacobian_of_a_kernel_against_the_analytic_values():
    inputs, outputs = _mixed_args()
    jac = jacobian(scale_and_square, dim=2, inputs=inputs, outputs=outputs)
    assert sorted(jac) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # d out[i] / d a[i] = s * b[i]: a row per output scalar, a column per input element
    np.testing.assert_array_equal(jac[0, 0].numpy(), [[2, 0], [4, 0], [0, 6], [0, 8]])
    np.testing.assert_array_equal(jac[0, 1].numpy(), [[2, 0], [0, 4]])  # d a^2 / d a = 2a
    # a vec2 input: the Jacobian has its dtype, so each element holds two scalar columns
    assert jac[1, 0].dtype is wp.vec2 and jac[1, 0].shape == (4, 2)
    np.testing.assert_array_equal(jac[1, 0].numpy().reshape(4, 4), np.diag([2.0, 2.0, 4.0, 4.0]))
    np.testing.assert_array_equal(jac[1, 1].numpy(), np.zeros((2, 2, 2)))
    # values and gradients are as before
    np.testing.assert_array_equal(outputs[0].numpy(), np.full((2, 2), 7.0))
    assert not inputs[0].grad.numpy().any() and not outputs[0].grad.numpy().any()


def test_jacobian_fd_uses_central_differences():
    x = wp.array([1.0, 2.0, 3.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros_like(x)
    fd = jacobian_fd(cube, dim=3, inputs=[x], outputs=[y], eps=1e-2)[0, 0].numpy()
    # (f(x+e) - f(x-e)) / 2e = 3x^2 + e^2 for a cube
    np.testing.assert_allclose(np.diag(fd), 3 * x.numpy() ** 2 + 1e-4, rtol=1e-10)
    ad = jacobian(cube, dim=3, inputs=[x], outputs=[y])[0, 0].numpy()
    np.testing.assert_array_equal(ad, np.diag(3 * x.numpy() ** 2))


def test_limits_masks_and_which_arrays_take_part():
    x = wp.array([1.0, 2.0, 3.0], dtype=wp.float64, requires_grad=True)
    y = wp.zeros_like(x)
    ad = jacobian(cube, dim=3, inputs=[x], outputs=[y], max_outputs_per_var=2)[0, 0].numpy()
    assert np.isnan(ad[2:]).all() and ad[1, 1] == 12.0
    fd = jacobian_fd(cube, dim=3, inputs=[x], outputs=[y], max_inputs_per_var=1)[0, 0].numpy()
    assert np.isnan(fd[:, 1:]).all() and abs(fd[0, 0] - 3.0) < 1e-6
    inputs, outputs = _mixed_args()
    by_name = jacobian(scale_and_square, dim=2, inputs=inputs, outputs=outputs, input_output_mask=[("b", "out")])
    by_index = jacobian_fd(scale_and_square, dim=2, inputs=inputs, outputs=outputs, input_output_mask=[(0, 1)])
    assert sorted(by_name) == [(1, 0)] and sorted(by_index) == [(0, 1)]
    outputs[1].requires_grad = False  # arrays without a gradient do not take part
    outputs[1]._grad = None
    assert sorted(jacobian(scale_and_square, dim=2, inputs=inputs, outputs=outputs)) == [(0, 0), (1, 0)]


def test_jacobian_of_a_python_function_restores_mutated_inputs():
    x = wp.array([1.0, 2.0, 3.0], dtype=wp.float64, requires_grad=True)
    w = wp.array([1.0, 2.0, 4.0], dtype=wp.float64)

    def pipeline(x, w):
        wp.launch(add_one, dim=3, inputs=[w])  # changes an input: each evaluation starts from the saved values
        y = wp.zeros_like(x)
        wp.launch(cube, dim=3, inputs=[x], outputs=[y])
        z = wp.zeros_like(x)
        wp.launch(weighted_cube, dim=3, inputs=[y, w], outputs=[z])  # z = (w + 1) x^9
        return y, z

    expected = 9 * (np.array([2.0, 3.0, 5.0])) * np.array([1.0, 2.0, 3.0]) ** 8
    for jac in (jacobian(pipeline, inputs=[x, w]), jacobian_fd(pipeline, inputs=[x, w], eps=1e-6)):
        assert sorted(jac) == [(0, 0), (0, 1)]  # w has no gradient
        np.testing.assert_allclose(np.diag(jac[0, 1].numpy()), expected, rtol=1e-6)
        np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(w.numpy(), [1.0, 2.0, 4.0])
    assert not x.grad.numpy().any()


def test_gradcheck_passes_on_a_correct_kernel_and_prints_a_summary(capsys):
    inputs, outputs = _mixed_args()
    assert gradcheck(scale_and_square, dim=2, inputs=inputs, outputs=outputs) is True
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("Input | Output | Max Abs Error          | AD at MAE | FD at MAE | Max Rel Error | Pass | ")
    assert lines[1] == "-" * (len(lines[0]) - 1)
    assert lines[2].startswith("a     | out    | ") and "\x1b[92mPASS\x1b[0m | " in lines[2]
    assert [line[:10] for line in lines[2:6]] == ["a     | ou", "a     | sq", "b     | ou", "b     | sq"]
    assert lines[-1] == "\x1b[92mGradient check for kernel scale_and_square passed\x1b[0m"
    assert gradcheck(scale_and_square, dim=2, inputs=inputs, outputs=outputs, show_summary=False)
    assert capsys.readouterr().out == ""


def test_gradcheck_fails_on_a_wrong_custom_gradient(capsys):
    a = wp.array([1.0, 2.0, 0.5], dtype=float, requires_grad=True)
    out = wp.zeros_like(a)
    with pytest.raises(ValueError, match="Gradient check failed for kernel wrong_gradient, input 0, output 0"):
        gradcheck(wrong_gradient, dim=3, inputs=[a], outputs=[out])
    text = capsys.readouterr().out
    assert "\x1b[91mFAIL\x1b[0m" in text and "-4.000e+00" in text  # AD -2x against FD 2x at x = 2
    assert "Gradient check for kernel wrong_gradient failed" in text
    assert gradcheck(wrong_gradient, dim=3, inputs=[a], outputs=[out], raise_exception=False,
                     show_summary=False) is False
    np.testing.assert_array_equal(jacobian(wrong_gradient, dim=3, inputs=[a], outputs=[out])[0, 0].numpy(),
                                  np.diag([-2.0, -4.0, -1.0]))


def test_gradcheck_tape_checks_each_recorded_launch(capsys):
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b, c = wp.zeros_like(a), wp.zeros_like(a)
    with wp.Tape() as tape:
        wp.launch(wrong_gradient, dim=2, inputs=[a], outputs=[b])
        wp.launch(no_backward, dim=2, inputs=[b], outputs=[c])  # skipped: no backward pass
    assert gradcheck_tape(tape, raise_exception=False, show_summary=False) is False
    assert gradcheck_tape(tape, show_summary=False, blacklist_kernels=["wrong_gradient"]) is True
    assert gradcheck_tape(tape, show_summary=False, whitelist_kernels=["no_backward"]) is True
    assert gradcheck_tape(tape, show_summary=False, skip_to_launch_index=1) is True
    with pytest.raises(ValueError, match="kernel wrong_gradient"):
        gradcheck_tape(tape, show_summary=False)
    with pytest.raises(TypeError, match="must be a wp.Tape"):
        gradcheck_tape([])
    assert capsys.readouterr().out == ""


def test_errors_name_the_problem():
    inputs, outputs = _mixed_args()
    with pytest.raises(ValueError, match="Kernel must have backward pass enabled to compute Jacobians"):
        jacobian(no_backward, dim=2, inputs=[inputs[0]], outputs=[outputs[1]])
    fd = jacobian_fd(no_backward, dim=2, inputs=[inputs[0]], outputs=[outputs[1]])  # forward launches only
    np.testing.assert_allclose(fd[0, 0].numpy(), 2 * np.eye(2), rtol=1e-3)
    with pytest.raises(ValueError, match="A list of output arguments must be provided"):
        jacobian(scale_and_square, dim=2, inputs=inputs)
    with pytest.raises(TypeError, match="dim .* is required for kernel 'scale_and_square'"):
        jacobian_fd(scale_and_square, inputs=inputs, outputs=outputs)
    with pytest.raises(ValueError, match="has 5 parameters"):
        jacobian(scale_and_square, dim=2, inputs=inputs[:2], outputs=outputs)
    with pytest.raises(ValueError, match="no input named 'zz' \\(the inputs are a, b, s\\)"):
        gradcheck(scale_and_square, dim=2, inputs=inputs, outputs=outputs, input_output_mask=[("zz", "out")])
    with pytest.raises(ValueError, match="output index 5 is out of range"):
        jacobian(scale_and_square, dim=2, inputs=inputs, outputs=outputs, input_output_mask=[(0, 5)])
    with pytest.raises(TypeError, match="must be a kernel or a Python function, got int"):
        jacobian(3, inputs=inputs)
    with pytest.raises(TypeError, match="must return an array or a tuple of arrays"):
        jacobian(lambda a: 1.0, inputs=[inputs[0]])

    def disabled(a):
        out = wp.zeros_like(a)
        wp.launch(no_backward, dim=2, inputs=[a], outputs=[out])
        return out

    with pytest.raises(ValueError, match="backward pass enabled .*'no_backward'"):
        jacobian(disabled, inputs=[inputs[0]])
    np.testing.assert_array_equal(inputs[0].numpy(), [1.0, 2.0])


def test_jacobian_plot_draws_a_grid_per_input_and_output(monkeypatch):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setattr(plt, "show", lambda: None)
    inputs, outputs = _mixed_args()
    jac = jacobian(scale_and_square, dim=2, inputs=inputs, outputs=outputs, input_output_mask=[("b", "out"),
                                                                                                ("a", "sq")])
    figure = jacobian_plot(jac, scale_and_square, inputs=inputs, show_plot=False)
    try:
        assert figure.get_suptitle() == "scale_and_square kernel Jacobian"
        axes = figure.axes
        assert len(axes) == 5  # 2 x 2 blocks and a colorbar
        assert [ax.axison for ax in axes[:4]] == [False, True, True, False]
        assert (axes[1].get_xlabel(), axes[1].get_ylabel()) == ("b", "out")
        assert axes[0].get_gridspec().get_width_ratios() == [2, 4]
        assert axes[0].get_gridspec().get_height_ratios() == [4, 2]
    finally:
        plt.close(figure)
    assert jacobian_plot({}, FunctionMetadata(key="k")) is None
    with pytest.raises(ValueError, match="inputs must be provided"):
        jacobian_plot(jac, scale_and_square)
    with pytest.raises(ValueError, match="Jacobian input index 0: missing array dtype"):
        jacobian_plot(jac, FunctionMetadata(input_labels=["a", "b"], output_labels=["out", "sq"],
                                            input_dtypes=[None, None]), show_plot=False)


def test_jacobian_plot_without_matplotlib_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import fails as if it were not installed
    with pytest.raises(ImportError, match="'io' extra"):
        jacobian_plot({}, FunctionMetadata())


def test_retain_grad_keeps_a_copy_destinations_gradient():
    for retain, left in ((False, 0.0), (True, 1.0)):
        src = wp.array([5.0, 5.0], dtype=float, requires_grad=True)
        dst = wp.zeros(2, dtype=float, requires_grad=True, retain_grad=retain)
        assert dst.retain_grad is retain
        with wp.Tape() as tape:
            wp.copy(dst, src)
        tape.backward(grads={dst: wp.ones(2, dtype=float)})
        np.testing.assert_array_equal(src.grad.numpy(), [1.0, 1.0])
        np.testing.assert_array_equal(dst.grad.numpy(), [left, left])
    a = wp.zeros(2, requires_grad=True)
    a.retain_grad = True
    assert a.retain_grad and not wp.empty(2).retain_grad
    with pytest.raises(ValueError, match="retain_grad=True requires requires_grad=True"):  # as Warp
        wp.empty(2).retain_grad = True


def test_a_check_keeps_the_read_flags_of_a_pending_tape(monkeypatch):
    monkeypatch.setattr(wp.config, "verify_autograd_array_access", True)
    for derivative in (jacobian, jacobian_fd, jacobian):  # twice the same overwrite: it warns each time
        x = wp.array([1.0, 2.0], dtype=wp.float64, requires_grad=True)
        y = wp.zeros_like(x)
        tape = wp.Tape()
        with tape:
            wp.launch(cube, dim=2, inputs=[x], outputs=[y])
        assert x._is_read
        derivative(cube, dim=2, inputs=[x], outputs=[wp.zeros_like(x)])
        assert x._is_read  # the check's own backward pass did not consume the pending tape's read
        with pytest.warns(UserWarning, match="has already been read from in a previous launch"):
            with tape:
                wp.launch(set_one, dim=2, inputs=[x])
