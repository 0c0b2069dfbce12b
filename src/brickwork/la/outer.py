"""``outer(space, body)``: run an outer body over the slices of an index space
(docs/reference/loop_abstraction_semantics.md §6), and the
kernel-only functions a body calls (``inner``, scratch, views)."""

from __future__ import annotations

import numpy as np

from .. import comm as _comm
from .. import config
from ..device import get_device
from ..errors import LaunchError
from ..frontend.limits import INDEX_LIMIT
from ..lang.body import body_kernel, halo_arguments
from ..lang.companions import expect_launch
from ..mesh import SparsePack
from ..runtime import tape as _tape
from ..runtime.device_scratch import scratch
from ..runtime.launch import RepeatedLaunch, launch
from ..same_on_ranks import first_difference
from ..types.array_constructors import empty, full
from ..types.arrays import array, type_name
from . import tags
from .device_fold import fold_rows
from .indices import Indexer3D
from .reducers import FirstZero, MaxLoc, MinLoc, NonzeroProd, Reducer, Sum, ZeroCount, combine_kernel
from .space import IndexSpace, check_inside

#: A space whose logical rows have fewer cells than this compiles its row loops as short ones (CPU:
#: narrower vectors, see BW_SHORT_ROWS in brickwork.h); one body is compiled per kind of row it meets.
SHORT_ROW = 64


def _config(space: IndexSpace, reduce: bool = False) -> dict:
    chunk = space.ninner.name if isinstance(space.ninner, tags.Tag) else "count"
    cfg = {"loop": space.loop_tag.name, "inner": space.inner_tag.name, "backend": space.backend.name,
           "ndim": space.get_ndim(), "chunk": chunk}
    rows_looped = space.loop_tag is not tags.boiv and space.inner_tag is not tags.memory
    if rows_looped and space.L.shape[2] < SHORT_ROW:
        cfg["rows"] = "short"
    if space.memory_layout != "cells":  # flat views then address fields of node extents (kernel_rules)
        cfg["memory"] = space.memory_layout
    if reduce:
        cfg["reducer"] = space.reducer
    return cfg


def _prepare(space, body, what: str, reduce: bool):
    if not isinstance(space, IndexSpace):
        raise LaunchError(f"la.{what} needs an la.IndexSpace, got {type(space).__name__}")
    space.check()  # the constructor's checks: the space may have been changed since (space.ninner = 0)
    if space.M.ks != 0 or space.M.js != 0 or space.M.is_ != 0:
        raise LaunchError(f"la.{what}: the memory box must start at 0 in every direction")
    if space.M.size > INDEX_LIMIT:  # flat indices and cells then stay within +-2**30 (no int32 overflow)
        raise LaunchError(f"la.{what}: the memory box {space.M} has {space.M.size} cells per block, more than "
                          f"2**30")
    # the constructors check this too; here for boxes set afterwards (space.L = ...)
    check_inside(space.L, space.M, f"la.{what}", "make space.L a box inside space.M")
    kernel = body_kernel(body, "la", 0, _config(space, reduce))
    L = space.L
    for h in _halos_now(kernel):  # PROPOSED (semantics §13, §14): a halo range must stay inside M
        grown = L.grown(h.reduced(space.get_ndim()))
        nk, nj, ni = space.M.shape
        if grown.ks < 0 or grown.js < 0 or grown.is_ < 0 or grown.ke >= nk or grown.je >= nj or grown.ie >= ni:
            raise LaunchError(f"la.{what}: halo {h!r} takes the logical box {L} outside the memory box {space.M} "
                              f"(not enough ghost cells)")
    nk, nj, ni = L.shape
    loop = space.loop_tag
    if loop is tags.bvoi:
        dims = (space.nblocks,)
    elif loop is tags.bovi:
        dims = (space.nblocks, space.get_nouter())
    elif reduce:
        dims = (space.nblocks, nk, nj)  # one partial per row; i is walked inside
    else:
        dims = (space.nblocks, nk, nj, ni)
    return kernel, dims


