"""Typing of ``texture_sample(tex, coords, dtype=T, lod=-1.0)`` (Warp's forms): ``tex`` a Texture1D, 2D or 3D,
the coordinates one float32 (1D), a vec2f/vec3f or 2/3 float32 values, ``dtype`` float, vec2f or vec4f (the
channels read), ``lod`` optional. Typed as the internal builtin of the texture's dimension
(``builtins/texture.py``), the result type given as a zero of it; ``dtype`` may also come by position after
the coordinates, then ``lod``.
"""

from __future__ import annotations

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.texture import RESULT_TYPES, texture_ndim
from ..errors import KernelTypeError, KernelUnsupportedTypeError
from ..types.arrays import type_name
from ..types.composite import is_vector_type
from ..types.scalars import float32, python_annotation_type
from .intrinsics import INTRINSICS

_FORM = "texture_sample(tex, uv, dtype=T, lod=-1.0)"


def _zero(t) -> ir.IRExpr:
    if is_vector_type(t):
        return ir.IRConstruct([ir.IRConst(0, t._dtype) for _ in range(t._length)], t)
    return ir.IRConst(0, t)


def _sample(typer, f, node) -> ir.IRExpr:
    given = {k.arg: k.value for k in node.keywords}
    unknown = set(given) - {"dtype", "lod"}
    if unknown or not node.args:
        raise typer.error(KernelTypeError, f"texture_sample() is called as {_FORM}"
                          + (f" (unknown argument {sorted(unknown)[0]!r})" if unknown else ""), node)
    tex = typer.value(node.args[0])
    ndim = texture_ndim(tex.type)
    if not ndim:
        raise typer.error(KernelTypeError, f"texture_sample(): the first argument must be a wp.Texture1D, "
                          f"wp.Texture2D or wp.Texture3D, got {type_name(tex.type)}", node)
    rest = list(node.args[1:])
    if not rest:
        raise typer.error(KernelTypeError, f"texture_sample() is called as {_FORM}: coordinates missing", node)
    first = typer.value(rest.pop(0))
    coords = [first]
    if ndim > 1 and not is_vector_type(first.type):
        if len(rest) < ndim - 1:
            raise typer.error(KernelTypeError, f"texture_sample() of a Texture{ndim}D takes a vec{ndim}f or "
                              f"{ndim} coordinates", node)
        coords += [typer.value(rest.pop(0)) for _ in range(ndim - 1)]
    for name in ("dtype", "lod"):  # by position after the coordinates
        if rest and name not in given:
            given[name] = rest.pop(0)
    if rest:
        raise typer.error(KernelTypeError, f"texture_sample() is called as {_FORM}: too many arguments", node)
    if "dtype" not in given:
        raise typer.error(KernelTypeError, "texture_sample() needs dtype= (float, wp.vec2f or wp.vec4f)", node)
    t = python_annotation_type(typer.static_value(given["dtype"]))
    if t not in RESULT_TYPES:
        raise typer.error(KernelUnsupportedTypeError, f"texture_sample(): unsupported texture type "
                          f"`{type_name(t)}`. Supported types: float, vec2f, vec4f", node)
    lod = typer.value(given["lod"]) if "lod" in given else ir.IRConst(-1.0, float32)
    return typer.builtin_call(f"texture_sample_{ndim}d", [tex, *coords, lod, _zero(t)], node,
                              label="texture_sample()")


INTRINSICS.register(FUNCTIONS["texture_sample"], call=_sample)
