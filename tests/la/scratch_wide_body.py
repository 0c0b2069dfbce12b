"""Run by ``test_la_scratch_wide.py`` in a child process: an outer body whose per-point scratch pad has more
than 2**31 slots (rows of ``NX`` cells, 2**20 int8 components per cell), writing and reading the last
component of each cell. Prints the row it copied out as space-separated ints."""

import sys

import brickwork as wp
from brickwork import la

NX = int(sys.argv[1])
COMPONENTS = 2**20
out = wp.zeros((1, 1, 1, NX), dtype=wp.int8)


def last_component(rng, b):
    s = la.get_per_point_scratch(wp.int8, rng, dims=(COMPONENTS,))
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        s[COMPONENTS - 1, idx] = wp.int8(i % 100)
        out[b, k, j, i] = s[COMPONENTS - 1, idx]


# one block, one row: one slice, so one thread reserves the pad (it is touched at a page per component only)
space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, NX, 1, 1, 0, ninner=la.i_pencil)
la.outer(space, last_component)
print(" ".join(str(int(v)) for v in out.numpy().ravel()))
