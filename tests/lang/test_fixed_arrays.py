"""Fixed-size arrays local to a kernel (``wp.zeros(shape=..., dtype=...)`` in a kernel, Warp's fixedarray):
values against numpy on the CPU and on the emulation of the GPU mapping (the CUDA source is compiled by
NVRTC in the NVRTC tests: tests/targets/cuda_corpus.py), copies, @func parameters and results, errors."""

# no `from __future__ import annotations`: the return annotations must be types, not strings

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import KernelTypeError, KernelUnsupportedTypeError

TARGETS = ["cpu", "cuda-emulation"]
ROWS = 3


@wp.struct
class Sample:
    offset: int
    dist: float


@wp.kernel
def shapes(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = wp.zeros(shape=5, dtype=float)
    b = wp.zeros(shape=(ROWS, 2), dtype=float)  # a module constant is a constant
    c = wp.zeros(shape=(2, 2, 2), dtype=wp.float64)
    d = wp.zeros(shape=(1, 2, 1, 3), dtype=int)
    for k in range(5):
        a[k] = x[i] * float(k)
    a[4] += 1.0
    b[2, 1] = a[3]
    b[1][0] = a[4]
    c[1, 0, 1] = wp.float64(a[2])
    d[0, 1, 0, 2] = 7
    out[i, 0] = a[0] + a[1] + a[2] + a[3] + a[4]
    out[i, 1] = b[2, 1] + b[1, 0] + b[0, 0]
    out[i, 2] = float(c[1, 0, 1] + c[0, 0, 0])
    out[i, 3] = float(d[0, 1, 0, 2])
    out[i, 4] = float(len(a) * 1000 + b.shape[0] * 100 + c.shape[2] * 10 + d.shape[3])
    out[i, 5] = float(b.shape[2] + d.ndim)  # shape past the last dimension is 0, as in Warp


@pytest.mark.parametrize("target", TARGETS)
def test_1d_to_4d_local_arrays_start_at_zero_and_hold_writes(target):
    x = np.array([1.0, 2.5, -3.0], dtype=np.float32)
    out = wp.zeros((3, 6), dtype=float)
    with config.override(target=target):
        wp.launch(shapes, 3, inputs=[wp.array(x), out])
    a = x[:, None] * np.arange(5, dtype=np.float32)
    a[:, 4] += 1.0
    expected = np.stack([a.sum(1), a[:, 3] + a[:, 4], a[:, 2], np.full(3, 7.0), np.full(3, 5323.0),
                         np.full(3, 4.0)], axis=1)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


@wp.kernel
def composite_elements(out: wp.array(dtype=float)):
    v = wp.zeros(shape=3, dtype=wp.vec3)
    m = wp.zeros(shape=(2, 2), dtype=wp.mat22)
    s = wp.zeros(shape=(2, 3), dtype=Sample)
    v[1] = wp.vec3(1.0, 2.0, 3.0)
    v[1] += wp.vec3(1.0)
    v[2][0] = 5.0
    m[1, 0] = wp.mat22(1.0, 2.0, 3.0, 4.0)
    for i in range(2):
        for j in range(3):
            s[i][j].offset = i * 3 + j
            s[i][j].dist = float(s[i][j].offset) / 5.0
    out[0] = v[1][0] + v[1][1] + v[1][2] + v[2][0] + v[0][2]
    out[1] = m[1, 0][1, 1] + m[0, 0][0, 0]
    out[2] = float(s[1, 2].offset) + s[1][1].dist


@pytest.mark.parametrize("target", TARGETS)
def test_vector_matrix_and_struct_elements(target):
    out = wp.zeros(3, dtype=float)
    with config.override(target=target):
        wp.launch(composite_elements, 1, outputs=[out])
    np.testing.assert_allclose(out.numpy(), [2.0 + 3.0 + 4.0 + 5.0, 4.0, 5.0 + 0.8], rtol=1e-6)


@wp.kernel
def copies_views_atomics(out: wp.array(dtype=float)):
    a = wp.zeros(shape=(2, 3), dtype=float)
    a[0, 0] = 1.0
    b = a  # a copy of the elements, as in Warp
    b[0, 0] = 5.0
    row = a[1]  # a view of a's elements
    row[2] = 7.0
    s = a[:, 1:]  # a slice: a view too
    s[0, 0] = 3.0
    wp.atomic_add(a, 1, 0, 2.0)
    old = wp.atomic_max(a, 1, 0, 10.0)
    out[0] = a[0, 0]
    out[1] = b[0, 0]
    out[2] = a[1, 2]
    out[3] = a[0, 1]
    out[4] = old
    out[5] = a[1, 0]
    out[6] = float(s.shape[0] * 10 + s.shape[1])


@pytest.mark.parametrize("target", TARGETS)
def test_assignment_copies_and_subscripts_are_views(target):
    out = wp.zeros(7, dtype=float)
    with config.override(target=target):
        wp.launch(copies_views_atomics, 1, outputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 5.0, 7.0, 3.0, 2.0, 10.0, 22.0])


