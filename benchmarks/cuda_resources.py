"""Registers, spills, stack and shared memory of the CUDA benchmark kernels, as ptxas reports them, without a GPU.

    python benchmarks/cuda_resources.py [--markdown FILE] [--only CASE ...]

Needs NVRTC (the ``cuda`` extra) and the tests' stand-in driver (``tests/runtime/cuda_fake.py``). Each case of
``bench_cuda.py`` runs on ``cuda:0`` of the stand-in (sm_90; ``BRICKWORK_CUDA_ARCH`` for another): launches are
recorded, not run, and each launch's kernel is the one a GPU would load, built through the kernel cache with
ptxas's report (``targets/cuda/resources.py``). A row is one kernel entry a case launched: its registers per
thread, spill stores and loads (bytes per thread), stack frame (bytes per thread), shared memory per block (the
static, and the dynamic of its first launch: the scratch arena), the block it ran with and its resident blocks
per SM (``cuda_step_model.blocks_per_sm``: sm_90's limits of registers, threads, blocks and shared memory; the
arena of a ``bw_entry_global`` row is in global memory). No timings.

Cases: saxpy and the 7-point Laplacian (``lang_kernels.py``), la recon+flux with the two tag pairs of the
benchmark (``la_cases.py``; 16^3 cells in 8^3 blocks: the kernels are those of the 256^3 case), the hydro
Kelvin-Helmholtz step in 256^2 mesh blocks (its fused stage kernels, the ghost copies and the time step's fold:
``bench_hydro.py``) and in 32^2 blocks (the short-row teams).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # runtime.cuda_fake

import numpy as np  # noqa: E402


def saxpy_laplacian() -> None:
    import lang_kernels

    import brickwork as wp

    ks = lang_kernels.make_kernels(wp)
    x, y = (wp.zeros(1024, dtype=wp.float32, device="cuda:0") for _ in range(2))
    wp.launch(ks.saxpy_f32, dim=1024, inputs=[x, y, 2.0], device="cuda:0")
    a, out = (wp.zeros((16, 16, 64), dtype=wp.float32, device="cuda:0") for _ in range(2))
    wp.launch(ks.laplacian3d_f32, dim=a.shape, inputs=[a, out], device="cuda:0")


def recon_flux(loop_tag: str, inner_tag: str):
    def run() -> None:
        import la_cases

        import brickwork as wp

        q = np.random.default_rng(0).random((8, 12, 12, 12))
        with wp.ScopedDevice("cuda:0"):
            la_cases.la_recon_flux(SimpleNamespace(wp=wp), q, 16, 8, loop_tag, inner_tag, device="cuda:0")[0]()
    return run


def hydro_step(n: int, block: int):
    def run() -> None:
        import bench_hydro

        from brickwork import la

        sim = bench_hydro.make_hydro(n, block, "auto", "cuda:0")
        kernels = sim.kernels

        def min_dt() -> float:
            # the stand-in runs no kernel, so the fold's value is only what the readback gives: in the whole suite
            # it was not the stand-in's rate (cause not found; alone it was). Launch the rate fold a step launches,
            # then take a unit step whatever was read
            la.outer_reduce(kernels.dt_space, kernels._rate_body)
            return 1.0

        kernels.min_dt = min_dt
        sim.step(sim.check())
    return run


#: case name -> what it runs on the stand-in's cuda:0
CASES = {
    "saxpy, laplacian": saxpy_laplacian,
    "recon+flux bovi+logical_flat": recon_flux("bovi", "logical_flat"),
    "recon+flux bvoi+memory": recon_flux("bvoi", "memory"),
    "hydro step 256^2 blocks": hydro_step(512, 256),
    "hydro step 32^2 blocks": hydro_step(64, 32),
}


@contextlib.contextmanager
def stand_in_launches():
    """The tests' stand-in driver in place of CUDA's for a block (cuda:0, sm_90): yields ``(driver, entries)``,
    where ``entries[i]`` is the ``CudaEntry`` that made ``driver.launches[i]``. The time step's fold reads back a
    normal rate (the kernels do not run: a zero would be a vanishing time step)."""
    from brickwork.targets.cuda.loader import CudaEntry
    from runtime.cuda_fake import FakeDriver, installed

    class RateDriver(FakeDriver):
        def copy_to_host(self, ordinal, dst_host, src, nbytes):
            super().copy_to_host(ordinal, dst_host, src, nbytes)
            if nbytes == 8:
                ctypes.memmove(dst_host, struct.pack("<d", -1.0), 8)

    entries, original = [], CudaEntry.launch

    def noting(self, *args, **kwargs):
        entries.append(self)
        return original(self, *args, **kwargs)

    CudaEntry.launch = noting
    try:
        with installed(RateDriver()) as drv:
            yield drv, entries
    finally:
        CudaEntry.launch = original


def launched(run) -> list[tuple[str, str, tuple, int, object]]:
    """``(kernel label, entry, block, dynamic shared bytes, KernelResources)`` of each kernel ``run()`` launches
    on the stand-in's cuda:0, in the order of their first launch: each entry of its cubin (``bw_entry``, and
    ``bw_entry_global`` for a kernel whose arena may not fit in shared memory), with its first launch's block
    and dynamic shared memory (none for ``bw_entry_global``)."""
    from brickwork.targets.cuda import GLOBAL_ENTRY_SYMBOL

    with stand_in_launches() as (drv, entries):
        run()
        recorded = list(zip(entries, drv.launches, drv.launch_memory, strict=True))
    rows = []
    for entry, (_, _, _, block, _), (shared, _) in recorded:
        block = tuple(int(b) for b in np.atleast_1d(block))
        # the global entry's arena is the global buffer: no dynamic shared memory
        for row in [(entry.label, name, block, 0 if name == GLOBAL_ENTRY_SYMBOL else shared, r)
                    for name, r in entry.resources.items()] or [(entry.label, "bw_entry", block, shared, None)]:
            if row not in rows:  # two instances of one kernel (another key, the same code) are one row
                rows.append(row)
    return rows


def table(cases: dict) -> tuple[str, dict]:
    """The markdown table of every case's kernels, and case -> its rows (``launched``)."""
    from cuda_step_model import blocks_per_sm

    from brickwork.jit import nvrtc

    found = {case: launched(run) for case, run in cases.items()}
    lines = [f"ptxas resources per kernel entry (`python benchmarks/cuda_resources.py`; NVRTC "
             f"{'.'.join(map(str, nvrtc.version()))}, sm_90, the stand-in driver)", "",
             "| case | kernel | entry | block | registers | spill stores, loads (B) | stack frame (B) | "
             "shared: static, dynamic (B) | blocks/SM |", "|---|---|---|---|---|---|---|---|---|"]
    for case, rows in found.items():
        for label, entry, block, shared, r in rows:
            threads = int(np.prod(block))
            if r is None:
                lines.append(f"| {case} | {label} | {entry} | {threads} | (no report) | | | | |")
                continue
            resident = blocks_per_sm(r.registers, threads, r.shared + shared)
            lines.append(f"| {case} | {label} | {entry} | {threads} | {r.registers} | {r.spill_stores}, "
                         f"{r.spill_loads} | {r.stack_frame} | {r.shared}, {shared} | {resident} |")
    return "\n".join(lines) + "\n", found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), metavar="CASE",
                        help=f"only these cases (of: {', '.join(CASES)})")
    args = parser.parse_args(argv)
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        raise SystemExit("cuda_resources: NVRTC is not installed (pip install 'brickwork[cuda]')")
    text, _ = table({c: CASES[c] for c in args.only} if args.only else CASES)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
