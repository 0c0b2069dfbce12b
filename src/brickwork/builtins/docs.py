"""What each kernel builtin (``brickwork.sin``, ``brickwork.tid``, ...) takes and does.

One entry per Python-side name: ``(arguments, text)``. The API reference shows them as
``brickwork.name(arguments)`` followed by the text, and ``brickwork.name.doc`` is the text.
Unless the text says otherwise, arguments have identical types (the language never promotes).
"""

_UNARY = {
    "sqrt": "the square root", "cbrt": "the cube root", "exp": "e to the power x", "exp2": "2 to the power x",
    "log": "the natural logarithm", "log2": "the base-2 logarithm", "log10": "the base-10 logarithm",
    "sin": "the sine (x in radians)", "cos": "the cosine (x in radians)", "tan": "the tangent (x in radians)",
    "asin": "the arc sine, in radians, of x clamped to [-1, 1] (NaN counts as -1, as in Warp)",
    "acos": "the arc cosine, in radians, of x clamped to [-1, 1] (NaN counts as -1, as in Warp)",
    "atan": "the arc tangent, in radians",
    "sinh": "the hyperbolic sine", "cosh": "the hyperbolic cosine", "tanh": "the hyperbolic tangent",
    "floor": "the largest integer value not above x", "ceil": "the smallest integer value not below x",
    "round": "the nearest integer value, halves away from zero (``round(2.5) == 3``)",
    "rint": "the nearest integer value, halves to even (``rint(2.5) == 2``)",
    "trunc": "the integer value next to x towards zero", "frac": "the fractional part, ``x - trunc(x)``",
    "degrees": "an angle in radians, in degrees", "radians": "an angle in degrees, in radians",
    "erf": "the error function", "erfc": "the complementary error function ``1 - erf(x)``, accurate where it is small",
    "erfinv": "the inverse error function (infinite at -1 and 1, NaN outside ``[-1, 1]``)",
    "erfcinv": "the inverse of ``erfc`` (infinite at 0 and 2, NaN outside ``[0, 2]``)",
}

BUILTIN_DOCS: dict[str, tuple[str, str]] = {
    name: ("x", f"{text[0].upper()}{text[1:]}, of a float scalar or element-wise of a float vector; the result "
                "has the argument's type.")
    for name, text in _UNARY.items()
}


def _binary_operator(symbol, what):
    return ("a, b", f"``a {symbol} b``: {what}; both operands of one type.")


def _atomic(what, types):
    return ("a, *indices, value", f"{what} atomically; returns the previous value. One index per dimension, "
                                  f"``value`` of the array's dtype, {types}.")


def _sampler(what, result):
    return ("state", f"{what}, as a ``{result}``; advances ``state`` (from ``rand_init``) in place.")


def _random(kind, full_text, range_text):
    return ("state, low, high", f"The next {kind} of the generator ``state`` (a ``uint32`` from ``rand_init``, "
                                f"advanced in place): {full_text}, or with the optional bounds {range_text}.")