@wp.func
def fill(a: wp.array2d(dtype=int)):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = i * a.shape[1] + j


@wp.func
def first(a: wp.array(dtype=wp.Any)):
    return a[0]


@wp.func
def ramp() -> wp.fixedarray(shape=(2, 3), dtype=int):
    a = wp.zeros(shape=(2, 3), dtype=int)
    fill(a)
    return a


@wp.func
def squares(n: int):
    a = wp.zeros(shape=4, dtype=float)
    for i in range(n):
        a[i] = float(i * i)
    return a


@wp.kernel
def through_functions(out: wp.array(dtype=int)):
    a = wp.zeros(shape=(2, 3), dtype=int)
    fill(a)  # writes through the parameter reach a
    r = ramp()  # returned by value
    r[0, 0] = 40
    again = ramp()
    q = squares(3)
    out[0] = a[1, 2]
    out[1] = r[0, 0] + again[0, 0]
    out[2] = r[1, 1]
    out[3] = int(first(q) + q[2] + float(len(q)))
    out[4] = first(a[1])


@pytest.mark.parametrize("target", TARGETS)
def test_functions_take_them_as_arrays_and_return_them_by_value(target):
    out = wp.zeros(5, dtype=int)
    with config.override(target=target):
        wp.launch(through_functions, 1, outputs=[out])
    np.testing.assert_array_equal(out.numpy(), [5, 40, 4, 8, 3])


@wp.kernel
def reinterpret(out: wp.array(dtype=wp.vec2)):
    a = wp.zeros(shape=8, dtype=float)
    for i in range(8):
        a[i] = float(i)
    v = wp.array(ptr=a.ptr, shape=(4,), dtype=wp.vec2)
    for i in range(4):
        out[i] = v[i]


def test_ptr_views_the_local_elements():
    out = wp.zeros(4, dtype=wp.vec2)
    wp.launch(reinterpret, 1, outputs=[out])
    np.testing.assert_array_equal(out.numpy(), np.arange(8, dtype=np.float32).reshape(4, 2))


@wp.func
def squared(x: float):
    t = wp.zeros(shape=(2, 2), dtype=float)
    t[0, 1] = x * x
    return t


