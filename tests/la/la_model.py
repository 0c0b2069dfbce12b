"""A pure-Python reference model of the loop abstraction's slices and traversals (semantics §5-§9).

Everything here is written from ``docs/reference/loop_abstraction_semantics.md`` (the PROPOSED rules
of its §14 included: bvoi halo traversal and scratch span = the halo box on both backends, boiv walks
the reduced halo), independently of ``brickwork.la``'s kernel lowering, so the tests compare the two.

A geometry ``Geo`` holds the logical box ``L = (ks, ke, js, je, is, ie)`` (inclusive) and the memory
extents ``M = (NK, NJ, NI)`` (memory starts at 0 in every direction).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
from hypothesis import strategies as st

from brickwork import la
from brickwork.la.indices import Indexer3D

TAG_PAIRS = [(lt, it) for lt in (la.bvoi, la.bovi, la.boiv) for it in (la.logical_flat, la.logical_coords, la.memory)
             if not (lt is la.boiv and it is la.memory)]
TAG_IDS = [f"{lt.name}-{it.name}" for lt, it in TAG_PAIRS]
BACKENDS = (la.raw, la.team)
NINNER_KINDS = ("1", "N-1", "N", "N+1", "i_pencil", "ij_slab", "kji_cube")


@dataclasses.dataclass(frozen=True)
class Geo:
    nblocks: int
    L: tuple  # (ks, ke, js, je, is, ie)
    M: tuple  # (NK, NJ, NI)
    via_box: bool = False  # built by IndexSpace.box (ndim 3 always) or from explicit boxes

    @property
    def ndim(self) -> int:
        return sum(1 for n in self.M if n > 1)

    @property
    def lbox(self) -> Indexer3D:
        return Indexer3D(*self.L)

    @property
    def shape(self) -> tuple:
        return (self.nblocks, *self.M)


# -- geometry strategies -----------------------------------------------------------------------------------
@st.composite
def box_geometries(draw, max_n=5, min_ghost=1, max_ghost=4, max_blocks=3):
    """``IndexSpace.box`` geometries: nx, ny, nz >= 1 (1 = a thin active direction), ghosts everywhere."""
    nb = draw(st.integers(1, max_blocks))
    ng = draw(st.integers(min_ghost, max_ghost))
    nx, ny, nz = (draw(st.integers(1, max_n)) for _ in range(3))
    L = (ng, ng + nz - 1, ng, ng + ny - 1, ng, ng + nx - 1)
    M = (nz + 2 * ng, ny + 2 * ng, nx + 2 * ng)
    return Geo(nb, L, M, via_box=True)


@st.composite
def mesh_geometries(draw, max_n=5, min_ghost=1, max_ghost=4, max_blocks=3, ndims=(1, 2, 3)):
    """Mesh-like geometries (semantics §2, IndexShape): inactive directions have extent 1 and no ghosts."""
    nb = draw(st.integers(1, max_blocks))
    ng = draw(st.integers(min_ghost, max_ghost))
    ndim = draw(st.sampled_from(ndims))
    n = [draw(st.integers(1, max_n)) if d < ndim else 0 for d in range(3)]  # (i, j, k) counts
    lo, hi, ext = [], [], []
    for d in (2, 1, 0):  # k, j, i
        if n[d] > 0:
            lo.append(ng)
            hi.append(ng + n[d] - 1)
            ext.append(n[d] + 2 * ng)
        else:
            lo.append(0)
            hi.append(0)
            ext.append(1)
    L = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
    return Geo(nb, L, tuple(ext))


def geometries(**kw):
    return st.one_of(box_geometries(**kw), mesh_geometries(**kw))


# -- spaces --------------------------------------------------------------------------------------------------
def ninner_value(kind: str, geo: Geo):
    """The ``ninner`` argument for one of NINNER_KINDS (N = ninner of ij_slab)."""
    nk, nj, ni = geo.lbox.shape
    n = ni * nj
    return {"1": 1, "N-1": max(1, n - 1), "N": n, "N+1": n + 1, "i_pencil": la.i_pencil, "ij_slab": la.ij_slab,
            "kji_cube": la.kji_cube}[kind]


def make_space(lt, it, geo: Geo, ninner=la.ij_slab, backend=la.raw):
    if geo.via_box:
        ks, ke, js, je, is_, ie = geo.L
        nz, ny, nx = ke - ks + 1, je - js + 1, ie - is_ + 1
        ng = ks
        return la.IndexSpace.box(lt, it, geo.nblocks, nx, ny, nz, ng, ninner=ninner, backend=backend)
    NK, NJ, NI = geo.M
    M = Indexer3D(0, NK - 1, 0, NJ - 1, 0, NI - 1)
    return la.IndexSpace(lt, it, ninner=ninner, nblocks=geo.nblocks, backend=backend, _boxes=(geo.lbox, M))


def chunk_len(ninner, box: Indexer3D) -> int:
    """GetNInner(box) (semantics §5)."""
    nk, nj, ni = box.shape
    if ninner is la.i_pencil:
        return ni
    if ninner is la.ij_slab:
        return ni * nj
    if ninner is la.kji_cube:
        return ni * nj * nk
    return int(ninner)


# -- the model ---------------------------------------------------------------------------------------------
def mflat(geo: Geo, q) -> int:
    _, NJ, NI = geo.M
    k, j, i = q
    return (k * NJ + j) * NI + i


def mdecode(geo: Geo, m: int) -> tuple:
    _, NJ, NI = geo.M
    return (m // (NJ * NI), (m % (NJ * NI)) // NI, m % NI)


def in_memory(geo: Geo, q) -> bool:
    return all(0 <= c < n for c, n in zip(q, geo.M))


def add(p, h):
    return (p[0] + h[0], p[1] + h[1], p[2] + h[2])


def box_cells(box: Indexer3D):
    return [box.decode(f) for f in range(box.size)]


def grown(box: Indexer3D, offsets) -> Indexer3D:
    """AddHaloToIndexer (semantics §4)."""
    lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
    hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
    return Indexer3D(box.ks + lo[0], box.ke + hi[0], box.js + lo[1], box.je + hi[1], box.is_ + lo[2], box.ie + hi[2])


def reduced(halo, ndim: int) -> tuple:
    """HaloReducedRange (semantics §4), written from the definition."""
    return tuple(h for h in halo.offsets if not ((ndim < 3 and h[0] != 0) or (ndim < 2 and h[1] != 0)))


@dataclasses.dataclass
class SliceModel:
    b: int
    start: tuple
    end: tuple
    cells: list  # S(slice), logical cells in order

    @property
    def key(self):
        return (self.b, *self.start)


def slices(space, geo: Geo) -> list:
    """The slices of outer(space) (semantics §6)."""
    L = geo.lbox
    out = []
    lt = space.loop_tag
    for b in range(geo.nblocks):
        if lt is la.bvoi:
            out.append(SliceModel(b, L.decode(0), L.decode(L.size - 1), box_cells(L)))
        elif lt is la.bovi:
            n = chunk_len(space.ninner, L)
            nouter = -(-L.size // n)
            for o in range(nouter):
                lo, hi = o * n, min((o + 1) * n, L.size) - 1
                out.append(SliceModel(b, L.decode(lo), L.decode(hi), [L.decode(f) for f in range(lo, hi + 1)]))
        else:
            for p in box_cells(L):
                out.append(SliceModel(b, p, p, [p]))
    return out


def _union(spans):
    """Union of [s, e] spans appended in order, merged when they touch (semantics §7)."""
    merged = []
    for s, e in spans:
        if merged and s <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def spans(space, geo: Geo, sl: SliceModel, halo=la.halo.none):
    """The merged spans of a hierarchical range (semantics §7), with the indexer they are flat in."""
    offs = reduced(halo, geo.ndim)
    if space.inner_tag is la.memory:
        F, idx = (lambda q: mflat(geo, q)), None
    else:
        LI = grown(geo.lbox, offs)
        F, idx = (lambda q: LI.flat(*q)), LI
    return _union([(F(add(sl.start, h)), F(add(sl.end, h))) for h in offs]), idx


def visits(space, geo: Geo, sl: SliceModel, halo=la.halo.none) -> list:
    """Cells one ``inner`` call visits, in the raw backend's order (semantics §8 + PROPOSED rules)."""
    offs = reduced(halo, geo.ndim)
    lt, it = space.loop_tag, space.inner_tag
    if lt is la.boiv:
        return [add(sl.start, h) for h in offs]
    if lt is la.bvoi and it is not la.memory:
        return box_cells(grown(geo.lbox, offs))  # PROPOSED: Box_H on both backends
    if lt is la.bvoi:  # memory: pieces of the extended indexer, each a contiguous memory span
        LI = grown(geo.lbox, offs)
        n = chunk_len(space.ninner, LI)
        out = []
        for f in range(0, LI.size, n):
            m0, m1 = mflat(geo, LI.decode(f)), mflat(geo, LI.decode(min(f + n, LI.size) - 1))
            out += [mdecode(geo, m) for m in range(m0, m1 + 1)]
        return out
    sp, LI = spans(space, geo, sl, halo)
    dec = (lambda m: mdecode(geo, m)) if LI is None else LI.decode
    return [dec(f) for s, e in sp for f in range(s, e + 1)]


