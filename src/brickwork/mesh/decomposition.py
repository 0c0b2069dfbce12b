"""Which rank owns which block: contiguous pieces of a Morton (Z-order) curve through the blocks.

Blocks are ordered along the Morton curve of their lattice location (bits of ``lx1, lx2, lx3``
interleaved, x1 lowest), as Parthenon orders them; the curve is cut into ``nranks`` contiguous
pieces of (nearly) equal weight, so each rank owns a compact region and few faces cross ranks. With
equal weights (the default) the ranks' block counts differ by at most one.
Global block ids do not depend on the decomposition: they stay in lattice order.
"""

from __future__ import annotations

from collections.abc import Sequence


def morton_key(location: Sequence[int]) -> int:
    """Z-order index of a lattice location ``(lx1, lx2, lx3)``: bit b of lx_d goes to bit 3b + d - 1."""
    key = 0
    for d, x in enumerate(location):
        if x < 0:
            raise ValueError(f"lattice locations are non-negative, got {tuple(location)}")
        b = 0
        while x:
            key |= (x & 1) << (3 * b + d)
            x >>= 1
            b += 1
    return key


def assign_ranks(locations: Sequence[Sequence[int]], nranks: int,
                 weights: Sequence[float] | None = None) -> list[int]:
    """Owner rank of every block (in the order of ``locations``); each rank gets at least one block.

    ``weights`` (one positive number per block, default 1) is the hook for load balancing by cost.
    """
    n = len(locations)
    if not isinstance(nranks, int) or nranks < 1:
        raise ValueError(f"nranks must be a positive integer, got {nranks!r}")
    if nranks > n:
        raise ValueError(f"{nranks} ranks but only {n} blocks: every rank needs at least one block (use smaller "
                         f"blocks, mesh.block_nx, or fewer ranks)")
    if weights is None:
        weights = [1.0] * n
    if len(weights) != n or any(not w > 0 for w in weights):
        raise ValueError(f"weights must be {n} positive numbers, one per block")
    order = sorted(range(n), key=lambda g: morton_key(locations[g]))
    total = float(sum(weights))
    owner = [0] * n
    before = 0.0
    previous = 0
    for position, gid in enumerate(order):
        w = float(weights[gid])
        rank = int((before + 0.5 * w) * nranks / total)  # the piece that holds this block's midpoint
        # Contiguous pieces, none empty: never skip a rank, and leave one block for each rank after.
        rank = max(previous, min(rank, previous + 1, nranks - 1, position))
        rank = max(rank, nranks - (n - position))
        owner[gid] = previous = rank
        before += w
    return owner
