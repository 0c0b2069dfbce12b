"""Typing rules of ``tile_fft`` and ``tile_ifft``: the unnormalized discrete Fourier transform along the last
dimension of a tile of complex numbers (``vec2f``/``vec2d``: real, imaginary), in place, as numpy's ``fft``.

Each row is transformed as a sum over its elements with twiddle factors computed in float64 for the angle
``2 pi ((k n) mod N) / N`` (exact reduction, so large ``k n`` lose no digits), into a row buffer that then
replaces the row. It is O(N^2) per row, for rows of at most 4096 elements (Warp's CPU bound for its DFT
path); being loops over tile elements, the backward kernel differentiates it like any tile operation.
"""

from __future__ import annotations

import math

from .. import ir
from ..types.composite import is_vector_type
from ..types.scalars import float32, float64, int32
from .tile_build import TileCall, element, fill, loop_nest, new_tile, zero_value
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
    scalar = dt._dtype
    step = 2.0 * math.pi / n

    def twiddle(idx):
        angle = ir.IRCall("mul", [ir.IRCast(idx[0], float64), ir.IRConst(step, float64)], float64)
        c = typer.builtin_call("cos", [angle], call.node)
        s = typer.builtin_call("sin", [angle], call.node)
        s = s if sign > 0 else ir.IRCall("neg", [s], float64)
        return ir.IRConstruct([ir.IRCast(c, scalar), ir.IRCast(s, scalar)], dt)

    w = fill(typer, (n,), twiddle, dt)
    row = new_tile(typer, dt, (n,))
    acc = typer.new_temp(dt)
    k, j = typer.new_temp(int32), typer.new_temp(int32)

    def comp(v, c):
        return ir.IRComponent(v, [ir.IRConst(c, int32)], scalar)

    def body(batch):
        x = element(t, [*batch, j])
        m = ir.IRCall("mod", [ir.IRCall("mul", [k, j], int32, no_wrap=True), ir.IRConst(n, int32)], int32,
                      no_wrap=True)
        wm = element(w, [m])
        re = ir.IRCall("sub", [ir.IRCall("mul", [comp(x, 0), comp(wm, 0)], scalar),
                               ir.IRCall("mul", [comp(x, 1), comp(wm, 1)], scalar)], scalar)
        im = ir.IRCall("add", [ir.IRCall("mul", [comp(x, 0), comp(wm, 1)], scalar),
                               ir.IRCall("mul", [comp(x, 1), comp(wm, 0)], scalar)], scalar)
        inner = ir.IRFor(j, _i(0), _i(n), _i(1), [
            ir.IRAssign(acc, ir.IRCall("add", [acc, ir.IRConstruct([re, im], dt)], dt))])
        outer = ir.IRFor(k, _i(0), _i(n), _i(1), [ir.IRAssign(acc, zero_value(dt)), inner,
                                                  ir.IRAssign(element(row, [k]), acc)])
        back = ir.IRFor(k, _i(0), _i(n), _i(1), [ir.IRAssign(element(t, [*batch, k]), element(row, [k]))])
        return [outer, back]

    typer.pending.extend(loop_nest(typer, shape[:-1], body))
    return ir.IRConst(0, int32)  # a statement: the tile is transformed in place


def _i(v: int) -> ir.IRConst:
    return ir.IRConst(v, int32)


rule("tile_fft", ["inout"], 1)(lambda call: _transform(call, -1))
rule("tile_ifft", ["inout"], 1)(lambda call: _transform(call, +1))
