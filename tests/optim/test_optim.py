"""brickwork.optim: Adam and SGD against numpy implementations of Warp's update formulas (bit for bit), against
numbers Warp 1.19 computed, in an optimisation driven by wp.Tape, and their errors."""

import ctypes
import ctypes.util
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.optim as optim
from brickwork import config
from brickwork.errors import BrickworkError
from brickwork.optim import (
    SGD,
    Adam,
    OptimizerDtypeError,
    OptimizerError,
    OptimizerStateError,
    OptimizerTypeError,
    OptimizerValueError,
)

# -- numpy references --------------------------------------------------------------------------------------------
_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.powf.restype, _libm.powf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]


def _pow(base, exponent):
    """``base ** exponent`` as the kernels compute it: the C library's powf for float32 (numpy's own float32
    power differs from it in the last bit for some arguments), pow for float64."""
    if isinstance(base, np.float32):
        return np.float32(_libm.powf(base, exponent))
    return np.float64(math.pow(base, exponent))


def _compute(np_dtype):
    return np.float64 if np_dtype == np.float64 else np.float32


def adam_reference(p, g_steps, lr, betas, eps, vector):
    """Warp's Adam in numpy, operation by operation: ``p`` (float16/32/64, trailing axis of vector components),
    a list of gradients; returns params, m, v."""
    P, C = p.dtype.type, _compute(p.dtype)
    lr, b1, b2, eps, one = C(lr), C(betas[0]), C(betas[1]), C(eps), C(1.0)
    m = np.zeros(p.shape, C)
    v = np.zeros(p.shape, C)
    for t, g in enumerate(g_steps):
        gi = g.astype(C)
        m = b1 * m + (one - b1) * gi
        v = b2 * v + ((one - b2) * (gi * gi) if vector else (one - b2) * gi * gi)
        mhat = m / (one - _pow(b1, C(t) + one))
        vhat = v / (one - _pow(b2, C(t) + one))
        update = lr * (mhat / (np.sqrt(vhat) + eps)) if vector else lr * mhat / (np.sqrt(vhat) + eps)
        p = p - update.astype(P)
    return p, m, v