BUILTIN_DOCS.update({
    "tid": ("", "The index of this thread in the launch: an ``int32`` for a 1-D launch, a tuple "
                "``i, j = wp.tid()`` for a 2-D to 4-D one. Unpacked into fewer indices than ``dim`` has "
                "entries, the first ones: the other extents repeat each point, as in Warp."),
    "print": ("*values", "Print scalars, vectors and matrices separated by spaces, then a newline (floats with "
                         "``%g``; strings must be constants)."),
    "printf": ("fmt, *values", "C's ``printf`` with a constant format and scalar arguments: one conversion per "
                               "value, numeric conversions only (checked at compile time)."),
    "expect_eq": ("a, b", "Print ``expect_eq(a, b) failed at file:line`` with both values when ``a != b``; "
                          "execution continues."),
    "expect_neq": ("a, b", "Print a failure line with both values when ``a == b``; execution continues."),
    "min": ("a, b", "The smaller of two numbers or vectors (component-wise; a NaN operand yields the other "
                    "operand); ``min(v)`` is the smallest component of vector ``v``."),
    "max": ("a, b", "The larger of two numbers or vectors (component-wise; a NaN operand yields the other "
                    "operand); ``max(v)`` is the largest component of vector ``v``."),
    "abs": ("x", "The absolute value of a number, or component-wise of a vector."),
    "sign": ("x", "-1 for a negative number, otherwise 1 (``sign(0.0) == 1.0``); component-wise on vectors."),
    "clamp": ("x, lo, hi", "``x`` limited to ``[lo, hi]``: numbers, or vectors component-wise."),
    "pow": ("x, y", "``x`` to the power ``y``, for floats (the same as ``x ** y``)."),
    "atan2": ("y, x", "The angle of the point ``(x, y)``, in radians in ``[-pi, pi]``; float arguments."),
    "isnan": ("x", "True where ``x`` is NaN (for a vector or matrix: any component); returns ``bool``."),
    "isinf": ("x", "True where ``x`` is infinite (for a vector or matrix: any component); returns ``bool``."),
    "isfinite": ("x", "True where ``x`` is neither NaN nor infinite (for a vector or matrix: every component)."),
    "lerp": ("a, b, t", "Linear interpolation ``a * (1 - t) + b * t`` (Warp's form: exact at both ends); ``t`` is "
                         "a float of the component type."),
    "select": ("cond, a, b", "``b`` if ``cond`` is true, else ``a`` (Warp's argument order)."),
    "where": ("cond, a, b", "``a`` if ``cond`` is true, else ``b``."),
    "cw_mul": ("a, b", "The component-wise product of two vectors or matrices."),
    "cw_div": ("a, b", "The component-wise quotient of two vectors or matrices."),
    "dot": ("a, b", "The dot product of two vectors."),
    "cross": ("a, b", "The cross product of two 3-vectors."),
    "length": ("v", "The Euclidean length of a float vector."),
    "length_sq": ("v", "The squared length of a vector, ``dot(v, v)``."),
    "normalize": ("v", "``v`` divided by its length; a zero vector stays zero."),
    "outer": ("a, b", "The outer product of two vectors: the matrix ``a[i] * b[j]``."),
    "transpose": ("m", "The transpose of a matrix."),
    "determinant": ("m", "The determinant of a square matrix."),
    "trace": ("m", "The sum of the diagonal of a square matrix."),
    "inverse": ("m", "The inverse of a float matrix of size 2 to 4, computed in float64 precision and rounded "
                      "once; a singular matrix gives zeros."),
    "inverse_approx": ("a", "Warp's fast-math ``inverse``: the same result (brickwork computes it exactly on every "
                            "target, as Warp does on the CPU); float matrices of size 2 to 4."),
    "div_approx": ("a, b", "Warp's fast-math division ``a / b`` of floats, of a float vector, matrix or quaternion "
                           "by a float, or of a float by one (component-wise): exact on every target, as Warp's "
                           "CPU results."),
    "diag": ("v", "The square matrix with vector ``v`` on its diagonal."),
    "identity": ("n=3, dtype=float", "The ``n`` x ``n`` identity matrix of ``dtype``."),
    "ddot": ("a, b", "The Frobenius inner product of two matrices of one shape, ``sum(a[i, j] * b[i, j])``."),
    "skew": ("v", "The 3x3 skew-symmetric matrix of a 3-vector: ``skew(v) @ w == cross(v, w)``."),
    "quat_identity": ("dtype=float", "The identity quaternion ``(0, 0, 0, 1)``."),
    "quat_from_axis_angle": ("axis, angle", "The quaternion of a rotation by ``angle`` radians about ``axis``, "
                                            "used as given (pass a unit axis for a unit quaternion)."),
    "quat_rotate": ("q, p", "3-vector ``p`` rotated by quaternion ``q`` (``q p q*`` for a unit ``q``)."),
    "quat_rotate_inv": ("q, p", "3-vector ``p`` rotated by the inverse of quaternion ``q``."),
    "quat_inverse": ("q", "The conjugate of quaternion ``q``, its inverse when ``q`` is a unit quaternion."),
    "atomic_add": ("a, *indices, value", "Add ``value`` to ``a[indices]`` atomically; returns the previous "
                                         "value. One index per dimension, ``value`` of the array's dtype; scalars "
                                         "(or components) ``[u]int32``, ``[u]int64``, ``float16``, ``bfloat16``, "
                                         "``float32`` or ``float64``."),
    "atomic_sub": ("a, *indices, value", "Subtract ``value`` from ``a[indices]`` atomically; returns the "
                                         "previous value. Array types as ``atomic_add``."),
    "atomic_min": ("a, *indices, value", "Store the minimum of ``a[indices]`` and ``value`` atomically; returns "
                                         "the previous value. Array types as ``atomic_add``, without ``float16``."),
    "atomic_max": ("a, *indices, value", "Store the maximum of ``a[indices]`` and ``value`` atomically; returns "
                                         "the previous value. Array types as ``atomic_add``, without ``float16``."),
    "atomic_and": _atomic("Store ``a[indices] & value``", "for arrays of integers"),
    "atomic_or": _atomic("Store ``a[indices] | value``", "for arrays of integers"),
    "atomic_xor": _atomic("Store ``a[indices] ^ value``", "for arrays of integers"),
    "atomic_exch": _atomic("Store ``value`` in ``a[indices]``", "for arrays of scalars"),
    "atomic_cas": ("a, *indices, compare, value", "Store ``value`` in ``a[indices]`` if it equals ``compare`` (as "
                                                  "values), atomically; returns the previous value: the store "
                                                  "happened if that equals ``compare``. Arrays of [u]int32, "
                                                  "[u]int64, float32 or float64."),
    "len": ("x", "The first dimension of a vector, matrix or array."),
    "par_for_inner": ("member, start, end, body", "Inside a ``par_for_outer`` body: call ``body(i)`` for ``i`` "
                                                  "from ``start`` to ``end`` inclusive, as a SIMD inner loop."),
    "ScratchPad1D": ("scratch, dtype, n", "A contiguous 1-D array of ``n`` elements from a team's scratch "
                                          "memory (``member.team_scratch(0)``); it lives for one team."),
    "ScratchPad2D": ("scratch, dtype, n0, n1", "A contiguous 2-D array from a team's scratch memory."),
    "ScratchPad3D": ("scratch, dtype, n0, n1, n2", "A contiguous 3-D array from a team's scratch memory."),
})

