"""Typing rules of tile assignment and linear algebra (``tile_assign``, ``tile_matmul``, ``tile_cholesky``, ...):
loops over the tiles' elements (``tile_build``). Warp's views (``tile_view``, ``tile_transpose``,
``tile_broadcast``, ``tile_reshape``, ``tile_squeeze``) are in ``tile_view_rules``. The in-place functions
(``tile_assign``, ``tile_axpy``, ``tile_matmul`` with ``out``, the ``*_inplace`` solvers) write the elements
of their tile argument's local. The factorization and solves follow Warp's scalar (CPU) algorithms operation
for operation, so they round as Warp does: a non-SPD input gives NaNs rather than an error, a zero pivot
leaves its row undivided.
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins.tiles import TILE_FUNCTIONS
from ..errors import KernelValueError
from ..types.arrays import type_name
from ..types.composite import is_composite_type
from ..types.scalars import bfloat16, bool_, float16, float32, float64, int32, is_scalar_type
from ..types.structs import is_struct_type
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .tile_build import TileCall, atom, constant, element, fill, loop_nest, new_tile, zero_value
from .tile_maps import write
from .tile_views import span

_OPERAND_TYPES = (float16, bfloat16, float32, float64)  # of tile_matmul's tiles (out: not bfloat16)
_SOLVER_TYPES = (float32, float64)


def rule(name: str, params: list, required: int = 0):
    """Register ``body(call)`` as the typing rule of tile function ``name`` with Warp's parameter names."""

    def register(body):
        INTRINSICS.register(TILE_FUNCTIONS[name],
                            call=lambda typer, f, node: body(TileCall(typer, node, name, params, required)))
        return body

    return register


# -- small IR helpers ----------------------------------------------------------------------------------


def _i(v: int) -> ir.IRConst:
    return ir.IRConst(v, int32)


def _iadd(a, b) -> ir.IRExpr:
    return ir.IRCall("add", [a, b], int32, no_wrap=True)  # an index within a tile: no overflow


def _arith(op: str, a, b) -> ir.IRCall:
    """``a op b`` of two values of one scalar type."""
    return ir.IRCall(op, [a, b], a.type)


def _cast(v: ir.IRExpr, t) -> ir.IRExpr:
    return v if v.type is t else ir.IRCast(v, t)


def _for(typer, start, stop, body_of) -> ir.IRFor:
    """``for v in range(start, stop): body_of(v)`` with an int32 counter (bounds may be expressions)."""
    v = typer.new_temp(int32)
    return ir.IRFor(v, start, stop, _i(1), body_of(v))


def _for_down(typer, n: int, body_of) -> ir.IRFor:
    """``for v in range(n - 1, -1, -1): body_of(v)``, as an ascending loop (every target's plain loop)."""
    up = typer.new_temp(int32)
    v = typer.new_temp(int32)
    return ir.IRFor(up, _i(0), _i(n), _i(1),
                    [ir.IRAssign(v, ir.IRCall("sub", [_i(n - 1), up], int32, no_wrap=True)), *body_of(v)])


def _copy(typer, t: ir.IRExpr) -> ir.IRLocal:
    return fill(typer, t.type.shape, lambda idx: element(t, idx))


# -- arguments -----------------------------------------------------------------------------------------


def _tile_of_rank(call: TileCall, param: str, ranks: tuple) -> ir.IRLocal:
    t = call.tile(param)
    if t.type.ndim not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise call.error(f"'{param}' must be a {want} tile, got shape {t.type.shape}")
    return t


def _square(call: TileCall, param: str) -> ir.IRLocal:
    t = _tile_of_rank(call, param, (2,))
    if t.type.shape[0] != t.type.shape[1]:
        raise call.error(f"'{param}' must be a square tile, got shape {t.type.shape}")
    return t


