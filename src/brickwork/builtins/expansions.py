"""Expansions: builtins differentiated through their definition.

A backward kernel replaces a call of one of these builtins by the same computation written with
simpler builtins (the formula the CPU target computes), so its adjoint follows from their rules in
``adjoints``. ``EXPANSIONS[name](E, args)`` returns the result value, or None when these argument
types have no expansion. ``E`` is the adjoint pass's builder, as for the rules.
"""

from __future__ import annotations

from ..types.composite import is_matrix_type, is_transform_type
from .adjoints import c, conj, expansion, one_like, scalar_of


def _vec3(E, like_dtype_of, comps):
    from ..types.composite import vector

    return E.make(vector(3, scalar_of(E.type(like_dtype_of))), comps)


def _top(E, a):
    return _vec3(E, a, [E.comp(a, i) for i in range(3)])


def _bottom(E, a):
    return _vec3(E, a, [E.comp(a, i) for i in range(3, 6)])


def _join(E, t, w, v):
    return E.make(t, [E.comp(w, i) for i in range(3)] + [E.comp(v, i) for i in range(3)])


@expansion("spatial_top")
def _x_top(E, args):
    return _top(E, args[0])


@expansion("spatial_bottom")
def _x_bottom(E, args):
    return _bottom(E, args[0])


@expansion("spatial_dot")
def _x_spatial_dot(E, args):
    return E.dot(args[0], args[1])


@expansion("spatial_cross")
def _x_spatial_cross(E, args):
    a, b = args
    wa, va, wb, vb = _top(E, a), _bottom(E, a), _top(E, b), _bottom(E, b)
    return _join(E, E.type(a), E.cross(wa, wb), E.add(E.cross(wa, vb), E.cross(va, wb)))


@expansion("spatial_cross_dual")
def _x_spatial_cross_dual(E, args):
    a, b = args
    wa, va, wb, vb = _top(E, a), _bottom(E, a), _top(E, b), _bottom(E, b)
    return _join(E, E.type(a), E.add(E.cross(wa, wb), E.cross(va, vb)), E.cross(wa, vb))


@expansion("velocity_at_point")
def _x_velocity_at_point(E, args):
    qd, r = args
    return E.add(E.cross(_top(E, qd), r), _bottom(E, qd))


@expansion("spatial_adjoint")
def _x_spatial_adjoint(E, args):
    from ..types.composite import matrix

    r, s = args
    dtype = scalar_of(E.type(r))
    zero = E.const(0.0, dtype)
    comps = []
    for i in range(6):
        for j in range(6):
            if i < 3:
                comps.append(E.comp(r, i, j) if j < 3 else zero)
            else:
                comps.append(E.comp(s, i - 3, j) if j < 3 else E.comp(r, i - 3, j - 3))
    return E.make(matrix((6, 6), dtype), comps)


def _translation(E, t):
    return _vec3(E, t, [E.comp(t, i) for i in range(3)])


def _rotation(E, t):
    from ..types.composite import quaternion

    return E.make(quaternion(scalar_of(E.type(t))), [E.comp(t, i) for i in range(3, 7)])


def _transform(E, t, p, q):
    return E.make(t, [E.comp(p, i) for i in range(3)] + [E.comp(q, i) for i in range(4)])


@expansion("transform_get_translation")
def _x_get_translation(E, args):
    return _translation(E, args[0])


@expansion("transform_get_rotation")
def _x_get_rotation(E, args):
    return _rotation(E, args[0])


@expansion("transform_vector")
def _x_transform_vector(E, args):
    t, x = args
    if is_matrix_type(E.type(t)):
        return _vec3(E, t, [E.add(E.add(E.mul(E.comp(t, i, 0), E.comp(x, 0)), E.mul(E.comp(t, i, 1), E.comp(x, 1))),
                                  E.mul(E.comp(t, i, 2), E.comp(x, 2))) for i in range(3)])
    return E.quat_rotate(_rotation(E, t), x)


@expansion("transform_point")
def _x_transform_point(E, args):
    t, x = args
    r = _x_transform_vector(E, args)
    if is_matrix_type(E.type(t)):
        return _vec3(E, t, [E.add(E.comp(r, i), E.comp(t, i, 3)) for i in range(3)])
    return E.add(_translation(E, t), r)


@expansion("transform_multiply")
def _x_transform_multiply(E, args):
    a, b = args
    p = _x_transform_point(E, [a, _translation(E, b)])
    return _transform(E, E.type(a), p, E.mul(_rotation(E, a), _rotation(E, b)))


@expansion("transform_inverse")
def _x_transform_inverse(E, args):
    t = args[0]
    qi = conj(E, _rotation(E, t))
    return _transform(E, E.type(t), E.neg(E.quat_rotate(qi, _translation(E, t))), qi)


@expansion("transform_twist")
def _x_transform_twist(E, args):
    t, x = args
    q = _rotation(E, t)
    w = E.quat_rotate(q, _top(E, x))
    return _join(E, E.type(x), w, E.add(E.quat_rotate(q, _bottom(E, x)), E.cross(_translation(E, t), w)))