# Operators by name, as Warp spells them (``wp.add(a, b)`` is ``a + b``).
BUILTIN_DOCS.update({
    "add": _binary_operator("+", "the sum of numbers, or component-wise of vectors, matrices, quaternions"),
    "sub": _binary_operator("-", "the difference of numbers, or component-wise of vectors, matrices, quaternions"),
    "mul": ("a, b", "``a * b``: the product of two numbers, of a scalar and a vector or matrix of its type, the "
                    "matrix product with a matrix or vector, or the product of two quaternions or transforms."),
    "div": ("a, b", "``a / b``: the quotient of numbers (integers round towards zero; an integer division by zero "
                    "gives 0), or component-wise: a vector or matrix by a scalar, a scalar by a vector."),
    "floordiv": _binary_operator("//", "the quotient rounded down, for scalars (an integer division by zero "
                                       "gives 0)"),
    "mod": _binary_operator("%", "the remainder of scalars with the sign of ``a`` (C's ``%`` and ``fmod``, not "
                                 "Python's); an integer ``mod`` by zero gives 0"),
    "neg": ("x", "``-x``, of a number, vector or matrix (integers wrap around)."),
    "pos": ("x", "``+x``: ``x`` itself, of a number, vector or matrix."),
    "unot": ("a", "``not a``: True when the scalar ``a`` is zero or False; returns ``bool``."),
    "bit_and": _binary_operator("&", "the bitwise and of integers (or the logical and of bools)"),
    "bit_or": _binary_operator("|", "the bitwise or of integers (or the logical or of bools)"),
    "bit_xor": _binary_operator("^", "the bitwise exclusive or of integers (or of bools)"),
    "lshift": _binary_operator("<<", "the integer ``a`` shifted left by ``b`` bits"),
    "rshift": _binary_operator(">>", "the integer ``a`` shifted right by ``b`` bits (sign-filling for signed "
                                     "types)"),
    "invert": ("a", "``~a``: the bitwise complement of an integer."),
})

# Scalar helpers, norms and vector/matrix helpers.
BUILTIN_DOCS.update({
    "expect_near": ("a, b, tolerance=1e-6", "Print a failure line with the values when some component of "
                                            "``abs(a - b)`` exceeds ``tolerance``; numbers, vectors, matrices, "
                                            "quaternions or transforms. Execution continues."),
    "step": ("x", "1 where ``x < 0``, else 0, in the type of the number ``x``."),
    "nonzero": ("x", "1 where ``x != 0`` (NaN included), else 0, in the type of the number ``x``."),
    "smoothstep": ("a, b, x", "Hermite interpolation: with ``t = clamp((x - a) / (b - a), 0, 1)``, ``t * t * "
                              "(3 - 2 * t)``; float scalars of one type."),
    "copysign": ("x, y", "The magnitude of ``x`` with the sign of ``y``, for floats, or component-wise of float "
                         "vectors."),
    "bit_count": ("x", "The number of bits set in integer ``x`` (two's complement for negative values); returns "
                       "``int32``."),
    "norm_l1": ("v", "The sum of the absolute values of the components of a float vector."),
    "norm_l2": ("v", "The Euclidean norm of a float vector, as ``length(v)``."),
    "norm_huber": ("v, delta=1.0", "The Huber norm of a float vector: ``0.5 * |v|**2`` while ``|v| <= delta``, "
                                   "else ``delta * (|v| - delta / 2)``; ``delta`` of the component type."),
    "norm_pseudo_huber": ("v, delta=1.0", "The pseudo-Huber norm ``sqrt(|v|**2 + delta**2)`` of a float vector "
                                          "(``delta`` positive, of the component type)."),
    "smooth_normalize": ("v, delta=1.0", "``v / norm_pseudo_huber(v, delta)``: a normalization that stays "
                                         "smooth at zero, for float vectors."),
    "argmin": ("a", "The index of the smallest component of vector ``a`` (the first one on ties; NaN "
                    "components are skipped, and all-NaN gives 0), as a ``uint32``."),
    "argmax": ("a", "The index of the largest component of vector ``a`` (the first one on ties; NaN "
                    "components are skipped, and all-NaN gives 0), as a ``uint32``."),
    "get_diag": ("mat", "The diagonal of a square matrix, as a vector."),
    "matrix_from_cols": ("*vectors", "The matrix whose columns are the given vectors (of one type): n vectors of "
                                     "length m give an m x n matrix."),
    "matrix_from_rows": ("*vectors", "The matrix whose rows are the given vectors (of one type): n vectors of "
                                     "length m give an n x m matrix."),
})

