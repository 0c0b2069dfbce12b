"""Launches of more dimensions than a kernel's ``tid()`` gives indices, as Warp runs them.

Warp keeps the first *n* extents of ``dim`` for a kernel that unpacks ``tid()`` into *n* indices (``i = wp.tid()``:
one) and repeats each of their points over the extents left over: with ``dim=(2, 3)``, ``i = wp.tid()`` is
0, 0, 0, 1, 1, 1. Such a launch runs the kernel's instance for that many dimensions (``Instance.ranked``: the
trailing indices exist and are never read), kept in the kernel's launch table under a key of its own; every other
launch keeps its instance and its path.
"""

from __future__ import annotations

import operator

from .. import config
from ..errors import LaunchError


class MoreExtents(LaunchError):
    """Raised by ``launch_grid.extents`` for a ``dim`` of more entries than the instance's ``tid()`` gives indices: the
    launch then runs the instance for that many (``ranked_entry``); its callers catch it (a ``LaunchError`` should
    one not)."""


#: The first part of a launch table key of an entry for a launch of more dimensions than tid() gives indices.
RANKED = object()


def rank_of(dim) -> int:
    """The entries of a launch's ``dim``: an integer's 1; 0 for what is neither (``extents`` refuses it)."""
    if type(dim) is tuple:
        return len(dim)
    try:
        operator.index(dim)
        return 1
    except TypeError:
        pass
    try:
        return len(dim)
    except TypeError:
        return 0


def ranked_entry(kernel, entry: tuple, dim, table_key, make) -> tuple:
    """``entry`` (instance, packer), or where ``dim`` has more entries (at most 4) than its instance's ``tid()``
    gives indices, the entry of the instance for that many: the one in the launch table, else
    ``make(key, rank)``'s (``launch_prepare.prepare``, which stores it under ``key``)."""
    rank = rank_of(dim)
    if rank <= entry[0].tid_dims or rank > 4:
        return entry
    key = (RANKED, rank, table_key)
    found = kernel.launch_table.get(key)
    if found is None or found[0].config_mode != config.mode or \
            isinstance(found[0].target, str) and found[0].target != config.target:
        found = make(key, rank)
    return found