def _float_dtype(call: TileCall, param: str, t, allowed: tuple) -> None:
    if t.type.dtype not in allowed:
        names = ", ".join(type_name(d) for d in allowed)
        raise call.error(f"'{param}' must be a tile of {names}, got a tile of {type_name(t.type.dtype)}")


def _scalar(call: TileCall, param: str, dtype, default=None, value=None) -> ir.IRExpr:
    """A scalar argument as a value of ``dtype``: a Python number, or a runtime number of a float type
    (converted; Warp's ``Float`` parameters)."""
    if value is None:
        if not call.has(param):
            return constant(default, dtype, call)
        node = call.nodes[param]
        static = call.typer.try_static(node) if isinstance(node, (ast.Constant, ast.UnaryOp)) else None
        if isinstance(static, (int, float)) and not isinstance(static, bool):
            return constant(static, dtype, call)
        value = call.value(param)
    if not (is_scalar_type(value.type) and value.type is not bool_):
        raise call.error(f"'{param}' must be a number, got a value of type {type_name(value.type)}")
    return atom(call.typer, _cast(value, dtype))


def _static_number(v: ir.IRExpr):
    return v.value if isinstance(v, ir.IRConst) else None


def _fill_mode(call: TileCall) -> bool:
    """Whether ``fill_mode`` is "upper" (a compile-time "lower" or "upper", "lower" by default)."""
    mode = call.static("fill_mode", "lower")
    if mode not in ("lower", "upper"):
        raise call.error(f"fill_mode must be 'lower' or 'upper', got {mode!r}")
    return mode == "upper"


# -- shapes --------------------------------------------------------------------------------------------


def _check_constant_offsets(call: TileCall, offsets: list, extents: tuple, src: tuple, what: str) -> None:
    for d, (o, n) in enumerate(zip(offsets, extents)):
        if isinstance(o, ir.IRConst) and not (0 <= o.value and o.value + n <= src[d]):
            raise call.error(f"{what} at offset {o.value} of extent {n} does not fit axis {d} of a tile of shape "
                             f"{src}")


@rule("tile_assign", ["dst", "src", "offset"], 2)
def _tile_assign(call: TileCall):
    dst, src = call.tile("dst"), call.tile("src")
    if dst.type.ndim != src.type.ndim:
        raise call.error(f"'dst' and 'src' must have the same number of dimensions, got shapes {dst.type.shape} "
                         f"and {src.type.shape}")
    to, frm = dst.type.dtype, src.type.dtype
    if to is not frm and not (is_scalar_type(to) and is_scalar_type(frm)):
        raise call.error(f"cannot assign a tile of {type_name(frm)} to a tile of {type_name(to)}")
    offsets = [atom(call.typer, o) for o in call.indices("offset", dst.type.ndim)]
    _check_constant_offsets(call, offsets, src.type.shape, dst.type.shape, f"'src' of shape {src.type.shape}")
    if isinstance(src, ir.IRLocal) and isinstance(dst, ir.IRLocal) and src.name == dst.name:
        src = _copy(call.typer, src)  # a shift within one tile reads the elements it overwrites (numpy's order)

    # the part of dst at offsets; runtime offsets: elements past dst's edge are not written
    picks = [span(o, n) for o, n in zip(offsets, src.type.shape)]
    call.typer.pending.extend(write(call.typer, dst, [picks], lambda idx: _cast(element(src, idx), to)))
    return ir.IRConst(0, int32)  # a statement: its value is not used


# -- linear algebra ------------------------------------------------------------------------------------