def sgd_reference(p, g_steps, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    """Warp's SGD in numpy, operation by operation; returns params and the momentum buffer."""
    P, C = p.dtype.type, _compute(p.dtype)
    lr, momentum, dampening, weight_decay = C(lr), C(momentum), C(dampening), C(weight_decay)
    b = np.zeros(p.shape, C)
    for t, g in enumerate(g_steps):
        gt = g.astype(C)
        if weight_decay != 0:
            gt = gt + weight_decay * p.astype(C)
        if momentum != 0:
            b = momentum * b + (C(1.0) - dampening) * gt if t > 0 else gt
            gt = gt + momentum * b if nesterov else b
        p = p - (lr * gt).astype(P)
    return p, b


def gradients(nsteps, shape, np_dtype, scale=1.0):
    """Deterministic gradients that change sign and size from step to step."""
    k = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return [(scale * np.sin(0.7 * k + 1.3 * s) * (1.0 + 0.25 * s)).astype(np_dtype) for s in range(nsteps)]


def run(cls, dtype, p0, g_steps, **kw):
    """Run optimizer ``cls`` from ``p0`` over the gradients; the optimizer and the parameter array."""
    p = wp.array(p0, dtype=dtype)
    opt = cls([p], **kw)
    for g in g_steps:
        opt.step([wp.array(g, dtype=dtype)])
    return opt, p


def assert_bits_equal(actual, expected):
    actual, expected = np.ascontiguousarray(actual), np.ascontiguousarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


# -- the formulas, bit for bit ------------------------------------------------------------------------------------
ADAM_TYPES = [(wp.float32, np.float32, (6,)), (wp.float16, np.float16, (6,)), (wp.float64, np.float64, (6,)),
              (wp.vec3, np.float32, (4, 3)), (wp.vec2d, np.float64, (3, 2)), (wp.vec4h, np.float16, (2, 4))]


@pytest.mark.parametrize("dtype,np_dtype,shape", ADAM_TYPES, ids=lambda x: getattr(x, "__name__", None))
def test_adam_matches_the_formulas_bit_for_bit(dtype, np_dtype, shape):
    p0 = np.linspace(-1.5, 2.0, int(np.prod(shape))).reshape(shape).astype(np_dtype)
    g_steps = gradients(6, shape, np_dtype)
    kw = dict(lr=0.03, betas=(0.85, 0.995), eps=1e-6)
    opt, p = run(Adam, dtype, p0, g_steps, **kw)
    ref_p, ref_m, ref_v = adam_reference(p0, g_steps, kw["lr"], kw["betas"], kw["eps"], vector=len(shape) == 2)
    assert_bits_equal(p.numpy(), ref_p)
    assert_bits_equal(opt.m[0].numpy(), ref_m)
    assert_bits_equal(opt.v[0].numpy(), ref_v)
    assert opt.t == 6
    assert not np.array_equal(p.numpy(), p0)


SGD_TYPES = [(wp.float32, np.float32, (5,)), (wp.float16, np.float16, (5,)), (wp.float64, np.float64, (5,)),
             (wp.vec3, np.float32, (3, 3)), (wp.mat22d, np.float64, (2, 2, 2)), (wp.quath, np.float16, (2, 4)),
             (wp.transform, np.float32, (2, 7))]
SGD_SETTINGS = [dict(lr=0.1), dict(lr=0.05, momentum=0.9), dict(lr=0.02, momentum=0.8, dampening=0.3, weight_decay=0.1),
                dict(lr=0.03, momentum=0.7, weight_decay=0.05, nesterov=True)]


@pytest.mark.parametrize("kw", SGD_SETTINGS, ids=["plain", "momentum", "damped_decay", "nesterov"])
@pytest.mark.parametrize("dtype,np_dtype,shape", SGD_TYPES, ids=lambda x: getattr(x, "__name__", None))
def test_sgd_matches_the_formulas_bit_for_bit(dtype, np_dtype, shape, kw):
    p0 = np.linspace(-2.0, 3.0, int(np.prod(shape))).reshape(shape).astype(np_dtype)
    g_steps = gradients(4, shape, np_dtype)
    opt, p = run(SGD, dtype, p0, g_steps, **kw)
    ref_p, ref_b = sgd_reference(p0, g_steps, **kw)
    assert_bits_equal(p.numpy(), ref_p)
    if kw.get("momentum"):
        assert_bits_equal(opt.b[0].numpy(), ref_b)
    else:
        assert not opt.b[0].numpy().any()  # no momentum: the buffer is left alone


def test_the_state_of_float16_parameters_is_float32():
    p = wp.zeros(3, dtype=wp.float16)
    adam, sgd = Adam([p]), SGD([p], momentum=0.5)
    assert adam.m[0].dtype == wp.float32 and adam.v[0].dtype == wp.float32 and sgd.b[0].dtype == wp.float32
    h = wp.zeros(3, dtype=wp.vec3h)
    assert Adam([h]).m[0].dtype == wp.vec3f and SGD([h]).b[0].dtype == wp.vec3f
    assert Adam([wp.zeros(3, dtype=wp.vec2d)]).v[0].dtype == wp.vec2d


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), nsteps=st.integers(1, 5), seed=st.integers(0, 2**32 - 1),
       lr=st.floats(0.0, 1.0), beta1=st.floats(0.0, 0.999), beta2=st.floats(0.0, 0.9999), eps=st.floats(0.0, 1e-2),
       scale=st.sampled_from([1e-4, 1.0, 1e3]))
def test_adam_matches_the_formulas_for_any_hyperparameters(n, nsteps, seed, lr, beta1, beta2, eps, scale):
    rng = np.random.default_rng(seed)
    p0 = rng.uniform(-3, 3, n).astype(np.float32)
    g_steps = [(scale * rng.standard_normal(n)).astype(np.float32) for _ in range(nsteps)]
    opt, p = run(Adam, wp.float32, p0, g_steps, lr=lr, betas=(beta1, beta2), eps=eps)
    ref_p, ref_m, ref_v = adam_reference(p0, g_steps, lr, (beta1, beta2), eps, vector=False)
    assert_bits_equal(p.numpy(), ref_p)
    assert_bits_equal(opt.v[0].numpy(), ref_v)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), nsteps=st.integers(1, 5), seed=st.integers(0, 2**32 - 1), lr=st.floats(0.0, 1.0),
       momentum=st.floats(0.0, 1.0), dampening=st.floats(0.0, 1.0), weight_decay=st.floats(0.0, 1.0),
       nesterov=st.booleans())