def box_h(geo: Geo, sl: SliceModel, halo) -> Indexer3D:
    """Box_H: the bounding box of S(slice) grown by H_r."""
    ks = [c[0] for c in sl.cells]
    js = [c[1] for c in sl.cells]
    is_ = [c[2] for c in sl.cells]
    return grown(Indexer3D(min(ks), max(ks), min(js), max(js), min(is_), max(is_)), reduced(halo, geo.ndim))


def s_h(geo: Geo, sl: SliceModel, halo) -> set:
    return {add(p, h) for p in sl.cells for h in reduced(halo, geo.ndim)}


def arg(space, geo: Geo, sl: SliceModel, q) -> tuple:
    """arg(q) (semantics §8) as a tuple: flat -> (m,), coords -> (k, j, i), boiv flat -> (dk, dj, di, flat)."""
    lt, it = space.loop_tag, space.inner_tag
    if it is la.logical_coords:
        return tuple(q)
    if lt is la.boiv:
        h = tuple(a - b for a, b in zip(q, sl.start))
        return (*h, space.get_memory_offset(*h))
    return (mflat(geo, q) - mflat(geo, sl.start),)


def scratch_span(space, geo: Geo, sl: SliceModel, halo) -> tuple:
    """(scratch_flat_start, ScratchSize) of a hierarchical slice (semantics §9, PROPOSED bvoi rule)."""
    offs = reduced(halo, geo.ndim)
    if space.loop_tag is la.bvoi:
        box = grown(geo.lbox, offs)
        lo, hi = mflat(geo, box.decode(0)), mflat(geo, box.decode(box.size - 1))
    else:
        lo = min(mflat(geo, add(sl.start, h)) for h in offs)
        hi = max(mflat(geo, add(sl.end, h)) for h in offs)
    return lo, hi - lo + 1