def outer(space: IndexSpace, body) -> None:
    """Run ``body(idx_range, b)`` once per slice of ``space``; the body is JIT-compiled."""
    kernel, _, _, launcher = _prepared(space, body, "outer", False)
    launcher(kernel.captured(check=space.check_pack))  # launch(kernel, dims, captured values + geometry)


def expect(space: IndexSpace, body) -> None:
    """Build ``outer(space, body)``'s kernel, for the values its body captures now, with the next kernel that
    compiles (side by side on the cores) rather than alone at its first call; on the CPU only, else nothing.
    Checks the space and body as ``outer`` does."""
    kernel, _, _, launcher = _prepared(space, body, "outer", False)
    if get_device(None).is_cpu:
        expect_launch(kernel, kernel.captured(check=space.check_pack) + launcher.tail)


def _check_reduction_space(space) -> None:
    if not isinstance(space, IndexSpace) or not isinstance(space.reducer, Reducer):
        raise LaunchError("la.outer_reduce needs a reduction space: space.with_reducer(la.Sum(wp.float64)) or "
                          "la.ReductionIndexSpace(...)")


def expect_reduce(space: IndexSpace, body) -> None:
    """``expect`` for ``outer_reduce(space, body)``: its body's kernel and the kernel that folds the partials."""
    _check_reduction_space(space)
    kernel, _, geometry, _ = _prepared(space, body, "outer_reduce", True)
    if not get_device(None).is_cpu:
        return
    partials = empty(1, dtype=space.reducer.value_type)  # as the reduction's buffers: only its type counts
    expect_launch(kernel, kernel.arguments(geometry, partials, check=space.check_pack))
    _expect_fold(space.reducer, partials)


def _expect_fold(reducer: Reducer, partials=None) -> None:
    """Make the CPU's fold of ``reducer``'s partials (``combine_kernel``) a companion of the next instance that
    misses the cache: a reduction's first body kernel then compiles with it in one compiler run, where the fold
    took a run of its own at the first reduction of each value type."""
    if not get_device(None).is_cpu:
        return
    combine, join = combine_kernel(reducer)
    if partials is None:
        partials = empty(1, dtype=reducer.value_type)  # only its type counts
    expect_launch(combine, [partials, partials, 1, join])


#: At most this many entries per space keep their checked launch geometry (a space used with many bodies must not
#: grow without bound): two per code, its first function's own and the code's (the closures of one code share it).
_PREPARED_PER_SPACE = 32


def _prepared(space, body, what: str, reduce: bool) -> tuple:
    """The body kernel, grid, geometry and ``RepeatedLaunch`` of ``outer`` (``outer_reduce``: ``reduce``)
    over ``space``, with the kernel's work hint set: checked and computed once per space and body code, and
    again whenever the space's boxes, blocks or tags have changed (``space.L = ...``). Captured values
    are read at every launch (``kernel.captured``)."""
    memo = getattr(space, "_prepared", None)  # None: not an IndexSpace, which _prepare reports
    if memo is not None:
        # the function's own entry first: a function hashes by identity, its code by contents (~0.3 us a launch)
        hit = memo.get((body, reduce))
        # tuple equality tries identity first; the halos the body names are read again, since a rebound global
        # (H = la.halo.make(...)) takes the same body over the same space out of the checked box
        if hit is not None and hit[0] == _space_state(space) and (not hit[1] or hit[2] == _read_halos(hit[1])):
            _, _, _, hint, prepared = hit
            prepared[0].work_per_item = hint  # the kernel (one per body) may serve spaces of other sizes
            return prepared
        key = (getattr(body, "__code__", body), reduce)  # a closure made again (a new function) finds its code's
        hit = memo.get(key)
        if hit is not None and hit[0] == _space_state(space):
            _, readers, halos, hint, prepared = hit
            kernel = prepared[0]
            if kernel.func is not body:  # another closure: its own kernel (a twin shares the instances)
                kernel = body_kernel(body, "la", 0, kernel.la_config)
                readers = _halo_readers(kernel)
            if not readers or halos == _read_halos(readers):
                kernel.work_per_item = hint
                if kernel is not prepared[0]:
                    prepared = (kernel, *prepared[1:3], RepeatedLaunch(kernel, prepared[1], prepared[2]))
                    memo[key] = (hit[0], readers, halos, hint, prepared)
                return prepared
    kernel, dims = _prepare(space, body, what, reduce)
    if reduce:  # the fold's compile joins the body's, should both miss the cache
        _expect_fold(space.reducer)
    _work_hint(kernel, space, dims)
    geometry = [int(x) for x in space.runtime_geometry()]  # plain ints, as kernel.arguments passes them
    prepared = (kernel, dims, geometry, RepeatedLaunch(kernel, dims, geometry))
    if memo is None:
        return prepared
    if len(memo) >= _PREPARED_PER_SPACE - 1:
        memo.clear()
    readers = _halo_readers(kernel)
    entry = (_space_state(space), readers, _read_halos(readers), kernel.work_per_item, prepared)
    memo[(body, reduce)] = memo[(getattr(body, "__code__", body), reduce)] = entry
    return prepared