def test_sgd_matches_the_formulas_for_any_hyperparameters(n, nsteps, seed, lr, momentum, dampening, weight_decay,
                                                          nesterov):
    if nesterov:
        momentum, dampening = max(momentum, 0.1), 0.0
    rng = np.random.default_rng(seed)
    p0 = rng.uniform(-3, 3, (n, 3)).astype(np.float32)
    g_steps = [rng.standard_normal((n, 3)).astype(np.float32) for _ in range(nsteps)]
    kw = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)
    opt, p = run(SGD, wp.vec3, p0, g_steps, **kw)
    ref_p, ref_b = sgd_reference(p0, g_steps, **kw)
    assert_bits_equal(p.numpy(), ref_p)
    if momentum:
        assert_bits_equal(opt.b[0].numpy(), ref_b)


# -- numbers from Warp 1.19 ---------------------------------------------------------------------------------------
# Computed by warp-lang 1.19.0 on the CPU: the parameters after the steps, with gradients(nsteps, shape, dtype).
WARP = {
    "adam_f32": [0.06571909040212631, 0.15392348170280457, -0.32833564281463623, 1.494132161140442],
    "adam_f16": [0.0139923095703125, 0.07696533203125, -0.38232421875, 1.474609375],
    "adam_vec3": [-0.07157495617866516, -0.045818429440259933, -0.2646121382713318, 0.9490917921066284,
                  -1.9465258121490479, 0.7689798474311829],
    "sgd_f32": [0.7279407978057861, -2.2724850177764893, 0.3204231262207031],
    "sgd_f32_nesterov": [0.7874159216880798, -1.9816113710403442, 0.5033681988716125],
    "sgd_mat22": [0.6610085368156433, 1.579727292060852, 2.6176505088806152, 3.717714786529541],
}
WARP_CASES = {
    "adam_f32": (Adam, wp.float32, np.float32, [0.1, 0.2, -0.3, 1.5], 4, dict(lr=0.02, betas=(0.8, 0.999))),
    "adam_f16": (Adam, wp.float16, np.float16, [0.1, 0.2, -0.3, 1.5], 4, dict(lr=0.05)),
    "adam_vec3": (Adam, wp.vec3, np.float32, [[0.1, 0.2, -0.1], [1.0, -2.0, 0.5]], 4,
                  dict(lr=0.1, betas=(0.9, 0.99), eps=1e-6)),
    "sgd_f32": (SGD, wp.float32, np.float32, [1.0, -2.0, 0.5], 4,
                dict(lr=0.1, momentum=0.9, dampening=0.25, weight_decay=0.01)),
    "sgd_f32_nesterov": (SGD, wp.float32, np.float32, [1.0, -2.0, 0.5], 4,
                         dict(lr=0.05, momentum=0.8, weight_decay=0.1, nesterov=True)),
    "sgd_mat22": (SGD, wp.mat22, np.float32, [[[1.0, 2.0], [3.0, 4.0]]], 3, dict(lr=0.1, momentum=0.5, weight_decay=0.2)),
}


@pytest.mark.parametrize("case", sorted(WARP_CASES))
def test_results_equal_warps(case):
    cls, dtype, np_dtype, p0, nsteps, kw = WARP_CASES[case]
    p0 = np.asarray(p0, dtype=np_dtype)
    _, p = run(cls, dtype, p0, gradients(nsteps, p0.shape, np_dtype), **kw)
    assert_bits_equal(p.numpy().ravel(), np.asarray(WARP[case], dtype=np_dtype))


