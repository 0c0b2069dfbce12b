"""Compile-time tags of the loop abstraction: loop tags, inner tags, backends, chunk shapes."""

from __future__ import annotations


class Tag:
    """A named compile-time choice (compared by identity, part of instance keys by name)."""

    def __init__(self, kind: str, name: str, doc: str):
        self.kind = kind
        self.name = name
        self.__doc__ = doc

    def __repr__(self):
        return f"la.{self.name}"


bvoi = Tag("loop", "bvoi", "block, var, outer, inner: one slice per block; inner walks the block.")
bovi = Tag("loop", "bovi", "block, outer, var, inner: one slice per (block, chunk of ninner cells).")
boiv = Tag("loop", "boiv", "block, outer, inner, var: one slice per logical cell.")
LOOP_TAGS = (bvoi, bovi, boiv)

logical_flat = Tag("inner", "logical_flat", "each logical cell once; the body gets a flat int index.")
logical_coords = Tag("inner", "logical_coords", "each logical cell once; the body gets (k, j, i).")
memory = Tag("inner", "memory", "contiguous memory spans, ghosts inside a span included.")
INNER_TAGS = (logical_flat, logical_coords, memory)

raw = Tag("backend", "raw", "host loop nests with simd inner loops, one thread per slice.")
team = Tag("backend", "team", "hierarchical teams: OpenMP teams on the CPU (CUDA blocks on GPUs).")
BACKENDS = (raw, team)

i_pencil = Tag("chunk", "i_pencil", "ninner = ni")
ij_slab = Tag("chunk", "ij_slab", "ninner = ni * nj")
kji_cube = Tag("chunk", "kji_cube", "ninner = ni * nj * nk")
CHUNK_SHAPES = (i_pencil, ij_slab, kji_cube)


def check(tag, kind: str, what: str):
    if not isinstance(tag, Tag) or tag.kind != kind:
        raise TypeError(f"{what} must be one of la.{', la.'.join(t.name for t in _ALL[kind])}, got {tag!r}")
    return tag


_ALL = {"loop": LOOP_TAGS, "inner": INNER_TAGS, "backend": BACKENDS, "chunk": CHUNK_SHAPES}
