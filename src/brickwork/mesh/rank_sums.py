"""``Mesh.sum_over_ranks``: an array that every rank holds a part of, added up over the ranks in place.

The gradient of a parameter that every rank's kernels read (a plain ``wp.array``, not a mesh field) is
such a sum: each rank's backward pass runs over its own blocks and gives the part of the loss's gradient
those blocks contribute, so an optimizer step on it alone would move each rank's copy of the parameter
differently. The parts are added in rank order, so every rank gets the same bits.
"""

from __future__ import annotations

import numpy as np

from ..same_on_ranks import check_same

WHAT = "sum_over_ranks"


def _host_values(values):
    """``(numpy array to read and write, write-back or None)`` for a numpy array or a brickwork array (a
    device array is copied to the host and back)."""
    if isinstance(values, np.ndarray):
        return values, None
    to_numpy = getattr(values, "numpy", None)
    if to_numpy is None or not hasattr(values, "dtype") or not hasattr(values, "shape"):
        raise TypeError(f"{WHAT}: takes a wp.array or a numpy array, got {type(values).__name__}")
    host = to_numpy()  # on the CPU a view of the array's memory, on a device a copy
    if getattr(getattr(values, "device", None), "is_cuda", False):
        return host, lambda: values.assign(host)
    return host, None


def sum_over_ranks(mesh, values) -> None:
    """Replace ``values`` on every rank of ``mesh`` with the sum of every rank's ``values`` (see
    ``Mesh.sum_over_ranks``)."""
    host, write_back = _host_values(values)
    if host.dtype.kind not in "iufc":
        raise TypeError(f"{WHAT}: adds numbers, got an array of {host.dtype}")
    comm = mesh._halo_comm
    check_same(comm, WHAT, {"shape": host.shape, "dtype": str(host.dtype)},
               hint="every rank calls mesh.sum_over_ranks with an array of one shape and dtype (it is collective)")
    if comm.Get_size() == 1:
        return
    parts = comm.allgather(np.ascontiguousarray(host))
    total = parts[0].copy()
    for part in parts[1:]:  # in rank order: the same bits on every rank
        total += part
    host[...] = total
    if write_back is not None:
        write_back()
