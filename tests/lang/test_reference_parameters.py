"""``wp.ref[T]`` parameters of ``@func``: assignments to the parameter store into the caller's local variable,
array element, struct field or component (copy-in/copy-out), with Warp's errors for what cannot be stored."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Acc:
    total: float
    count: int


@wp.func
def store_double(dst: wp.ref[float], x: float):
    dst = x * 2.0


@wp.func
def add_and_return(dst: wp.ref[float], x: float) -> float:
    dst += x
    return x + 1.0


@wp.func
def set_component(dst: wp.ref[wp.vec3], x: float):
    dst[1] = x


@wp.func
def sign_into(dst: wp.ref[float], x: float):
    if x > 0.0:
        dst = 1.0
        return  # an early return stores too
    dst = -1.0


@wp.func
def count_into(n: wp.ref[int], acc: wp.ref[float], x: float):
    n += 1
    acc += x


@wp.func
def through(dst: wp.ref[float], x: float):
    store_double(dst, x)  # a reference parameter passed on by reference


@wp.func
def apply_into(g: wp.Function, dst: wp.ref[float], x: float):
    dst = g(x)


@wp.kernel(enable_backward=False)
def references(out: wp.array(dtype=float), vs: wp.array(dtype=wp.vec3)):
    store_double(out[0], 3.0)
    a = wp.float32(1.0)
    b = add_and_return(a, 2.0)
    out[1] = a
    out[2] = b
    v = wp.vec3()
    set_component(v, 5.0)
    out[3] = v[1]
    set_component(vs[0], 7.0)
    store_double(v[2], 4.5)
    out[4] = v[2]
    sign_into(out[5], 2.0)
    sign_into(out[6], -2.0)
    s = Acc()
    count_into(s.count, s.total, 1.5)
    count_into(s.count, s.total, 2.0)
    out[7] = float(s.count) + s.total
    through(out[8], 10.0)
    apply_into(wp.sqrt, out[9], 16.0)


def test_reference_parameters_store_into_the_caller():
    out = wp.zeros(10, dtype=float)
    vs = wp.zeros(1, dtype=wp.vec3)
    wp.launch(references, dim=1, inputs=[out, vs])
    np.testing.assert_allclose(out.numpy(), [6, 3, 3, 5, 9, 1, -1, 5.5, 20, 4])
    np.testing.assert_allclose(vs.numpy(), [[0, 7, 0]])


@wp.kernel
def differentiable(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.float32(0.0)
    r = add_and_return(s, x[i] * x[i])
    store_double(y[i], s + r)


def test_gradients_flow_through_references():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(differentiable, dim=2, inputs=[x, y])
    tape.backward(grads={y: wp.ones(2, dtype=float)})
    xs = np.array([1.0, 2.0])
    np.testing.assert_allclose(y.numpy(), 2.0 * (2 * xs * xs + 1.0))
    np.testing.assert_allclose(x.grad.numpy(), 8.0 * xs)


def _error(body, *extra):
    with pytest.raises(wp.KernelError) as info:
        wp.launch(wp.kernel(body), dim=1, inputs=[wp.zeros(2, dtype=float), *extra])
    return str(info.value)


def test_places_only():
    def literal(o: wp.array(dtype=float)):
        store_double(1.0, 2.0)

    def temporary(o: wp.array(dtype=float)):
        store_double(o[0] + 1.0, 2.0)

    def twice(o: wp.array(dtype=float), c: wp.array(dtype=int)):
        store_double(o[wp.atomic_add(c, 0, 1)], 2.0)

    def in_condition(o: wp.array(dtype=float)):
        o[0] = add_and_return(o[1], 1.0) if o[0] > 0.0 else 0.0

    def in_while(o: wp.array(dtype=float)):
        while add_and_return(o[1], 1.0) < 0.0:
            pass

    for body in (literal, temporary):
        assert "requires an addressable expression" in _error(body)
    assert "would run twice" in _error(twice, wp.zeros(1, dtype=int))
    assert "cannot be in a branch of a conditional expression" in _error(in_condition)
    assert "cannot be in a while condition" in _error(in_while)


def test_not_in_kernel_signatures():
    def k(a: wp.ref[float]):
        pass

    with pytest.raises(wp.KernelTypeError, match="wp.ref\\[T\\] is not allowed in kernel signatures"):
        wp.kernel(k)
    with pytest.raises(TypeError, match="annotation"):
        wp.ref()


def test_python_scope_calls_run_the_body():
    assert add_and_return(1.0, 2.0) == 3.0


def test_ref_annotation_names_its_value_type():
    assert wp.ref[wp.float32].dtype is wp.float32
    assert wp.ref[wp.vec3].value_type is wp.vec3
    assert wp.ref[float].dtype is wp.float32
    assert wp.ref[wp.int32] is wp.ref[wp.int32] and wp.ref[wp.int32].dtype != wp.ref[wp.float32].dtype


def test_overloads_differing_only_by_ref_are_refused():
    @wp.func
    def refness_only(x: wp.int32) -> wp.int32:
        return x

    with pytest.raises(RuntimeError, match=r"differ only in wp.ref\[T\] parameters: \(x: int32\) and "
                                           r"\(x: ref\[int32\]\)"):
        @wp.func
        def refness_only(x: wp.ref[wp.int32]):  # noqa: F811
            x += 1

    assert len(refness_only.overloads) == 1  # the refused definition changed nothing


def test_constant_local_cannot_be_passed_by_reference():
    @wp.kernel(module="unique", enable_backward=False)
    def constant_local(out: wp.array(dtype=float)):
        x = 1.0
        store_double(x, 2.0)
        out[0] = x

    with pytest.raises(wp.WarpCodegenError, match=r"a local bound to the constant 1.0; declare it as a variable "
                                                  r"to pass it by reference: x = wp\.float32\(1\.0\)"):
        wp.launch(constant_local, 1, inputs=[wp.zeros(1, dtype=float)])

    @wp.kernel(module="unique", enable_backward=False)
    def declared_local(out: wp.array(dtype=float)):
        x = wp.float32(1.0)
        store_double(x, 2.0)
        out[0] = x

    out = wp.zeros(1, dtype=float)
    wp.launch(declared_local, 1, inputs=[out])
    assert out.numpy()[0] == 4.0


@wp.struct
class Posed:
    xform: wp.transformf


@wp.kernel(enable_backward=False)
def transform_parts(out: wp.array(dtype=float), boxes: wp.array(dtype=Posed)):
    i = wp.tid()
    t = wp.transformf(wp.vec3f(1.0, 2.0, 3.0), wp.quatf(0.0, 0.0, 0.0, 1.0))
    store_double(t.p.x, 4.5)  # a component of a transform's translation is a place of the transform
    k = 2
    store_double(t.q[k], 2.0)
    store_double(boxes[i].xform.p.z, float(i))
    t.p.y = 7.0  # and it can be assigned (Warp 1.19 compiles this but leaves t unchanged)
    t.q[k - 1] += 0.5
    for j in range(7):
        out[j] = t[j]


def test_transform_part_components_are_places():
    out = wp.zeros(7, dtype=float)
    boxes = wp.zeros(2, dtype=Posed)
    wp.launch(transform_parts, dim=2, inputs=[out, boxes])
    np.testing.assert_array_equal(out.numpy(), [9.0, 7.0, 3.0, 0.0, 0.5, 4.0, 1.0])
    np.testing.assert_array_equal(boxes.numpy()["xform"][:, 2], [0.0, 2.0])


@wp.func
def bump(dst: wp.ref[float], x: float):
    dst += 2.0 * x


@wp.kernel
def bumps(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    bump(y[i], x[i])


def test_gradient_through_an_array_element_updated_by_reference():
    # y[i] = y0[i] + 2 x[i]: the adjoint of y moves through the write-back to y0 (it is not counted twice)
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.array([10.0, 20.0], dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(bumps, dim=2, inputs=[x, y])
    np.testing.assert_array_equal(y.numpy(), [12.0, 24.0])
    tape.backward(grads={y: wp.array([1.0, 3.0], dtype=float)})
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])


@wp.struct
class Tally:
    n: int


@wp.func
def add(a: Tally, b: Tally) -> int:  # a user operator: Tally + Tally gives an int
    return a.n + b.n


@wp.func
def tally_into(t: wp.ref[Tally]):
    t += Tally(1)


def test_augmented_assignment_to_a_reference_keeps_its_type():
    @wp.kernel(module="unique", enable_backward=False)
    def bad(out: wp.array(dtype=int)):
        t = Tally(2)
        tally_into(t)
        out[0] = t.n

    with pytest.raises(wp.KernelTypeError, match=r"augmented assignment to ref parameter 't' \(wp.ref\[Tally\]\) "
                                                 r"gives a value of type int32"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=int)])
