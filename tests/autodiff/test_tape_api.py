"""wp.Tape, gradients on arrays, backward launches, custom gradients, and the errors users can cause."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def square_sum(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


@wp.kernel
def scale(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = s * x[i]


def test_requires_grad_on_constructors_and_like():
    a = wp.zeros(3, dtype=float, requires_grad=True)
    assert a.requires_grad and np.array_equal(a.grad.numpy(), np.zeros(3))
    b = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    assert b.grad.shape == (2,) and b.grad.dtype is wp.float32
    assert wp.zeros_like(b).requires_grad and not wp.zeros_like(b, requires_grad=False).requires_grad
    assert wp.clone(b).grad is not b.grad
    assert wp.full(4, 2.0, requires_grad=True).grad.shape == (4,)
    assert wp.ones(2, requires_grad=True).requires_grad
    c = wp.zeros(2)
    assert c.grad is None and not c.requires_grad
    c.requires_grad = True
    assert c.grad.shape == (2,)


def test_grad_setter_checks_shape_and_dtype():
    a = wp.zeros(3, dtype=float, requires_grad=True)
    before = a.grad
    with pytest.raises(ValueError, match=r"grad must be an array of shape \(3,\) and dtype float32"):
        a.grad = wp.zeros(4, dtype=float)
    with pytest.raises(ValueError, match="float32"):
        a.grad = wp.zeros(3, dtype=wp.float64)
    assert a.grad is before
    g = wp.ones(3, dtype=float)
    a.grad = g
    assert a.grad is g


def test_backward_zero_reset_and_gradients():
    x = wp.array([1.0, -2.0, 3.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, 3, inputs=[x, loss])
    assert len(tape.launches) == 1 and tape.gradients[x] is x.grad
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0, 6.0])
    tape.backward(loss)  # gradients accumulate until zeroed
    np.testing.assert_allclose(x.grad.numpy(), [4.0, -8.0, 12.0])
    tape.zero()
    assert not x.grad.numpy().any() and not loss.grad.numpy().any()
    tape.reset()
    assert tape.launches == []


def test_backward_from_existing_output_gradients_and_python_functions():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    calls = []
    tape = wp.Tape()
    with tape:
        wp.launch(scale, 2, inputs=[x, 3.0, y])
        tape.record_func(lambda: calls.append("called"), [y])
    y.grad.assign(np.array([1.0, 10.0], dtype=np.float32))
    tape.backward()
    assert calls == ["called"]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 30.0])


def test_launch_adjoint_directly_with_adj_inputs():
    x = wp.array([1.0, 2.0], dtype=float)
    y = wp.zeros(2, dtype=float)
    adj_x = wp.zeros(2, dtype=float)
    adj_y = wp.array([1.0, 1.0], dtype=float)
    wp.launch(scale, 2, inputs=[x, 5.0, y], adj_inputs=[adj_x, 0.0, adj_y], adjoint=True)
    np.testing.assert_allclose(adj_x.numpy(), [5.0, 5.0])
    assert not y.numpy().any()  # the backward kernel does not write primal arrays


def test_backward_launch_errors_change_nothing():
    x = wp.array([1.0, 2.0], dtype=float)
    y = wp.zeros(2, dtype=float)
    adj_x = wp.zeros(2, dtype=float)
    with pytest.raises(wp.LaunchError, match="adjoint of 'y' must be array\\(dtype=float32, ndim=1\\) of shape "
                                             "\\(2,\\), got array\\(dtype=float64"):
        wp.launch(scale, 2, inputs=[x, 5.0, y], adj_inputs=[adj_x, 0.0, wp.zeros(2, dtype=wp.float64)],
                  adjoint=True)
    with pytest.raises(wp.LaunchError, match="got 2 adjoints for 3 arguments"):
        wp.launch(scale, 2, inputs=[x, 5.0, y], adj_inputs=[adj_x, None], adjoint=True)
    assert not adj_x.numpy().any()


def test_backward_launch_over_more_points_than_the_arrays_is_refused_as_the_forward():
    x = wp.array([1.0, 2.0], dtype=float)
    y = wp.zeros(2, dtype=float)
    adj_x = wp.array([7.0, 7.0], dtype=float)
    adj_y = wp.array([1.0, 1.0], dtype=float)
    with pytest.raises(wp.LaunchError, match=r"'x'.*test_tape_api\.py:20.*shape \(2,\)"):
        wp.launch(scale, 5, inputs=[x, 5.0, y], adj_inputs=[adj_x, 0.0, adj_y], adjoint=True)
    np.testing.assert_array_equal(adj_x.numpy(), [7.0, 7.0])
    np.testing.assert_array_equal(adj_y.numpy(), [1.0, 1.0])


def test_loss_must_have_one_element_and_a_gradient():
    tape = wp.Tape()
    with pytest.raises(ValueError, match="requires_grad=True"):
        tape.backward(wp.zeros(1))
    with pytest.raises(ValueError, match="one element"):
        tape.backward(wp.zeros(3, requires_grad=True))


def test_backward_grads_for_an_output_without_requires_grad_adopts_the_array():
    """As Warp: ``grads={out: g}`` for an output created without requires_grad makes ``g`` its gradient."""
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(scale, 3, inputs=[x, 4.0, y])
    g = wp.array([1.0, 10.0, 100.0], dtype=float)
    tape.backward(grads={y: g})
    assert y.grad is g and y.requires_grad
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 40.0, 400.0])


def test_backward_grads_errors_change_nothing():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    z = wp.zeros(2, dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(scale, 2, inputs=[x, 2.0, y])
    for bad, words in [(wp.zeros(3, dtype=float), r"shape \(2,\) and dtype float32"),
                       (wp.zeros(2, dtype=wp.float64), "dtype float32"), (np.ones(2), "got array")]:
        with pytest.raises(ValueError, match=words):
            tape.backward(grads={y: wp.ones(2, dtype=float), z: bad})
        assert z.grad is None and not y.grad.numpy().any() and not x.grad.numpy().any()
    with pytest.raises(ValueError, match="each key must be a brickwork array, got str"):
        tape.backward(grads={"y": wp.ones(2, dtype=float)})


def test_backward_grads_of_the_wrong_shape_for_an_array_with_a_gradient_change_nothing():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y, w = (wp.zeros(2, dtype=float, requires_grad=True) for _ in range(2))
    v = wp.zeros(2, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale, 2, inputs=[x, 2.0, y])
        wp.launch(square_sum, 2, inputs=[y, loss])
    for bad, got in [(wp.ones(3, dtype=float), r"\(3,\)"), (np.ones((2, 1)), r"\(2, 1\)")]:
        with pytest.raises(ValueError, match=rf"Tape.backward\(grads=...\): the gradient of an array of shape "
                                             rf"\(2,\) must have that shape, got {got}"):
            tape.backward(loss, grads={w: wp.ones(2, dtype=float), y: bad})
        assert not loss.grad.numpy().any() and not w.grad.numpy().any() and not x.grad.numpy().any()
    with pytest.raises(ValueError, match=r"shape \(2,\) must have that shape, got \(2, 2\)"):
        tape.backward(grads={v: np.ones((2, 2))})
    tape.backward(grads={v: np.ones((2, 3)), y: np.ones(2, np.float32)})  # numpy of the shape: vectors' too
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


@wp.kernel(enable_backward=False)
def no_backward(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


def test_enable_backward_false_is_skipped_by_the_tape_and_refused_alone(capsys):
    """As Warp's tape: a forward-only kernel's launch is passed over with a warning, the others run back
    (newuser round 9: it raised, and a Warp program with a forward-only helper on its tape stopped there)."""
    x = wp.array([1.0], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    z = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale, 1, inputs=[x, 3.0, y])
        wp.launch(no_backward, 1, inputs=[y, z])
    tape.backward(grads={z: wp.ones(1, dtype=float), y: wp.full(1, 2.0, dtype=float)})
    assert capsys.readouterr().err == (  # written as Warp writes its warnings
        "Warp UserWarning: Tape.backward: kernel 'no_backward' has no backward pass (enable_backward=False), so its "
        "launch is skipped and the gradients it would pass back are missing\n")
    assert x.grad.numpy().tolist() == [6.0]  # scale's backward ran, from the gradient given for y
    with pytest.raises(wp.LaunchError, match="enable_backward=False"):  # a backward launch of it alone
        wp.launch(no_backward, 1, inputs=[y, z], adj_inputs=[y.grad, z.grad], adjoint=True)
    assert x.grad.numpy().tolist() == [6.0] and z.grad.numpy().tolist() == [1.0]


def test_forward_only_kernels_compile_no_adjoint_code():
    from brickwork.pipeline import generate

    text, _ = generate(scale, scale.concrete_types(), "scale")
    assert "adj_" not in text and "tape_stack" not in text and "bw_tape" not in text
    back, meta = generate(scale, scale.concrete_types(), "scale", mode="release:adjoint")
    assert "v_adj_x" in back and meta["variant"] == "adjoint"


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.func
def doubled(x: float):
    return x * 2.0


@wp.func_replay(doubled)
def replay_doubled(x: float):
    return x * 3.0


@wp.kernel
def custom(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = safe_sqrt(a[i]) + doubled(a[i]) * doubled(a[i])


def test_func_grad_and_func_replay():
    """func_grad replaces the adjoint (no inf at 0); func_replay replaces the value the backward pass
    replays while the function's own body is differentiated (Warp's semantics)."""
    a = wp.array([0.0, 1.0, 4.0], dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(custom, 3, inputs=[a, out])
    tape.backward(grads={out: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(out.numpy(), [0.0, 5.0, 66.0])
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.5 + 12.0, 0.25 + 48.0])


def test_func_grad_needs_a_function():
    with pytest.raises(TypeError, match="func_grad takes a @wp.func function"):
        wp.func_grad(lambda x: x)


@wp.func
def tripled(x: float):
    return x * 3.0


@wp.func_grad(tripled)
def adj_wrong(x: float, adj_ret: float):
    wp.adjoint[y] += adj_ret  # noqa: F821 - the error under test


@wp.kernel
def uses_wrong(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = tripled(a[0])


def test_adjoint_of_an_unknown_parameter_is_a_clear_error():
    with pytest.raises(wp.KernelTypeError, match=r"wp.adjoint\[y\]: 'y' is not a parameter"):
        wp.launch(uses_wrong, 1, inputs=[wp.zeros(1), wp.zeros(1)])


@wp.kernel
def uses_twist(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = wp.quat_twist(wp.vec3(1.0, 0.0, 0.0), wp.quat(a[0], a[0], a[0], a[0]))[0]


def test_builtin_without_adjoint_rule_names_itself():  # quat_twist: no rule yet
    a = wp.zeros(1, dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_twist, 1, inputs=[a, out])
    with pytest.raises(wp.KernelNotDifferentiableError, match="the builtin 'quat_twist' has no adjoint rule"):
        tape.backward(grads={out: wp.ones(1, dtype=float)})
    assert not a.grad.numpy().any()


@pytest.mark.parametrize("how", ["clone", "assign", "copy"])
def test_copies_under_a_tape_pass_the_gradient_back(how):
    """As Warp: clone, assign and wp.copy recorded on a tape add the copy's gradient to the source's."""
    a = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        if how == "clone":
            b = wp.clone(a)
        else:
            b = wp.zeros(3, dtype=float, requires_grad=True)
            b.assign(a) if how == "assign" else wp.copy(b, a)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        wp.launch(square_sum, 3, inputs=[b, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0, 6.0])
    tape.zero()
    assert not a.grad.numpy().any() and not b.grad.numpy().any()


def test_copies_outside_a_tape_or_without_gradients_record_nothing():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    b = wp.clone(a)
    tape = wp.Tape()
    with tape:
        c = wp.zeros(2, dtype=float)
        c.assign(a)  # no gradient on the destination: nothing can flow
    assert tape.launches == [] and b.requires_grad


@wp.func
def counted(counter: wp.array(dtype=int), value: float) -> float:
    wp.atomic_add(counter, 0, 1)
    return value


@wp.func
def scaled(counter: wp.array(dtype=int), x: float, s: float) -> float:
    return x * s


@wp.func_grad(scaled)
def adj_scaled(counter: wp.array(dtype=int), x: float, s: float, adj_ret: float):
    wp.adjoint[x] += counted(counter, adj_ret * s)
    wp.adjoint[s] += adj_ret * x


@wp.kernel
def uses_scaled(counter: wp.array(dtype=int), a: wp.array(dtype=float), b: wp.array(dtype=float),
                out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = scaled(counter, a[i], b[i])


def test_gradient_function_runs_as_written_side_effects_once():
    """A func_grad body is the user's backward code: its atomics run, once per call (Warp's test)."""
    counter = wp.zeros(1, dtype=int)
    a = wp.array([3.0, 5.0], dtype=float, requires_grad=True)
    b = wp.array([2.0, 4.0], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_scaled, 2, inputs=[counter, a, b, out])
    assert counter.numpy()[0] == 0
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    assert counter.numpy()[0] == 2
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(b.grad.numpy(), [3.0, 5.0])


def test_copy_adjoint_consumes_the_overwritten_gradient():
    """As Warp: a copy's adjoint adds the copied part of the destination's gradient to the source's and
    zeroes it there, so of two copies into one array only the last one's source gets a gradient."""
    a = wp.array([1.0, 1.0, 1.0], dtype=float, requires_grad=True)
    b = wp.array([2.0, 2.0, 2.0], dtype=float, requires_grad=True)
    dst = wp.zeros(3, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(dst, a)
        wp.copy(dst, b)
        wp.launch(square_sum, 3, inputs=[dst, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(b.grad.numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(dst.grad.numpy(), [0.0, 0.0, 0.0])
    # a part: only the copied window is consumed
    x = wp.array([1.0, 2.0, 3.0, 4.0], dtype=float, requires_grad=True)
    s = wp.array([5.0, 6.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(x, s, dest_offset=1, src_offset=0, count=2)
        wp.launch(square_sum, 4, inputs=[x, loss])
    tape.backward(loss)
    np.testing.assert_array_equal(s.grad.numpy(), [10.0, 12.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 0.0, 0.0, 8.0])


def test_copies_between_parts_of_one_array():
    """Columns of one array (their bytes interleave, their elements do not overlap): the exact gradient, the
    source column getting both columns' and the overwritten one none (Warp 1.19 copies the gradient bytes:
    1 and 1). A copy whose source and destination share elements passes the destination's gradient to the
    source by overwriting it, with a warning (as Warp)."""
    base = wp.array(np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.0]]), dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(base[:, 1], base[:, 0])
        wp.launch(square_sum, 3, inputs=[base[:, 1], loss])
    np.testing.assert_array_equal(base.numpy(), [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    tape.backward(loss)
    np.testing.assert_array_equal(base.grad.numpy(), [[2.0, 0.0], [4.0, 0.0], [6.0, 0.0]])
    y = wp.array([1.0, 2.0, 3.0, 4.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(y, y, dest_offset=1, src_offset=0, count=3)
        wp.launch(square_sum, 4, inputs=[y, loss])
    np.testing.assert_array_equal(y.numpy(), [1.0, 1.0, 2.0, 3.0])
    with pytest.warns(UserWarning, match="overlapping copy .* cannot yet be fully tracked"):
        tape.backward(loss)
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 4.0, 6.0, 6.0])  # y.grad[0:3] = y.grad[1:4] (exact: 4 4 6 0)


def test_tapes_do_not_nest():
    outer = wp.Tape()
    with outer:
        with pytest.raises(RuntimeError, match="another Tape is recording"):
            with wp.Tape():
                pass
        with pytest.raises(RuntimeError, match="cannot be entered twice"):
            with outer:
                pass
    with wp.Tape():  # the failed entries left nothing recording
        pass
    with pytest.raises(RuntimeError, match="this Tape is not recording: __exit__ without a matching __enter__"):
        outer.__exit__(None, None, None)
    other = wp.Tape()
    with other:  # a stray exit of another tape leaves the recording one recording
        with pytest.raises(RuntimeError, match="this Tape is not recording"):
            outer.__exit__(None, None, None)
        x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
        wp.launch(scale, 2, inputs=[x, 3.0, wp.zeros(2, dtype=float, requires_grad=True)])
    assert len(other.launches) == 1


def test_record_scopes():
    tape = wp.Tape()
    with pytest.raises(RuntimeError, match="ended tape scope, but scope not present"):
        tape.record_scope_end()
    tape.record_scope_begin("outer", {"step": 1})
    tape.record_scope_begin("empty")
    tape.record_scope_end()  # no launch in it: removed
    assert tape.scopes == [(0, "outer", {"step": 1})]
    a, loss = wp.ones(2, requires_grad=True), wp.zeros(1, requires_grad=True)
    with tape:
        wp.launch(square_sum, 2, inputs=[a, loss])
    tape.record_scope_begin("kept")
    tape.record_scope_end(remove_scope_if_empty=False)
    tape.record_scope_end()
    assert tape.scopes == [(0, "outer", {"step": 1}), (1, "kept", {}), (1, None, None), (1, None, None)]
    with pytest.raises(RuntimeError, match="scope not present"):
        tape.record_scope_end()
    tape.reset()
    assert tape.scopes == []


@wp.struct
class Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)


@wp.kernel
def pair_product(p: Pair, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = p.x[i] * p.y[i]


def test_gradients_of_recorded_structs():
    p = Pair()
    p.x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    p.y = wp.array([3.0, 4.0], dtype=float, requires_grad=True)
    z = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(pair_product, 2, inputs=[p], outputs=[z])
    tape.backward(grads={z: wp.ones(2, dtype=float)})
    g = tape.gradients[p]
    assert type(g) is Pair and g.x is p.x.grad and tape.get_adjoint(p) is g
    np.testing.assert_array_equal(g.x.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(g.y.numpy(), [1.0, 2.0])
    tape.reset()
    assert not g.x.numpy().any() and not g.y.numpy().any() and tape.launches == []


def test_visualize_draws_launches_arrays_and_scopes(tmp_path):
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        tape.record_scope_begin("steps")
        for _ in range(4):
            wp.launch(scale, 2, inputs=[x, 2.0, y])
        tape.record_scope_end()
        wp.launch(square_sum, 2, inputs=[y, loss])
    dot = tape.visualize(filename=str(tmp_path / "g.dot"), array_labels={x: "positions"})
    assert (tmp_path / "g.dot").read_text() == dot
    assert dot.startswith("digraph tape {") and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}")
    assert "subgraph cluster_0" in dot and "<b>steps</b>" in dot
    assert dot.count("<b>scale (repeated 4x)</b>") == 1 and dot.count("square_sum") == 1
    assert 'label="positions"' in dot and 'TITLE="array: dtype=float32, shape=(2,)"' in dot
    assert 'TITLE="dtype=float, value=2.0"' in dot  # a scalar argument
    full = tape.visualize(simplify_graph=False, ignore_graph_scopes=True, graph_direction="TB")
    assert full.count("<b>scale</b>") == 4 and "cluster" not in full and "rankdir=TB;" in full
    hidden = tape.visualize(hide_readonly_arrays=True)
    assert 'label="x"' not in hidden and 'label="y"' in hidden  # x is only read
    with pytest.raises(ValueError, match="graph_direction must be one of"):
        tape.visualize(graph_direction="up")
    with pytest.raises(ValueError, match="track_input_names has 2 names for 1 arrays"):
        tape.visualize(track_inputs=[x], track_input_names=["a", "b"])