def _gemm(typer, a, b, acc) -> None:
    """``acc = a @ b`` (acc zeroed here), in the i-k-j order whose inner loop runs along rows of ``b`` and
    ``acc``; the products are formed in ``acc``'s dtype (Warp's accumulation dtype)."""
    t = acc.type.dtype
    m, kk = a.type.shape
    n = b.type.shape[1]
    typer.pending.extend(loop_nest(typer, (m, n), lambda idx: [ir.IRAssign(element(acc, idx), zero_value(t))]))
    aik = typer.new_temp(t)

    def row(i, k):
        inner = _for(typer, _i(0), _i(n), lambda j: [ir.IRAssign(element(acc, [i, j]), _arith(
            "add", element(acc, [i, j]), _arith("mul", aik, _cast(element(b, [k, j]), t))))])
        return [ir.IRAssign(aik, _cast(element(a, [i, k]), t)), inner]

    typer.pending.append(_for(typer, _i(0), _i(m), lambda i: [_for(typer, _i(0), _i(kk), lambda k: row(i, k))]))


def _is_complex(t) -> bool:
    """A tile of 2-vectors of a float type: Warp's complex tiles (vec2h, vec2f, vec2d)."""
    d = t.type.dtype
    return is_composite_type(d) and tuple(d._shape) == (2,) and d._dtype in (float16, float32, float64)


def _matmul_operands(call: TileCall, a, b) -> None:
    if _is_complex(a) or _is_complex(b):
        raise call.error("does not support complex tiles (vec2h, vec2f, vec2d): complex matrix multiplication is "
                         "not implemented; use tiles of float16, bfloat16, float32 or float64")
    for p, t in (("a", a), ("b", b)):
        if t.type.ndim != 2:
            raise call.error(f"'{p}' must be a 2-D tile, got shape {t.type.shape}")
        _float_dtype(call, p, t, _OPERAND_TYPES)
    if a.type.shape[1] != b.type.shape[0]:
        raise call.error(f"the shapes of 'a' {a.type.shape} and 'b' {b.type.shape} do not chain: a's columns must "
                         f"be b's rows")


def _matmul_precision(call: TileCall, *tiles) -> None:
    """Warp's ``precision``: the literal "default" or "tf32" (tf32 changes nothing on the CPU, as in Warp, but
    needs float32 tiles there too)."""
    node = call.nodes.get("precision")
    precision = "default" if node is None else call.static_or_none(node)
    if precision not in ("default", "tf32"):
        got = "a non-literal argument" if precision is None else repr(precision)
        raise call.error(f"precision must be the string literal 'default' or 'tf32', got {got}", KernelValueError)
    if precision == "tf32" and any(t.type.dtype is not float32 for t in tiles):
        raise call.error("precision='tf32' requires float32 tiles for a, b, and out, got "
                         f"{', '.join(type_name(t.type.dtype) for t in tiles)}")


def _matmul_accumulators(call: TileCall, a, b, out_dtype) -> None:
    """Refuse bfloat16 accumulators, as Warp does (a bfloat16 sum loses most of the products): the products
    accumulate in out's dtype, and the backward pass accumulates the gradients of 'a' and 'b' in theirs."""
    if out_dtype is bfloat16:
        raise call.error("does not support a bfloat16 'out' tile (the products accumulate in out's dtype); allowed "
                         "'out' dtypes are float16, float32 and float64")
    if call.typer.context.backward and bfloat16 in (a.type.dtype, b.type.dtype):
        raise call.error("does not support bfloat16 'a' or 'b' tiles when the backward pass is enabled (their "
                         "gradients accumulate in their dtype); convert them with tile_astype, or build the kernel "
                         "with enable_backward=False")


def _tile_matmul_rule(typer, f, node):
    # two forms, told apart by the third argument: a tile `out` (accumulate into it) or the number `alpha`
    third = None
    if len(node.args) >= 3:
        third = typer.value(node.args[2])
    out_form = any(k.arg == "out" for k in node.keywords) or (third is not None and is_tile_type(third.type))
    params = ["a", "b", "out", "alpha", "beta", "precision"] if out_form else ["a", "b", "alpha", "precision"]
    call = TileCall(typer, node, "tile_matmul", params, 3 if out_form else 2)
    a, b = call.tile("a"), call.tile("b")
    _matmul_operands(call, a, b)
    if not out_form:
        _matmul_precision(call, a, b)
        _matmul_accumulators(call, a, b, a.type.dtype)
        return _matmul_new(call, a, b, third)
    out = atom(typer, third) if third is not None else call.tile("out")
    if not is_tile_type(out.type):
        raise call.error(f"'out' must be a tile, got a value of type {type_name(out.type)}")
    _float_dtype(call, "out", out, _OPERAND_TYPES)
    _matmul_precision(call, a, b, out)
    _matmul_accumulators(call, a, b, out.type.dtype)
    _matmul_into(call, a, b, out)
    return ir.IRConst(0, int32)


