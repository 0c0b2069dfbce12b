"""Run under mpiexec with an empty BRICKWORK_CACHE_DIR: a new kernel is compiled by one rank only.

argv[1] is a number baked into the kernel, so the kernel is new to any cache. Rank 0 prints the
total number of compiler runs over all ranks, and the value every rank computed.
"""

import sys

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork.jit import compile as jit_compile

SCALE = float(sys.argv[1])


@wp.kernel
def scale(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(SCALE)


a = wp.array(np.arange(8.0), dtype=wp.float64)
wp.launch(scale, dim=8, inputs=[a])
world = C.world()
calls = world.allgather(jit_compile.compiler_calls)
values = world.allgather(float(a.numpy()[7]))
if world.Get_rank() == 0:
    print(f"compiler runs: {sum(calls)} values: {sorted(set(values))}", flush=True)
