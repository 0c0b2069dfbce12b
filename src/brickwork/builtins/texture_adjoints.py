"""Adjoint rules of ``texture_sample`` (``texture``): the coordinates and the lod receive the parts of the
vector-Jacobian product ``texture_sample_*_vjp`` gives (d/du, d/dv, d/dw, d/dlod), as Warp 1.19's adjoint
(``include/brickwork_texture_grad.h``); the texture and the result type's zero receive nothing."""

from __future__ import annotations

from ..types.composite import is_vector_type
from .adjoints import adjoint


def _rule(ndim: int):
    def rule(E, args, r, g):
        tex, *coords, lod, like = args
        d = getattr(E, f"texture_sample_{ndim}d_vjp")(tex, *coords, lod, g)
        if len(coords) == 1 and is_vector_type(E.type(coords[0])):  # uv / uvw as one vector
            coord_adjoints = [E.make(E.type(coords[0]), [E.comp(d, i) for i in range(ndim)])]
        else:
            coord_adjoints = [E.comp(d, i) for i in range(ndim)]
        return (None, *coord_adjoints, E.comp(d, 3), None)

    return rule


for _ndim in (1, 2, 3):
    adjoint(f"texture_sample_{_ndim}d")(_rule(_ndim))
