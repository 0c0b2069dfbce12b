"""warp.fem under the alias package: only the ``Sample`` struct (its fields as in warp.fem 1.19), which
Warp's struct tests use as a struct defined in another module; other names are placeholders."""

import warp as wp

from ._internal import Placeholder as _Placeholder


@wp.struct
class Sample:
    element_index: int
    element_coords: wp.vec3
    qp_index: int
    qp_weight: float
    test_dof: wp.vec2i
    trial_dof: wp.vec2i


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(f"{__name__}.{name}")
