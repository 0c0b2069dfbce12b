"""The differentiable builtins checked against central finite differences: one case per builtin and
signature, with the ranges its inputs are drawn from (away from kinks and singularities)."""

from __future__ import annotations

from dataclasses import dataclass

import brickwork as wp

F = wp.float64
V3 = wp.vec3d
V2 = wp.vec2d
M33 = wp.mat33d
M22 = wp.mat22d
Q = wp.quatd
S6 = wp.spatial_vectord
T7 = wp.transformd
M44 = wp.mat44d
M66 = wp.spatial_matrixd


@dataclass(frozen=True)
class Case:
    name: str  # builtin or operator name (an operator is written with its symbol in ``expr``)
    types: tuple  # argument types
    expr: str  # the expression over x0, x1, ... (read from the input arrays)
    lo: float = -1.0
    hi: float = 1.0
    extra: str = ""  # a condition the drawn inputs must satisfy (numpy, over x0, x1, ...)
    result: object = None  # the result type when it is not the first argument's
    # the builtin lives in brickwork_decompositions.h, which the cuda-emulation target does not include yet
    cpu_only: bool = False

    @property
    def result_type(self):
        return self.result or self.types[0]


def _unary(name, lo=-1.0, hi=1.0, extra=""):
    return Case(name, (F,), f"wp.{name}(x0)", lo, hi, extra)