def test_warps_defaults():
    adam, sgd = Adam(), SGD()
    assert (adam.lr, adam.beta1, adam.beta2, adam.eps, adam.t, adam.params, adam.m, adam.v) == \
        (0.001, 0.9, 0.999, 1e-08, 0, None, [], [])
    assert (sgd.lr, sgd.momentum, sgd.dampening, sgd.weight_decay, sgd.nesterov, sgd.t, sgd.params, sgd.b) == \
        (0.001, 0.0, 0.0, 0.0, False, 0, None, [])
    assert wp.optim is optim and wp.optim.Adam is Adam and wp.optim.SGD is SGD


# -- an optimisation through wp.Tape ------------------------------------------------------------------------------
@wp.kernel
def quadratic_misfit(coeffs: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float),
                     loss: wp.array(dtype=float)):
    i = wp.tid()
    r = coeffs[0] * x[i] * x[i] + coeffs[1] * x[i] + coeffs[2] - y[i]
    wp.atomic_add(loss, 0, r * r)


@pytest.mark.parametrize("make", [lambda c: Adam([c], lr=0.05), lambda c: SGD([c], lr=0.02, momentum=0.9)],
                         ids=["adam", "sgd"])
def test_fitting_a_quadratic_through_the_tape_converges(make):
    xs = np.linspace(-1.0, 1.0, 21).astype(np.float32)
    x, y = wp.array(xs), wp.array(1.5 * xs * xs - 0.5 * xs + 0.25)
    coeffs = wp.zeros(3, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    opt, tape = make(coeffs), wp.Tape()
    for _ in range(400):
        tape.reset()
        loss.zero_()
        with tape:
            wp.launch(quadratic_misfit, dim=len(xs), inputs=[coeffs, x, y, loss])
        tape.backward(loss)
        opt.step([tape.gradients[coeffs]])
    assert opt.t == 400
    assert loss.numpy()[0] < 1e-5
    np.testing.assert_allclose(coeffs.numpy(), [1.5, -0.5, 0.25], atol=2e-3)


# -- parameters and state -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [wp.float32, wp.float16, wp.float64, wp.vec3])
def test_set_params_with_the_same_arrays_keeps_the_state(dtype):
    p = wp.zeros(4, dtype=dtype)
    adam, sgd = Adam([p]), SGD([p], momentum=0.9)
    buffers = [adam.m[0], adam.v[0], sgd.b[0]]
    for buf in buffers:
        buf.fill_(1.0)
    adam.t = sgd.t = 3
    adam.set_params([p])
    sgd.set_params((p,))
    assert adam.m[0] is buffers[0] and adam.v[0] is buffers[1] and sgd.b[0] is buffers[2]
    assert all((buf.numpy() == 1.0).all() for buf in buffers)
    assert adam.t == sgd.t == 3


def test_set_params_refits_buffers_that_no_longer_fit():
    a, b = wp.zeros(4), wp.zeros(2, dtype=wp.vec3)
    opt = Adam([a, b])
    old_m = list(opt.m)
    opt.m[1].fill_(2.0)
    opt.set_params([a, wp.zeros(3, dtype=wp.vec3)])  # same count: a keeps its moments, the new shape gets zeros
    assert opt.m[0] is old_m[0] and opt.m[1] is not old_m[1] and opt.m[1].shape == (3,) and not opt.m[1].numpy().any()
    opt.set_params([wp.zeros(4, dtype=wp.float64), b])  # another dtype: new buffers of the new state dtype
    assert opt.m[0].dtype == wp.float64 and opt.m[0] is not old_m[0]
    opt.set_params([a])  # another count: every buffer is new
    assert len(opt.m) == len(opt.v) == 1 and opt.m[0] is not old_m[0]


def test_set_params_none_keeps_the_buffers_and_step_needs_parameters():
    p = wp.ones(2)
    opt = SGD([p], momentum=0.5)
    b = opt.b[0]
    opt.set_params(None)
    assert opt.params is None and opt.b == [b]
    with pytest.raises(OptimizerStateError):
        opt.step([wp.ones(2)])


def test_reset_internal_state_starts_over():
    p0, g_steps = np.array([1.0, -1.0], np.float32), gradients(3, (2,), np.float32)
    p = wp.array(p0)
    opt = Adam([p], lr=0.1)
    for g in g_steps:
        opt.step([wp.array(g)])
    opt.reset_internal_state()
    assert opt.t == 0 and not opt.m[0].numpy().any() and not opt.v[0].numpy().any()
    p.assign(p0)
    for g in g_steps:
        opt.step([wp.array(g)])
    assert_bits_equal(p.numpy(), adam_reference(p0, g_steps, 0.1, (0.9, 0.999), 1e-8, vector=False)[0])


def test_an_empty_parameter_list_counts_steps():
    opt = Adam([])
    opt.step([])
    assert opt.t == 1 and opt.params == [] and opt.m == []


def test_hyperparameters_changed_between_steps_take_effect():
    p0, g_steps = np.array([1.0, 2.0], np.float32), gradients(2, (2,), np.float32)
    p = wp.array(p0)
    opt = SGD([p], lr=0.1)
    opt.step([wp.array(g_steps[0])])
    opt.lr = 0.5
    opt.step([wp.array(g_steps[1])])
    expected = sgd_reference(sgd_reference(p0, g_steps[:1], lr=0.1)[0], g_steps[1:], lr=0.5)[0]
    assert_bits_equal(p.numpy(), expected)


def test_arrays_of_several_dimensions_and_strided_views():
    p0 = np.linspace(-1, 1, 12).astype(np.float32)
    g_steps = gradients(3, (12,), np.float32)
    flat = run(Adam, wp.float32, p0, g_steps, lr=0.1)[1].numpy()
    opt, p2 = run(Adam, wp.float32, p0.reshape(3, 4), [g.reshape(3, 4) for g in g_steps], lr=0.1)
    assert opt.m[0].shape == (3, 4)
    assert_bits_equal(p2.numpy().ravel(), flat)
    base = wp.array(np.zeros(24, np.float32))
    view = base[::2]  # a strided 1-D view is updated in place
    view.assign(p0)
    opt = Adam([view], lr=0.1)
    for g in g_steps:
        opt.step([wp.array(g)])
    assert_bits_equal(base.numpy()[::2], flat)
    assert not base.numpy()[1::2].any()


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_steps_as_the_cpu_does():
    cases = [(Adam, wp.float32, np.float32, (5,), {}), (Adam, wp.vec3h, np.float16, (3, 3), {}),
             (SGD, wp.float64, np.float64, (5,), dict(momentum=0.9, weight_decay=0.1)),
             (SGD, wp.mat22, np.float32, (2, 2, 2), dict(momentum=0.5, nesterov=True))]
    for cls, dtype, np_dtype, shape, kw in cases:
        p0 = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype(np_dtype)
        g_steps = gradients(3, shape, np_dtype)
        on_cpu = run(cls, dtype, p0, g_steps, lr=0.1, **kw)[1].numpy()
        with config.override(target="cuda-emulation"):
            emulated = run(cls, dtype, p0, g_steps, lr=0.1, **kw)[1].numpy()
        assert_bits_equal(emulated, on_cpu)


# -- errors -------------------------------------------------------------------------------------------------------
def _snapshot(opt, params):
    state = [buf.numpy().copy() for name in opt._STATE for buf in getattr(opt, name)]
    return opt.t, [p.numpy().copy() for p in params], state


def _assert_unchanged(opt, params, before):
    t, values, state = _snapshot(opt, params)
    assert t == before[0]
    for a, b in zip(values + state, before[1] + before[2]):
        np.testing.assert_array_equal(a, b)


def _stepped(name):
    """An optimizer over two arrays after one step (state not zero), and its parameters."""
    params = [wp.array([1.0, 2.0], dtype=float), wp.array([[0.5, 0.25, -1.0]], dtype=wp.vec3)]
    opt = Adam(params) if name == "Adam" else SGD(params, momentum=0.9)
    opt.step([wp.ones(2, dtype=float), wp.ones(1, dtype=wp.vec3)])
    return opt, params


@pytest.fixture(params=["Adam", "SGD"])
def stepped(request):
    return _stepped(request.param)


def test_step_before_parameters_is_a_runtime_error():
    for cls in (Adam, SGD):
        with pytest.raises(OptimizerStateError, match=rf"{cls.__name__} parameters must be set before calling "
                                                      r"step\(\), got None") as info:
            cls().step([])
        assert isinstance(info.value, RuntimeError) and isinstance(info.value, BrickworkError)


@pytest.mark.parametrize("grads,error,message", [
    (lambda: [wp.ones(2), wp.zeros(1, dtype=wp.vec3d)], OptimizerTypeError,
     r"gradient dtype must match parameter dtype vec3f, got vec3d \(grad\[1\]\)"),
    (lambda: [wp.ones(2), wp.zeros(2, dtype=wp.vec3)], OptimizerValueError,
     r"gradient shape must match parameter shape \(1,\), got \(2,\) \(grad\[1\]\)"),
    (lambda: [wp.ones(2)], OptimizerValueError, r"step\(\) got 1 gradient array\(s\) for 2 parameter array\(s\)"),
    (lambda: [wp.ones(2), None], OptimizerTypeError, r"gradient must be an array, got NoneType \(grad\[1\]\): an "
     r"array made without requires_grad=True has no .grad, and a tape gives it no gradient; create the parameter "
     r"with requires_grad=True$"),
    (lambda: wp.ones(2), OptimizerTypeError, r"step\(\) takes a list of gradient arrays, got array"),
], ids=["dtype", "shape", "count", "none", "not_a_list"])
def test_gradients_that_do_not_fit_change_nothing(stepped, grads, error, message):
    opt, params = stepped
    before = _snapshot(opt, params)
    with pytest.raises(error, match=message) as info:
        opt.step(grads())
    assert isinstance(info.value, OptimizerError) and str(info.value).startswith(type(opt).__name__)
    _assert_unchanged(opt, params, before)


def test_warps_gradient_messages():
    for cls in (Adam, SGD):
        opt = cls([wp.zeros(2, dtype=wp.float32)])
        name = cls.__name__
        with pytest.raises(TypeError, match=f"{name} gradient dtype must match parameter dtype float32, got int32$"):
            opt.step([wp.zeros(2, dtype=wp.int32)])
        with pytest.raises(ValueError, match=rf"{name} gradient shape must match parameter shape \(2,\), "
                                             rf"got \(2, 1\)$"):
            opt.step([wp.zeros((2, 1), dtype=wp.float32)])
        assert opt.t == 0


HYPERPARAMETERS = [
    ("Adam", "lr", -0.1, OptimizerValueError, r"lr must be a finite number >= 0, got -0.1"),
    ("SGD", "lr", float("nan"), OptimizerValueError, r"lr must be a finite number >= 0, got nan"),
    ("Adam", "lr", "0.1", OptimizerTypeError, r"lr must be a number, got str"),
    ("Adam", "eps", float("inf"), OptimizerValueError, r"eps must be a finite number >= 0, got inf"),
    ("Adam", "beta1", 1.0, OptimizerValueError, r"beta1 must be in \[0, 1\), got 1.0"),
    ("SGD", "momentum", -0.5, OptimizerValueError, r"momentum must be a finite number >= 0, got -0.5"),
    ("SGD", "weight_decay", -1, OptimizerValueError, r"weight_decay must be a finite number >= 0, got -1"),
    ("SGD", "dampening", None, OptimizerTypeError, r"dampening must be a number, got NoneType"),
    ("SGD", "nesterov", "yes", OptimizerTypeError, r"nesterov must be a bool, got 'yes'"),
]


@pytest.mark.parametrize("name,setting,value,error,message", HYPERPARAMETERS,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in HYPERPARAMETERS])
def test_hyperparameters_out_of_range_change_nothing(name, setting, value, error, message):
    opt, params = _stepped(name)
    before = _snapshot(opt, params)
    setattr(opt, setting, value)
    with pytest.raises(error, match=f"^{name} {message}$"):
        opt.step([wp.ones(2, dtype=float), wp.ones(1, dtype=wp.vec3)])
    _assert_unchanged(opt, params, before)
    # the constructor refuses the same value
    kw = {"betas": (value, 0.999)} if setting == "beta1" else {setting: value}
    with pytest.raises(error, match=message):
        type(opt)(params, **kw)