@expansion("transform_wrench")
def _x_transform_wrench(E, args):
    t, x = args
    q = _rotation(E, t)
    v = E.quat_rotate(q, _bottom(E, x))
    return _join(E, E.type(x), E.add(E.quat_rotate(q, _top(E, x)), E.cross(_translation(E, t), v)), v)


@expansion("quat_to_matrix")
def _x_quat_to_matrix(E, args):
    q = args[0]
    one, zero = c(E, 1.0, q), c(E, 0.0, q)
    axes = [[one, zero, zero], [zero, one, zero], [zero, zero, one]]
    return E.matrix_from_cols(*(E.quat_rotate(q, _vec3(E, q, a)) for a in axes))


def _compose(E, p, q, s):
    """The 4x4 matrix rotating by ``q`` after scaling by ``s`` (None: no scaling), then moving by ``p``."""
    from ..types.composite import matrix

    r = _x_quat_to_matrix(E, [q])
    zero, one = c(E, 0.0, p), c(E, 1.0, p)
    comps = []
    for i in range(3):
        comps += [E.comp(r, i, j) if s is None else E.mul(E.comp(r, i, j), E.comp(s, j)) for j in range(3)]
        comps.append(E.comp(p, i))
    return E.make(matrix((4, 4), scalar_of(E.type(p))), comps + [zero, zero, zero, one])


@expansion("transform_compose")
def _x_transform_compose(E, args):
    return _compose(E, *args)


@expansion("transform_to_matrix")
def _x_transform_to_matrix(E, args):
    t = args[0]
    return _compose(E, _translation(E, t), _rotation(E, t), None)


@expansion("quat_between_vectors")
def _x_quat_between_vectors(E, args):
    from ..types.composite import quaternion

    a, b = E.normalize(args[0]), E.normalize(args[1])
    axis = E.cross(a, b)
    w = E.add(one_like(E, E.dot(a, b)), E.dot(a, b))
    return E.normalize(E.make(quaternion(scalar_of(E.type(a))), [E.comp(axis, i) for i in range(3)] + [w]))


@expansion("quat_rpy")
def _x_quat_rpy(E, args):
    from ..types.composite import quaternion

    roll, pitch, yaw = args
    half = c(E, 0.5, roll)
    cy, sy = E.cos(E.mul(yaw, half)), E.sin(E.mul(yaw, half))
    cr, sr = E.cos(E.mul(roll, half)), E.sin(E.mul(roll, half))
    cp, sp = E.cos(E.mul(pitch, half)), E.sin(E.mul(pitch, half))

    def m3(a, b, d):
        return E.mul(E.mul(a, b), d)

    # the products in Warp's order (cy * sr * cp, ...), for Warp's bits
    comps = [E.sub(m3(cy, sr, cp), m3(sy, cr, sp)), E.add(m3(cy, cr, sp), m3(sy, sr, cp)),
             E.sub(m3(sy, cr, cp), m3(cy, sr, sp)), E.add(m3(cy, cr, cp), m3(sy, sr, sp))]
    return E.make(quaternion(E.type(roll)), comps)


@expansion("mul")
def _x_mul(E, args):
    a, b = args
    if is_transform_type(E.type(a)) and E.type(a) is E.type(b):
        return _x_transform_multiply(E, args)
    return None


def _delta(E, args, v):
    return args[1] if len(args) > 1 else c(E, 1.0, v)


@expansion("norm_l1")
def _x_norm_l1(E, args):
    v = args[0]
    total = E.abs(E.comp(v, 0))
    for i in range(1, E.type(v)._length):
        total = E.add(total, E.abs(E.comp(v, i)))
    return total


@expansion("norm_l2")
def _x_norm_l2(E, args):
    return E.length(args[0])


@expansion("norm_huber")
def _x_norm_huber(E, args):
    v = args[0]
    delta = _delta(E, args, v)
    a = E.length(v)
    half = c(E, 0.5, v)
    return E.sel(E.le(a, delta), E.mul(E.mul(half, a), a), E.mul(delta, E.sub(a, E.mul(half, delta))))


@expansion("norm_pseudo_huber")
def _x_norm_pseudo_huber(E, args):
    v = args[0]
    delta = _delta(E, args, v)
    return E.sqrt(E.add(E.length_sq(v), E.mul(delta, delta)))


@expansion("smooth_normalize")
def _x_smooth_normalize(E, args):
    return E.div(args[0], _x_norm_pseudo_huber(E, args))