def _halos_now(kernel) -> list:
    """The halos the body passes to ``add_halo``, read now: a halo held by a global or a closure variable
    can be rebound between launches of the same body."""
    return [h for h in _read_halos(_halo_readers(kernel)) if hasattr(h, "offsets")]


def _read_halos(readers) -> tuple:
    """What each ``add_halo`` argument of ``_halo_readers`` names now (None where it names nothing)."""
    found = []
    for read, chain in readers:
        value = read()
        for attr in chain:
            value = getattr(value, attr, None)
        found.append(value)
    return tuple(found)


def _halo_readers(kernel) -> list:
    """``(reader of the root name, attribute chain)`` of every ``add_halo`` argument of a body kernel that
    ``lang.body.halo_arguments`` finds (found once per kernel)."""
    readers = kernel.__dict__.get("_la_halo_readers")
    if readers is None:
        source = kernel.source
        readers = kernel.__dict__["_la_halo_readers"] = [(source.reader(name), chain)
                                                         for name, chain in halo_arguments(source)]
    return readers


def _space_state(space) -> tuple:
    """What of a space ``_prepare``, the work hint and the geometry depend on (with the types of the
    counts: ``space.nblocks = 2.0`` or ``True`` equals 2 or 1 but is refused by the check)."""
    return (space.L, space.M, space.nblocks, space.loop_tag, space.inner_tag, space.backend, space.ninner,
            space.reducer, space.memory_layout, type(space.nblocks), type(space.ninner))


def _record_fold_adjoint(kernel, dims, args, out, partials_adjoint) -> None:
    """Record the backward launch of a reduction kernel whose folded values get their gradient from the
    adjoint of its partials array (``passes/adjoint.py`` ``reverse_fold``): ``partials_adjoint(g, device)``,
    with ``g`` the gradient of ``out[0]`` at backward time, gives that array on ``device``: the partials' device,
    where the forward launch ran (the backward pass may run outside the ``wp.ScopedDevice`` it ran in)."""
    tape = _tape.recording[-1]
    saved = [x for a in args for x in _tape.field_snapshot(a)]  # as for a recorded launch (tape.py)
    device = args[-1].device

    def adjoints():
        adj = [_tape.adjoint_of(a) for a in args]
        g = out.grad.numpy()[0]
        adj[-1] = partials_adjoint(g["value"] if out.dtype is not args[-1].dtype else g, device)
        return adj

    tape.record_launch(kernel, dims, args, (), device=device, saved=saved, adjoints=adjoints)


