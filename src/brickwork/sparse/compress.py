"""``bsr_compress``: sort, merge and prune the blocks of a matrix whose storage was written by hand."""

from __future__ import annotations

from .layouts import check_topology, compact_like, install
from .matrix import BsrMatrix, check_storage


def bsr_compress(src: BsrMatrix, prune_numerical_zeros: bool = True, inplace: bool = False, topology=None,
                 structure_only: bool = False) -> BsrMatrix:
    """Rebuild ``src`` from its active blocks (padded rows: through ``row_counts``) and return it: columns
    sorted in each row, blocks of one column summed, columns outside ``[0, ncol)`` dropped, and zero-valued
    blocks dropped with ``prune_numerical_zeros``. ``topology="padded"`` keeps the row capacity.
    ``structure_only``: the columns only (values are not read and no longer match). ``inplace`` gives the same
    result (the rebuilt arrays may be new ones, as Warp allows)."""
    from .triplets import bsr_set_from_triplets

    if not isinstance(src, BsrMatrix):
        raise ValueError("bsr_compress() requires a concrete BsrMatrix")
    check_storage(src, "bsr_compress", "src")
    topology = check_topology(topology, ("compact", "padded"))
    if topology == "padded" and src.row_counts is None:
        from .layouts import padded_ready

        padded_ready(src)
    result = compact_like(src, src.nrow, src.ncol)
    n = src.nnz
    rows = src.uncompress_rows()
    values = None if structure_only else src.values[:n]
    bsr_set_from_triplets(result, rows, src.columns[:n], values,
                          prune_numerical_zeros=bool(prune_numerical_zeros) and not structure_only)
    install(src, result, topology, not structure_only)
    return src
