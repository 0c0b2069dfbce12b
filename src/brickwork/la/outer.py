"""``outer(space, body)``: run an outer body over the slices of an index space (spec §4), and the
kernel-only functions a body calls (``inner``, scratch, views)."""

from __future__ import annotations

from ..errors import LaunchError
from ..lang.body import body_kernel
from ..runtime.launch import launch
from . import tags
from .space import IndexSpace


def _config(space: IndexSpace) -> dict:
    chunk = space.ninner.name if isinstance(space.ninner, tags.Tag) else "count"
    return {"loop": space.loop_tag.name, "inner": space.inner_tag.name, "backend": space.backend.name,
            "ndim": space.get_ndim(), "chunk": chunk}


def outer(space: IndexSpace, body) -> None:
    """Run ``body(idx_range, b)`` once per slice of ``space``; the body is JIT-compiled."""
    if not isinstance(space, IndexSpace):
        raise LaunchError(f"la.outer needs an la.IndexSpace, got {type(space).__name__}")
    if space.M.ks != 0 or space.M.js != 0 or space.M.is_ != 0:
        raise LaunchError("la.outer: the memory box must start at 0 in every direction")
    kernel = body_kernel(body, "la", 0, _config(space))
    L = space.L
    for h in kernel.halos:  # PROPOSED (spec §11): a halo range must stay inside the memory box
        grown = L.grown(h.reduced(space.get_ndim()))
        nk, nj, ni = space.M.shape
        if grown.ks < 0 or grown.js < 0 or grown.is_ < 0 or grown.ke >= nk or grown.je >= nj or grown.ie >= ni:
            raise LaunchError(f"la.outer: halo {h!r} takes the logical box {L} outside the memory box {space.M} "
                              f"(not enough ghost cells)")
    nk, nj, ni = L.shape
    loop = space.loop_tag
    if loop is tags.bvoi:
        dims = (space.nblocks,)
    elif loop is tags.bovi:
        dims = (space.nblocks, space.get_nouter())
    else:
        dims = (space.nblocks, nk, nj, ni)
    launch(kernel, dim=dims, inputs=kernel.arguments(space.runtime_geometry()))


def _kernel_only(name: str):
    def fn(*args, **kwargs):
        raise RuntimeError(f"la.{name} can only be used inside an outer body (it is compiled, not called)")

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__bw_la__ = name
    fn.__doc__ = f"``la.{name}``: kernel-only (see docs/loop_abstraction.md)."
    return fn


inner = _kernel_only("inner")
get_per_point_scratch = _kernel_only("get_per_point_scratch")
make_pack_view = _kernel_only("make_pack_view")
make_sparse_pack_view = _kernel_only("make_sparse_pack_view")
make_var_view = _kernel_only("make_var_view")
make_flux_pack_view = _kernel_only("make_flux_pack_view")
make_flux_view = _kernel_only("make_flux_view")
