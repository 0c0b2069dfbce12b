"""Typing rules of ``tile_fft`` and ``tile_ifft``: the unnormalized discrete Fourier transform along the last
dimension of a tile of complex numbers (``vec2f``/``vec2d``: real, imaginary), in place, as numpy's ``fft``.

Twiddle factors are computed in float64 for the angle ``2 pi m / N`` (``m < N``, so no digits are lost to
large angles) and rounded to the element type, once per compiled unit: a table the unit computes when it is
loaded (``fft_twiddle``, include/brickwork_tile_fft.h; on a GPU each twiddle is computed where it is read), so
a tile reads them and the backward kernel has nothing to differentiate. A row whose length is a power of two
is transformed by radix-2 butterflies, O(N log N): log2(N) passes of Stockham's self-sorting form, so no
bit-reversed reordering is needed; each pass writes a row buffer of its own, and they use the twiddles of
``m < N/2`` only (the table holds no others). Other lengths are sums over the row's elements (the twiddle of
``(k n) mod N``), O(N^2), for rows of at most 4096 elements (Warp's CPU bound for its DFT path). Either way
the result replaces the row; being loops over tile elements, the backward kernel differentiates it like any
tile operation.
"""

from __future__ import annotations

from .. import ir
from ..types.composite import is_vector_type
from ..types.scalars import float32, float64, int32
from .tile_build import TileCall, element, loop_nest, new_tile, zero_value
from .tiles import rule

_MAX_N = 4096