CASES = [
    _unary("sqrt", 0.2, 2.0), _unary("cbrt", 0.2, 2.0), _unary("exp"), _unary("exp2"), _unary("log", 0.2, 2.0),
    _unary("log2", 0.2, 2.0), _unary("log10", 0.2, 2.0), _unary("sin", -3.0, 3.0), _unary("cos", -3.0, 3.0),
    _unary("tan", -1.2, 1.2), _unary("asin", -0.9, 0.9), _unary("acos", -0.9, 0.9), _unary("atan", -3.0, 3.0),
    _unary("sinh"), _unary("cosh"), _unary("tanh"), _unary("erf"), _unary("erfc"), _unary("erfinv", -0.9, 0.9),
    _unary("erfcinv", 0.1, 1.9), _unary("degrees"), _unary("radians"), _unary("abs", extra="abs(x0) > 1e-3"),
    _unary("frac", 0.05, 0.95),
    Case("neg", (F,), "-x0"),
    Case("add", (F, F), "x0 + x1"), Case("sub", (F, F), "x0 - x1"), Case("mul", (F, F), "x0 * x1"),
    Case("div", (F, F), "x0 / x1", 0.3, 2.0), Case("pow", (F, F), "wp.pow(x0, x1)", 0.3, 2.0),
    Case("atan2", (F, F), "wp.atan2(x0, x1)", 0.2, 2.0),
    Case("min", (F, F), "wp.min(x0, x1)", extra="abs(x0 - x1) > 1e-3"),
    Case("max", (F, F), "wp.max(x0, x1)", extra="abs(x0 - x1) > 1e-3"),
    Case("copysign", (F, F), "wp.copysign(x0, x1)", extra="abs(x0) > 1e-3 and abs(x1) > 1e-3"),
    Case("clamp", (F, F, F), "wp.clamp(x0, x1 - wp.float64(0.5), x2 + wp.float64(0.5))",
         extra="abs(x0 - (x1 - 0.5)) > 1e-3 and abs(x0 - (x2 + 0.5)) > 1e-3 and x1 - 0.5 < x2 + 0.5 - 1e-3"),
    Case("lerp", (F, F, F), "wp.lerp(x0, x1, x2)"),
    Case("lerp", (V3, V3, F), "wp.lerp(x0, x1, x2)"),
    Case("smoothstep", (F, F, F), "wp.smoothstep(x0 - wp.float64(2.0), x1 + wp.float64(2.0), x2)"),
    Case("select", (F, F, F), "wp.select(x0 > wp.float64(0.0), x1, x2)", extra="abs(x0) > 1e-3"),
    Case("where", (F, F, F), "wp.where(x0 > wp.float64(0.0), x1, x2)", extra="abs(x0) > 1e-3"),
    # vectors
    Case("add", (V3, V3), "x0 + x1"), Case("sub", (V3, V3), "x0 - x1"), Case("neg", (V3,), "-x0"),
    Case("mul", (F, V3), "x0 * x1", result=V3), Case("mul", (V3, F), "x0 * x1"), Case("div", (V3, F), "x0 / x1", 0.3, 2.0),
    Case("div", (F, V3), "x0 / x1", 0.3, 2.0, result=V3), Case("div", (F, M22), "x0 / x1", 0.3, 2.0, result=M22),
    Case("div", (F, Q), "x0 / x1", 0.3, 2.0, result=Q),
    # Warp's mod sends no adjoint to the divisor: the true one where |x0| < |x1| (trunc(x0 / x1) == 0)
    Case("mod", (F, F), "wp.mod(x0, x1)", 0.3, 2.0, extra="x0 < x1 - 1e-3"),
    Case("dot", (V3, V3), "wp.dot(x0, x1)", result=F), Case("cross", (V3, V3), "wp.cross(x0, x1)"),
    Case("length", (V3,), "wp.length(x0)", extra="np.linalg.norm(x0) > 0.1", result=F),
    Case("length_sq", (V3,), "wp.length_sq(x0)", result=F),
    Case("normalize", (V3,), "wp.normalize(x0)", extra="np.linalg.norm(x0) > 0.1"),
    Case("cw_mul", (V3, V3), "wp.cw_mul(x0, x1)"), Case("cw_div", (V3, V3), "wp.cw_div(x0, x1)", 0.3, 2.0),
    Case("outer", (V3, V3), "wp.outer(x0, x1)", result=M33),
    Case("sin", (V3,), "wp.sin(x0)"), Case("exp", (V2,), "wp.exp(x0)"), Case("sqrt", (V2,), "wp.sqrt(x0)", 0.2, 2.0),
    Case("log", (V2,), "wp.log(x0)", 0.2, 2.0), Case("tanh", (V2,), "wp.tanh(x0)"),
    Case("min", (V3, V3), "wp.min(x0, x1)", extra="np.all(np.abs(x0 - x1) > 1e-3)"),
    Case("max", (V3,), "wp.max(x0)", extra="np.sort(x0)[-1] - np.sort(x0)[-2] > 1e-3", result=F),
    Case("min", (V3,), "wp.min(x0)", extra="np.sort(x0)[1] - np.sort(x0)[0] > 1e-3", result=F),
    Case("component", (V3,), "x0[1] * x0[2]", result=F),
    Case("construct", (F, F, F), "wp.vec3d(x0, x1 * x2, x0)", result=V3),
    # matrices
    Case("mul", (M33, M33), "x0 * x1"), Case("mul", (M33, V3), "x0 * x1", result=V3), Case("mul", (V3, M33), "x0 * x1", result=V3),
    Case("mul", (F, M22), "x0 * x1", result=M22), Case("add", (M22, M22), "x0 + x1"),
    Case("transpose", (M33,), "wp.transpose(x0)"), Case("trace", (M33,), "wp.trace(x0)", result=F),
    Case("determinant", (M33,), "wp.determinant(x0)", result=F), Case("determinant", (M22,), "wp.determinant(x0)", result=F),
    Case("inverse", (M33,), "wp.inverse(x0 + wp.diag(wp.vec3d(3.0, 3.0, 3.0)))"),
    Case("inverse", (M22,), "wp.inverse(x0 + wp.diag(wp.vec2d(3.0, 3.0)))"),
    Case("ddot", (M33, M33), "wp.ddot(x0, x1)", result=F), Case("diag", (V3,), "wp.diag(x0)", result=M33),
    Case("get_diag", (M33,), "wp.get_diag(x0)", result=V3), Case("skew", (V3,), "wp.skew(x0)", result=M33),
    Case("matrix_from_rows", (V2, V2), "wp.matrix_from_rows(x0, x1)", result=M22),
    Case("matrix_from_cols", (V2, V2), "wp.matrix_from_cols(x0, x1)", result=M22),
    Case("matrix component", (M33,), "x0[1, 2] * x0[0][1]", result=F),
    # decompositions (several results, mixed into one value by the test module's helpers), away from
    # repeated singular values and eigenvalues, where the rotations are not unique, and from a zero
    # singular value, where |s| has a kink
    Case("svd3", (M33,), "svd3_mix(x0)", cpu_only=True, extra="np.min(np.diff(np.linalg.svd(x0)[1] ** 2) ** 2) > 0.01"
         " and np.min(np.linalg.svd(x0)[1]) > 0.05"),
    # svd2's closed form takes its rotation angles from atan2(a10 + a01, a00 - a11) and
    # atan2(a10 - a01, a00 + a11): across their branch cut (an angle of +-pi) U and V jump to the
    # other sign convention (diag(0.5, 1) sits on it), so the drawn matrix keeps away from it
    Case("svd2", (M22,), "svd2_mix(x0)", cpu_only=True, extra="abs(np.diff(np.linalg.svd(x0)[1] ** 2)[0]) > 0.1"
         " and np.min(np.linalg.svd(x0)[1]) > 0.05"
         " and np.pi - abs(np.arctan2(x0[1, 0] + x0[0, 1], x0[0, 0] - x0[1, 1])) > 0.01"
         " and np.pi - abs(np.arctan2(x0[1, 0] - x0[0, 1], x0[0, 0] + x0[1, 1])) > 0.01"),
    Case("qr3", (M33,), "qr3_mix(x0)", cpu_only=True, extra="np.min(np.abs(np.diag(np.linalg.qr(x0)[1]))) > 0.2"),
    # eig3's sweeps (Warp's method) rotate a pair by pi/4 where its off-diagonal entry is exactly zero and
    # its diagonal entries are equal, so at such a matrix the order of the eigenpairs differs from the order
    # at every matrix nearby (diag(2, 2, 0) + 1 at (1, 2) and (2, 1): a jump, no derivative); the drawn
    # matrix keeps its off-diagonal entries away from zero
    Case("eig3", (M33,), "eig3_mix(x0)", cpu_only=True, extra="np.min(np.abs(np.diff(np.linalg.eigvalsh(x0 + x0.T)))) > 0.1"
         " and np.min(np.abs((x0 + x0.T)[np.triu_indices(3, 1)])) > 1e-3"),
    # quaternions
    Case("mul", (Q, Q), "x0 * x1"), Case("quat_rotate", (Q, V3), "wp.quat_rotate(x0, x1)", result=V3),
    Case("quat_rotate_inv", (Q, V3), "wp.quat_rotate_inv(x0, x1)", result=V3), Case("quat_inverse", (Q,), "wp.quat_inverse(x0)"),
    # away from zero vectors and from opposite directions (no defined rotation there)
    Case("quat_between_vectors", (V3, V3), "wp.quat_between_vectors(x0, x1)", result=Q,
         extra="min(np.linalg.norm(x0), np.linalg.norm(x1)) > 0.3 and np.dot(x0, x1) > -0.5 * np.linalg.norm(x0) * "
               "np.linalg.norm(x1)"),
    Case("quat_from_axis_angle", (V3, F), "wp.quat_from_axis_angle(x0, x1)", result=Q),
    Case("dot", (Q, Q), "wp.dot(x0, x1)", result=F),
    Case("quat_to_matrix", (Q,), "wp.quat_to_matrix(x0)", result=M33),
    Case("quat_rpy", (F, F, F), "wp.quat_rpy(x0, x1, x2)", result=Q),
    Case("quat_to_rpy", (Q,), "wp.quat_to_rpy(wp.normalize(x0))", result=V3,
         # away from atan2's branch cut and asin's ends: n = x0 / |x0|
         extra="np.linalg.norm(x0) > 0.3 and abs(2 * (x0[3] * x0[1] - x0[2] * x0[0])) < 0.8 * np.sum(x0 * x0) "
               "and np.sum(x0 * x0) - 2 * (x0[0] ** 2 + x0[1] ** 2) > 0.1 * np.sum(x0 * x0) "
               "and np.sum(x0 * x0) - 2 * (x0[1] ** 2 + x0[2] ** 2) > 0.1 * np.sum(x0 * x0)"),
    Case("quat_to_axis_angle", (Q,), "axis_times_angle(x0)", result=V3, cpu_only=True,
         extra="np.linalg.norm(x0[:3]) > 0.1 and abs(x0[3]) > 1e-3"),
    Case("quat_slerp", (Q, Q, F), "wp.quat_slerp(wp.normalize(x0), wp.normalize(x1), x2)", 0.1, 0.9,
         extra="np.linalg.norm(x0) > 0.3 and np.linalg.norm(x1) > 0.3"),
    # the trace branch and the three largest-diagonal branches (kept away from the switches between them)
    Case("quat_from_matrix", (M33,), "wp.quat_from_matrix(x0)", result=Q, extra="np.trace(x0) > 0.05"),
    Case("quat_from_matrix", (M33,), "wp.quat_from_matrix(x0 - wp.diag(wp.vec3d(0.0, 1.5, 1.5)))", result=Q,
         extra="np.trace(x0) < 2.95 and x0[0, 0] > x0[1, 1] + 0.05 and x0[0, 0] > x0[2, 2] + 0.05"),
    Case("quat_from_matrix", (M33,), "wp.quat_from_matrix(x0 - wp.diag(wp.vec3d(1.5, 0.0, 1.5)))", result=Q,
         extra="np.trace(x0) < 2.95 and x0[1, 1] > x0[0, 0] + 0.05 and x0[1, 1] > x0[2, 2] + 0.05"),
    Case("quat_from_matrix", (M44,), "wp.quat_from_matrix(x0 - wp.diag(wp.vec4d(1.5, 1.5, 0.0, 0.0)))", result=Q,
         extra="np.trace(x0[:3, :3]) < 2.95 and x0[2, 2] > x0[0, 0] + 0.05 and x0[2, 2] > x0[1, 1] + 0.05"),
    # norms
    Case("norm_l1", (V3,), "wp.norm_l1(x0)", extra="np.all(np.abs(x0) > 1e-3)", result=F),
    Case("norm_l2", (V3,), "wp.norm_l2(x0)", extra="np.linalg.norm(x0) > 0.1", result=F),
    Case("norm_huber", (V3, F), "wp.norm_huber(x0, x1 + wp.float64(1.5))",
         extra="abs(np.linalg.norm(x0) - (x1 + 1.5)) > 1e-3", result=F),
    Case("norm_pseudo_huber", (V3, F), "wp.norm_pseudo_huber(x0, x1 + wp.float64(1.5))", result=F),
    Case("smooth_normalize", (V3, F), "wp.smooth_normalize(x0, x1 + wp.float64(1.5))", result=V3),
    # spatial vectors and transforms (differentiated through their definitions)
    Case("spatial_dot", (S6, S6), "wp.spatial_dot(x0, x1)", result=F),
    Case("spatial_cross", (S6, S6), "wp.spatial_cross(x0, x1)"),
    Case("spatial_cross_dual", (S6, S6), "wp.spatial_cross_dual(x0, x1)"),
    Case("spatial_top", (S6,), "wp.spatial_top(x0) * wp.spatial_bottom(x0)[1]", result=V3),
    Case("velocity_at_point", (S6, V3), "wp.velocity_at_point(x0, x1)", result=V3),
    Case("spatial_adjoint", (M33, M33), "wp.spatial_adjoint(x0, x1)", result=M66),
    Case("transform_point", (T7, V3), "wp.transform_point(x0, x1)", result=V3),
    Case("transform_vector", (T7, V3), "wp.transform_vector(x0, x1)", result=V3),
    Case("transform_point", (M44, V3), "wp.transform_point(x0, x1)", result=V3),
    Case("mul", (T7, T7), "x0 * x1"), Case("transform_multiply", (T7, T7), "wp.transform_multiply(x0, x1)"),
    Case("transform_inverse", (T7,), "wp.transform_inverse(x0)"),
    Case("transform_twist", (T7, S6), "wp.transform_twist(x0, x1)", result=S6),
    Case("transform_wrench", (T7, S6), "wp.transform_wrench(x0, x1)", result=S6),
    Case("transform_compose", (V3, Q, V3), "wp.transform_compose(x0, x1, x2)", result=M44),
    Case("transform_to_matrix", (T7,), "wp.transform_to_matrix(x0)", result=M44),
]