def _matmul_new(call: TileCall, a, b, alpha_value):
    """``alpha * a @ b`` as a new tile of ``a``'s dtype."""
    t = a.type.dtype
    alpha = _scalar(call, "alpha", t, 1.0, alpha_value)
    acc = new_tile(call.typer, t, (a.type.shape[0], b.type.shape[1]))
    _gemm(call.typer, a, b, acc)
    if _static_number(alpha) == 1.0:
        return acc
    return fill(call.typer, acc.type.shape, lambda idx: _arith("mul", alpha, element(acc, idx)))


def _matmul_into(call: TileCall, a, b, out) -> None:
    """``out = alpha * a @ b + beta * out``, in ``out``'s dtype; ``out`` is not read when beta is 0 (BLAS)."""
    want = (a.type.shape[0], b.type.shape[1])
    if out.type.shape != want:
        raise call.error(f"'out' must have shape {want} for 'a' {a.type.shape} and 'b' {b.type.shape}, got "
                         f"{out.type.shape}")
    t = out.type.dtype
    alpha, beta = _scalar(call, "alpha", t, 1.0), _scalar(call, "beta", t, 1.0)
    acc = new_tile(call.typer, t, want)
    _gemm(call.typer, a, b, acc)

    def body(idx):
        scaled = _arith("mul", alpha, element(acc, idx))
        update = ir.IRAssign(element(out, idx), _arith("add", scaled, _arith("mul", beta, element(out, idx))))
        replace = ir.IRAssign(element(out, idx), scaled)
        if _static_number(beta) == 0:
            return [replace]
        if isinstance(beta, ir.IRConst):
            return [update]
        return [ir.IRIf(ir.IRCall("ne", [beta, zero_value(t)], bool_), [update], [replace])]

    call.typer.pending.extend(loop_nest(call.typer, want, body))


INTRINSICS.register(TILE_FUNCTIONS["tile_matmul"], call=_tile_matmul_rule)


@rule("tile_axpy", ["alpha", "src", "dest"], 3)
def _tile_axpy(call: TileCall):
    src, dest = call.tile("src"), call.tile("dest")
    if src.type.shape != dest.type.shape or src.type.dtype is not dest.type.dtype:
        raise call.error(f"'src' and 'dest' must have one shape and dtype, got {src.type!r} and {dest.type!r}")
    dtype = dest.type.dtype
    if is_struct_type(dtype) or not (is_scalar_type(dtype) or is_composite_type(dtype)):
        raise call.error(f"needs tiles of scalars, vectors or matrices, got a tile of {type_name(dtype)}")
    scalar = dtype if is_scalar_type(dtype) else dtype._dtype
    alpha = _alpha(call, scalar)
    typer = call.typer

    def body(idx):
        scaled = typer.operator_call("mul", [alpha, element(src, idx)], call.node)
        return [ir.IRAssign(element(dest, idx), typer.operator_call("add", [element(dest, idx), scaled], call.node))]

    typer.pending.extend(loop_nest(typer, dest.type.shape, body))
    return ir.IRConst(0, int32)


