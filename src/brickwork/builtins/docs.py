"""What each kernel builtin (``brickwork.sin``, ``brickwork.tid``, ...) takes and does.

One entry per Python-side name: ``(arguments, text)``. The API reference shows them as
``brickwork.name(arguments)`` followed by the text, and ``brickwork.name.doc`` is the text.
Unless the text says otherwise, arguments have identical types (the language never promotes).
"""

_UNARY = {
    "sqrt": "the square root", "cbrt": "the cube root", "exp": "e to the power x", "exp2": "2 to the power x",
    "log": "the natural logarithm", "log2": "the base-2 logarithm", "log10": "the base-10 logarithm",
    "sin": "the sine (x in radians)", "cos": "the cosine (x in radians)", "tan": "the tangent (x in radians)",
    "asin": "the arc sine, in radians", "acos": "the arc cosine, in radians", "atan": "the arc tangent, in radians",
    "sinh": "the hyperbolic sine", "cosh": "the hyperbolic cosine", "tanh": "the hyperbolic tangent",
    "floor": "the largest integer value not above x", "ceil": "the smallest integer value not below x",
    "round": "the nearest integer value, halves away from zero (``round(2.5) == 3``)",
    "rint": "the nearest integer value, halves to even (``rint(2.5) == 2``)",
    "trunc": "the integer value next to x towards zero", "frac": "the fractional part, ``x - trunc(x)``",
    "degrees": "an angle in radians, in degrees", "radians": "an angle in degrees, in radians",
}

BUILTIN_DOCS: dict[str, tuple[str, str]] = {
    name: ("x", f"{text[0].upper()}{text[1:]}, of a float scalar or element-wise of a float vector; the result "
                "has the argument's type.")
    for name, text in _UNARY.items()
}

BUILTIN_DOCS.update({
    "tid": ("", "The index of this thread in the launch: an ``int32`` for a 1-D launch, a tuple "
                "``i, j = wp.tid()`` for a 2-D to 4-D one."),
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
    "lerp": ("a, b, t", "Linear interpolation ``a + t * (b - a)``; ``t`` is a float of the component type."),
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
    "inverse": ("m", "The inverse of a float matrix of size 2 to 4; a singular matrix gives zeros."),
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
                                         "value. One index per dimension, ``value`` of the array's dtype."),
    "atomic_sub": ("a, *indices, value", "Subtract ``value`` from ``a[indices]`` atomically; returns the "
                                         "previous value."),
    "atomic_min": ("a, *indices, value", "Store the minimum of ``a[indices]`` and ``value`` atomically; returns "
                                         "the previous value."),
    "atomic_max": ("a, *indices, value", "Store the maximum of ``a[indices]`` and ``value`` atomically; returns "
                                         "the previous value."),
    "len": ("x", "The first dimension of a vector, matrix or array."),
    "par_for_inner": ("member, start, end, body", "Inside a ``par_for_outer`` body: call ``body(i)`` for ``i`` "
                                                  "from ``start`` to ``end`` inclusive, as a SIMD inner loop."),
    "ScratchPad1D": ("scratch, dtype, n", "A contiguous 1-D array of ``n`` elements from a team's scratch "
                                          "memory (``member.team_scratch(0)``); it lives for one team."),
    "ScratchPad2D": ("scratch, dtype, n0, n1", "A contiguous 2-D array from a team's scratch memory."),
    "ScratchPad3D": ("scratch, dtype, n0, n1, n2", "A contiguous 3-D array from a team's scratch memory."),
})
