"""wp.func_native (C++ snippet functions, with an adjoint snippet) and custom gradients that name struct
fields and arrays in wp.adjoint[...] or call their own forward function."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


@wp.func_native("return a * b;", adj_snippet="adj_a += b * adj_ret;\nadj_b += a * adj_ret;")
def mul_native(a: float, b: float) -> float:
    """a times b, in C++."""
    ...


@wp.func_native("return a + 2.0f;", adj_snippet="adj_a += adj_ret;")
def add_two_native(a: float) -> float:
    ...


@wp.func_native("return a * a;")
def square_no_adjoint(a: float) -> float:
    ...


@wp.kernel
def uses_native(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = mul_native(add_two_native(x[i]), y[i]) + add_two_native(1.0) + square_no_adjoint(x[i])


def test_native_functions_forward_and_backward():
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.array([4.0, 5.0, 6.0], dtype=float, requires_grad=True)
    z = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_native, 3, inputs=[x, y, z])
    xs, ys = x.numpy(), y.numpy()
    np.testing.assert_allclose(z.numpy(), (xs + 2) * ys + 3 + xs * xs)
    tape.backward(grads={z: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), ys)  # square_no_adjoint has no adjoint snippet: no gradient
    np.testing.assert_allclose(y.grad.numpy(), xs + 2)


def test_native_function_errors():
    assert mul_native.__doc__ == "a times b, in C++." and "func_native" in repr(mul_native)
    with pytest.raises(TypeError, match="can be called in kernels and functions only"):
        mul_native(1.0, 2.0)
    with pytest.raises(TypeError, match="parameter 'a' needs a type annotation"):
        @wp.func_native("return a;")
        def untyped(a):
            ...
    with pytest.raises(TypeError, match="snippet must be a string of C\\+\\+ code"):
        wp.func_native(3)(lambda: None)

    @wp.kernel
    def wrong_count(x: wp.array(dtype=float)):
        x[0] = mul_native(x[0])

    with pytest.raises(wp.KernelTypeError, match=r"mul_native\(\) takes 2 arguments"):
        wp.launch(wrong_count, 1, inputs=[wp.zeros(1)])

    @wp.kernel
    def wrong_type(x: wp.array(dtype=int)):
        x[0] = wp.int32(add_two_native(x[0]))

    with pytest.raises(wp.KernelTypeError, match=r"argument 'a' must be float32, got int32"):
        wp.launch(wrong_type, 1, inputs=[wp.zeros(1, dtype=int)])


@wp.struct
class Pair:
    s: float
    v: wp.vec3


@wp.func
def pair_value(p: Pair):
    return p.s * p.v[0] + p.v[1]


@wp.func_grad(pair_value)
def pair_value_grad(p: Pair, adj_ret: float):
    wp.adjoint[p.s] += 10.0 * adj_ret
    wp.adjoint[p.v][1] += 20.0 * adj_ret


@wp.kernel
def eval_pairs(ps: wp.array(dtype=Pair), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = pair_value(ps[i])


def test_custom_gradient_of_struct_fields():
    ps = wp.zeros(2, dtype=Pair, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(eval_pairs, 2, inputs=[ps, out])
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    g = ps.grad.numpy()
    np.testing.assert_array_equal(g["s"], [10.0, 10.0])
    np.testing.assert_array_equal(g["v"], [[0.0, 20.0, 0.0]] * 2)


def test_adjoint_of_a_missing_field_is_an_error():
    @wp.func
    def f(p: Pair):
        return p.s

    @wp.func_grad(f)
    def f_grad(p: Pair, adj_ret: float):
        wp.adjoint[p.w] += adj_ret

    @wp.kernel
    def k(ps: wp.array(dtype=Pair), out: wp.array(dtype=float)):
        out[0] = f(ps[0])

    ps, out = wp.zeros(1, dtype=Pair, requires_grad=True), wp.zeros(1, requires_grad=True)
    with pytest.raises(wp.KernelTypeError, match="Pair has no field 'w'"):  # typed with the function
        wp.launch(k, 1, inputs=[ps, out])


@wp.func
def sigmoid(x: float):
    return 1.0 / (1.0 + wp.exp(-x))


@wp.func_grad(sigmoid)
def sigmoid_grad(x: float, adj: float):
    wp.adjoint[x] += adj * sigmoid(x) * (1.0 - sigmoid(x))  # calls its own forward function


@wp.func
def sigmoid_into(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    ys[i] = sigmoid(xs[i])


@wp.func_grad(sigmoid_into)
def sigmoid_into_grad(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    wp.adjoint[xs][i] += ys[i] * (1.0 - ys[i])  # the array's gradient, updated in place


@wp.kernel
def eval_sigmoid(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    i = wp.tid()
    sigmoid_into(i, xs, ys)


@wp.kernel
def eval_sigmoid_value(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    i = wp.tid()
    ys[i] = sigmoid(xs[i])


def test_gradient_functions_calling_their_forward_and_updating_arrays():
    xs = wp.array([0.0, 1.0, -2.0], dtype=float, requires_grad=True)
    ys = wp.zeros_like(xs)
    ys.grad.fill_(1.0)
    tape = wp.Tape()
    with tape:
        wp.launch(eval_sigmoid, 3, inputs=[xs, ys])
    tape.backward()
    s = 1.0 / (1.0 + np.exp(-xs.numpy()))
    np.testing.assert_allclose(ys.numpy(), s, rtol=1e-6)
    np.testing.assert_allclose(xs.grad.numpy(), s * (1 - s), rtol=1e-6)
    # without a gradient on xs the gradient function does not run (nothing to update)
    plain = wp.array([0.5], dtype=float)
    out = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(eval_sigmoid, 1, inputs=[plain, out])
    tape.backward(grads={out: wp.ones(1)})
    xs2 = wp.array([0.5], dtype=float, requires_grad=True)
    ys2 = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(eval_sigmoid_value, 1, inputs=[xs2, ys2])
    tape.backward(grads={ys2: wp.ones(1)})
    s2 = 1.0 / (1.0 + np.exp(-0.5))
    np.testing.assert_allclose(xs2.grad.numpy(), [s2 * (1 - s2)], rtol=1e-6)


@wp.func_native("return a * 3.0f;", adj_snippet="adj_a += 3.0f * adj_ret;", replay_snippet="return a * 3.0f + 100.0f;")
def triple(a: float) -> float:
    ...


@wp.kernel
def uses_triple(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    t = triple(x[i])
    y[i] = t * t


def test_replay_snippet_runs_in_the_backward_replay():
    """The backward kernel recomputes t with the replay snippet (t + 100 here), so d(t*t)/dx = 2 * (3x + 100) * 3."""
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_triple, 2, inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), [9.0, 36.0])  # the forward snippet
    tape.backward(grads={y: wp.ones(2, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), [2.0 * 103.0 * 3.0, 2.0 * 106.0 * 3.0])


# -- wp.ref[T] parameters of wp.func_native ------------------------------------------------------------------


@wp.func_native("x = x + 5;")
def native_add_five(x: wp.ref[wp.int32]): ...


@wp.func_native("x = y * 2.0f;", adj_snippet="adj_y += 2.0f * adj_x;\nadj_x = 0.0f;")
def native_store_double(x: wp.ref[float], y: float): ...


# the adjoint snippet sees x as the forward call left it (x * y), as in Warp
@wp.func_native("x = x * y;\nreturn x + 1.0f;",
                adj_snippet="adj_y += adj_x * x / y + adj_ret * x / y;\nadj_x = adj_x * y + adj_ret * y;")
def native_scale_ref(x: wp.ref[float], y: float) -> float: ...


@wp.kernel(enable_backward=False)
def native_ref_places(result: wp.array(dtype=wp.int32)):
    local = wp.int32(10)
    native_add_five(local)
    result[0] = local
    native_add_five(result[1])


@wp.kernel
def native_ref_adjoints(x: wp.array(dtype=float), out: wp.array(dtype=float), res: wp.array(dtype=float)):
    i = wp.tid()
    tmp = wp.float32(0.0)
    native_store_double(tmp, x[i])
    v = wp.vec3(1.0, x[i], 0.0)
    r = native_scale_ref(v[1], x[i])
    out[i] = tmp + v[1]
    res[i] = r


def test_native_ref_parameters_store_into_the_places_passed():
    result = wp.zeros(2, dtype=wp.int32)
    wp.launch(native_ref_places, 1, inputs=[result])
    np.testing.assert_array_equal(result.numpy(), [15, 5])


def test_native_ref_parameters_forward_and_adjoint():
    xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = wp.array(xs, dtype=float, requires_grad=True)
    out = wp.zeros(3, dtype=float, requires_grad=True)
    res = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(native_ref_adjoints, 3, inputs=[x, out, res])
    np.testing.assert_allclose(out.numpy(), 2 * xs + xs * xs)
    np.testing.assert_allclose(res.numpy(), xs * xs + 1)
    tape.backward(grads={out: wp.ones_like(out), res: wp.ones_like(res)})
    np.testing.assert_allclose(x.grad.numpy(), 2 + 4 * xs)  # d/dx (2x + x^2) + d/dx (x^2 + 1)


def test_native_ref_argument_must_be_a_place_of_its_type():
    @wp.kernel(module="unique", enable_backward=False)
    def wrong_type(a: wp.array(dtype=float)):
        n = wp.int64(1)
        native_add_five(n)

    with pytest.raises(wp.WarpCodegenTypeError, match=r"wp.ref\[int32\] argument 'x' must be a place of type int32"):
        wp.launch(wrong_type, 1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel(module="unique", enable_backward=False)
    def temporary(a: wp.array(dtype=wp.int32)):
        native_add_five(a[0] + 1)

    with pytest.raises(wp.WarpCodegenTypeError, match="requires an addressable expression"):
        wp.launch(temporary, 1, inputs=[wp.zeros(1, dtype=wp.int32)])


@wp.kernel
def native_ref_into_views(x: wp.array(dtype=float), dst: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    native_store_double(dst[i, 0], x[i])
    row = dst[i]
    native_store_double(row[1], x[i])
    window = row[1:3]
    native_store_double(window[1], x[i])
    out[i] = dst[i, 0] + row[1] + window[1]


def test_native_ref_adjoint_replaces_the_adjoint_of_array_elements_and_views():
    """The snippet's final adj_x is the place's adjoint (it sets it to 0 here): array elements, rows and slices
    alike, as in Warp, where adj_x is the place's adjoint itself."""
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    dst = wp.zeros((2, 3), dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch(native_ref_into_views, 2, inputs=[x, dst, out])
    np.testing.assert_array_equal(out.numpy(), [6.0, 12.0])
    np.testing.assert_array_equal(dst.numpy(), [[2, 2, 2], [4, 4, 4]])
    tape.backward(grads={out: wp.ones_like(out)})
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(dst.grad.numpy(), np.zeros((2, 3)))


@wp.func_native("x = x + 1.0f;")
def native_ref_without_adjoint(x: wp.ref[float]): ...


@wp.kernel
def calls_native_ref_without_adjoint(a: wp.array(dtype=float)):
    native_ref_without_adjoint(a[wp.tid()])


def test_native_ref_without_adj_snippet_has_no_backward():
    a = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(calls_native_ref_without_adjoint, 1, inputs=[a])
    assert a.numpy()[0] == 1.0  # the forward kernel runs
    with pytest.raises(wp.KernelNotDifferentiableError, match=r"native_ref_without_adjoint \(wp.func_native\) "
                                                                r"stores into wp.ref parameters \(x\) and has no "
                                                                r"adj_snippet"):
        tape.backward(grads={a: wp.ones_like(a)})


array2d_ref = wp.ref[wp.array2d(dtype=float)]


@wp.func
def second_of_row(values: array2d_ref, r: int) -> float:
    alias = values
    return alias[r][1]


@wp.func_grad(second_of_row)
def adj_second_of_row(values: array2d_ref, r: int, adj_ret: float):
    wp.adjoint[values][r, 1] += 3.0 * adj_ret


@wp.kernel
def reads_through_array_ref(values: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = second_of_row(values, i)


def test_custom_gradient_of_a_function_taking_an_array_by_reference():
    values = wp.array(np.array([[2.0, 3.0], [4.0, 5.0]], dtype=np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(reads_through_array_ref, 2, inputs=[values, out])
    np.testing.assert_array_equal(out.numpy(), [3.0, 5.0])
    tape.backward(grads={out: wp.ones_like(out)})
    np.testing.assert_array_equal(values.grad.numpy(), [[0.0, 3.0], [0.0, 3.0]])


@wp.func
def scale_into(dst: wp.ref[float], x: float) -> float:
    dst = 2.0 * x
    return x


@wp.func_grad(scale_into)
def adj_scale_into(dst: wp.ref[float], x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret


@wp.kernel
def calls_scale_into(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.float32(0.0)
    y[i] = scale_into(s, x[i]) + s


def test_custom_gradient_cannot_give_the_gradient_of_float_references():
    x = wp.ones(1, dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(calls_scale_into, 1, inputs=[x, y])
    assert y.numpy()[0] == 3.0
    with pytest.raises(wp.KernelNotDifferentiableError, match=r"has a custom gradient \(@func_grad\) and stores "
                                                                r"into wp.ref parameters \(dst\)"):
        tape.backward(grads={y: wp.ones_like(y)})


@wp.func_native("return a * not_declared_anywhere;")
def broken_native(a: float) -> float:
    ...


@wp.kernel
def uses_broken_native(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = broken_native(x[i])


def test_a_snippet_the_compiler_rejects_is_named_as_the_likely_cause():
    # the user's C++ is the likely culprit: the error names the func_native and where it is defined, and does not
    # call it an internal error of brickwork
    x = wp.array([1.0], dtype=float)
    with pytest.raises(wp.ToolchainError) as info:
        wp.launch(uses_broken_native, 1, inputs=[x])
    message = str(info.value)
    line = broken_native.func.__code__.co_firstlineno
    assert f"holds the C++ of wp.func_native function broken_native ({__file__}:{line})" in message
    assert not message.startswith("internal error") and "not_declared_anywhere" in message
    assert x.numpy().tolist() == [1.0]


def test_the_marks_of_native_snippets_are_found_in_a_unit():
    from brickwork.jit.rejected import NATIVE_MARK, native_origins, rejected_code_error

    source = f"int a;\n  {NATIVE_MARK}f (x.py:3)\n{{}}\n{NATIVE_MARK}g (y.py:9)\n{NATIVE_MARK}f (x.py:3)\n"
    assert native_origins(source) == ["f (x.py:3)", "g (y.py:9)"]
    assert "functions f (x.py:3), g (y.py:9): the messages below most likely point into one of them" in str(
        rejected_code_error("NVRTC", "k", source, "/tmp/k.cu", "error"))
    plain = str(rejected_code_error("NVRTC", "k", "int a;", "/tmp/k.cu", "error"))
    assert plain.startswith("internal error: NVRTC rejected the code generated for k. This is a brickwork bug")


def test_nvrtc_rejecting_a_snippet_names_it_too():
    from brickwork import pipeline
    from brickwork.jit import nvrtc
    from brickwork.targets.cuda import CudaTarget

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed")
    with pytest.raises(wp.ToolchainError):  # builds (and keeps) the CPU instance whose types NVRTC gets
        wp.launch(uses_broken_native, 1, inputs=[wp.zeros(1, dtype=float)])
    [inst] = [i for i in uses_broken_native.instances.values()]
    target = CudaTarget("sm_90")
    key = pipeline.cache_key(pipeline.key_parts(inst.kernel, inst.arg_types, inst.mode, target))
    text, meta = pipeline.generate(inst.kernel, inst.arg_types, inst.label, target, inst.mode)
    [error] = target.compile_many([(key, text, inst.label, meta)])
    assert isinstance(error, wp.ToolchainError)
    assert str(error).startswith("NVRTC rejected the CUDA code generated for uses_broken_native, which holds the C++ of "
                                 "wp.func_native function broken_native (")
