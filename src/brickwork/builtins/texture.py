"""Texture sampling builtins (``wp.Texture1D``/``2D``/``3D``), Warp's ``texture_sample``.

``texture_sample(tex, coords, dtype=T, lod=-1.0)`` is typed by ``frontend/texture.py`` as one of the internal
builtins here, the result type given as a zero of it: ``texture_sample_1d(tex, u, lod, like)``,
``texture_sample_2d(tex, uv | u, v, lod, like)``, ``texture_sample_3d(tex, uvw | u, v, w, lod, like)``. Their
``*_vjp`` forms (seed last) give the derivatives (d/du, d/dv, d/dw, d/dlod) as a vec4f, which the adjoint
rules (``texture_adjoints``) split. ``include/brickwork_texture.h`` implements them all.
"""

from __future__ import annotations

from ..types.composite import vector
from ..types.scalars import float32
from .registry import Unsupported, builtin, names, need

VEC2F, VEC3F, VEC4F = vector(2, float32), vector(3, float32), vector(4, float32)

#: The result types (the channels read): Warp's list.
RESULT_TYPES = (float32, VEC2F, VEC4F)

#: Every name of this family (the kernel-language one, then the internal ones).
NAMES = ("texture_sample",)
INTERNAL = tuple(f"texture_sample_{n}d{s}" for n in (1, 2, 3) for s in ("", "_vjp"))


def texture_ndim(t) -> int:
    """1, 2 or 3 for the kernel type of a texture (``runtime/texture.py`` marks them), else 0."""
    return getattr(t, "_bw_texture", 0) if isinstance(t, type) else 0


def result_check(t) -> None:
    """Refuse a result type no texture gives (Warp's words)."""
    if t not in RESULT_TYPES:
        raise Unsupported(f"unsupported texture type `{names(t)}`. Supported types: float, vec2f, vec4f")


def _coords(ndim: int, tex, coords: tuple, lod) -> None:
    vec = {2: VEC2F, 3: VEC3F}.get(ndim)
    scalar = len(coords) == ndim and all(c is float32 for c in coords)
    need(texture_ndim(tex) == ndim and lod is float32 and (scalar or (len(coords) == 1 and coords[0] is vec)),
         f"needs a Texture{ndim}D, {'a float32 u' if ndim == 1 else f'vec{ndim}f or {ndim} float32 coordinates'} and "
         f"a float32 lod, got {names(tex, *coords, lod)}")


def _family(ndim: int) -> None:
    @builtin(f"texture_sample_{ndim}d")
    def sample(tex, *rest):
        *coords, lod, like = rest
        _coords(ndim, tex, tuple(coords), lod)
        result_check(like)
        return like

    @builtin(f"texture_sample_{ndim}d_vjp")
    def vjp(tex, *rest):
        *coords, lod, seed = rest
        _coords(ndim, tex, tuple(coords), lod)
        result_check(seed)
        return VEC4F


for _ndim in (1, 2, 3):
    _family(_ndim)


@builtin("texture_sample")
def _frontend_only(*args):
    raise Unsupported("texture_sample() is called as texture_sample(tex, coords, dtype=T[, lod])")
