"""Every differentiable builtin's gradient (from wp.Tape) against central finite differences, float64,
inputs chosen by hypothesis away from kinks and singularities."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.lang.instance import build_instances

from .builtin_cases import CASES, M22, M33, M44, M66, S6, T7, V2, V3, F, Q

_NAMES = {F: "wp.float64", V3: "wp.vec3d", V2: "wp.vec2d", M33: "wp.mat33d", M22: "wp.mat22d", Q: "wp.quatd",
          S6: "wp.spatial_vectord", T7: "wp.transformd", M44: "wp.mat44d", M66: "wp.spatial_matrixd"}
_INNER = {F: "a * b", V3: "wp.dot(a, b)", V2: "wp.dot(a, b)", Q: "wp.dot(a, b)", M33: "wp.ddot(a, b)",
          M22: "wp.ddot(a, b)", S6: "wp.dot(a, b)", M44: "wp.ddot(a, b)", M66: "wp.ddot(a, b)",
          T7: "a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5] + a[6] * b[6]"}


#: functions of several-result builtins that mix every result into one value (the cases call them)
_HELPERS = """
@wp.func
def axis_times_angle(q: wp.quatd):
    axis, angle = wp.quat_to_axis_angle(q)
    return axis * angle

@wp.func
def svd3_mix(a: wp.mat33d):
    U, s, V = wp.svd3(a)
    return U * wp.float64(1.5) + wp.diag(s) + wp.transpose(V)

@wp.func
def svd2_mix(a: wp.mat22d):
    U = wp.mat22d()
    s = wp.vec2d()
    V = wp.mat22d()
    wp.svd2(a, U, s, V)
    return U * wp.float64(1.5) + wp.diag(s) + wp.transpose(V)

@wp.func
def qr3_mix(a: wp.mat33d):
    Q, R = wp.qr3(a)
    return Q * wp.float64(1.5) + R

@wp.func
def eig3_mix(a: wp.mat33d):
    Q = wp.mat33d()
    d = wp.vec3d()
    wp.eig3(a + wp.transpose(a), Q, d)
    return Q * wp.float64(1.5) + wp.diag(d)
"""


def _module_source() -> str:
    lines = ["import brickwork as wp", _HELPERS]
    for t, body in _INNER.items():
        lines += ["@wp.func", f"def inner(a: {_NAMES[t]}, b: {_NAMES[t]}):", f"    return {body}", ""]
    for n, case in enumerate(CASES):
        params = ", ".join(f"x{i}: wp.array(dtype={_NAMES[t]})" for i, t in enumerate(case.types))
        expr = case.expr
        for i in range(len(case.types)):
            expr = expr.replace(f"x{i}", f"x{i}[0]")
        lines += ["@wp.kernel",
                  f"def k{n}({params}, w: wp.array(dtype={_NAMES[case.result_type]}), out: wp.array(dtype=wp.float64)):",
                  f"    out[0] = inner({expr}, w[0])", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("adjoint_cases") / "bw_adjoint_cases.py"
    path.write_text(_module_source())
    spec = importlib.util.spec_from_file_location("bw_adjoint_cases", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    ks = [getattr(module, f"k{n}") for n in range(len(CASES))]
    batch = []
    for target in TARGETS:  # forward and backward kernels of every case and target, compiled in parallel
        with config.override(target=target):
            for case, k in zip(CASES, ks):
                if case.cpu_only and target != "cpu":
                    continue
                inst = k.get_instance(k.concrete_types())
                batch += [inst, inst.adjoint()]
    build_instances(batch)
    return ks


def _shape(t):
    return getattr(t, "_shape", ())  # transforms: (7,)


def _loss(kernel, case, xs, w):
    arrays = [wp.array(x.reshape((1,) + _shape(t)), dtype=t) for x, t in zip(xs, case.types)]
    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(kernel, 1, inputs=[*arrays, wp.array(w.reshape((1,) + _shape(case.result_type)),
                                                   dtype=case.result_type), out])
    return out.numpy()[0]


#: the CPU, and the GPU mapping run on the CPU (atomic adjoint scatters, one thread per point, blocks)
TARGETS = ("cpu", "cuda-emulation")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", range(len(CASES)), ids=[f"{c.name}{tuple(t.__name__ for t in c.types)}" for c in CASES])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.filter_too_much])
@given(data=st.data())
def test_gradient_matches_finite_differences(kernels, n, target, data):
    if CASES[n].cpu_only and target != "cpu":
        pytest.skip("the builtin's header is not part of the cuda-emulation target's units")
    with config.override(target=target):
        _check(kernels, n, data)


def _check(kernels, n, data):
    case, kernel = CASES[n], kernels[n]
    floats = st.floats(case.lo, case.hi, allow_nan=False, allow_infinity=False)
    xs = [np.array(data.draw(st.lists(floats, min_size=int(np.prod(_shape(t), dtype=int)),
                                      max_size=int(np.prod(_shape(t), dtype=int)))), dtype=np.float64)
          .reshape(_shape(t)) for t in case.types]
    if case.extra:
        env = {f"x{i}": x for i, x in enumerate(xs)}
        env["np"] = np
        assume(eval(case.extra, env))  # noqa: S307 - the test's own condition text
    size = int(np.prod(_shape(case.result_type), dtype=int))
    w = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=size, max_size=size)), dtype=np.float64)

    arrays = [wp.array(x.reshape((1,) + _shape(t)), dtype=t, requires_grad=True) for x, t in zip(xs, case.types)]
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    wa = wp.array(w.reshape((1,) + _shape(case.result_type)), dtype=case.result_type)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, 1, inputs=[*arrays, wa, out])
    tape.backward(out)

    eps = 1e-6
    for x, a in zip(xs, arrays):
        grad = a.grad.numpy().reshape(x.shape)
        flat = x.reshape(-1)
        expected = np.zeros(flat.size)
        for j in range(flat.size):
            up, down = [y.copy() for y in xs], [y.copy() for y in xs]
            k = next(i for i, y in enumerate(xs) if y is x)
            up[k].reshape(-1)[j] += eps
            down[k].reshape(-1)[j] -= eps
            expected[j] = (_loss(kernel, case, up, w) - _loss(kernel, case, down, w)) / (2 * eps)
        np.testing.assert_allclose(grad.reshape(-1), expected, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case.name}{case.types}: {case.expr} at {xs}")