def _alpha(call: TileCall, scalar) -> ir.IRExpr:
    """tile_axpy's alpha: a Python number, or a runtime value of the tiles' scalar type (as Warp requires)."""
    node = call.nodes["alpha"]
    static = call.typer.try_static(node) if isinstance(node, (ast.Constant, ast.UnaryOp)) else None
    if isinstance(static, (int, float)) and not isinstance(static, bool):
        return constant(static, scalar, call)
    alpha = call.value("alpha")
    if alpha.type is not scalar:
        raise call.error(f"'alpha' must be a {type_name(scalar)} (the tiles' scalar type), got a value of type "
                         f"{type_name(alpha.type)}")
    return atom(call.typer, alpha)


@rule("tile_diag_add", ["a", "d"], 2)
def _tile_diag_add(call: TileCall):
    a = _square(call, "a")
    d = _tile_of_rank(call, "d", (1,))
    if d.type.dtype is not a.type.dtype:
        raise call.error(f"'a' and 'd' must have one dtype, got {type_name(a.type.dtype)} and "
                         f"{type_name(d.type.dtype)}")
    n = a.type.shape[0]
    if d.type.shape[0] != n:
        raise call.error(f"'d' must have one element per row of 'a' ({n}), got shape {d.type.shape}")
    typer = call.typer
    out = _copy(typer, a)
    typer.pending.append(_for(typer, _i(0), _i(n), lambda i: [ir.IRAssign(element(out, [i, i]), typer.operator_call(
        "add", [element(out, [i, i]), element(d, [i])], call.node))]))
    return out


# -- Cholesky factorization and triangular solves --------------------------------------------------------


def _factor(typer, x, upper: bool, node) -> None:
    """Factor ``x`` in place (Warp's scalar Cholesky): the lower triangle of ``x`` becomes L with
    ``L L^T = x``, the upper is zeroed; ``upper``: the mirror image (``U^T U = x``), read from the upper
    triangle. A non-positive pivot gives NaNs, as in Warp."""
    t = x.type.dtype
    n = x.type.shape[0]

    def at(r, c):  # the element (r, c) of the lower factor: stored transposed when upper
        return element(x, [c, r] if upper else [r, c])

    s, r, inv, si = (typer.new_temp(t) for _ in range(4))

    def column(j):
        diag = [ir.IRAssign(s, at(j, j)),
                _for(typer, _i(0), j, lambda k: [ir.IRAssign(r, at(j, k)),
                                                 ir.IRAssign(s, _arith("sub", s, _arith("mul", r, r)))]),
                ir.IRAssign(s, typer.builtin_call("sqrt", [s], node)),
                ir.IRAssign(inv, _arith("div", ir.IRConst(1.0, t), s)),
                ir.IRAssign(at(j, j), s)]
        below = _for(typer, _iadd(j, _i(1)), _i(n), lambda i: [
            ir.IRAssign(si, at(i, j)),
            _for(typer, _i(0), j, lambda k: [ir.IRAssign(si, _arith("sub", si, _arith("mul", at(i, k), at(j, k))))]),
            ir.IRAssign(at(i, j), _arith("mul", si, inv))])
        zero = _for(typer, _iadd(j, _i(1)), _i(n), lambda k: [ir.IRAssign(at(j, k), zero_value(t))])
        return [*diag, below, zero]

    typer.pending.append(_for(typer, _i(0), _i(n), column))


def _cholesky(call: TileCall, inplace: bool):
    a = _square(call, "A")
    _float_dtype(call, "A", a, _SOLVER_TYPES)
    upper = _fill_mode(call)
    x = a if inplace else _copy(call.typer, a)
    _factor(call.typer, x, upper, call.node)
    return ir.IRConst(0, int32) if inplace else x


rule("tile_cholesky", ["A", "fill_mode"], 1)(lambda call: _cholesky(call, inplace=False))
rule("tile_cholesky_inplace", ["A", "fill_mode"], 1)(lambda call: _cholesky(call, inplace=True))


