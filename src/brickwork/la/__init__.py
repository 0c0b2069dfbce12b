"""``brickwork.la``: the loop abstraction for block-structured kernels (semantics:
docs/reference/loop_abstraction_semantics.md). A body over the cells of two blocks::

    space = la.IndexSpace.box(la.bovi, la.logical_flat, nblocks=2, nx=16, ny=16, nz=1, nghost=2)
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = ...
    la.outer(space, body)
"""

from . import (
    halo,
    kernel_rules,  # noqa: F401 - registers how kernel code types the loop abstraction
)
from .indices import Index3, Indexer3D, MemoryOffset
from .outer import (
    ReductionIndexSpace,
    get_per_point_scratch,
    inner,
    inner_reduce,
    make_flux_pack_view,
    make_flux_view,
    make_pack_view,
    make_sparse_flux_pack_view,
    make_sparse_pack_view,
    make_var_view,
    outer,
    outer_reduce,
)
from .reducers import Max, MaxLoc, Min, MinLoc, Prod, Sum, value_loc
from .space import IndexSpace
from .tags import boiv, bovi, bvoi, i_pencil, ij_slab, kji_cube, logical_coords, logical_flat, memory, raw, team

__all__ = [
    "halo", "Index3", "Indexer3D", "MemoryOffset", "IndexSpace", "outer", "inner", "get_per_point_scratch",
    "make_pack_view", "make_sparse_pack_view", "make_sparse_flux_pack_view", "make_var_view",
    "make_flux_pack_view", "make_flux_view",
    "bvoi", "bovi", "boiv", "logical_flat", "logical_coords", "memory", "raw", "team",
    "i_pencil", "ij_slab", "kji_cube", "outer_reduce", "inner_reduce", "ReductionIndexSpace",
    "Sum", "Prod", "Min", "Max", "MinLoc", "MaxLoc", "value_loc",
]


def __getattr__(name: str):
    """Only for a name this module lacks: Parthenon's (``par_reduce``) gets brickwork's."""
    from ..mesh.parthenon_names import missing_module_attribute

    raise missing_module_attribute(__name__, name, lambda: list(globals()))