# Quaternions (``(x, y, z, w)``, w last) and rigid transforms (translation ``p``, rotation ``q``).
BUILTIN_DOCS.update({
    "quat_to_matrix": ("quat", "The 3x3 rotation matrix of a float quaternion: its columns are the x, y and z "
                               "axes rotated by ``quat``."),
    "quat_from_matrix": ("mat", "The unit quaternion of a 3x3 float rotation matrix, or of the upper-left 3x3 "
                                "block of a 4x4 one (normalized after the conversion)."),
    "quat_between_vectors": ("a, b", "The unit quaternion of the shortest rotation taking the direction of ``a`` "
                                     "onto the direction of ``b`` (float 3-vectors of one type; as in Warp, "
                                     "opposite directions give no defined rotation)."),
    "quat_rpy": ("roll, pitch, yaw", "The quaternion of a rotation by ``roll`` about x, then ``pitch`` about y, "
                                     "then ``yaw`` about z (fixed axes, radians); float angles of one type."),
    "quat_to_rpy": ("q", "The angles ``(roll, pitch, yaw)`` of ``quat_rpy`` for a unit quaternion, as a 3-vector; "
                         "pitch in ``[-pi/2, pi/2]``."),
    "quat_slerp": ("a, b, t", "Spherical linear interpolation from unit quaternion ``a`` (``t = 0``) to ``b`` "
                              "(``t = 1``) along the shorter arc; ``t`` of the quaternion's dtype."),
    "quat_from_euler": ("e, i, j, k", "The quaternion of rotations about the fixed axes ``i``, then ``j``, then "
                                      "``k`` (0, 1, 2 for x, y, z) by the angles ``e[i]``, ``e[j]``, ``e[k]`` "
                                      "(radians; for ``i == k``, ``e[i]`` serves the first and the third); "
                                      "``quat_from_euler(e, 0, 1, 2) == quat_rpy(e[0], e[1], e[2])``."),
    "quat_to_euler": ("q, i, j, k", "The angles of ``quat_from_euler`` for a unit quaternion and the axes ``i, j, "
                                    "k``, as a 3-vector indexed by axis; at gimbal lock the first angle is 0, and "
                                    "for ``i == k`` the third angle is stored in ``e[3 - i - j]``, as Warp does."),
    "quat_twist": ("axis, q", "The twist of quaternion ``q`` about the unit 3-vector ``axis`` (its swing-twist "
                              "decomposition), a unit quaternion; the identity when ``q`` has none."),
    "quat_twist_angle": ("axis, q", "The angle of ``quat_twist(axis, q)``, ``2 * atan2(abs(dot(v, axis)), w)`` for "
                                    "``q = (v, w)``: in ``[0, pi]`` for ``w >= 0``."),
    "quat_twist_angle_signed": ("axis, q", "The signed twist angle ``2 * atan2(dot(v, axis), w)`` of ``q = (v, w)`` "
                                           "about the unit 3-vector ``axis``."),
    "transform_identity": ("dtype=float", "The identity transform: zero translation, identity rotation."),
    "transform_point": ("xform, point", "3-vector ``point`` mapped by the transform: ``p + quat_rotate(q, point)``; "
                                        "with a 4x4 matrix ``m``, ``m[:3, :3] @ point + m[:3, 3]``."),
    "transform_vector": ("xform, vec", "3-vector ``vec`` rotated by the transform, without its translation: "
                                       "``quat_rotate(q, vec)``; with a 4x4 matrix ``m``, ``m[:3, :3] @ vec``."),
    "transform_multiply": ("a, b", "The composition of two transforms: ``transform_point(transform_multiply(a, "
                                   "b), x) == transform_point(a, transform_point(b, x))``; the same as ``a * b``."),
    "transform_inverse": ("xform", "The inverse transform: rotation ``quat_inverse(q)``, translation "
                                   "``-quat_rotate(quat_inverse(q), p)``."),
    "transform_get_translation": ("xform", "The translation ``p`` of a transform, as a 3-vector."),
    "transform_get_rotation": ("xform", "The rotation ``q`` of a transform, as a quaternion."),
    "transform_set_translation": ("xform, p", "Sets the translation of the transform held in variable ``xform`` "
                                              "in place (``xform.p = p``); as in Warp, an array element passed "
                                              "directly is a copy, so the array is unchanged."),
    "transform_set_rotation": ("xform, q", "Sets the rotation of the transform held in variable ``xform`` in "
                                           "place (``xform.q = q``; ``q`` is not normalized)."),
    "transform_to_matrix": ("xform", "The 4x4 homogeneous matrix of a transform: ``quat_to_matrix(q)`` in the "
                                     "upper left, ``p`` in the last column, ``(0, 0, 0, 1)`` as the last row."),
    "transform_from_matrix": ("mat", "The transform of a 4x4 matrix: the translation from its last column, the "
                                     "rotation from its upper-left 3x3 block as ``quat_from_matrix``."),
    "transform_compose": ("position, rotation, scale", "The 4x4 matrix that scales by 3-vector ``scale``, rotates "
                                                       "by quaternion ``rotation``, then translates by "
                                                       "``position``; all of one float dtype."),
})

