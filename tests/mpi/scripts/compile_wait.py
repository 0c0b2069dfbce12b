"""Two ranks launch one new kernel (argv[1] is baked into it) with the compile notices on at the first miss: rank 0
compiles it, rank 1 starts only once rank 0's claim on it is in the cache (so it waits for rank 0's build rather
than finding its entry). Each rank prints its compile notices (its stderr) and its compiler runs, then the value."""

import os
import sys
import time

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork import config
from brickwork.jit import compile as jit_compile
from brickwork.jit import notice

SCALE = float(sys.argv[1])
config.quiet = False  # the suite runs quiet
notice.AFTER = 0  # the notice at the first miss


@wp.kernel
def scale(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(SCALE)


world = C.world()
rank = world.Get_rank()
a = wp.array(np.arange(8.0), dtype=wp.float64)
claims = os.path.join(config.cache_dir, "claims")
world.Barrier()
if rank == 1:  # until rank 0 builds (its claim file is there) or has built (then this rank would not wait)
    deadline = time.monotonic() + 120
    while not (os.path.isdir(claims) and os.listdir(claims)) and time.monotonic() < deadline:
        time.sleep(0.001)
wp.launch(scale, dim=8, inputs=[a])
print(f"rank {rank}: compiler runs {jit_compile.compiler_calls}, a[7] = {a.numpy()[7]!r}", flush=True)
