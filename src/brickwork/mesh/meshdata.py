"""``MeshData``: a view of the mesh restricted to a set of local blocks.

Packs are built over a ``MeshData``; block ``b`` of a pack is ``md.blocks[b]``, stored at
``md.lids[b]`` on the storage's block axis. Bounds queries answer for block 0's ``IndexShape``
(all blocks of a uniform mesh share it).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .indexing import TE, IndexDomain, IndexRange, TopologicalElement
from .parthenon_names import AnswersParthenonNames


class MeshData(AnswersParthenonNames):
    """A set of local blocks of one mesh (all of them by default)."""

    def __init__(self, mesh, blocks: Iterable | None = None):
        self.mesh = mesh
        if blocks is None:
            lids = [b.lid for b in mesh.blocks]
        else:
            lids = [mesh._lid(b) for b in blocks]
        if not lids:
            raise ValueError("MeshData needs at least one block")
        if len(set(lids)) != len(lids):
            raise ValueError(f"MeshData: duplicate blocks in {lids}")
        self.lids = np.asarray(lids, dtype=np.int64)
        self.blocks = [mesh.blocks[lid] for lid in lids]
        self._packs: dict = {}

    def __repr__(self) -> str:
        return f"MeshData(nblocks={self.nblocks}, lids={self.lids.tolist()})"

    @property
    def nblocks(self) -> int:
        """Number of blocks in this set."""
        return len(self.blocks)

    @property
    def ndim(self) -> int:
        """Dimension of the mesh."""
        return self.mesh.ndim

    @property
    def cellbounds(self):
        """The blocks' ``IndexShape``."""
        return self.mesh.cellbounds

    def get_bounds_i(
        self, domain: IndexDomain = IndexDomain.entire, te: TopologicalElement = TE.CC
    ) -> IndexRange:
        """Block 0's i bounds of ``domain`` for element ``te``."""
        return self.cellbounds.get_bounds_i(domain, te)

    def get_bounds_j(
        self, domain: IndexDomain = IndexDomain.entire, te: TopologicalElement = TE.CC
    ) -> IndexRange:
        """Block 0's j bounds of ``domain`` for element ``te``."""
        return self.cellbounds.get_bounds_j(domain, te)

    def get_bounds_k(
        self, domain: IndexDomain = IndexDomain.entire, te: TopologicalElement = TE.CC
    ) -> IndexRange:
        """Block 0's k bounds of ``domain`` for element ``te``."""
        return self.cellbounds.get_bounds_k(domain, te)

    def get_pack(self, descriptor):
        """``descriptor.get_pack(self)``: the pack of the descriptor's variables over these blocks."""
        return descriptor.get_pack(self)
