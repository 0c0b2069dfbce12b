"""The grid of a launch: a ``dim`` (an int, or a tuple of up to 4 ints) as four extents and their product,
checked against what a kernel's ``tid()`` (int32) and its count of points (int64) hold."""

from __future__ import annotations

import operator

from ..errors import LaunchArgumentError, LaunchError
from .launch_rank import MoreExtents

MAX_EXTENT = 2**31 - 1
MAX_POINTS = 2**63 - 1  # what the kernel's int64 count of the points holds


def launch_dims(dim, inst, kernel):
    """``(d0, d1, d2, d3, total)`` of a launch, or None when there is nothing to run."""
    if type(dim) is int and inst.tid_dims == 1:
        d0, d1, d2, d3, total = dim, 1, 1, 1, dim
    else:
        d0, d1, d2, d3, total = extents(dim, inst, kernel)
    if total > MAX_EXTENT and (type(dim) is int or inst.tid_dims == 1 or max(d0, d1, d2, d3) > MAX_EXTENT):
        raise LaunchError(f"launch of '{kernel.key}': each extent of dim must be below 2**31 (tid() is int32), "
                          f"got {dim!r}")
    if total <= 0:
        if total < 0 or min(d0, d1, d2, d3) < 0:
            raise LaunchArgumentError(f"launch of '{kernel.key}': dim must not be negative, got {dim!r}")
        return None
    return d0, d1, d2, d3, total


def extents(dim, inst, kernel):
    """``(d0, d1, d2, d3, total)`` of ``dim`` for ``inst``, the missing extents 1; raises ``MoreExtents`` for more
    entries than its ``tid()`` gives indices (``launch_dims`` checks the extents against int32)."""
    if type(dim) is not tuple:  # a tuple is never an integer: no exception to raise and catch (its cost)
        try:
            dim = (operator.index(dim),)  # an int, or an integer that is no Python int (numpy's: np.prod(shape))
        except TypeError:
            pass  # a sequence of extents
    try:
        dims = [operator.index(d) for d in dim]
    except (TypeError, ValueError):
        raise LaunchError(f"launch of '{kernel.key}': dim must be an int or a tuple of ints, got {dim!r}") from None
    if len(dims) > 4:
        raise LaunchError(f"launch of '{kernel.key}': dim has 1 to 4 entries, got {len(dims)}")
    if not dims:  # dim=(): the extent of a 0-d grid, one point, as in Warp
        dims = [1]
    total = 1
    bits = 0  # the extents or'ed: negative when one is (cheaper than min())
    for d in dims:
        total *= d
        bits |= d
    if bits < 0:  # an even count of negative extents, whose product is positive: (-2, -3) ran nothing, said nothing
        raise LaunchArgumentError(f"launch of '{kernel.key}': dim must not be negative, got {dim!r}")
    if total > MAX_POINTS:  # the kernel multiplies the extents in int64: 65536**4 wrapped to 0 and ran nothing
        raise LaunchError(f"launch of '{kernel.key}': dim {tuple(dims)} has {total} points, more than a launch "
                          f"counts (2**63 - 1)")
    if len(dims) > inst.tid_dims:  # the callers then launch the ranked instance (launch_rank.ranked_entry)
        raise MoreExtents(f"launch of '{kernel.key}': dim {dim!r} has more entries than tid() gives indices")
    if inst.tid_dims == 1:
        return total, 1, 1, 1, total
    # fewer entries: the missing extents are 1 and their indices 0, as in Warp (i, j = wp.tid() with dim=n)
    dims += [1] * (4 - len(dims))
    return dims[0], dims[1], dims[2], dims[3], total
