"""Independent numpy references for the mesh tests.

A field of the whole mesh is one global array per topological element; its ghost-filled version is
built by padding it one direction at a time with ``np.pad`` (``wrap`` = periodic, ``edge`` =
outflow, ``symmetric`` = reflecting for cell-centred data, ``reflect`` = reflecting for data on
faces/nodes of that direction), then negating the flipped components in the new ghost slabs. Every
block's ``entire`` window of that padded array is what the block must hold after ``fill_ghosts``.

Nothing here uses the exchange code; index windows are derived from first principles:
block ``lx`` of ``n`` cells starts at global cell ``lx * n``; with ``ng`` ghosts and element
offset ``off`` its window is ``ng + n + off + ng`` long.
"""

from __future__ import annotations

import numpy as np

# offsets of each element in (x1, x2, x3), written out from docs/reference/loop_abstraction_semantics.md §2,
# not taken from the library
ELEMENT_OFFSETS = {
    "CC": (0, 0, 0),
    "F1": (1, 0, 0),
    "F2": (0, 1, 0),
    "F3": (0, 0, 1),
    "E1": (0, 1, 1),
    "E2": (1, 0, 1),
    "E3": (1, 1, 0),
    "NN": (1, 1, 1),
}


def _axis(d: int) -> int:
    """Array axis of direction d in a (slot, k, j, i) array."""
    return 4 - d


def padded_reference(rng, nx, ndim, ng, offsets, kinds, nslots, flips):
    """A random global element array, padded as the mesh's boundary conditions prescribe.

    nx: cells per direction (x1, x2, x3); offsets: element offsets (x1, x2, x3), used only in
    active directions; kinds[d-1] = (lower, upper) with values 'periodic', 'outflow',
    'reflecting'; flips[d-1] = set of slots negated at reflecting walls of direction d.
    Returns the padded array (nslots, K, J, I).
    """
    active = [d <= ndim for d in (1, 2, 3)]
    size = []
    for d in (3, 2, 1):
        if not active[d - 1]:
            size.append(1)
        elif kinds[d - 1][0] == "periodic":
            size.append(nx[d - 1])  # the face at N is the face at 0
        else:
            size.append(nx[d - 1] + offsets[d - 1])
    g = rng.standard_normal((nslots, *size))
    for d in (1, 2, 3):
        if not active[d - 1]:
            continue
        ax = _axis(d)
        off = offsets[d - 1]
        lo, hi = kinds[d - 1]

        def pw(a, b, ax=ax):
            w = [(0, 0)] * 4
            w[ax] = (a, b)
            return w

        if lo == "periodic":
            g = np.pad(g, pw(ng, ng + off), mode="wrap")
            continue
        for side, kind in (("lo", lo), ("hi", hi)):
            mode = {"outflow": "edge", "reflecting": "symmetric" if off == 0 else "reflect"}[kind]
            g = np.pad(g, pw(ng, 0) if side == "lo" else pw(0, ng), mode=mode)
            if kind == "reflecting":
                sl = [slice(None)] * 4
                sl[ax] = slice(0, ng) if side == "lo" else slice(g.shape[ax] - ng, None)
                for slot in flips[d - 1]:
                    g[(slot, *sl[1:])] *= -1
    return g


def block_window(padded, location, block_nx, ndim, ng, offsets, extents):
    """The part of the padded array that block ``location`` stores (clipped to ``extents``)."""
    sl = []
    for d, ext in zip((3, 2, 1), extents):
        if d > ndim:
            sl.append(slice(0, 1))
            continue
        n = block_nx[d - 1]
        start = location[d - 1] * n
        length = min(ext, n + 2 * ng + offsets[d - 1])
        sl.append(slice(start, start + length))
    return padded[(slice(None), *sl)]


def interior_mask(block_nx, ndim, ng, offsets, extents):
    """Boolean (k, j, i) mask of the element's interior indices inside the stored extents."""
    mask = np.zeros(extents, dtype=bool)
    sl = []
    for d, ext in zip((3, 2, 1), extents):
        if d > ndim:
            sl.append(slice(0, 1))
        else:
            sl.append(slice(ng, min(ext, ng + block_nx[d - 1] + offsets[d - 1])))
    mask[tuple(sl)] = True
    return mask


def kinds_of(mesh):
    """(lower, upper) boundary kind names per direction of a mesh."""
    out = []
    for d in (1, 2, 3):
        if d > mesh.ndim:
            out.append(("periodic", "periodic"))
            continue
        lo = mesh.boundaries[2 * d].kind.value
        hi = mesh.boundaries[2 * d + 1].kind.value
        out.append((lo, hi))
    return out


def setup_field(mesh, name, element_names, ncomp, flips, rng, garbage=np.nan):
    """Fill a field's interiors from padded references; ghosts get ``garbage``.

    Returns the expected arrays per block, shape like ``mesh.data(name)``.
    """
    data = mesh.data(name)
    expected = np.empty_like(data)
    kinds = kinds_of(mesh)
    extents = data.shape[2:]
    for e, el in enumerate(element_names):
        offsets = ELEMENT_OFFSETS[el]
        slots = slice(e * ncomp, (e + 1) * ncomp)
        local_flips = [{s - e * ncomp for s in f if e * ncomp <= s < (e + 1) * ncomp} for f in flips]
        ref = padded_reference(rng, mesh.nx, mesh.ndim, mesh.nghost, offsets, kinds, ncomp, local_flips)
        mask = interior_mask(mesh.block_nx, mesh.ndim, mesh.nghost, offsets, extents)
        for block in mesh.blocks:
            win = block_window(ref, block.location, mesh.block_nx, mesh.ndim, mesh.nghost, offsets, extents)
            full = np.full((ncomp, *extents), garbage)
            full[(slice(None), *[slice(0, s) for s in win.shape[1:]])] = win
            expected[block.lid, slots] = full
            data[block.lid, slots] = np.where(mask, full, garbage)
    return expected