# Spatial algebra: 6-vectors ``(angular, linear)`` (a twist) or ``(torque, force)`` (a wrench).
BUILTIN_DOCS.update({
    "spatial_top": ("svec", "The first three components of a spatial vector, as a 3-vector."),
    "spatial_bottom": ("svec", "The last three components of a spatial vector, as a 3-vector."),
    "spatial_dot": ("a, b", "The dot product of two spatial vectors (all six components)."),
    "spatial_cross": ("a, b", "The motion cross product: ``(wa x wb, wa x vb + va x wb)`` for spatial vectors "
                              "``a = (wa, va)``, ``b = (wb, vb)``."),
    "spatial_cross_dual": ("a, b", "The force cross product: ``(wa x wb + va x vb, wa x vb)`` for spatial vectors "
                                   "``a = (wa, va)``, ``b = (wb, vb)``."),
    "spatial_adjoint": ("r, s", "The 6x6 matrix with 3x3 blocks ``[[r, 0], [s, r]]``, for float matrices of one "
                                "type."),
    "velocity_at_point": ("qd, r", "The linear velocity ``v + w x r`` of the point at offset 3-vector ``r`` on a "
                                   "body moving with twist ``qd = (w, v)``."),
    "transform_twist": ("t, x", "Twist ``x = (w, v)`` expressed in the frame of transform ``t = (p, q)``: "
                                "``(R w, R v + p x R w)`` with ``R`` the rotation ``q``."),
    "transform_wrench": ("t, x", "Wrench ``x = (tau, f)`` expressed in the frame of transform ``t = (p, q)``: "
                                 "``(R tau + p x R f, R f)`` with ``R`` the rotation ``q``."),
})