@expansion("quat_to_rpy")
def _x_quat_to_rpy(E, args):
    q = args[0]
    x, y, z, w = (E.comp(q, i) for i in range(4))
    one, two = c(E, 1.0, q), c(E, 2.0, q)
    roll = E.atan2(E.mul(two, E.add(E.mul(w, x), E.mul(y, z))),
                   E.sub(one, E.mul(two, E.add(E.mul(x, x), E.mul(y, y)))))
    pitch = E.asin(E.clamp(E.mul(two, E.sub(E.mul(w, y), E.mul(z, x))), c(E, -1.0, q), one))
    yaw = E.atan2(E.mul(two, E.add(E.mul(w, z), E.mul(x, y))),
                  E.sub(one, E.mul(two, E.add(E.mul(y, y), E.mul(z, z)))))
    return _vec3(E, q, [roll, pitch, yaw])


def _axis_angle(E, q):
    """``quat_to_axis_angle``'s formula: the axis ``v / |v|`` (pointing away when ``w < 0``, zero when ``v``
    is) and the angle ``2 atan2(|v|, |w|)``."""
    v = _vec3(E, q, [E.comp(q, i) for i in range(3)])
    w = E.comp(q, 3)
    zero, one = c(E, 0.0, q), one_like(E, w)
    n = E.length(v)
    has_axis = E.gt(n, zero)
    k = E.sel(has_axis, E.div(E.sel(E.lt(w, zero), c(E, -1.0, q), one), E.sel(has_axis, n, one)), zero)
    return E.mul(v, k), E.mul(c(E, 2.0, q), E.atan2(n, E.abs(w)))


@expansion("quat_to_axis_angle")
def _x_quat_to_axis_angle(E, args):
    from ..types.opaque import TupleType

    axis, angle = _axis_angle(E, args[0])
    return E.make(TupleType((E.type(axis), E.type(angle))), [axis, angle])


@expansion("quat_slerp")
def _x_quat_slerp(E, args):
    q0, q1, t = args  # q0 times the rotation from q0 to q1, its angle scaled by t
    axis, angle = _axis_angle(E, E.mul(E.quat_inverse(q0), q1))
    return E.mul(q0, E.quat_from_axis_angle(axis, E.mul(t, angle)))


@expansion("quat_from_matrix")
def _x_quat_from_matrix(E, args):
    # the four branches of the formula the target computes (on the trace, then on the largest diagonal
    # entry), each with a square root of 1 where it is not taken, so that no NaN meets a zero adjoint
    m = args[0]

    def a(i, j):
        return E.comp(m, i, j)

    one, zero, half = c(E, 1.0, m), c(E, 0.0, m), c(E, 0.5, m)
    m00, m11, m22 = a(0, 0), a(1, 1), a(2, 2)
    tr = E.add(E.add(m00, m11), m22)
    on_trace = E.ge(tr, zero)
    on_x = E.logical_and(E.logical_not(on_trace), E.logical_and(E.ge(m00, m11), E.ge(m00, m22)))
    on_y = E.logical_and(E.logical_not(E.logical_or(on_trace, on_x)), E.ge(m11, m22))
    on_z = E.logical_not(E.logical_or(E.logical_or(on_trace, on_x), on_y))

    def branch(taken, radicand, i, j, k):
        """Components (x, y, z, w): the ``i``-th is ``h / 2``; ``k`` gives the sums (or the difference
        for w) of off-diagonal pairs scaled by ``1 / (2 h)``; ``i = 3`` is the trace branch."""
        h = E.sqrt(E.sel(taken, E.add(radicand, one), one))
        s = E.div(half, h)
        comps = [None] * 4
        comps[i] = E.mul(half, h)
        for slot, (p, q, sign) in zip(j, k):
            pair = E.add(a(*p), a(*q)) if sign > 0 else E.sub(a(*p), a(*q))
            comps[slot] = E.mul(pair, s)
        return comps

    cases = [
        (on_trace, branch(on_trace, tr, 3, (0, 1, 2), [((2, 1), (1, 2), -1), ((0, 2), (2, 0), -1),
                                                         ((1, 0), (0, 1), -1)])),
        (on_x, branch(on_x, E.sub(m00, E.add(m11, m22)), 0, (1, 2, 3), [((0, 1), (1, 0), 1), ((2, 0), (0, 2), 1),
                                                                       ((2, 1), (1, 2), -1)])),
        (on_y, branch(on_y, E.sub(m11, E.add(m22, m00)), 1, (2, 0, 3), [((1, 2), (2, 1), 1), ((0, 1), (1, 0), 1),
                                                                       ((0, 2), (2, 0), -1)])),
        (on_z, branch(on_z, E.sub(m22, E.add(m00, m11)), 2, (0, 1, 3), [((2, 0), (0, 2), 1), ((1, 2), (2, 1), 1),
                                                                       ((1, 0), (0, 1), -1)])),
    ]
    # every branch is finite where it is not taken, so all four are computed once and the taken one
    # selected (``where``, not ``sel``: a lazy select would compute a branch again for each component)
    comps = []
    for slot in range(4):
        value = cases[3][1][slot]
        for taken, branch_comps in reversed(cases[:3]):
            value = E.where(taken, branch_comps[slot], value)
        comps.append(value)
    from ..types.composite import quaternion

    return E.normalize(E.make(quaternion(scalar_of(E.type(m))), comps))