def _transform(call: TileCall, sign: int):
    typer = call.typer
    t = call.tile("inout")
    dt = t.type.dtype
    if not (is_vector_type(dt) and dt._length == 2 and dt._dtype in (float32, float64)):
        raise call.error(f"needs a tile of vec2f or vec2d (complex numbers), got {t.type!r}")
    shape = t.type.shape
    if len(shape) < 2:
        raise call.error(f"needs a tile of at least 2 dimensions (batches, then the transform), got shape {shape}")
    n = shape[-1]
    if n > _MAX_N:
        raise call.error(f"transforms of at most {_MAX_N} elements, got {n}")
    table = max(n // 2, 1) if n & (n - 1) == 0 else n

    def twiddle(m: ir.IRExpr) -> ir.IRExpr:
        # a table of the unit, computed once (include/brickwork_tile_fft.h): it took 1.6 of 4.4 ms of a
        # 512x512 forward launch computed per tile
        return ir.IRCall("fft_twiddle", [m, _i(table), _i(n), _i(sign)], dt)

    if n & (n - 1) == 0:
        body = _butterflies(typer, t, twiddle, n)
        typer.pending.extend(loop_nest(typer, shape[:-1], body))
        return ir.IRConst(0, int32)  # a statement: the tile is transformed in place
    row = new_tile(typer, dt, (n,))
    acc = typer.new_temp(dt)
    k, j = typer.new_temp(int32), typer.new_temp(int32)

    def body(batch):
        x = element(t, [*batch, j])
        m = ir.IRCall("mod", [ir.IRCall("mul", [k, j], int32, no_wrap=True), ir.IRConst(n, int32)], int32,
                      no_wrap=True)
        inner = ir.IRFor(j, _i(0), _i(n), _i(1), [
            ir.IRAssign(acc, ir.IRCall("add", [acc, _cmul(x, twiddle(m))], dt))])
        outer = ir.IRFor(k, _i(0), _i(n), _i(1), [ir.IRAssign(acc, zero_value(dt)), inner,
                                                  ir.IRAssign(element(row, [k]), acc)])
        back = ir.IRFor(k, _i(0), _i(n), _i(1), [ir.IRAssign(element(t, [*batch, k]), element(row, [k]))])
        return [outer, back]

    typer.pending.extend(loop_nest(typer, shape[:-1], body))
    return ir.IRConst(0, int32)  # a statement: the tile is transformed in place


def _butterflies(typer, t, twiddle, n: int):
    """The body (for one row, given its batch indices) of the radix-2 transform of a row of ``n = 2^p``
    elements of tile ``t`` in place, with ``twiddle(m)`` the twiddle of ``m``: pass ``s`` (span ``h = 2^s``) takes
    the pairs ``j`` and ``j + n/2`` of its input, multiplies the second by ``twiddle((j mod h) n / (2h))`` and
    writes their sum and difference at ``(j div h) 2h + j mod h`` and ``h`` further (Stockham's order), into a
    buffer of its own (see the module's docstring)."""
    dt = t.type.dtype
    buffers = [new_tile(typer, dt, (n,)) for _ in range(max(n.bit_length() - 1, 0))]
    j = typer.new_temp(int32)

    def body(batch):
        def source(index):
            return element(t, [*batch, index])

        passes, h, out = [], 1, None
        while h < n:
            # temporaries of this pass only: the backward kernel saves none of them per butterfly
            k, dest = typer.new_temp(int32), typer.new_temp(int32)
            v0, v1, x1, wk = (typer.new_temp(dt) for _ in range(4))
            out = buffers[len(passes)]
            step = _i(n // (2 * h))
            steps = [
                ir.IRAssign(k, ir.IRCall("mod", [j, _i(h)], int32, no_wrap=True)),
                ir.IRAssign(dest, ir.IRCall("add", [ir.IRCall("mul", [ir.IRCall("div", [j, _i(h)], int32,
                                                                                 no_wrap=True), _i(2 * h)],
                                                              int32, no_wrap=True), k], int32, no_wrap=True)),
                ir.IRAssign(v0, source(j)),
                # the product's operands read once each: the reverse sweep adds into each element's adjoint
                # once, not once per component the product reads
                ir.IRAssign(x1, source(ir.IRCall("add", [j, _i(n // 2)], int32, no_wrap=True))),
                ir.IRAssign(wk, twiddle(ir.IRCall("mul", [k, step], int32, no_wrap=True))),
                ir.IRAssign(v1, _cmul(x1, wk)),
                ir.IRAssign(element(out, [dest]), ir.IRCall("add", [v0, v1], dt)),
                ir.IRAssign(element(out, [ir.IRCall("add", [dest, _i(h)], int32, no_wrap=True)]),
                            ir.IRCall("sub", [v0, v1], dt)),
            ]
            passes.append(ir.IRFor(j, _i(0), _i(n // 2), _i(1), steps))
            source = (lambda buf: lambda index: element(buf, [index]))(out)  # noqa: E731 - the next pass reads it
            h *= 2
        if out is None:  # one element: the transform is the element itself
            return []
        back = ir.IRFor(j, _i(0), _i(n), _i(1), [ir.IRAssign(element(t, [*batch, j]), element(out, [j]))])
        return [*passes, back]

    return body


def _cmul(a: ir.IRExpr, b: ir.IRExpr) -> ir.IRExpr:
    """The complex product of two (real, imaginary) vectors of the same type."""
    dt = a.type
    scalar = dt._dtype

    def part(v, c):
        return ir.IRComponent(v, [_i(c)], scalar)

    re = ir.IRCall("sub", [ir.IRCall("mul", [part(a, 0), part(b, 0)], scalar),
                           ir.IRCall("mul", [part(a, 1), part(b, 1)], scalar)], scalar)
    im = ir.IRCall("add", [ir.IRCall("mul", [part(a, 0), part(b, 1)], scalar),
                           ir.IRCall("mul", [part(a, 1), part(b, 0)], scalar)], scalar)
    return ir.IRConstruct([re, im], dt)


def _i(v: int) -> ir.IRConst:
    return ir.IRConst(v, int32)


rule("tile_fft", ["inout"], 1)(lambda call: _transform(call, -1))
rule("tile_ifft", ["inout"], 1)(lambda call: _transform(call, +1))