def halo_fits(geo: Geo, halo) -> bool:
    """Box_H of the whole logical box inside M (the launch-time check, semantics §13)."""
    box = grown(geo.lbox, reduced(halo, geo.ndim))
    return box.ks >= 0 and box.js >= 0 and box.is_ >= 0 and box.ke < geo.M[0] and box.je < geo.M[1] and \
        box.ie < geo.M[2]


def logical_mask(geo: Geo) -> np.ndarray:
    m = np.zeros(geo.M, dtype=np.int32)
    ks, ke, js, je, is_, ie = geo.L
    m[ks:ke + 1, js:je + 1, is_:ie + 1] = 1
    return m


def count_array(geo: Geo, cells_by_block) -> np.ndarray:
    """A (nblocks, NK, NJ, NI) visit count from {b: iterable of cells}."""
    out = np.zeros(geo.shape, dtype=np.int64)
    for b, cells in cells_by_block.items():
        for q in cells:
            out[(b, *q)] += 1
    return out


def all_offsets(r=1):
    return list(itertools.product(range(-r, r + 1), repeat=3))


# -- halos used by the tests ------------------------------------------------------------------------------
H = la.halo
MINUS_ALL = H.make([(-1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 0)])
PLUS_ALL = H.make([(0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)])
FACES = H.make([(-1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)])
DIAG = H.make([(-1, -1, -1), (0, -1, -1), (0, 0, -1), (0, 0, 0)])
CUBE = H.make(sorted(itertools.product((-1, 0, 1), repeat=3)))
WIDE_I = H.make([(0, 0, -2), (0, 0, -1), (0, 0, 0)])
GAP_J = H.make([(0, -2, 0), (0, 0, 0), (0, 1, 0)])  # single axis, not contiguous
SINGLE_AXIS = [H.none, H.minus_i, H.plus_i, H.minus_j, H.plus_j, H.minus_k, H.plus_k, H.pm_i, H.pm_j, H.pm_k, WIDE_I]
MULTI_AXIS = [MINUS_ALL, PLUS_ALL, FACES, DIAG, CUBE]
ALL_HALOS = SINGLE_AXIS + [GAP_J] + MULTI_AXIS


def contiguous_single_axis(halo) -> bool:
    """Offsets along one axis only, forming a contiguous run (then S_H is a box for bvoi)."""
    axes = {d for h in halo.offsets for d in range(3) if h[d] != 0}
    if len(axes) > 1:
        return False
    if not axes:
        return True
    d = axes.pop()
    vals = sorted(h[d] for h in halo.offsets)
    return vals == list(range(vals[0], vals[-1] + 1))


# -- compile-time configuration and geometries sharing it ----------------------------------------------------
CHUNK_OF_KIND = {"1": "count", "N-1": "count", "N": "count", "N+1": "count", "i_pencil": "i_pencil",
                 "ij_slab": "ij_slab", "kji_cube": "kji_cube"}


@st.composite
def geometries_for(draw, ndim: int, count: int, **kw):
    """``count`` geometries of one ndim (runtime values: they share one compiled body)."""
    if ndim == 3:
        g = st.one_of(box_geometries(**kw), mesh_geometries(ndims=(3,), **kw))
    else:
        g = mesh_geometries(ndims=(ndim,), **kw)
    return draw(st.lists(g, min_size=count, max_size=count))


def kinds_for(chunk: str) -> list:
    return [k for k, c in CHUNK_OF_KIND.items() if c == chunk]