def _record_overwrite(out) -> None:
    """Record, for the backward pass, that the reduction overwrote ``out[0]``: once its own backward has
    taken ``out``'s gradient, ``out.grad[0]`` is cleared, so what wrote ``out[0]`` before gets no gradient
    for a value it no longer holds (as for a store). ``out`` is then also among the tape's gradients
    (``tape.zero()`` clears it)."""
    def clear():
        grad = out.grad
        # on a CUDA device (whose arrays index to elements, not views) a view of the first element, zeroed by a
        # memset of its bytes: nothing goes through the host
        (grad._view((1,)) if grad.device.is_cuda else grad[:1]).zero_()

    _tape.recording[-1].record_func(clear, [out])


def _record_sum_adjoint(kernel, dims, args, out, nslices) -> None:
    """Record the backward launch of a Sum kernel: every slice's partial gets ``out``'s gradient (d sum
    / d partial = 1)."""
    dtype = args[-1].dtype
    _record_fold_adjoint(kernel, dims, args, out, lambda g, device: full(nslices, g, dtype=dtype, device=device))


def _record_prod_adjoint(space: IndexSpace, body, kernel, dims, args, out, nslices) -> None:
    """The adjoint of a Prod into ``out``: d prod / d v is the product of the other values. While
    recording, the tape counts the zeros (one more reduction over the same values) and takes the
    product ``p`` of the nonzero ones: without a zero, the backward kernel gives each value ``g p / v``
    (``g``: the result's gradient); with one zero, only that cell gets ``g p`` (found by a location
    reduction, and recorded as for a Min); with two or more, every product of the others holds a zero
    and nothing flows back."""
    dtype = space.reducer.dtype
    zeros = outer_reduce(space.with_reducer(ZeroCount(dtype)), body)  # host values: not on the tape
    if zeros >= 2:
        return
    p = outer_reduce(space.with_reducer(NonzeroProd(dtype)), body)
    if zeros == 0:
        _record_fold_adjoint(kernel, dims, args, out,
                             lambda g, device: full(nslices, g * p, dtype=dtype, device=device))
        return
    _, cell = outer_reduce(space.with_reducer(FirstZero(dtype)), body)
    _record_cell_adjoint(space, body, out, cell, p)


def _record_extremum_adjoint(space: IndexSpace, body, out) -> None:
    """The adjoint of a Min, Max, MinLoc or MaxLoc into ``out``: the result is the value of one cell,
    the first in slice order among equals (what MinLoc/MaxLoc report), so its gradient is that cell's
    value's gradient (a location has none)."""
    reducer = space.reducer
    if reducer.with_location:
        loc = reducer
    else:
        loc = (MinLoc if reducer.join == "min" else MaxLoc)(reducer.dtype)
    _, cell = outer_reduce(space.with_reducer(loc), body)  # a host value: not on the tape
    _record_cell_adjoint(space, body, out, cell, 1)


def _record_cell_adjoint(space: IndexSpace, body, out, cell, factor) -> None:
    """Record, as the gradient of ``out[0]`` times ``factor``, the gradient of the value the body folds at
    ``cell`` (b, k, j, i) alone: the backward launch of a Sum over a space of that one cell per block,
    whose other blocks' partials get no adjoint. On a space over a mesh (``b`` a global block id)
    only the rank holding the cell records it, at the slot that computes that block."""
    b, k, j, i = cell
    if b < 0:  # no cell won (every value NaN): nothing flows back
        return
    dtype = space.reducer.dtype
    one_cell = space.with_reducer(Sum(dtype))
    one_cell.L = Indexer3D(k, k, j, j, i, i)
    kernel, dims = _prepare(one_cell, body, "outer_reduce", True)
    _work_hint(kernel, one_cell, dims)
    nslices = 1
    for d in dims:
        nslices *= d
    partials = empty(nslices, dtype=dtype)  # one slice per block: the cell's block is slice b
    packs = []
    args = kernel.arguments(one_cell.runtime_geometry(), partials, check=_pack_collector(one_cell, packs))
    gids = _slot_gids(one_cell, packs)
    if gids is not None:
        if b not in gids:  # another rank's block
            return
        b = gids.index(b)

    def partials_adjoint(g, device):
        adj = full(nslices, 0, dtype=dtype, device="cpu")  # set on the host (a CUDA array's numpy() is a copy)
        adj.numpy()[b] = g * factor
        return adj.to(device)

    _record_fold_adjoint(kernel, dims, args, out, partials_adjoint)