# Random numbers: Warp's PCG generator, so that a seed gives Warp's numbers.
BUILTIN_DOCS.update({
    "rand_init": ("seed, offset", "A ``uint32`` generator state from an ``int32`` seed and an optional ``int32`` "
                                  "offset (usually the thread index: one stream per thread)."),
    "randi": _random("``int32``", "any ``int32``", "one in ``[low, high)``"),
    "randu": _random("``uint32``", "any ``uint32``", "one in ``[low, high)``"),
    "randf": _random("``float32``", "one in ``[0, 1)`` with 24 random bits",
                     "``low + (high - low) * u`` for such a ``u``"),
    "randn": ("state", "The next normally distributed ``float32`` (mean 0, standard deviation 1, Box-Muller) "
                       "of the generator ``state``, advanced in place."),
    "sample_unit_square": _sampler("A uniform point in the square ``[-0.5, 0.5]**2``", "vec2f"),
    "sample_unit_cube": _sampler("A uniform point in the cube ``[-0.5, 0.5]**3``", "vec3f"),
    "sample_unit_ring": _sampler("A uniform point on the unit circle", "vec2f"),
    "sample_unit_disk": _sampler("A uniform point in the unit disk", "vec2f"),
    "sample_triangle": _sampler("The first two barycentric coordinates ``(b0, b1)`` of a uniform point in a "
                                "triangle (the third is ``1 - b0 - b1``)", "vec2f"),
    "sample_unit_sphere_surface": _sampler("A uniform point on the unit sphere", "vec3f"),
    "sample_unit_sphere": _sampler("A uniform point in the unit ball", "vec3f"),
    "sample_unit_hemisphere_surface": _sampler("A uniform point on the unit hemisphere ``z >= 0``", "vec3f"),
    "sample_unit_hemisphere": _sampler("A uniform point in the unit half ball ``z >= 0``", "vec3f"),
    "poisson": ("state, lam", "The next Poisson-distributed ``uint32`` with mean ``lam`` (``float32``) of the "
                              "generator ``state``, advanced in place: Knuth's method below 10, the transformed "
                              "rejection sampler PTRS above."),
    "noise": ("state, x", "Perlin gradient noise at ``x`` (``float32``, ``vec2f``, ``vec3f`` or ``vec4f``) as a "
                          "``float32``, seeded by ``state`` (a ``uint32`` from ``rand_init``, read, not advanced): "
                          "zero at integer points, with Warp's values; differentiable in ``x``."),
    "pnoise": ("state, x, px, py, pz, pt", "``noise`` whose lattice repeats with the ``int32`` periods ``px`` ... "
                                           "(one per dimension of ``x``): Warp's values, which wrap lattice "
                                           "coordinates with C's remainder (exactly periodic where they are "
                                           "not negative)."),
    "curlnoise": ("state, xy, octaves=1, lacunarity=2.0, gain=0.5",
                  "Divergence-free noise of a ``vec2f``, ``vec3f`` or ``vec4f`` point (the point is named ``xy``, "
                  "``xyz`` or ``xyzt``): in 2-D the rotated gradient ``(-dn/dy, dn/dx)`` of ``noise``, in 3-D the "
                  "``vec3f`` curl of three ``noise`` fields, and for a 4-D point ``(x, y, z, t)`` the ``vec3f`` curl "
                  "in ``x, y, z`` of three 4-D ``noise`` fields; summed over ``octaves`` (``uint32``) with frequency "
                  "multiplied by ``lacunarity`` and amplitude by ``gain`` per octave; Warp's values; "
                  "differentiable in the point."),
    "closest_point_edge_edge": ("p1, q1, p2, q2, epsilon",
                                "The closest points of segments ``p1``-``q1`` and ``p2``-``q2`` (``vec3f``) as the "
                                "``vec3f`` ``(s, t, d)``: the points ``p1 + s (q1 - p1)`` and ``p2 + t (q2 - p2)``, "
                                "``s, t`` in ``[0, 1]``, at the smallest distance ``d``; a segment whose squared "
                                "length is at most ``epsilon`` counts as its first point, parallel segments take "
                                "``s = 0`` where no clamp decides. Differentiable (the distance's gradient is that of "
                                "the distance between the two points)."),
    "intersect_tri_tri": ("v0, v1, v2, u0, u1, u2",
                          "``1`` (``int32``) when the triangles ``(v0, v1, v2)`` and ``(u0, u1, u2)`` (six "
                          "``vec3f`` or six ``vec3d``) intersect or touch, else ``0``."),
    "hash_grid_query": ("id, point, max_dist, group",
                        "A query (``HashGridQuery[T]``) of the points of the ``HashGrid`` with id ``id`` (``uint64``) "
                        "in the cells that the box from ``point - max_dist`` to ``point + max_dist`` overlaps "
                        "(``point`` a ``vec3`` of the grid's scalar type ``T``, ``max_dist`` a ``T``): candidates, "
                        "each once, some farther than ``max_dist``; test the distance yourself. With the ``int32`` "
                        "``group``, only the points built with that group id (all points on a grid built without "
                        "groups). Iterate it with ``for index in hash_grid_query(...)`` or advance it with "
                        "``hash_grid_query_next``."),
    "hash_grid_query_next": ("query, index",
                             "Advance ``query`` (a local variable holding a ``HashGridQuery``) to its next candidate, "
                             "write the candidate's index (into the points the grid was built from) to the ``int32`` "
                             "local variable ``index`` and give ``True``; ``False`` once no candidate is left "
                             "(``index`` is then unchanged)."),
    "hash_grid_point_id": ("id, index",
                           "The index of the point at position ``index`` (``int32``) of the grid's cell order: "
                           "``for tid in range(n)``, ``hash_grid_point_id(grid, tid)`` visits every point once, "
                           "neighbours together; ``-1`` outside ``[0, n)`` or before the grid is built."),
    "bvh_query_aabb": ("id, low, high, root",
                       "A query (``BvhQuery``) of the boxes of the ``Bvh`` with id ``id`` that overlap the box "
                       "``low``..``high`` (``vec3f``); from node ``root`` when given. Iterate it with ``for i in "
                       "query`` or ``bvh_query_next``."),
    "bvh_query_ray": ("id, start, dir, root",
                      "A query (``BvhQuery``) of the boxes met by the half-line ``start + t dir``, ``t >= 0``."),
    "bvh_query_sphere": ("id, center, radius, root",
                         "A query (``BvhQuery``) of the boxes within ``radius`` of ``center``."),
    "bvh_query_capsule": ("id, start, dir, radius, root",
                          "A query (``BvhQuery``) of the boxes met by the capsule swept along ``start + t dir`` "
                          "(``t >= 0``; ``bvh_query_next``'s ``max_dist`` of 1 ends it at ``start + dir``) with "
                          "``radius`` (a negative one is 0), as Warp's: each box grown by ``radius`` along every "
                          "axis meets the half-line, so a box near the capsule's ends may be found too."),
    "bvh_get_group_root": ("id, group",
                           "The root node of group ``group``'s subtree in a ``Bvh`` built with ``groups``, for a "
                           "query's ``root``; ``-1`` (the whole tree) for a group the tree does not have."),
    "mesh_get_group_root": ("id, group", "``bvh_get_group_root`` of a ``Mesh`` built with ``groups``."),
    "bvh_query_next": ("query, index, max_dist",
                       "Advance the local ``query`` to its next box, write the box's index to the ``int32`` local "
                       "``index`` and give ``True``; ``False`` when none is left. Ray and capsule queries take only "
                       "boxes entered at ``t <= max_dist``."),
    "mesh_query_aabb": ("id, low, high",
                        "A query (``MeshQuery``) of the triangles of the ``Mesh`` ``id`` whose bounds overlap "
                        "the box ``low``..``high``."),
    "mesh_query_sphere": ("id, center, radius",
                          "A query (``MeshQuery``) of the triangles of the ``Mesh`` ``id`` whose closest point "
                          "is within ``radius`` (``float32``; a negative one is 0) of ``center``."),
    "mesh_query_next": ("query, index",
                        "Advance the local ``query`` (of ``mesh_query_aabb`` or ``mesh_query_sphere``), write the "
                        "next triangle's index to the local ``index`` and give ``True``; ``False`` when none is "
                        "left."),
    "mesh_query_aabb_next": ("query, index", "``mesh_query_next`` by Warp's older name."),
    "mesh_get": ("id",
                 "The arrays of the ``Mesh`` ``id`` (a struct): ``points`` and ``velocities`` (``vec3f``; "
                 "``velocities`` empty when the mesh has none) and ``indices`` (``int32``, three per triangle)."),
    "mesh_get_bvh": ("id",
                     "The id (``uint64``) of the mesh's tree over its triangles' bounds, for the ``bvh_query_*`` "
                     "builtins: the indices they give are faces."),
    "mesh_query_point": ("id, point, max_dist",
                         "The closest point of the mesh within ``max_dist`` (a ``MeshQueryPoint``: result, sign, "
                         "face, u, v); the sign (-1 inside) by a vote of rays along +x, +y, +z (inside when the "
                         "closest hit is a face's back), as Warp 1.19's. Warp's "
                         "older form ``(id, point, max_dist, inside, face, u, v)`` writes the results into those "
                         "variables and gives ``result``; so do the other point queries and ``mesh_query_ray``."),
    "mesh_query_point_no_sign": ("id, point, max_dist", "The closest point within ``max_dist``, sign 0."),
    "mesh_query_furthest_point_no_sign": ("id, point, min_dist",
                                          "The furthest point of the mesh (a vertex), if at least ``min_dist`` "
                                          "away."),
    "mesh_query_point_sign_normal": ("id, point, max_dist, epsilon",
                                     "The closest point; the sign by the feature that holds it (a face's plane, "
                                     "an edge's two planes, a vertex's angle-weighted pseudonormal), found again "
                                     "in 64-bit floats: on a closed mesh, the exact winding number's for points "
                                     "farther than 1e-10 of the mesh's size from it. ``epsilon`` is unused."),
    "mesh_query_point_sign_winding_number": ("id, point, max_dist, accuracy, threshold",
                                             "The closest point; inside (-1) where the winding number exceeds "
                                             "``threshold``. On a mesh built with "
                                             "``support_winding_number=True`` the fast winding number: a tree "
                                             "node's second-order expansion is taken where the point is farther "
                                             "than ``accuracy`` (2.0) times its radius; without it, as "
                                             "``mesh_query_point`` (rays), as in Warp."),
    "mesh_query_point_sign_parity": ("id, point, max_dist, n_sample, perturbation_scale",
                                     "The closest point; the sign by the parity of the crossings of three "
                                     "skewed rays (majority vote)."),
    "mesh_query_ray": ("id, start, dir, max_t, root",
                       "The closest hit within ``t <= max_t`` (a ``MeshQueryRay``: result, sign, face, t, u, v, "
                       "normal); a miss is all zero."),
    "mesh_query_ray_anyhit": ("id, start, dir, max_t, root", "Whether the ray hits the mesh within ``max_t``."),
    "mesh_query_ray_count_intersections": ("id, start, dir, root",
                                           "How many triangles the half-line crosses (``int32``)."),
    "mesh_eval_position": ("id, face, bary_u, bary_v",
                           "``u p0 + v p1 + (1 - u - v) p2`` of triangle ``face``."),
    "mesh_eval_velocity": ("id, face, bary_u, bary_v",
                           "The velocities weighed as ``mesh_eval_position`` (zero without velocities)."),
    "mesh_eval_face_normal": ("id, face", "The unit normal ``normalize(cross(p1 - p0, p2 - p0))`` of triangle "
                                          "``face``, oriented by its winding (zero for a degenerate face)."),
    "mesh_get_point": ("id, index", "The point ``points[indices[index]]`` of the mesh (``vec3f``)."),
    "mesh_get_velocity": ("id, index", "The velocity ``velocities[indices[index]]`` of the mesh (zero without)."),
    "mesh_get_index": ("id, index", "The vertex index ``indices[index]`` of the mesh (``int32``)."),
    "tile_bvh_query_aabb": ("id, low, high",
                            "A tiled query (``BvhQueryTiled``) of the boxes of the ``Bvh`` ``id`` that overlap the "
                            "box ``low``..``high``: ``while tile_query_valid(query)``, ``tile_bvh_query_next(query)`` "
                            "gives each thread of the block its next box (a block is one thread here)."),
    "tile_bvh_query_ray": ("id, start, dir",
                           "A tiled query (``BvhQueryTiled``) of the boxes met by the half-line ``start + t dir``, "
                           "``t >= 0`` (no maximum distance)."),
    "tile_mesh_query_aabb": ("id, low, high",
                             "A tiled query (``MeshQueryAABBTiled``) of the triangles of the ``Mesh`` ``id`` whose "
                             "bounds overlap the box ``low``..``high``."),
    "tile_bvh_query_next": ("query",
                            "Advance the local tiled ``query`` and give each thread's next index as an ``int32`` "
                            "tile of shape ``(block_dim,)``, here ``(1,)`` (``untile`` gives the index); ``-1`` when "
                            "no index is left."),
    "tile_mesh_query_aabb_next": ("query", "``tile_bvh_query_next`` of a ``tile_mesh_query_aabb`` query: faces."),
    "tile_query_valid": ("query",
                         "Whether to go on with a tiled query: ``True`` at the start and after a step that gave an "
                         "index, ``False`` after one that gave none."),
    "bvh_query_aabb_tiled": ("id, low, high", "``tile_bvh_query_aabb`` by Warp's older name."),
    "bvh_query_ray_tiled": ("id, start, dir", "``tile_bvh_query_ray`` by Warp's older name."),
    "mesh_query_aabb_tiled": ("id, low, high", "``tile_mesh_query_aabb`` by Warp's older name."),
    "bvh_query_next_tiled": ("query", "``tile_bvh_query_next`` by Warp's older name."),
    "mesh_query_aabb_next_tiled": ("query", "``tile_mesh_query_aabb_next`` by Warp's older name."),
    "sample_cdf": ("state, cdf", "An index drawn with the probabilities of the ascending cumulative distribution "
                                 "``cdf`` (a 1-D ``float32`` array ending at 1): ``lower_bound(cdf, randf(state))``."),
    "lower_bound": ("arr, value", "The first index ``i`` of the ascending 1-D array ``arr`` with ``arr[i] >= "
                                  "value``, searched in ``[begin, end)`` when given as ``lower_bound(arr, begin, "
                                  "end, value)``; the last index when every element is below ``value`` (Warp's "
                                  "result)."),
})

