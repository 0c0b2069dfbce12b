"""The CUDA rows (needs an NVIDIA GPU): brickwork on cuda:0 beside hand-written CUDA and, when
warp-lang is installed, Warp's CUDA backend, in one run; every row's values are checked.

    python benchmarks/bench_cuda.py [--quick] [--reps 7] [--dry-run-on-cpu]

* saxpy 1e8 float32: GB/s (12 bytes per element) against the memory's theoretical peak (memory
  clock and bus width from the driver) and a device-to-device copy of the same bytes;
* 7-point Laplacian 512^3 float32 (benchmarks/lang_kernels.py's kernel): brickwork, Warp, and
  ``benchmarks/cuda/kernels.cu``;
* la recon+flux (PLM + HLL, 256^3 cells in 32^3 blocks, float64; benchmarks/la_cases.py's kernel on
  a device mesh, two tag pairs) against ``cuda/kernels.cu``'s one-thread-per-face kernel;
* the hydro step (2-D Kelvin-Helmholtz 2048^2 in 256^2 blocks, PLM/MC + HLLC + SSP-RK2, float64;
  ``[hydro] device = "cuda"``) against ``cuda/hydro_kh.cu``, a port of benchmarks/c/hydro_kh.cpp;
* the hydro mesh's ghost exchange alone (5 float64 fields; the box copies of mesh/copies.py), a ghost fill with
  hydrostatic x2 walls (their kernels, and as plain functions: a host copy per field and side) and
  ``la.outer_reduce`` Max and Sum of a field of the hydro's size by rows (the time step's shape: the fold of
  the row partials, la/device_fold.py), each checked against the CPU or numpy;
* launch overhead: a one-thread launch, brickwork and Warp; the replay of a captured graph of 100 such
  launches, per launch: as a CUDA graph (brickwork, Warp) and launch by launch (brickwork's replay of a
  graph with anything but CUDA launches and device writes); the same for a graph of 50 fills, launches
  and device copies, per node (the fills and copies memset and memcpy nodes of the CUDA graph).

Times are medians of ``--reps`` batches of 5 calls, each batch ending with a synchronize (what a
user waits for). The targets are the CUDA issue's: saxpy >= 80 % of the peak, the Laplacian at
least Warp's speed, recon+flux and the hydro step >= 0.8x the hand-written CUDA, launch overhead
at most Warp's. The hand-written references are checked against numpy and the C++ references on
the CPU by tests/benchmarks/test_cuda_peers.py. Without a GPU the script says so and exits with 0;
``--dry-run-on-cpu`` runs every row on tiny problems on the CPU, the references through
``cuda/host_shim.h`` (a check of the script itself, which the tests run; its times mean nothing).
On a GPU, after the table, the recon+flux and hydro rows are broken down by kernel: the device time of
each kernel brickwork and the hand-written code launch in a step (``cuda_kernel_times.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

import cuda_peers  # noqa: E402
from cuda_kernel_times import HandTimes, KernelTimes, breakdown  # noqa: E402

import brickwork as wp  # noqa: E402
from brickwork import la  # noqa: E402

SIZES = {  # saxpy n, Laplacian edge, recon cells and block, hydro n and block
    "full": (10**8, 512, (256, 32), (2048, 256)),
    "quick": (10**6, 128, (64, 16), (256, 64)),
    "dry": (10**4, 16, (16, 8), (16, 8)),
}


def _timed(run, reps: int, sync) -> float:
    """Median seconds per call over ``reps`` batches of 5 calls, each batch ending with ``sync()``."""
    run()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(5):
            run()
        sync()
        times.append((time.perf_counter() - t0) / 5)
    return statistics.median(times)


class Table:
    def __init__(self):
        self.rows: list[tuple] = []
        self.failed: list[str] = []
        self.notes: list[str] = []  # per-kernel breakdowns, printed after the table

    def add(self, case: str, code: str, seconds: float, rate: str = "", vs: str = "", verdict: str = ""):
        self.rows.append((case, code, f"{seconds * 1e3:.3f}", rate, vs, verdict))

    def check(self, what: str, ok: bool, detail: str) -> None:
        if not ok:
            self.failed.append(f"{what}: {detail}")

    def print(self) -> None:
        print("| case | code | ms | rate | ratio | target |")
        print("|---|---|---|---|---|---|")
        for row in self.rows:
            print("| " + " | ".join(row) + " |")
        for line in self.failed:
            print(f"CHECK FAILED {line}")
        if self.notes:
            print()
            print("\n".join(self.notes))


BREAKDOWN_STEPS = 5


def breakdowns(t: Table, title: str, runner, ours, hand) -> None:
    """On a GPU: ``t.notes`` gets the device time of each kernel of ``ours()`` and ``hand()`` (one step
    each, run ``BREAKDOWN_STEPS`` times, after the timed rows: the events cost a little)."""
    if isinstance(runner, cuda_peers.HostRunner):
        return  # the dry run: no device events
    try:  # a breakdown that fails is reported; the rows measured before it still print
        with KernelTimes() as times:
            for _ in range(BREAKDOWN_STEPS):
                ours()
        t.notes += breakdown(f"{title}: brickwork", times.totals(), BREAKDOWN_STEPS, times.host_waits)
        with HandTimes(runner) as theirs:
            for _ in range(BREAKDOWN_STEPS):
                hand()
        t.notes += breakdown(f"{title}: hand CUDA", theirs.totals(), BREAKDOWN_STEPS)
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        t.notes.append(f"{title}: the per-kernel breakdown failed: {type(e).__name__}: {e}")


def _verdict(ratio: float, target: float) -> str:
    return f">= {target:g}x: {'met' if ratio >= target else 'NOT met'}"


def saxpy_rows(t: Table, runner, dev: str, n: int, reps: int) -> None:
    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    x = wp.full(n, 1.0, dtype=wp.float32, device=dev)
    y = wp.full(n, 2.0, dtype=wp.float32, device=dev)
    secs = _timed(lambda: wp.launch(saxpy, dim=n, inputs=[0.0, x, y], device=dev), reps, wp.synchronize)
    t.check("saxpy", bool(np.all(y.numpy()[:: max(n // 1000, 1)] == 2.0)), "y changed")
    peak = runner.peak_bandwidth()
    copy = _timed(lambda: runner.copy(y.ptr, x.ptr, 4 * n), reps, runner.sync)
    rate = 12 * n / secs
    if peak is None:  # the dry run: no device
        t.add(f"saxpy {n:.0e} f32", "brickwork", secs, f"{rate / 1e9:.0f} GB/s", "peak: no device")
        return
    t.add(f"saxpy {n:.0e} f32", "brickwork", secs, f"{rate / 1e9:.0f} GB/s",
          f"{rate / peak:.2f} of peak {peak / 1e9:.0f} GB/s", _verdict(rate / peak, 0.8))
    t.add(f"device copy {4 * n / 1e6:.0f} MB", "cuMemcpyDtoD", copy, f"{8 * n / copy / 1e9:.0f} GB/s",
          f"{8 * n / copy / peak:.2f} of peak")


def laplacian_rows(t: Table, runner, warp, dev: str, size: int, reps: int) -> None:
    from lang_kernels import make_kernels

    shape = (size,) * 3
    host = np.random.default_rng(0).random(shape, dtype=np.float32)
    a, out = wp.array(host, device=dev), wp.zeros(shape, dtype=wp.float32, device=dev)
    k = make_kernels(wp).laplacian3d_f32
    ours = _timed(lambda: wp.launch(k, dim=shape, inputs=[a, out], device=dev), reps, wp.synchronize)
    mine = out.numpy()
    hand_out = runner.alloc(host.nbytes)
    runner.upload(hand_out, np.zeros_like(host))
    hand = _timed(cuda_peers.laplacian(runner, a.ptr, hand_out, shape), reps, runner.sync)
    theirs = runner.download(hand_out, np.empty_like(host))
    t.check("laplacian", np.allclose(mine, theirs, rtol=1e-5, atol=1e-5), "brickwork and the hand CUDA disagree")
    gb = 2 * host.nbytes / 1e9
    case = f"laplacian {size}^3 f32"
    t.add(case, "hand CUDA", hand, f"{gb / hand:.0f} GB/s")
    if warp is None:
        t.add(case, "brickwork", ours, f"{gb / ours:.0f} GB/s", f"{hand / ours:.2f}x of hand", "Warp: not installed")
        return
    wk = make_kernels(warp).laplacian3d_f32
    wa, wout = warp.array(host, device=dev), warp.zeros(shape, dtype=warp.float32, device=dev)
    theirs_w = _timed(lambda: warp.launch(wk, dim=shape, inputs=[wa, wout], device=dev), reps, warp.synchronize)
    t.check("laplacian", np.allclose(mine, wout.numpy(), rtol=1e-5, atol=1e-5), "brickwork and Warp disagree")
    t.add(case, "Warp", theirs_w, f"{gb / theirs_w:.0f} GB/s")
    t.add(case, "brickwork", ours, f"{gb / ours:.0f} GB/s", f"{theirs_w / ours:.2f}x of Warp",
          _verdict(theirs_w / ours, 1.0))


def recon_rows(t: Table, runner, dev: str, cells: int, block: int, reps: int) -> None:
    import la_cases

    m = block + 2 * la_cases.NGHOST
    nb = (cells // block) ** 3
    q = np.random.default_rng(12345).random((nb, m, m, m)) - 0.5
    want = la_cases.recon_flux_numpy(q)
    faces = la_cases._interior_faces(q.shape)
    pq, pf = runner.alloc(q.nbytes), runner.alloc(q.nbytes)
    runner.upload(pq, q)
    runner.upload(pf, np.zeros_like(q))
    hand_run = cuda_peers.recon_flux(runner, pq, pf, nb, m, la_cases.NGHOST, m**3)
    hand = _timed(hand_run, reps, runner.sync)
    theirs = runner.download(pf, np.empty_like(q))
    t.check("recon hand", np.allclose(theirs[faces], want[faces], rtol=1e-12, atol=1e-12), "hand CUDA vs numpy")
    case = f"la recon+flux {cells}^3/{block}^3 f64"
    t.add(case, "hand CUDA", hand, f"{2 * q.nbytes / hand / 1e9:.0f} GB/s")
    for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory")):
        with wp.ScopedDevice(dev):
            run, flux = la_cases.la_recon_flux(SimpleNamespace(wp=wp), q, cells, block, lt, it, device=dev)
            ours = _timed(run, reps, wp.synchronize)
            got = flux()
        t.check(f"recon {lt}+{it}", np.allclose(got[faces], want[faces], rtol=1e-12, atol=1e-12), "vs numpy")
        t.add(case, f"brickwork {lt}+{it}", ours, f"{2 * q.nbytes / ours / 1e9:.0f} GB/s",
              f"{hand / ours:.2f}x of hand", _verdict(hand / ours, 0.8))
        with wp.ScopedDevice(dev):
            breakdowns(t, f"{case} {lt}+{it}", runner, run, hand_run)


def _kh_step_rows(t: Table, runner, dev: str, n: int, block: int, reps: int, note: str = "") -> tuple:
    """The hand and brickwork rows of the KH step, n^2 in block^2 mesh blocks: (case, the HandKH, the Hydro)."""
    import bench_hydro

    kh = cuda_peers.HandKH(runner, n)
    sim = bench_hydro.make_hydro(n, block, stage="auto", device="cpu" if dev == "cpu" else "cuda")
    hand = _timed(kh.step, reps, runner.sync)
    ours = _timed(lambda: sim.step(sim.check()), reps, wp.synchronize)
    case = f"hydro KH {n}^2/{block}^2 step f64{note}"
    t.add(case, "hand CUDA", hand, f"{n * n / hand / 1e6:.0f} M zone-cycles/s")
    t.add(case, "brickwork", ours, f"{n * n / ours / 1e6:.0f} M zone-cycles/s", f"{hand / ours:.2f}x of hand",
          _verdict(hand / ours, 0.8))
    return case, kh, sim


def hydro_rows(t: Table, runner, dev: str, n: int, block: int, reps: int) -> None:
    import bench_hydro

    device = "cpu" if dev == "cpu" else "cuda"
    case, kh, sim = _kh_step_rows(t, runner, dev, n, block, reps)
    breakdowns(t, case, runner, lambda: sim.step(sim.check()), kh.step)
    # agreement: a few steps from the same start on a smaller grid
    small = min(n, 256)
    kh, sim = cuda_peers.HandKH(runner, small), bench_hydro.make_hydro(small, min(block, 64), "auto", device)
    for _ in range(5):
        kh.step()
        sim.step(sim.check())
    diff = float(np.abs(sim.to_global(sim.primitive("density"))[0] - kh.density()).max())
    t.check("hydro", diff <= 1e-10, f"max |density brickwork - hand CUDA| after 5 steps = {diff:.2e}")


def exchange_rows(t: Table, dev: str, n: int, block: int, reps: int) -> None:
    """The hydro mesh's ghost exchange alone: 5 float64 FillGhost fields, 2 ghosts, periodic (mesh/copies.py's
    box copies; on a GPU ``copy_elements``, one element per thread), checked against the same fill on the CPU."""
    from brickwork.mesh import Mesh, Metadata, Package

    pkg = Package("ghosts")
    names = [f"q{f}" for f in range(5)]
    for name in names:
        pkg.add_field(name, Metadata("Cell", "FillGhost"))
    ours, ref = (Mesh((n, n), (block, block), nghost=2, boundaries="periodic", packages=[pkg], device=d)
                 for d in (dev, "cpu"))
    rng = np.random.default_rng(0)
    for name in names:
        values = rng.standard_normal(ref.data(name).shape)
        ref.data(name)[...] = values
        if dev == "cpu":
            ours.data(name)[...] = values
        else:
            ours.data(name).assign(values)
    ref.fill_ghosts()
    seconds = _timed(ours.fill_ghosts, reps, wp.synchronize)
    ghost_bytes = 5 * (n // block) ** 2 * ((block + 4) ** 2 - block * block) * 8
    t.add(f"ghost exchange {n}^2/{block}^2 5 f64", "brickwork", seconds,
          f"{2 * ghost_bytes / seconds / 1e9:.0f} GB/s (ghosts read + written)")
    same = all(np.array_equal(np.asarray(ours.data(name)), ref.data(name)) for name in names)
    t.check("ghost exchange", same, "the device's ghosts differ from the CPU's fill")


def walls_rows(t: Table, dev: str, n: int, block: int, reps: int) -> None:
    """A ghost fill of the hydro's conserved fields (density, momentum, energy: 5 float64 components) with
    hydrostatic x2 walls (apps/hydro/hydrostatic.py): the walls' kernels (``fill_device``), against the same walls
    as plain boundary functions, which see a host copy of each field and copy it back per side; both checked
    against the CPU's fill, bit for bit."""
    from brickwork.apps.hydro import hydrostatic
    from brickwork.mesh import Mesh, Metadata, Package

    pkg = Package("gas")
    for name, shape in (("density", ()), ("momentum", (3,)), ("energy", ())):
        pkg.add_field(name, Metadata("Cell", "FillGhost", *(("Vector",) if shape else ())), shape=shape)
    walls = hydrostatic.walls(2, (0.0, -1.0), 1.4)
    plain = {side: (lambda block, view, where, field, wall=wall: wall(block, view, where, field))
             for side, wall in walls.items()}  # the same walls without fill_device: the host round trip
    meshes = {label: Mesh((n, n), (block, block), nghost=2, boundaries={"x1": "periodic", **b}, packages=[pkg],
                          device=d) for label, b, d in (("kernels", walls, dev), ("host copies", plain, dev),
                                                        ("cpu", walls, "cpu"))}
    rng = np.random.default_rng(1)
    for name in ("density", "momentum", "energy"):
        values = rng.uniform(0.5, 2.0, meshes["cpu"].data(name).shape)
        for mesh in meshes.values():
            mesh.data(name)[...] = values
    meshes["cpu"].fill_ghosts()
    for label in ("kernels", "host copies"):
        mesh = meshes[label]
        seconds = _timed(mesh.fill_ghosts, reps, wp.synchronize)
        t.add(f"ghost fill, hydrostatic x2 walls {n}^2/{block}^2", f"brickwork ({label})", seconds)
        same = all(np.array_equal(np.asarray(mesh.data(name)), meshes["cpu"].data(name))
                   for name in ("density", "momentum", "energy"))
        t.check(f"hydrostatic walls ({label})", same, "the device's ghosts differ from the CPU's fill")