def _work_hint(kernel, space, dims) -> None:
    """Cells per grid point, so that launch shares slices among threads when the cells are many."""
    points = 1
    for d in dims:
        points *= d
    kernel.work_per_item = max(1, space.L.size * space.nblocks // points)


def outer_reduce(space: IndexSpace, body, out=None):
    """Reduce over the slices of a reduction space; ``body(idx_range, b)`` calls ``la.inner_reduce``.

    Returns the result as a host value (``(value, (b, k, j, i))`` for MinLoc/MaxLoc), or, with
    ``out=array``, writes it to ``out[0]`` on the device and returns None. Deterministic: each
    block folds its slices' partials in slice order, then the block partials are folded in block
    order (on a GPU by a fixed tree over that order: a float Sum can differ from the CPU's in the
    last bits, docs/loop_abstraction.md). On a space over a mesh (``md=``) the blocks are folded
    in global block order and ``b`` of MinLoc/MaxLoc is the block's global id, whatever the order
    of the blocks in the mesh data; on a mesh spread over several ranks the call is collective:
    every rank calls it and gets the same result (the block partials of all ranks folded in global
    block order, so 1, 2 or 4 ranks give the same bits).
    """
    _check_reduction_space(space)
    try:
        per_block, gids, buffer, gpu = _block_partials(space, body, out)
    except Exception as e:
        if space.md is not None and space.md.mesh.nranks > 1:  # collective: every rank raises, none waits for it
            _gather_block_partials(space, None, None, None, error=e)
        raise
    if gids is not None:
        per_block = _gather_block_partials(space, per_block, gids, buffer)
    target = out if out is not None else buffer("result", 1)
    fold_rows(space.reducer, per_block, 1, per_block.shape[0], target, gpu)
    if out is not None:
        return None
    value = target.numpy()[0]
    if space.reducer.with_location:
        return value["value"].item(), (int(value["b"]), int(value["k"]), int(value["j"]), int(value["i"]))
    return value.item()


def _block_partials(space: IndexSpace, body, out):
    """This rank's part of ``outer_reduce``: its blocks' partials (``per_block``), their global ids (None
    without a mesh), the reduction's ``buffer(name, n)`` and whether the GPU mapping folds its partials; the
    tape records of a differentiated call."""
    reducer = space.reducer
    vt = reducer.value_type
    if out is not None:
        if not isinstance(out, array) or out.dtype is not vt or out.ndim != 1 or out.shape[0] < 1:
            got = type_name(out._key) if isinstance(out, array) else type(out).__name__
            raise LaunchError(f"la.outer_reduce: out must be a 1-D array of {type_name(vt)} (the space's reducer "
                              f"{reducer!r}), got {got}")
        if out.readonly:  # before the body runs (it was the final fold kernel's refusal, after all the work)
            raise LaunchError("la.outer_reduce: out is a read-only array (it views read-only memory); pass a writable "
                              "one")
    differentiated = taped = out is not None and out.requires_grad and _tape.recording
    if differentiated:  # recorded first, so that its backward runs after the reduction's own
        _record_overwrite(out)
    if differentiated and reducer.join in ("min", "max"):
        _record_extremum_adjoint(space, body, out)
        differentiated = False
    kernel, dims, geometry, _ = _prepared(space, body, "outer_reduce", True)
    nslices = 1
    for d in dims:
        nslices *= d
    on = get_device(None)  # the launches' device (wp.ScopedDevice): buffers of another one do not serve
    if on.is_cuda and not taped:  # a recorded one keeps its kernel's buffers: the tape holds the arrays it launched
        # kept per thread and stream (device_scratch): a reduction's launches run in order on their stream, so
        # the next one there reuses the memory safely, while one on another stream gets its own
        def buffer(name, n):
            return scratch(on, f"la.outer_reduce.{name}", (n,), vt)
    else:
        buffers = kernel.__dict__.setdefault("_reduce_buffers", {})  # reused: allocation is most of a small launch

        def buffer(name, n):
            found = buffers.get((name, n, vt, on))
            if found is None:
                found = buffers[(name, n, vt, on)] = empty(n, dtype=vt, device=on)
            return found

    partials = buffer("partials", nslices)
    packs = []
    args = kernel.arguments(geometry, partials, check=_pack_collector(space, packs))
    gids = _slot_gids(space, packs)  # before anything runs: it refuses a space of more blocks than known
    if differentiated and reducer.join == "prod":
        _record_prod_adjoint(space, body, kernel, dims, args, out, nslices)
    elif differentiated:  # the result's gradient reaches every slice's values: d sum / d partial = 1
        _record_sum_adjoint(kernel, dims, args, out, nslices)
    # not recorded on a tape: the reduced value is a constant there (a time step, a norm)
    launch(kernel, dim=dims, inputs=args, record_tape=False)
    per_block = buffer("blocks", space.nblocks)
    gpu = on.is_cuda or config.target != "cpu"  # the GPU mapping folds the partials: a GPU, or the emulation
    fold_rows(reducer, partials, space.nblocks, nslices // space.nblocks, per_block, gpu)
    return per_block, gids, buffer, gpu


def _pack_collector(space: IndexSpace, packs: list):
    """A ``check`` for ``kernel.arguments``: the space's pack check, keeping the packs the body captures
    in ``packs`` (they say which block each slot of the grid computes: ``_slot_gids``)."""

    def check(key, name, value):
        space.check_pack(key, name, value)
        if type(value) is SparsePack:
            packs.append(value)

    return check


def _slot_gids(space: IndexSpace, packs: list) -> list | None:
    """The global id of the block each block slot ``b`` of a space over a mesh computes: block ``b`` of
    the first captured pack over the space's mesh (a pack may cover fewer blocks than the space's
    mesh data, or other ones), else of the space's mesh data. None for a space without a mesh
    (``IndexSpace.box``), whose ``b`` stays the slot."""
    md = space.md
    if md is None:
        return None
    blocks = next((p.md.blocks for p in packs if p.md.mesh is md.mesh), md.blocks)
    if len(blocks) < space.nblocks:  # only without a pack: check_pack refuses a pack of too few blocks
        raise LaunchError(f"la.outer_reduce: the index space visits {space.nblocks} blocks but its mesh data holds "
                          f"{len(blocks)}, so the partials of the others belong to no block (make the space with "
                          f"nblocks=pack.get_nblocks())")
    return [blk.gid for blk in blocks[:space.nblocks]]


def _gather_block_partials(space: IndexSpace, per_block, gids: list | None, buffer, error=None):
    """The block partials of every rank of the space's mesh (an allgather on its communicator when
    there are several) in global block order, a location's ``b`` made its block's global id: what
    one rank folds is then what several fold, whatever the order of the blocks in the mesh data.
    ``error``: what this rank met making its partials (there are none), for the other ranks to raise."""
    mesh = space.md.mesh
    if error is not None:
        return _comm.gather_checked(mesh._halo_comm, "la.outer_reduce", error)
    if mesh.nranks == 1 and all(a < b for a, b in zip(gids, gids[1:])) and \
            (not space.reducer.with_location or gids == list(range(len(gids)))):
        return per_block  # in global order, slot b is block b: nothing to do (mesh.mesh_data())
    gids = np.array(gids, dtype=np.int64)
    values = per_block.numpy().copy()
    if space.reducer.with_location:
        found = values["b"] >= 0
        values["b"][found] = gids[values["b"][found]]  # slot -> global block id
    if mesh.nranks == 1:
        parts = [(gids, values)]
    else:  # each rank's reducer travels with its partials: ranks folding with different ones are refused on all
        everyone = _comm.gather_checked(mesh._halo_comm, "la.outer_reduce", None, (gids, values, repr(space.reducer)))
        differ = first_difference([{"reducer": what} for _, _, what in everyone])
        if differ is not None:
            raise ValueError(f"la.outer_reduce differs between the MPI ranks: {differ}; every rank runs the same "
                             f"reduction over the mesh (it is collective)")
        parts = [(g, v) for g, v, _ in everyone]
    all_gids = np.concatenate([g for g, _ in parts])
    all_values = np.concatenate([v for _, v in parts])
    gathered = buffer("gathered", len(all_gids))
    gathered.assign(all_values[np.argsort(all_gids, kind="stable")])  # on a device, numpy() would be a copy
    return gathered


def ReductionIndexSpace(reducer, loop_tag, inner_tag, **kwargs) -> IndexSpace:  # noqa: N802 - Parthenon's name
    """An index space that reduces with ``reducer`` (same arguments as ``IndexSpace``)."""
    if kwargs.pop("box", False):
        return IndexSpace.box(loop_tag, inner_tag, **kwargs).with_reducer(reducer)
    return IndexSpace(loop_tag, inner_tag, **kwargs).with_reducer(reducer)


def _kernel_only(name: str, doc: str = ""):
    def fn(*args, **kwargs):
        raise RuntimeError(f"la.{name} can only be used inside an outer body (it is compiled, not called)")

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"{doc}\n\nKernel-only: called inside an outer body (see docs/loop_abstraction.md)."
    return fn


inner = _kernel_only("inner", (
    "``la.inner(rng)`` or ``la.inner(rng, fn)``: the cells of a slice's range, as ``for idx in "
    "la.inner(rng)``, ``for k, j, i in la.inner(rng)``, or a call of ``fn(idx)`` / ``fn(k, j, i)`` per "
    "cell."))
inner_reduce = _kernel_only("inner_reduce", (
    "``la.inner_reduce(rng, fn)``: fold what ``fn(idx)`` or ``fn(k, j, i)`` returns over the logical "
    "cells of a base range into the space's reducer (semantics §10)."))
get_per_point_scratch = _kernel_only("get_per_point_scratch", (
    "``la.get_per_point_scratch(dtype, rng_or_halo_range, dims=())``: a scratch buffer with one value (or "
    "a ``dims`` array) per cell of the range (semantics §9)."))
make_pack_view = _kernel_only("make_pack_view", (
    "``la.make_pack_view(rng, pack)``: a view of a pack for the loop's indices, ``pv[var(c), idx]`` or "
    "``pv[var(c), k, j, i]``."))
make_sparse_pack_view = _kernel_only("make_sparse_pack_view", (
    "``la.make_sparse_pack_view(rng, pack, s)``: a view of instance ``s`` of a sparse pool on the slice's "
    "block, ``sv[var(c), idx]``."))
make_var_view = _kernel_only("make_var_view", (
    "``la.make_var_view(rng, pack, var)``: a view of one variable, ``vv[idx]``, ``vv[c, idx]`` or ``vv[k, "
    "j, i]``."))
make_flux_pack_view = _kernel_only("make_flux_pack_view", (
    "``la.make_flux_pack_view(rng, pack, direction)``: the fluxes of one direction, ``fv[var(c), idx]``."))
make_flux_view = _kernel_only("make_flux_view", (
    "``la.make_flux_view(rng, pack, direction, var)``: one variable's fluxes of one direction, "
    "``fx[idx]`` or ``fx[c, idx]``."))
make_sparse_flux_pack_view = _kernel_only("make_sparse_flux_pack_view", (
    "``la.make_sparse_flux_pack_view(rng, pack, direction, s)``: the fluxes of one direction of sparse "
    "instance ``s``."))