@wp.kernel
def through_elements(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = squared(x[i])
    a = wp.zeros(shape=2, dtype=float)
    wp.atomic_add(a, 1, x[i])
    out[i] = t[0, 1] * x[i] + a[1] * x[i] + 3.0 * x[i]


@pytest.mark.parametrize("target", TARGETS)
def test_elements_pass_gradients(target):
    """The backward pass recomputes the elements (x*x and x here) and sends their adjoints through them
    (docs/autodiff.md): out = x^3 + x^2 + 3x, d out/dx = 3x^2 + 2x + 3."""
    x = wp.array([2.0, -1.5], dtype=float, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            wp.launch(through_elements, 2, inputs=[x], outputs=[out])
        tape.backward(grads={out: wp.ones(2, dtype=float)})
    v = x.numpy()
    np.testing.assert_allclose(out.numpy(), v**3 + v * v + 3.0 * v, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * v * v + 2.0 * v + 3.0, rtol=1e-6)


@wp.kernel
def out_of_bounds(out: wp.array(dtype=float), i: int):
    a = wp.zeros(shape=(2, 3), dtype=float)
    a[1, i] = 1.0
    out[0] = a[1, 2]


def test_debug_mode_checks_the_bounds():
    out = wp.zeros(1, dtype=float)
    with config.override(mode="debug"):
        wp.launch(out_of_bounds, 1, inputs=[out, 2])
        assert out.numpy()[0] == 1.0
        with pytest.raises(wp.BoundsError, match=r"index \(1, 3\) is out of bounds for shape \(2, 3\)"):
            wp.launch(out_of_bounds, 1, inputs=[out, 3])


def test_the_type_and_its_annotation():
    t = wp.fixedarray(shape=(2, 3), dtype=int)
    assert t is wp.fixedarray(dtype=wp.int32, shape=[2, 3])
    assert (t.shape, t.ndim, t.size, t.dtype) == ((2, 3), 2, 6, wp.int32)
    assert repr(wp.fixedarray(shape=4, dtype=wp.vec3)) == "fixedarray(dtype=vec3f, shape=(4,))"
    with pytest.raises(TypeError, match="positive integers"):
        wp.fixedarray(shape=(2, 0), dtype=float)
    with pytest.raises(TypeError, match="1 to 4 dimensions"):
        wp.fixedarray(shape=(1, 1, 1, 1, 1), dtype=float)


def _launch(kernel):
    wp.launch(kernel, 1)


def test_a_runtime_shape_is_refused():
    @wp.kernel(module="unique")
    def runtime_shape():
        n = wp.tid()
        wp.zeros(shape=(n,), dtype=int)

    with pytest.raises(KernelUnsupportedTypeError, match=r"the `shape` argument must be specified as a constant "
                       r"when zero-initializing an array$"):
        _launch(runtime_shape)


def test_bad_shapes_and_dtypes_are_refused():
    @wp.kernel(module="unique")
    def too_many():
        wp.zeros(shape=(1, 1, 1, 1, 1), dtype=int)

    @wp.kernel(module="unique")
    def empty():
        wp.zeros(shape=(2, 0), dtype=int)

    @wp.kernel(module="unique")
    def bad_dtype():
        wp.zeros(shape=2, dtype=str)

    @wp.kernel(module="unique")
    def extra():
        wp.zeros(shape=2, dtype=int, device="cpu")

    with pytest.raises(KernelTypeError, match=r"1 to 4 positive dimensions, got shape \(1, 1, 1, 1, 1\)"):
        _launch(too_many)
    with pytest.raises(KernelTypeError, match=r"1 to 4 positive dimensions, got shape \(2, 0\)"):
        _launch(empty)
    with pytest.raises(KernelTypeError, match="dtype must be a scalar, vector, matrix or struct type"):
        _launch(bad_dtype)
    with pytest.raises(KernelTypeError, match="takes shape and dtype only"):
        _launch(extra)


def test_a_return_annotated_as_an_array_is_refused():
    @wp.func
    def made() -> wp.array2d(dtype=int):
        return wp.zeros(shape=(2, 3), dtype=int)

    @wp.kernel(module="unique")
    def calls():
        a = made()
        a[0, 0] = 1

    with pytest.raises(KernelTypeError, match=r"The function `made` returns a fixed-size array whereas it has its "
                       r"return type annotated as `Array\[int32\]`\.$"):
        _launch(calls)


def test_struct_fields_and_kernel_parameters_are_refused():
    with pytest.raises(TypeError, match=r"field 'a' is a fixed-size local array \(fixedarray\(dtype=float32, "
                       r"shape=\(3,\)\)\)"):
        @wp.struct
        class Holder:
            a: wp.fixedarray(shape=3, dtype=float)

    @wp.kernel(module="unique")
    def takes(a: wp.fixedarray(shape=3, dtype=float)):
        a[0] = 1.0

    with pytest.raises(wp.LaunchError, match=r"argument 'a' must be fixedarray\(dtype=float32, shape=\(3,\)\)"):
        wp.launch(takes, 1, inputs=[wp.zeros(3, dtype=float)])
