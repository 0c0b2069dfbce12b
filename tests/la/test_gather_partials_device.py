"""``la.outer_reduce``'s gather of block partials into global block order writes its device buffer: on a
CUDA device ``numpy()`` is a host copy, and a write into it was lost (a reduction over blocks out of order,
or over several ranks, folded whatever the buffer held before)."""

import importlib

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import Mesh, Metadata, Package

outer = importlib.import_module("brickwork.la.outer")  # the module: ``la.outer`` is the function


def test_partials_out_of_order_reach_the_device_buffer(fake_cuda):
    pkg = Package("gather")
    pkg.add_field("q", Metadata("Cell"))
    with wp.ScopedDevice("cpu"):
        mesh = Mesh((16, 16), (8, 8), nghost=1, packages=[pkg])  # 4 blocks
    space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, md=mesh.mesh_data(),
                          nblocks=4).with_reducer(la.Sum(wp.float64))
    values = np.array([1.5, 2.5, 3.5, 4.5])
    per_block = wp.array(values, dtype=wp.float64, device="cuda:0")
    made = {}

    def buffer(name, n):
        made[name] = wp.zeros(n, dtype=wp.float64, device="cuda:0")
        return made[name]

    gathered = outer._gather_block_partials(space, per_block, [3, 2, 1, 0], buffer)
    assert gathered is made["gathered"]
    np.testing.assert_array_equal(gathered.numpy(), values[::-1])  # slot b holds block b's partial
    np.testing.assert_array_equal(per_block.numpy(), values)  # the partials themselves untouched
