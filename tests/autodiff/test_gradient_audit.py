"""Findings of a gradient audit, against finite differences (float64) or exact derivatives:

- loops that update fixed-size local arrays (``wp.zeros`` in a kernel): the reversed iterations
  replayed them from their final values instead of their values at each iteration (a counter in one
  multiplied a gradient by the wrong factors), on every target;
- the GPU emulation target kept a block's per-thread locals on the OS thread's stack, which a big
  backward kernel overflowed (a segmentation fault): such a frame now lives on the heap;
- builtins and statements the per-builtin cases (builtin_cases.py) do not reach: non-square matrices,
  4x4 inverse and determinant, non-unit quaternions, negative bases, other quadrants, casts, component
  and field updates, multiple results, loops and early exits. Grouped into a few kernels (one output
  per case) so that compiling them stays cheap.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.lang.instance import build_instances

TARGETS = ("cpu", "cuda-emulation")


def _fd(f, x: float, eps: float = 1e-6) -> float:
    return (f(x + eps) - f(x - eps)) / (2 * eps)


# -- fixed-size local arrays written in loops ---------------------------------------------------------

@wp.func
def _bump(a: wp.array(dtype=wp.float64), i: int):
    a[i] = a[i] + wp.float64(1.0)


@wp.kernel
def fixed_counter(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    a = wp.zeros(shape=(2,), dtype=wp.float64)
    a[0] = wp.float64(1.0)
    s = x[0]
    for _ in range(n):
        s = s * a[0]  # a[0] is 1, 2, 3, ... : d out / d x = n!
        a[0] = a[0] + wp.float64(1.0)
    out[0] = s


@wp.kernel
def fixed_while(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    c = wp.zeros(shape=(1,), dtype=wp.int32)
    s = x[0]
    while c[0] < n:
        s = s * wp.float64(c[0] + 2)  # 2 * 3 * ... * (n + 1)
        c[0] = c[0] + 1
    out[0] = s


@wp.kernel
def fixed_nested(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    a = wp.zeros(shape=(2, 2), dtype=wp.float64)
    a[0, 0] = wp.float64(1.0)
    s = x[0]
    for _ in range(n):
        row = a[1]  # a view, written through and passed to a function
        for j in range(2):
            s = s * (a[0, 0] + row[j]) * wp.float64(0.5) + wp.sin(s)
            row[j] = row[j] + wp.float64(0.5)
            _bump(a[0], 0)
        wp.atomic_add(a, 1, 0, wp.float64(0.25))
    out[0] = s


@wp.kernel
def fixed_copy_in_loop(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    a = wp.zeros(shape=(2,), dtype=wp.float64)
    b = wp.zeros(shape=(2,), dtype=wp.float64)
    s = x[0]
    for _ in range(n):
        a[0] = a[0] + wp.float64(1.0)
        s = s * b[0] + s  # b[0] is 0, 1, 2, ... : d out / d x = n!
        b = a
    out[0] = s


@wp.kernel
def fixed_made_in_loop(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    s = x[0]
    k = 0
    while k < n:
        b = wp.zeros(shape=(3,), dtype=wp.vec2d)
        for j in range(3):
            b[j] = wp.vec2d(wp.float64(j + k), wp.float64(1.0))
            s = s * b[j][0] * wp.float64(0.3) + b[j].y * wp.cos(s)
        k += 1
    out[0] = s


_FIXED = {"counter": (fixed_counter, 4, 24.0), "while": (fixed_while, 3, 24.0), "nested": (fixed_nested, 3, None),
          "copy": (fixed_copy_in_loop, 4, 24.0), "made_in_loop": (fixed_made_in_loop, 2, None)}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(_FIXED))
def test_loops_replay_fixed_arrays_from_their_values_at_each_iteration(name, target):
    kernel, n, exact = _FIXED[name]
    with config.override(target=target):
        x = wp.array([0.7], dtype=wp.float64, requires_grad=True)
        out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, 1, inputs=[x, n, out])
        tape.backward(out)

        def f(v):
            o = wp.zeros(1, dtype=wp.float64)
            wp.launch(kernel, 1, inputs=[wp.array([v], dtype=wp.float64), n, o])
            return o.numpy()[0]

        fd = _fd(f, 0.7)
        grad = x.grad.numpy()[0]
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    if exact is not None:
        np.testing.assert_allclose(grad, exact, rtol=1e-12)


# -- the emulation target's block frame on the heap ----------------------------------------------------

@wp.kernel
def frame_kernel(x: wp.array(dtype=wp.vec3d), n: int, scale: wp.float64, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    scale = scale * wp.float64(2.0)  # an assigned parameter: per thread
    b = wp.zeros(shape=(2,), dtype=wp.vec3d)
    v = x[i]
    for k in range(n):
        b[k % 2] = b[k % 2] + v
        v = wp.cross(v, b[0]) * scale + wp.sin(v)
    out[i] = wp.dot(v, v) + wp.length(b[1])


def test_emulation_frame_on_the_heap_gives_the_cpu_gradients(monkeypatch):
    import brickwork.targets.emulate.unit as unit

    rng = np.random.default_rng(3)
    xn = rng.uniform(0.2, 1.0, (300, 3))  # two blocks, the second one partly used
    grads = []
    for target, limit in (("cpu", None), ("cuda-emulation", 0)):
        if limit is not None:  # every block frame of the emulation on the heap
            monkeypatch.setattr(unit, "FRAME_STACK_LIMIT", limit)
        with config.override(target=target):
            x = wp.array(xn, dtype=wp.vec3d, requires_grad=True)
            out = wp.zeros(300, dtype=wp.float64, requires_grad=True)
            tape = wp.Tape()
            with tape:
                wp.launch(frame_kernel, 300, inputs=[x, 3, wp.float64(0.25), out])
            tape.backward(grads={out: wp.ones(300, dtype=wp.float64)})
            grads.append((out.numpy().copy(), x.grad.numpy().copy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)


def test_emulation_frame_size_estimate():
    import brickwork.targets.emulate.unit as unit
    from brickwork import ir

    fn = ir.IRFunction.__new__(ir.IRFunction)
    fn.locals = {f"l{k}": wp.mat44d for k in range(300)}  # 300 matrices of 128 bytes per thread
    fn.params, fn.buffers, fn.body = [("x", wp.float64)], {"b": (wp.float32, 4)}, []
    assert unit._frame_bytes(fn, 256) == (300 * 128 + 8 + 16) * 256 > unit.FRAME_STACK_LIMIT


# -- builtins and statements, grouped ---------------------------------------------------------------------

_CTYPES = {"F": ("wp.float64", ()), "V2": ("wp.vec2d", (2,)), "V3": ("wp.vec3d", (3,)), "V4": ("wp.vec4d", (4,)),
           "Q": ("wp.quatd", (4,)), "M22": ("wp.mat22d", (2, 2)), "M33": ("wp.mat33d", (3, 3)),
           "M44": ("wp.mat44d", (4, 4)), "M23": ("mat23d", (2, 3)), "M32": ("mat32d", (3, 2)),
           "T": ("wp.transformd", (7,)), "S6": ("wp.spatial_vectord", (6,))}

_HELPERS = '''
import typing

import brickwork as wp

mat23d = wp.types.matrix(shape=(2, 3), dtype=wp.float64)
mat32d = wp.types.matrix(shape=(3, 2), dtype=wp.float64)


@wp.struct
class S:
    a: wp.float64
    v: wp.vec3d
    m: wp.mat22d


@wp.func
def two(a: wp.float64, b: wp.float64):
    return a * b, wp.vec3d(a, wp.float64(1.0), a + wp.sin(b))


@wp.func
def use_two(a: wp.float64, b: wp.float64):
    p, q = two(a, b)
    r = two(p, a)
    return q * p + r[1] * r[0]


@wp.func
def comp_assign(v: wp.vec3d, x: wp.float64):
    u = v
    u[1] = x * x
    u.z = u.z * x
    u[0] += x
    u[2] -= v[0] * x
    u[1] *= v[2]
    u[0] /= wp.float64(2.0)
    return u


@wp.func
def mat_assign(m: wp.mat33d, x: wp.float64):
    a = m
    a[1, 2] = x * m[0, 0]
    a[0] = m[2] * x
    a[2, 0] += x
    a[1, 1] *= x
    a[2] -= m[1]
    for i in range(3):
        a[i, (i + 1) % 3] *= m[i, i]
    return a


@wp.func
def quat_transform_assign(q: wp.quatd, t: wp.transformd, x: wp.float64):
    p = q
    p.w = x
    p[0] *= x
    p.y += q.z * x
    u = t
    u.p = u.p * x
    u.q[0] = x
    u.p[1] += x * x
    return wp.transform_point(u, wp.vec3d(p[0], p[1], p[3]))


@wp.func
def struct_fields(x: wp.float64, v: wp.vec3d):
    s = S()
    s.a = x * x
    s.v = v * x
    s.v[1] = s.a * v[2]
    s.m = wp.mat22d(x, v[0], v[1], v[2])
    s.m[0, 1] += x
    t = s
    t.a = t.a + wp.dot(t.v, v)
    return t.a + wp.ddot(t.m, t.m) + wp.length_sq(s.v)


@wp.func
def loops(x: wp.float64, y: wp.float64):
    n = wp.int32(wp.floor(y * wp.float64(0.0) + wp.float64(4.5)))  # a bound computed at run time
    s = wp.float64(1.0)
    for i in range(n):
        s = s * x + y * wp.float64(i)
    for i in range(n, 0, -2):
        s = s + wp.sin(x * wp.float64(i)) * y
    k = 0
    while k < 3:
        s = s * wp.float64(0.5) + wp.cos(s) * y
        k += 1
    for i in range(10):
        if s > wp.float64(4.0):
            break
        s = s + x * x + wp.float64(0.5)
        if i % 2 == 0:
            continue
        s = s * y
    return s


@wp.func
def exits(x: wp.float64, y: wp.float64):
    s = x
    for i in range(10):
        s = s * y + x
        if s > wp.float64(3.0):
            return s * s
    if x > wp.float64(0.5):
        return s * y
    return s * x


@wp.func
def generic(a: typing.Any, b: typing.Any):
    return a * b + wp.sin(a)
'''

# (name, argument types, expression over x0, x1, ..., range of the arguments, condition on them)
_CASES = [
    ("pow negative base", ("F",), "wp.pow(x0 - wp.float64(2.0), wp.float64(3.0)) + (x0 - wp.float64(2.0)) ** wp.float64(2.0)", -1, 1, ""),
    ("pow", ("F", "F"), "wp.pow(x0, x1 - wp.float64(2.5))", 0.3, 2, ""),
    ("atan2 quadrants", ("F", "F"), "wp.atan2(x0, x1)", -2, 2, "abs(x0) > 0.2 and abs(x1) > 0.2"),
    ("mod negative", ("F", "F"), "wp.mod(x0, x1)", -2, 2, "abs(x1) > 0.3 and abs(x0) < abs(x1) - 0.01 and abs(x0) > 0.01"),
    ("abs sign step", ("F",), "wp.abs(x0) + wp.sign(x0) * x0 + wp.step(x0) * x0 + wp.floor(x0) * x0", -2, 2,
     "abs(x0) > 0.01 and abs(x0 - np.round(x0)) > 0.01"),
    ("smoothstep", ("F", "F", "F"), "wp.smoothstep(x1 + wp.float64(1.5), x0 - wp.float64(1.5), x2 * wp.float64(2.0))", -1, 1, ""),
    ("select where ternary", ("F", "F", "F"), "wp.select(x0 > wp.float64(0.0), x1 * x0, x2) + "
     "wp.where(x0 > wp.float64(0.0), x1, x2 * x2) + (x1 * x0 if x0 > wp.float64(0.0) else x2 * x2)", -1, 1, "abs(x0) > 0.01"),
    ("casts", ("F",), "wp.float64(wp.int32(x0 * wp.float64(3.0))) * x0 + wp.float64(wp.float64(x0) * x0)", -2, 2,
     "abs(3 * x0 - np.trunc(3 * x0)) > 0.02 and abs(3 * x0 - np.trunc(3 * x0)) < 0.98"),
    ("length normalize", ("V4", "Q"), "wp.normalize(x0) * wp.length(x1) + x0 * wp.length_sq(x0) * wp.normalize(x1)[2] + x0 * wp.normalize(x1)[1]", -1, 1,
     "np.linalg.norm(x0) > 0.3 and np.linalg.norm(x1) > 0.3"),
    ("outer 2x3 3x2", ("V2", "V3"), "wp.outer(x0, x1) * wp.transpose(wp.outer(x0, x1))", -1, 1, ""),
    ("determinant inverse 4x4", ("M44",), "wp.inverse(x0 + wp.diag(wp.vec4d(4.0, 4.0, 4.0, 4.0))) * wp.determinant(x0)", -1, 1, ""),
    ("mul non-square", ("M23", "M32", "V3", "V2"), "(x0 * x1) * (x0 * x2) + x3 * x0 * x1 + (x0 @ x1) * x3", -1, 1, ""),
    ("mul 4x4", ("M44", "V4"), "x0 * x1 + x1 * x0 + (x0 * x0) * x1", -1, 1, ""),
    ("matrix rows cols slices", ("M33", "V3"), "wp.matrix_from_rows(x0[1], x1, x0[:, 2]) * x0[0, 1] + "
     "wp.matrix_from_cols(x1, x1 * x0[2, 2], x0[0])", -1, 1, ""),
    ("componentwise", ("V3", "V3"), "wp.max(x0, x1) + wp.min(x1, x0) * x0[0] + wp.cw_mul(wp.abs(x0), x1) + "
     "wp.clamp(x0, x1, x1 + wp.vec3d(1.0, 1.0, 1.0))", -1, 1,
     "np.all(np.abs(x0 - x1) > 0.01) and np.all(np.abs(x0 - x1 - 1) > 0.01) and np.all(np.abs(x0) > 0.01)"),
    ("lerp matrix quaternion", ("M22", "Q", "F"), "wp.lerp(x0, x0 * x0, x2) * wp.lerp(x1, wp.quatd(1.0, 2.0, 3.0, 4.0), x2)[1]",
     -1, 1, ""),
    ("quaternion non-unit", ("Q", "V3"), "wp.quat_rotate(x0, x1) + wp.quat_rotate_inv(x0, x1) + "
     "wp.quat_to_matrix(x0) * x1 + wp.vec3d(wp.quat_inverse(x0)[0], x0.w * x0.x, x0[2])", -1, 1, ""),
    ("quat_from_axis_angle non-unit", ("V3", "F"), "wp.quat_from_axis_angle(x0, x1) * wp.quatd(x0, x1)", -1, 1, ""),
    ("transform arithmetic", ("T", "T", "F"), "wp.transform_vector(x0 * x1, wp.transform_get_translation(x1)) * x2 + "
     "wp.transform_point(wp.transform_inverse(x0), x1.p) + (x0 + x1 * x2).p", -1, 1, ""),
    ("multiple results", ("F", "F"), "use_two(x0, x1)", -1, 1, ""),
    ("component updates", ("V3", "F"), "comp_assign(x0, x1)", -1, 1, ""),
    ("matrix updates", ("M33", "F"), "mat_assign(x0, x1)", -1, 1, ""),
    ("quaternion transform updates", ("Q", "T", "F"), "quat_transform_assign(x0, x1, x2)", -1, 1, ""),
    ("struct fields", ("F", "V3"), "struct_fields(x0, x1)", -1, 1, ""),
    ("loops", ("F", "F"), "loops(x0, x1)", -1, 1, ""),
    ("early return", ("F", "F"), "exits(x0, x1)", 0.2, 1.5, "abs(x0 - 0.5) > 0.01"),
    ("generic", ("F", "V3"), "generic(x1, x0) + x1 * generic(wp.float64(1.5), x0)", -1, 1, ""),
]
_GROUP = 14  # cases per kernel


def _ncomp(t) -> int:
    return int(np.prod(_CTYPES[t][1], dtype=int))


def _ctor(t, o) -> str:
    xs = [f"x[{o + i}]" for i in range(_ncomp(t))]
    if t == "F":
        return xs[0]
    if t == "T":
        return f"wp.transformd(wp.vec3d({', '.join(xs[:3])}), wp.quatd({', '.join(xs[3:])}))"
    return f"{_CTYPES[t][0]}({', '.join(xs)})"


def _module_source():
    lines, layout, sizes = [_HELPERS], [], []
    for name, (ct, shape) in _CTYPES.items():  # a fixed weighted sum of the components
        idx = list(np.ndindex(*shape)) if shape else [None]
        terms = [f"wp.float64({(0.5 + 0.37 * k) * (-1) ** k!r}) * " + ("v" if ix is None else f"v[{', '.join(map(str, ix))}]")
                 for k, ix in enumerate(idx)]
        lines += ["", "@wp.func", f"def red(v: {ct}):", f"    return {' + '.join(terms)}", ""]
    for g in range(0, len(_CASES), _GROUP):
        body, o = [], 0
        for j, (_, types, expr, *_) in enumerate(_CASES[g:g + _GROUP]):
            offsets = []
            for i, t in enumerate(types):
                offsets.append(o)
                body.append(f"    a{j}_{i} = {_ctor(t, o)}")
                o += _ncomp(t)
            for i in range(len(types)):
                expr = expr.replace(f"x{i}", f"a{j}_{i}")
            body.append(f"    out[{j}] = red({expr})")
            layout.append((g // _GROUP, j, offsets))
        lines += ["", "@wp.kernel", f"def k{g // _GROUP}(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):",
                  *body, ""]
        sizes.append(o)
    return "\n".join(lines), layout, sizes


@pytest.fixture(scope="module")
def audit_kernels(tmp_path_factory):
    source, layout, sizes = _module_source()
    path = tmp_path_factory.mktemp("gradient_audit") / "bw_gradient_audit.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("bw_gradient_audit", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    kernels = [getattr(module, f"k{n}") for n in range((len(_CASES) + _GROUP - 1) // _GROUP)]
    batch = []
    for k in kernels:  # forward and backward kernels compiled in parallel
        inst = k.get_instance(k.concrete_types())
        batch += [inst, inst.adjoint()]
    build_instances(batch)
    return kernels, layout, sizes


def _draw(case, rng):
    _, types, _, lo, hi, extra = case
    for _ in range(10000):
        xs = [rng.uniform(lo, hi, size=_CTYPES[t][1]) for t in types]
        if not extra or eval(extra, {"np": np, **{f"x{i}": x for i, x in enumerate(xs)}}):  # noqa: S307 - own text
            return xs
    raise AssertionError(f"no point drawn for {case[0]}")


@pytest.mark.parametrize("n", range(len(_CASES)), ids=[c[0].replace(" ", "_") for c in _CASES])
def test_gradient_matches_finite_differences(audit_kernels, n):
    kernels, layout, sizes = audit_kernels
    case = _CASES[n]
    group, row, offsets = layout[n]
    kernel, size = kernels[group], sizes[group]
    nout = sum(1 for g, _, _ in layout if g == group)
    cols = [o + q for o, t in zip(offsets, case[1]) for q in range(_ncomp(t))]
    rng = np.random.default_rng(n)

    def f(xv):
        out = wp.zeros(nout, dtype=wp.float64)
        wp.launch(kernel, 1, inputs=[wp.array(xv, dtype=wp.float64), out])
        return out.numpy()[row]

    for _ in range(3):
        x = np.full(size, 0.5)
        x[cols] = np.concatenate([np.ravel(v) for v in _draw(case, rng)])
        xa = wp.array(x, dtype=wp.float64, requires_grad=True)
        out = wp.zeros(nout, dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, 1, inputs=[xa, out])
        seed = np.zeros(nout)
        seed[row] = 1.0
        tape.backward(grads={out: wp.array(seed, dtype=wp.float64)})
        grad = xa.grad.numpy()
        eps = 1e-6
        fd = []
        for c in cols:
            up, down = x.copy(), x.copy()
            up[c] += eps
            down[c] -= eps
            fd.append((f(up) - f(down)) / (2 * eps))
        np.testing.assert_allclose(grad[cols], fd, rtol=1e-5, atol=1e-6, err_msg=f"{case[0]}: {case[2]} at {x[cols]}")
        assert not np.any(np.delete(grad, cols)), "gradient leaked into another case's inputs"