# Several results: a tuple (``U, sigma, V = svd3(A)``), or Warp's output arguments (``svd3(A, U, sigma, V)``
# with U, sigma, V local variables of the result types).
BUILTIN_DOCS.update({
    "svd3": ("A", "The singular value decomposition ``A = U diag(sigma) V^T`` of a 3x3 float matrix, as the tuple "
                  "``(U, sigma, V)``: U and V rotations, ``|sigma|`` decreasing (the last may be negative so that U "
                  "and V stay rotations); Warp's method (McAdams et al. 2011) and signs, computed in float64."),
    "svd2": ("A", "The singular value decomposition ``A = U diag(sigma) V^T`` of a 2x2 float matrix, as the tuple "
                  "``(U, sigma, V)``: U and V orthogonal, ``sigma[0] >= sigma[1] >= 0``; closed form, exact for "
                  "singular matrices too."),
    "qr3": ("A", "The QR decomposition ``A = Q R`` of a 3x3 float matrix, as the tuple ``(Q, R)``: Q a rotation, R "
                 "upper triangular (Givens rotations, as Warp)."),
    "eig3": ("A", "The eigen-decomposition ``A = Q diag(d) Q^T`` of a symmetric 3x3 float matrix (its lower triangle "
                  "is read), as the tuple ``(Q, d)``: eigenvectors as the columns of rotation Q, eigenvalues ``d`` "
                  "unsorted (four Jacobi sweeps, as Warp)."),
    "quat_to_axis_angle": ("quat", "The rotation axis (a unit 3-vector) and angle in ``[0, pi]`` of a float "
                                   "quaternion, as the tuple ``(axis, angle)``: ``angle = 2 atan2(|v|, |w|)``; the "
                                   "axis is 0 for the identity."),
    "transform_decompose": ("m", "The tuple ``(position, rotation, scale)`` of a 4x4 float matrix made by "
                                 "``transform_compose``: scale from the lengths of the columns of the upper-left "
                                 "3x3 block, rotation as ``quat_from_matrix`` of the block with unit columns, "
                                 "position from the last column."),
})

from .texture_docs import TEXTURE_DOCS  # noqa: E402 - the texture builtin's entry lives beside it
from .volume_docs import VOLUME_DOCS  # noqa: E402 - the volume family's entries live beside its builtins

BUILTIN_DOCS.update(VOLUME_DOCS)
BUILTIN_DOCS.update(TEXTURE_DOCS)
