"""What a kernel parameter's type is to the layers that handle it after typing: a mesh pack, and what the
backward kernel adds for it. One copy of these tests serves the typing rules of packs
(``mesh/kernel_rules.py``), the backward kernel (``passes/adjoint.py``) and the backward launch
(``runtime/tape.py``), so the parameters the kernel declares and the arguments the launch packs agree."""

from __future__ import annotations

from .arrays import ArrayType
from .composite import is_composite_type
from .scalars import is_scalar_type
from .structs import has_array_fields


def is_pack_type(t) -> bool:
    """Whether ``t`` is the kernel type of a mesh pack (a struct type carrying ``_bw_pack``, which
    ``mesh/kernel_pack.py`` sets)."""
    return getattr(t, "_bw_pack", None) is not None


def has_adjoint_param(t) -> bool:
    """Whether a kernel parameter of type ``t`` has an ``adj_<name>`` parameter in the backward kernel that
    receives its gradient storage: arrays, mesh packs (a pack over its fields' gradients), and structs that
    hold arrays (the same struct over their gradients)."""
    return isinstance(t, ArrayType) or is_pack_type(t) or has_array_fields(t)


def has_adjoint_value(t) -> bool:
    """Whether a kernel parameter of type ``t`` gets an adjoint value parameter ``adj_<name>`` (as Warp:
    scalars, vectors, matrices, quaternions, transforms). Its adjoint starts from the value the backward
    launch passes (``adj_inputs``; zero from a tape) and is not returned: a kernel that prints shows it."""
    return is_scalar_type(t) or is_composite_type(t)


#: The backward kernel's last parameter (uint64): bit k set keeps the adjoint of array parameter k where a
#: store to it is reversed; clear, the element's adjoint moves to the stored value and is zeroed
#: (``passes/adjoint.py``; the launch sets it: ``runtime/tape.py: keep_mask``).
KEEP_PARAM = "_bw_keep"
#: Array parameters the mask speaks for (the first ones); a store into a later one always clears.
KEEP_BITS = 64