def test_constructor_errors():
    with pytest.raises(OptimizerTypeError, match=r"Adam betas must be a pair \(beta1, beta2\), got 0.9"):
        Adam(betas=0.9)
    with pytest.raises(OptimizerValueError, match=r"Adam beta2 must be in \[0, 1\), got -0.1"):
        Adam(betas=(0.9, -0.1))
    with pytest.raises(OptimizerValueError, match="SGD nesterov momentum requires momentum > 0 and dampening == 0, "
                                                  "got momentum=0.0, dampening=0.0"):
        SGD(nesterov=True)
    with pytest.raises(OptimizerValueError, match="got momentum=0.9, dampening=0.1"):
        SGD(momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(OptimizerTypeError, match="Adam params must be a list of arrays or None, got array"):
        Adam(wp.zeros(3))
    with pytest.raises(OptimizerTypeError, match=r"SGD params\[1\] must be an array, got ndarray"):
        SGD([wp.zeros(3), np.zeros(3)])


@pytest.mark.parametrize("cls,dtype,name", [(Adam, wp.int32, "int32"), (Adam, wp.mat22, "mat22f"),
                                            (Adam, wp.quat, "quatf"), (SGD, wp.uint8, "uint8"),
                                            (SGD, wp.transformh, "transformh"), (Adam, wp.bfloat16, "bfloat16")])
def test_unsupported_dtypes(cls, dtype, name):
    with pytest.raises(OptimizerDtypeError, match=rf"Unsupported dtype for {cls.__name__} optimizer: {name} "
                                                  rf"\(params\[0\]\); supported: float16, float32, float64") as info:
        cls([wp.zeros(2, dtype=dtype)])
    assert isinstance(info.value, TypeError) and isinstance(info.value, RuntimeError)


def test_set_params_that_fail_change_nothing(stepped):
    opt, params = stepped
    before, held = _snapshot(opt, params), opt.params
    with pytest.raises(OptimizerDtypeError):
        opt.set_params([params[0], wp.zeros(1, dtype=wp.int64)])
    strided = wp.zeros((4, 4))[:, ::2]
    with pytest.raises(OptimizerValueError, match=r"params\[0\] of 2 dimensions must be contiguous"):
        opt.set_params([strided, params[1]])
    assert opt.params is held
    _assert_unchanged(opt, params, before)


def test_state_buffers_replaced_by_hand_are_refused(stepped):
    opt, params = stepped
    name = opt._STATE[0]
    getattr(opt, name)[1] = wp.zeros(3, dtype=wp.vec3)
    before = _snapshot(opt, params)
    with pytest.raises(OptimizerValueError, match=rf"state buffer {name}\[1\] must be vec3f \(1,\) on cpu, "
                                                  r"got vec3f \(3,\) on cpu"):
        opt.step([wp.ones(2, dtype=float), wp.ones(1, dtype=wp.vec3)])
    _assert_unchanged(opt, params, before)


def test_step_detail_updates_one_array_and_checks_it():
    p0, g = np.array([1.0, -2.0], np.float32), gradients(1, (2,), np.float32)
    p, m, v = wp.array(p0), wp.zeros(2), wp.zeros(2)
    Adam.step_detail(wp.array(g[0]), m, v, 0.1, 0.9, 0.999, 0, 1e-8, p)
    assert_bits_equal(p.numpy(), adam_reference(p0, g, 0.1, (0.9, 0.999), 1e-8, vector=False)[0])
    with pytest.raises(OptimizerValueError, match=r"Adam state buffer v must be float32 \(2,\) on cpu, got float64"):
        Adam.step_detail(wp.array(g[0]), m, wp.zeros(2, dtype=wp.float64), 0.1, 0.9, 0.999, 1, 1e-8, p)
    q, b = wp.array(p0), wp.zeros(2)
    SGD.step_detail(wp.array(g[0]), b, 0.1, 0.5, 0.0, 0.0, False, 0, q)
    assert_bits_equal(q.numpy(), sgd_reference(p0, g, 0.1, momentum=0.5)[0])
    with pytest.raises(OptimizerValueError, match="SGD lr must be a finite number >= 0, got -1"):
        SGD.step_detail(wp.array(g[0]), b, -1, 0.5, 0.0, 0.0, False, 1, q)
    assert_bits_equal(q.numpy(), sgd_reference(p0, g, 0.1, momentum=0.5)[0])
