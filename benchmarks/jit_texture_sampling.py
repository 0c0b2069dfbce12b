"""Compile cost and speed of texture sampling kernels and their gradients on the CPU.

    python benchmarks/jit_texture_sampling.py [--points 262144] [--repeat 15]

A fresh cache (a temporary BRICKWORK_CACHE_DIR, no precompiled header) for each run: prints the compiler's CPU
seconds (user + system of the child processes) for the forward and the backward kernel of a 2-D sample with a
lod over a mipmapped 2-channel texture, then the median launch time of each over ``--points`` points. Run it
with PYTHONPATH pointing at two revisions' src/, alternated, to compare them (note ``uptime``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time

import numpy as np


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1 << 18)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    os.environ["BRICKWORK_CACHE_DIR"] = tempfile.mkdtemp(prefix="bw-texture-bench-")
    os.environ["BRICKWORK_PCH"] = "0"
    import brickwork as wp

    @wp.kernel
    def sample2(t: wp.Texture2D, c: wp.array(dtype=wp.vec2), lod: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        v = wp.texture_sample(t, c[i], dtype=wp.vec2f, lod=lod[i])
        out[i] = v[0] * 2.0 + v[1]

    rng = np.random.default_rng(1)
    n = args.points
    tex = wp.Texture2D(rng.standard_normal((256, 256, 2)).astype(np.float32), num_mip_levels=0)
    c = wp.array(rng.uniform(-0.5, 1.5, (n, 2)).astype(np.float32), dtype=wp.vec2, requires_grad=True)
    lod = wp.array(rng.uniform(-0.5, 6.0, n).astype(np.float32), dtype=float, requires_grad=True)
    out = wp.zeros(n, dtype=float, requires_grad=True)
    seed = wp.ones(n, dtype=float)
    cpu = _children_cpu()
    wp.launch(sample2, dim=n, inputs=[tex, c, lod], outputs=[out])
    forward_cpu = _children_cpu() - cpu
    cpu = _children_cpu()
    wp.launch(sample2, dim=n, inputs=[tex, c, lod], outputs=[out], adj_inputs=[None, c.grad, lod.grad],
              adj_outputs=[seed], adjoint=True)
    backward_cpu = _children_cpu() - cpu

    def timed(**kw) -> tuple:
        wall, cpu = [], []
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            wp.launch(sample2, dim=n, inputs=[tex, c, lod], outputs=[out], **kw)
            wp.synchronize()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        return 1e3 * statistics.median(wall), 1e3 * min(cpu)

    forward = timed()
    backward = timed(adj_inputs=[None, c.grad, lod.grad], adj_outputs=[seed], adjoint=True)
    print(f"brickwork {os.path.dirname(wp.__file__)}")
    print(f"compile CPU s: forward {forward_cpu:.2f}, backward {backward_cpu:.2f}")
    print(f"launch ms ({n} points; wall: median of {args.repeat}, CPU of all threads: least): "
          f"forward {forward[0]:.1f} wall {forward[1]:.1f} CPU, backward {backward[0]:.1f} wall {backward[1]:.1f} CPU")
    print(f"checksum {float(np.sum(out.numpy())):.6g} {float(np.sum(c.grad.numpy())):.6g} "
          f"{float(np.sum(lod.grad.numpy())):.6g}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