def _system(call: TileCall, mat: str, rhs: str):
    """The matrix and right-hand side of a solve: a square tile and a 1-D or 2-D tile of its rows, one dtype."""
    m = _square(call, mat)
    y = _tile_of_rank(call, rhs, (1, 2))
    _float_dtype(call, mat, m, _SOLVER_TYPES)
    if y.type.dtype is not m.type.dtype:
        raise call.error(f"'{mat}' and '{rhs}' must have one dtype, got {type_name(m.type.dtype)} and "
                         f"{type_name(y.type.dtype)}")
    if y.type.shape[0] != m.type.shape[0]:
        raise call.error(f"'{rhs}' must have one row per row of '{mat}' ({m.type.shape[0]}), got shape "
                         f"{y.type.shape}")
    return m, y


def _row_update(typer, x, i, value_of) -> list:
    """``x[i] = value_of(x[i])`` for a vector, or for each element of row ``i`` of a matrix (the inner loop,
    along the row: every right-hand side takes the same steps)."""
    if x.type.ndim == 1:
        return [ir.IRAssign(element(x, [i]), value_of(element(x, [i])))]
    return [_for(typer, _i(0), _i(x.type.shape[1]),
                 lambda c: [ir.IRAssign(element(x, [i, c]), value_of(element(x, [i, c])))])]


def _row_of(x, j, elem):
    """The element of row ``j`` of ``x`` in the column of ``elem`` (an element of another row of ``x``)."""
    return element(x, [j] if x.type.ndim == 1 else [j, elem.indices[1]])


def _substitute(typer, x, at, forward: bool) -> None:
    """Solve ``A z = x`` in place for a triangular ``A`` whose element (r, c) is ``at(r, c)``: forward
    (lower triangle) or backward (upper); a zero pivot leaves its row undivided, as in Warp."""
    n = x.type.shape[0]
    diag = typer.new_temp(x.type.dtype)

    def row(i):
        js = (_i(0), i) if forward else (_iadd(i, _i(1)), _i(n))
        eliminate = _for(typer, *js, lambda j: _row_update(
            typer, x, i, lambda e: _arith("sub", e, _arith("mul", at(i, j), _row_of(x, j, e)))))
        nonzero = ir.IRCall("ne", [diag, zero_value(diag.type)], bool_)
        divide = ir.IRIf(nonzero, _row_update(typer, x, i, lambda e: _arith("div", e, diag)), [])
        return [eliminate, ir.IRAssign(diag, at(i, i)), divide]

    typer.pending.append(_for(typer, _i(0), _i(n), row) if forward else _for_down(typer, n, row))


def _solve(call: TileCall, mat: str, rhs: str, steps, inplace: bool):
    """A solve whose ``steps(m)`` are (element accessor, forward) pairs applied in turn to the right-hand side."""
    m, y = _system(call, mat, rhs)
    x = y if inplace else _copy(call.typer, y)
    for at, forward in steps(m):
        _substitute(call.typer, x, at, forward)
    return ir.IRConst(0, int32) if inplace else x


def _direct(m):
    return lambda r, c: element(m, [r, c])


def _transposed(m):
    return lambda r, c: element(m, [c, r])


def _cholesky_steps(call: TileCall):
    upper = _fill_mode(call)
    # lower: L z = y, then L^T x = z; upper: U^T z = y, then U x = z
    return lambda m: [((_transposed if upper else _direct)(m), True), ((_direct if upper else _transposed)(m), False)]


def _register_solves() -> None:
    for suffix, inplace in (("", False), ("_inplace", True)):
        rule(f"tile_cholesky_solve{suffix}", ["L", "y", "fill_mode"], 2)(
            lambda call, inplace=inplace: _solve(call, "L", "y", _cholesky_steps(call), inplace))
        rule(f"tile_lower_solve{suffix}", ["L", "y"], 2)(
            lambda call, inplace=inplace: _solve(call, "L", "y", lambda m: [(_direct(m), True)], inplace))
        rule(f"tile_upper_solve{suffix}", ["U", "z"], 2)(
            lambda call, inplace=inplace: _solve(call, "U", "z", lambda m: [(_direct(m), False)], inplace))


_register_solves()
