"""Kernels generated for the CUDA target in tests/targets/test_cuda_nvrtc.py, with their argument types:
each kind of statement, builtin family, element type and launch shape the CPU target supports."""

from typing import Any

import brickwork as wp

SCALARS = [wp.float16, wp.float32, wp.float64, wp.int8, wp.int16, wp.int32, wp.int64, wp.uint8, wp.uint16,
           wp.uint32, wp.uint64]
FLOATS = [wp.float16, wp.float32, wp.float64]
ATOMIC_ARITH = [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float16, wp.float32, wp.float64]
ATOMIC_MINMAX = [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float32, wp.float64, wp.bfloat16]
ATOMIC_BITS = [wp.int32, wp.uint32, wp.int64, wp.uint64]


@wp.func
def twice(x: Any):
    return x + x


@wp.func
def clamp_sum(a: Any, b: Any, lo: Any, hi: Any):
    s = a + b
    if s < lo:
        return lo
    return wp.min(s, hi)


@wp.func
def min_max(a: float, b: float):
    return wp.min(a, b), wp.max(a, b)


@wp.kernel
def arithmetic(x: wp.array(dtype=Any), y: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    a = x[i]
    b = y[i]
    y[i] = twice(a * s + b - a / (b + s)) + clamp_sum(a, b, s, s + s)


@wp.kernel
def integer_ops(x: wp.array(dtype=Any), y: wp.array(dtype=Any), k: Any):
    i = wp.tid()
    a = x[i]
    y[i] = (a // (k + type(k)(1))) % (k + type(k)(3)) + (a & k) + (a | k) + (a ^ k) + (a << type(k)(1)) + (a >> type(k)(1))
    y[i] = y[i] + wp.min(a, k) + wp.max(a, k) + wp.clamp(a, k, k + k) + wp.abs(a) + wp.sign(a)


@wp.kernel
def float_math(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
    i = wp.tid()
    a = x[i]
    r = wp.sin(a) + wp.cos(a) + wp.tan(a) + wp.asin(a) + wp.acos(a) + wp.atan(a) + wp.atan2(a, a)
    r = r + wp.sinh(a) + wp.cosh(a) + wp.tanh(a) + wp.exp(a) + wp.exp2(a) + wp.log(a) + wp.log2(a) + wp.log10(a)
    r = r + wp.sqrt(a) + wp.cbrt(a) + wp.pow(a, a) + wp.floor(a) + wp.ceil(a) + wp.round(a) + wp.rint(a)
    r = r + wp.trunc(a) + wp.frac(a) + wp.erf(a) + wp.erfc(a) + wp.erfinv(a) + wp.erfcinv(a) + wp.degrees(a)
    r = r + wp.radians(a) + wp.copysign(a, r) + wp.mod(a, r) + wp.floordiv(a, r) + wp.lerp(a, r, a)
    r = r + wp.smoothstep(a, r, a) + wp.step(a) + wp.clamp(r, a, a) + wp.abs(r)
    if wp.isnan(r) or wp.isinf(r) or not wp.isfinite(r):
        r = type(a)(0.0)
    y[i] = r


@wp.kernel
def casts(x: wp.array(dtype=Any), f16: wp.array(dtype=wp.float16), f64: wp.array(dtype=wp.float64),
          i8: wp.array(dtype=wp.int8), u64: wp.array(dtype=wp.uint64), b16: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    v = x[i]
    f16[i] = wp.float16(v)
    f64[i] = wp.float64(v)
    i8[i] = wp.int8(v)
    u64[i] = wp.uint64(v)
    b16[i] = wp.bfloat16(v)
    x[i] = type(v)(f16[i]) + type(v)(b16[i])


@wp.kernel
def vectors(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    w = wp.cross(u, v) + wp.normalize(u) * wp.dot(u, v) - v / wp.length(v) + wp.cw_mul(u, v) + wp.cw_div(u, v)
    w[0] = wp.length_sq(w) + wp.min(u)
    out[i] = wp.max(w, u) + wp.min(w, v) + wp.abs(w) + wp.outer(u, v) * v


@wp.kernel
def matrices(m: wp.array(dtype=Any), v: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    a = m[i]
    b = wp.transpose(a) * a + wp.inverse(a) * wp.determinant(a) + wp.diag(wp.get_diag(a)) + wp.identity(3, dtype=float)
    b[1, 2] = wp.trace(b)
    out[i] = b * v[i] + wp.skew(v[i]) * v[i]


@wp.kernel
def quaternions(q: wp.array(dtype=wp.quat), p: wp.array(dtype=wp.vec3), t: wp.array(dtype=wp.transform),
                out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    r = q[i] * wp.quat_from_axis_angle(wp.normalize(p[i]), 0.3) * wp.quat_between_vectors(p[i], wp.vec3(0.0, 1.0, 0.0))
    r = wp.quat_slerp(r, wp.quat_inverse(q[i]), 0.25) * wp.quat_from_matrix(wp.quat_to_matrix(r))
    e = wp.quat_to_euler(r, 0, 1, 2) + wp.quat_to_rpy(wp.quat_rpy(0.1, 0.2, 0.3))
    x = wp.transform_point(t[i], p[i]) + wp.transform_vector(wp.transform_inverse(t[i]), e)
    m = wp.transform_to_matrix(wp.transform_multiply(t[i], wp.transform(p[i], r)))
    out[i] = wp.quat_rotate(r, x) + wp.quat_rotate_inv(r, x) + wp.vec3(m[0, 3], m[1, 3], wp.quat_twist_angle(p[i], r))


@wp.kernel
def spatial(a: wp.array(dtype=wp.spatial_vector), m: wp.array(dtype=wp.spatial_matrix), out: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.spatial_cross(a[i], a[i]) + wp.spatial_cross_dual(a[i], a[i]) + m[i] * a[i]
    out[i] = wp.spatial_dot(v, a[i]) + wp.spatial_top(v)[0] + wp.spatial_bottom(v)[2]


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: wp.float64
    alive: wp.bool
    count: wp.int32


@wp.struct
class Scene:
    p: Particle
    gravity: wp.vec3
    data: wp.array(dtype=float)


@wp.func
def advance(p: Particle, g: wp.vec3, dt: float):
    q = p
    q.vel = q.vel + g * dt
    q.pos = q.pos + q.vel * dt
    q.count = q.count + 1
    return q


@wp.kernel
def structs(ps: wp.array(dtype=Particle), scene: Scene, dt: float):
    i = wp.tid()
    p = advance(ps[i], scene.gravity, dt)
    if p.alive:
        p.mass = p.mass * wp.float64(scene.data[i])
    ps[i] = p
    scene.data[i] = float(scene.p.count)


@wp.kernel
def atomics_arith(a: wp.array(dtype=Any), v: Any):
    i = wp.tid()
    old = wp.atomic_add(a, i % 4, v)
    wp.atomic_sub(a, 0, old)


@wp.kernel
def atomics_minmax(a: wp.array(dtype=Any), v: Any):
    i = wp.tid()
    wp.atomic_min(a, 0, v)
    wp.atomic_max(a, 1, v)
    a[2] = wp.atomic_exch(a, 3, v)


@wp.kernel
def atomics_bits(a: wp.array2d(dtype=Any), v: Any):
    i, j = wp.tid()
    wp.atomic_and(a, i, j, v)
    wp.atomic_or(a, i, j, v)
    wp.atomic_xor(a, i, j, v)


@wp.kernel
def composite_bits(v: wp.array(dtype=wp.vec3ui), m: wp.array(dtype=wp.types.matrix((2, 2), wp.int64)),
                   f: wp.array(dtype=wp.vec3h)):
    i = wp.tid()
    w = (v[i] << wp.vec3ui(wp.uint32(1))) ^ ~v[i] | (v[i] >> wp.vec3ui(wp.uint32(2)))
    v[i] = w % wp.vec3ui(wp.uint32(7))
    wp.atomic_or(v, 0, w & v[i])
    m[0] ^= m[i] << m[i]
    wp.atomic_and(m, 0, ~m[i])
    f[i] = f[i] % f[0]


@wp.kernel
def atomics_composite(v: wp.array(dtype=wp.vec3d), m: wp.array(dtype=wp.mat22), q: wp.array(dtype=wp.quath)):
    i = wp.tid()
    wp.atomic_add(v, 0, wp.vec3d(1.0, 2.0, 3.0))
    wp.atomic_max(m, 0, wp.mat22(1.0, 2.0, 3.0, 4.0))
    wp.atomic_add(q, 0, q[i])


@wp.kernel
def printing(x: wp.array(dtype=float), v: wp.vec3, h: wp.float16, n: wp.int64, flag: bool):
    i = wp.tid()
    print(x[i])
    print(v)
    wp.printf("thread %d of %lld: %f %g\n", i, n, x[i], float(h))
    print("value", x[i], "flag", flag, h)
    wp.expect_eq(i, i)
    wp.expect_near(x[i], x[i], 1e-6)


@wp.kernel
def random(seed: int, out: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), k: wp.array(dtype=int)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    out[i] = wp.randf(state) + wp.randn(state) + wp.randf(state, -1.0, 1.0)
    v[i] = wp.sample_unit_sphere(state) + wp.sample_unit_hemisphere_surface(state) + wp.sample_unit_cube(state)
    k[i] = wp.randi(state, 0, 100) + wp.bit_count(k[i])


@wp.kernel
def noise(seed: int, p: wp.array(dtype=wp.vec4), out: wp.array(dtype=float), c: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    state = wp.rand_init(seed)
    q = p[i]
    out[i] = wp.noise(state, q[0]) + wp.noise(state, wp.vec3(q[0], q[1], q[2])) + wp.noise(state, q)
    out[i] += wp.pnoise(state, wp.vec2(q[0], q[1]), 4, 5) + wp.div_approx(q[0], 3.0)
    c[i] = wp.curlnoise(state, wp.vec2(q[0], q[1]), wp.uint32(2), 2.0, 0.5)
    out[i] += wp.curlnoise(state, wp.vec3(q[0], q[1], q[2]))[0] + wp.curlnoise(state, q, wp.uint32(2), 2.0, 0.5)[1]
    a = wp.vec3(q[0], q[1], q[2])
    b = wp.vec3(q[3], q[2], q[1])
    z = wp.vec3(0.0)
    out[i] += wp.closest_point_edge_edge(a, b, z, a + b, 1.0e-5)[2] + float(wp.intersect_tri_tri(a, b, z, b, a, z))
    out[i] += wp.inverse_approx(wp.mat22(q[0], q[1], q[2], q[3]))[0, 0]


@wp.kernel
def control_flow(x: wp.array(dtype=float), n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    s = 0
    for k in range(n):
        if k % 3 == 0:
            continue
        if k > 50:
            break
        s += k
    for k in range(10, 0, -3):
        s -= k
    j = 0
    while j < n and x[i] > float(j):
        j += 1
    out[i] = wp.select(x[i] > 0.0, s, j) + wp.where(j > 2, s, -s)
    if x[i] < 0.0:
        return
    out[i] = out[i] * 2


@wp.kernel
def launch_2d(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    b[i, j] = a[i, j] + a[i, j] * wp.float64(i - j)


@wp.kernel
def launch_3d(a: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    a[i, j, k] = float(i * 100 + j * 10 + k)


@wp.kernel
def launch_4d(a: wp.array4d(dtype=wp.int32)):
    i, j, k, l = wp.tid()
    a[i, j, k, l] = i + j + k + l + a.shape[3]


@wp.kernel
def subarrays(a: wp.array3d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    row = a[i]
    col = a[i, 0]
    out[i] = row[0, 0] + col[1] + float(row.shape[1])


@wp.struct
class IndexedHolder:
    values: wp.indexedarray(dtype=float)


@wp.kernel
def indexed_arrays(a: wp.indexedarray(dtype=float, ndim=3), h: IndexedHolder, out: wp.array(dtype=float)):
    i = wp.tid()
    row = a[i]
    out[i] = a[i, 0, 1] + row[0, 1] + a[i, 0][1] + float(a.shape[2] + len(a))
    a[i, 1, 0] = out[i]
    a[i, 1, 1] += 2.0
    wp.atomic_add(a, i, 0, 0, 1.0)
    wp.atomic_max(h.values, i, out[i])
    h.values[i] *= 2.0


@wp.kernel
def tuples(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    lo, hi = min_max(a[i], b[i])
    a[i] = lo
    b[i] = hi


@wp.kernel
def vector_types(v: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = v[i] + v[i] * type(v[i][0])(2)


@wp.func
def fill_rows(a: wp.array2d(dtype=float)):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = float(i * a.shape[1] + j)


@wp.func
def local_table(x: float) -> wp.fixedarray(shape=(2, 3), dtype=float):
    t = wp.zeros(shape=(2, 3), dtype=float)
    fill_rows(t)
    t[1, 2] += x
    return t


@wp.kernel
def fixed_arrays(x: wp.array(dtype=float), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    t = local_table(x[i])
    v = wp.zeros(shape=4, dtype=wp.vec3)
    v[1] = wp.vec3(t[1, 2], t[0][1], float(len(t) + t.shape[1]))
    wp.atomic_add(v, 1, wp.vec3(1.0))
    s = t[:, 1:]
    out[i] = v[1] + wp.vec3(s[1, 1])


def entries():
    """(id, kernel, argument types) of every instance the CUDA tests generate and compile."""
    A = wp.array
    out = []
    for t in FLOATS:
        out.append((f"arithmetic[{t.__name__}]", arithmetic, [A(dtype=t), A(dtype=t), t]))
        out.append((f"float_math[{t.__name__}]", float_math, [A(dtype=t), A(dtype=t)]))
    for t in SCALARS:
        if not t.is_float:
            out.append((f"integer_ops[{t.__name__}]", integer_ops, [A(dtype=t), A(dtype=t), t]))
        out.append((f"casts[{t.__name__}]", casts, [A(dtype=t), A(dtype=wp.float16), A(dtype=wp.float64),
                                                  A(dtype=wp.int8), A(dtype=wp.uint64), A(dtype=wp.bfloat16)]))
    for t in ATOMIC_ARITH:
        out.append((f"atomics_arith[{t.__name__}]", atomics_arith, [A(dtype=t), t]))
    for t in ATOMIC_MINMAX:
        out.append((f"atomics_minmax[{t.__name__}]", atomics_minmax, [A(dtype=t), t]))
    for t in ATOMIC_BITS:
        out.append((f"atomics_bits[{t.__name__}]", atomics_bits, [wp.array2d(dtype=t), t]))
    for v in (wp.vec3f, wp.vec3d, wp.vec3h):
        out.append((f"vectors[{v.__name__}]", vectors, [A(dtype=v), A(dtype=v), A(dtype=v)]))
    out.append(("matrices[mat33]", matrices, [A(dtype=wp.mat33), A(dtype=wp.vec3), A(dtype=wp.vec3)]))
    for v in (wp.vec2i, wp.vec4ub, wp.vec3l, wp.vec4h, wp.vec2d):
        out.append((f"vector_types[{v.__name__}]", vector_types, [A(dtype=v), A(dtype=v)]))
    out += [
        ("quaternions", quaternions, [A(dtype=wp.quat), A(dtype=wp.vec3), A(dtype=wp.transform), A(dtype=wp.vec3)]),
        ("spatial", spatial, [A(dtype=wp.spatial_vector), A(dtype=wp.spatial_matrix), A(dtype=float)]),
        ("structs", structs, [A(dtype=Particle), Scene, wp.float32]),
        ("atomics_composite", atomics_composite, [A(dtype=wp.vec3d), A(dtype=wp.mat22), A(dtype=wp.quath)]),
        ("composite_bits", composite_bits, [A(dtype=wp.vec3ui), A(dtype=wp.types.matrix((2, 2), wp.int64)),
                                            A(dtype=wp.vec3h)]),
        ("printing", printing, [A(dtype=float), wp.vec3, wp.float16, wp.int64, wp.bool]),
        ("random", random, [wp.int32, A(dtype=float), A(dtype=wp.vec3), A(dtype=wp.int32)]),
        ("noise", noise, [wp.int32, A(dtype=wp.vec4), A(dtype=float), A(dtype=wp.vec2)]),
        ("control_flow", control_flow, [A(dtype=float), wp.int32, A(dtype=wp.int32)]),
        ("launch_2d", launch_2d, [wp.array2d(dtype=wp.float64), wp.array2d(dtype=wp.float64)]),
        ("launch_3d", launch_3d, [wp.array3d(dtype=float)]),
        ("launch_4d", launch_4d, [wp.array4d(dtype=wp.int32)]),
        ("subarrays", subarrays, [wp.array3d(dtype=float), A(dtype=float)]),
        ("tuples", tuples, [A(dtype=float), A(dtype=float)]),
        ("indexed_arrays", indexed_arrays, [wp.indexedarray(dtype=float, ndim=3), IndexedHolder, A(dtype=float)]),
        ("fixed_arrays", fixed_arrays, [A(dtype=float), A(dtype=wp.vec3)]),
    ]
    return out