_REDUCED = None  # the field la.outer_reduce's rows read (reduction_rows)


def _row_values(rng, b):
    la.inner_reduce(rng, lambda k, j, i: _REDUCED[b, k, j, i])


def reduction_rows(t: Table, dev: str, n: int, block: int, reps: int) -> None:
    """``la.outer_reduce`` Max and Sum of an n^2 float64 field in block^2 blocks by rows (``i_pencil``, as the
    hydro time step's): the slices' kernel, then the row partials folded, on a GPU by a team per row of
    partials (la/device_fold.py); the Max checked against numpy exactly, the Sum run to run to the bit."""
    global _REDUCED
    nb = (n // block) ** 2
    values = np.random.default_rng(1).standard_normal((nb, 1, block, block))
    with wp.ScopedDevice(dev):
        _REDUCED = wp.array(values, dtype=wp.float64)
        space = la.IndexSpace.box(la.bovi, la.logical_flat, nb, block, block, 1, 0, ninner=la.i_pencil,
                                  backend=la.team)
        for reducer, what in ((la.Max(wp.float64), "Max"), (la.Sum(wp.float64), "Sum")):
            rspace, out = space.with_reducer(reducer), wp.zeros(1, dtype=wp.float64)
            seconds = _timed(lambda s=rspace, o=out: la.outer_reduce(s, _row_values, out=o), reps, wp.synchronize)
            t.add(f"la outer_reduce {what} {n}^2/{block}^2 f64 rows", "brickwork", seconds,
                  f"{values.nbytes / seconds / 1e9:.0f} GB/s")
            got = [float(out.numpy()[0])]
            la.outer_reduce(rspace, _row_values, out=out)
            got.append(float(out.numpy()[0]))
            want = float(values.max()) if what == "Max" else float(values.sum())
            ok = got[0] == want if what == "Max" else got[0] == got[1] and abs(got[0] - want) <= 1e-9 * values.size
            t.check(f"la outer_reduce {what}", ok, f"got {got}, numpy {want!r}")


def overhead_rows(t: Table, warp, dev: str, reps: int) -> None:
    @wp.kernel
    def touch(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] + 1.0

    one = wp.zeros(1, device=dev)
    ours = _timed(lambda: wp.launch(touch, dim=1, inputs=[one], device=dev), reps, wp.synchronize)
    t.add("launch overhead (1 thread)", "brickwork", ours, f"{ours * 1e6:.2f} us")
    if warp is None:
        return

    @warp.kernel
    def wtouch(x: warp.array(dtype=float)):
        x[warp.tid()] = x[warp.tid()] + 1.0

    w1 = warp.zeros(1, dtype=float, device=dev)
    theirs = _timed(lambda: warp.launch(wtouch, dim=1, inputs=[w1], device=dev), reps, warp.synchronize)
    t.add("launch overhead (1 thread)", "Warp", theirs, f"{theirs * 1e6:.2f} us", f"{theirs / ours:.2f}x of Warp",
          _verdict(theirs / ours, 1.0))


def replay_rows(t: Table, warp, dev: str, reps: int, launches: int = 100) -> None:
    """A captured graph of ``launches`` one-thread launches replayed: seconds per launch, as a CUDA graph
    and launch by launch; each replay adds ``launches`` to x[0], checked."""

    @wp.kernel
    def add_one(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] + 1.0

    per_launch = {}
    for how in ("CUDA graph", "launch by launch"):
        x = wp.zeros(1, device=dev)
        with wp.ScopedCapture(device=dev) as capture:
            for _ in range(launches):
                wp.launch(add_one, dim=1, inputs=[x], device=dev)
        graph = capture.graph
        if how == "launch by launch":
            graph._cuda_graph = False  # the replay a graph with host writes or CPU launches keeps
        replays = [0]

        def replay(graph=graph, replays=replays):
            wp.capture_launch(graph)
            replays[0] += 1

        per_launch[how] = _timed(replay, reps, wp.synchronize) / launches
        got = float(x.numpy()[0])
        t.check(f"graph replay ({how})", got == launches * replays[0], f"x[0] = {got}, expected "
                f"{launches * replays[0]}")
    ours = per_launch["CUDA graph"]
    by_launch = per_launch["launch by launch"]
    t.add(f"graph replay, {launches} launches, per launch", "brickwork", ours, f"{ours * 1e6:.2f} us",
          f"{by_launch / ours:.1f}x faster than launch by launch")
    t.add(f"graph replay, {launches} launches, per launch", "brickwork launch by launch", by_launch,
          f"{by_launch * 1e6:.2f} us")
    if warp is None or dev == "cpu":
        return

    @warp.kernel
    def wadd_one(x: warp.array(dtype=float)):
        x[warp.tid()] = x[warp.tid()] + 1.0

    w1 = warp.zeros(1, dtype=float, device=dev)
    with warp.ScopedCapture(device=dev) as wcapture:
        for _ in range(launches):
            warp.launch(wadd_one, dim=1, inputs=[w1], device=dev)
    theirs = _timed(lambda: warp.capture_launch(wcapture.graph), reps, warp.synchronize) / launches
    t.add(f"graph replay, {launches} launches, per launch", "Warp", theirs, f"{theirs * 1e6:.2f} us",
          f"{theirs / ours:.2f}x of Warp", _verdict(theirs / ours, 1.0))


def replay_writes_rows(t: Table, warp, dev: str, reps: int, steps: int = 50) -> None:
    """A captured graph of ``steps`` times a fill, a one-thread launch and a one-element device copy (150
    nodes) replayed, per node: as one CUDA graph (the fills memset nodes, the copies memcpy nodes) and node
    by node; step k writes k + 1 into y[k], checked."""

    @wp.kernel
    def add_one(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] + 1.0

    def record(lib, kernel, x, y):
        for k in range(steps):
            x.fill_(float(k))
            lib.launch(kernel, dim=1, inputs=[x], device=dev)
            lib.copy(y, x, dest_offset=k, count=1)

    per_node = {}
    case = f"graph replay, {steps} x (fill, launch, copy), per node"
    for how in ("CUDA graph", "node by node"):
        x, y = wp.zeros(1, device=dev), wp.zeros(steps, device=dev)
        with wp.ScopedCapture(device=dev) as capture:
            record(wp, add_one, x, y)
        if how == "node by node":
            capture.graph._cuda_graph = False  # the replay a graph with a write from host memory keeps
        per_node[how] = _timed(lambda graph=capture.graph: wp.capture_launch(graph), reps, wp.synchronize) / (
            3 * steps)
        got = y.numpy()
        t.check(f"{case} ({how})", bool(np.all(got == np.arange(1, steps + 1))), f"y = {got[:4]}...")
    ours, by_node = per_node["CUDA graph"], per_node["node by node"]
    t.add(case, "brickwork", ours, f"{ours * 1e6:.2f} us", f"{by_node / ours:.1f}x faster than node by node")
    t.add(case, "brickwork node by node", by_node, f"{by_node * 1e6:.2f} us")
    if warp is None or dev == "cpu":
        return

    @warp.kernel
    def wadd_one(x: warp.array(dtype=float)):
        x[warp.tid()] = x[warp.tid()] + 1.0

    wx, wy = warp.zeros(1, dtype=float, device=dev), warp.zeros(steps, dtype=float, device=dev)
    with warp.ScopedCapture(device=dev) as wcapture:
        record(warp, wadd_one, wx, wy)
    theirs = _timed(lambda: warp.capture_launch(wcapture.graph), reps, warp.synchronize) / (3 * steps)
    t.add(case, "Warp", theirs, f"{theirs * 1e6:.2f} us", f"{theirs / ours:.2f}x of Warp", _verdict(theirs / ours, 1.0))


#: the KH step in mesh blocks of short rows (32 cells: 64-thread teams, gpu_grid.SHORT_ROW_TEAM), n per mode
SHORT_ROWS_N = {"full": 512, "quick": 128, "dry": 16}


def short_rows_rows(t: Table, runner, dev: str, n: int, reps: int) -> None:
    """The hydro KH step in 32^2 mesh blocks (8^2 when ``n`` is smaller than 64) beside the hand step of the
    same mesh: the rows of short-row teams (``cuda_step_model.py --n 512 --block 32`` predicts 0.67x)."""
    _kh_step_rows(t, runner, dev, n, 32 if n >= 64 else 8, reps, " (short rows)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small problems (a smoke run on a GPU)")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--dry-run-on-cpu", action="store_true", help="tiny problems on the CPU: checks the script")
    args = parser.parse_args(argv)
    mode = "dry" if args.dry_run_on_cpu else "quick" if args.quick else "full"
    if mode != "dry" and not wp.is_cuda_available():
        print("bench_cuda: no CUDA device on this machine; nothing measured")
        return 0
    warp = None
    if mode != "dry":
        try:
            import warp

            warp.init()
            if not warp.is_cuda_available():  # a CPU-only build, or no driver it can use
                print("warp-lang is installed but sees no CUDA device: no Warp column")
                warp = None
        except ImportError:
            pass
    dev, runner = ("cpu", cuda_peers.HostRunner()) if mode == "dry" else ("cuda:0", cuda_peers.DeviceRunner(0))
    n_saxpy, n_lap, (recon_cells, recon_block), (kh_n, kh_block) = SIZES[mode]
    t = Table()
    saxpy_rows(t, runner, dev, n_saxpy, args.reps)
    laplacian_rows(t, runner, warp, dev, n_lap, args.reps)
    recon_rows(t, runner, dev, recon_cells, recon_block, args.reps)
    hydro_rows(t, runner, dev, kh_n, kh_block, args.reps)
    short_rows_rows(t, runner, dev, SHORT_ROWS_N[mode], args.reps)
    exchange_rows(t, dev, kh_n, kh_block, args.reps)
    walls_rows(t, dev, kh_n, kh_block, args.reps)
    reduction_rows(t, dev, kh_n, kh_block, args.reps)
    overhead_rows(t, warp, dev, args.reps)
    replay_rows(t, warp, dev, args.reps)
    replay_writes_rows(t, warp, dev, args.reps)
    runner.close()
    if mode == "dry":
        where = "the CPU (dry run: the references through cuda/host_shim.h)"
    else:
        from brickwork import cuda_driver
        from brickwork.jit import nvrtc

        drv = cuda_driver.driver()
        where = (f"{dev}: {drv.name(0)} (sm_{''.join(map(str, drv.capability(0)))}), driver {drv.version()}, "
                 f"NVRTC {'.'.join(map(str, nvrtc.version()))}")
    print(f"{where}; warp-lang {getattr(warp, '__version__', 'not installed')}; {mode} sizes, "
          f"medians of {args.reps} batches of 5")
    t.print()
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
