"""A static model of one hydro Kelvin-Helmholtz step on an H100 or H200, brickwork's beside the hand-written
CUDA step (``benchmarks/cuda/hydro_kh.cu``), made without a GPU.

    python benchmarks/cuda_step_model.py [--n 2048] [--block 256] [--gpu h200] [--walls] [--sensitivity]
                                         [--markdown FILE]

Not a measurement: what the code NVRTC emits and the launches the step makes predict. Needs NVRTC (the
``cuda`` extra) and ``nvdisasm`` (``pip install nvidia-cuda-nvdisasm``), as ``cuda_machine_code.py`` does.

* Launches: brickwork's ``check()`` + ``step()`` of ``bench_hydro.make_hydro(n, block, "auto", "cuda:0")``
  run on the tests' stand-in driver (``tests/runtime/cuda_fake.py``: launches are recorded, not run; its
  read-back of the time step's fold is made a normal rate, so the step takes a GPU's path); the hand step's
  launches are ``cuda_peers.HandKH``'s, recorded the same way. Each launch's grid, block and dynamic shared
  memory are the recorded ones; its code is the cubin the launch loaded (brickwork) or NVRTC's build of
  ``hydro_kh.cu`` (hand), disassembled by ``nvdisasm``.
* Per kernel: registers, resident blocks per SM (registers, threads, shared memory: sm_90's limits), warp
  instructions (the code outside loops once per thread, each loop once per trip of a warp: a team loop's
  trips follow from its items per team: ``brickwork_work``, ``HAND_WORK``), FP64 instructions, bytes
  requested by the global loads and stores (each loop's loads per item and width; the code outside loops:
  a team kernel's reads of its tables once per warp, a plain kernel's loads once per thread), and the
  bytes DRAM must move at the least (``Work.dram``: each variable a pass reads or writes once; a stencil's
  neighbours hit the caches).
* Time per launch: the longest of DRAM bytes at the bandwidth the loads in flight allow (Little's law:
  resident warps x loads per trip x 32 lanes x 8 bytes per SM, over the memory latency, at most 90 % of
  the peak), warp instructions at 4 per SM and clock (fewer where the SM holds under 32 warps: a warp
  issues once in ``ISSUE_GAP`` cycles, fitted to the measured hand step), FP64 instructions at 2
  per SM and clock, and the rounds of resident blocks times the memory latencies each waits for (a trip
  of each loop, and for a team kernel ``TEAM_CHAIN`` dependent loads before its loop; a plain kernel
  one); at least ``LAUNCH_FLOOR`` (a launch's start and drain). The latency, 630 ns, is what the H200's
  measured saxpy (0.71 of peak with 2 loads of 4 bytes in flight per thread, 64 warps per SM) implies.

``--walls``: the same step with hydrostatic x2 walls under gravity (``mesh.bc_x2 = "hydrostatic"``,
``hydro.gravity = [0, -0.1]``): brickwork's step then also launches the walls' kernel per field and side and
ghost fill (``apps/hydro/hydrostatic.py``); the hand step keeps its periodic ghosts, so only brickwork's rows
change.

The code outside loops counts its cold paths too (a division's slow path, an arena test's message), so
instructions are an upper bound for both codes. A GPU session compares the per-kernel rows with
``bench_cuda.py``'s per-kernel breakdown (the labels are the same).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # runtime.cuda_fake

import cuda_machine_code as machine_code  # noqa: E402
from cuda_machine_code import Code, disassemble, nvdisasm  # noqa: E402

#: the two Hopper boards lent to this project: SMs, boost clock (Hz), peak DRAM bandwidth (bytes/s)
GPUS = {"h100": (132, 1.98e9, 3.35e12), "h200": (132, 1.98e9, 4.8e12)}
#: sm_90 per SM: registers, threads, blocks, shared bytes (and 1 KB the driver keeps per block)
SM_REGISTERS, SM_THREADS, SM_BLOCKS, SM_SHARED, BLOCK_SHARED_RESERVED = 65536, 2048, 32, 233472, 1024
LATENCY = 630e-9  # seconds a DRAM load takes under load (the H200 saxpy row: 16 KB in flight per SM, 0.71 of peak)
TEAM_CHAIN = 3  # a team's dependent loads before its loop: its slice's bounds, the pack's addresses, the data
# cycles between a warp's instructions (dependent FP64 arithmetic): 32 warps per SM keep 4 issuing. Fitted to the one
# measured step: with 8 the model's hand step takes 1.371 ms on the H200, measured 1.347 (with 6: 1.196, 4: 1.196)
ISSUE_GAP = 8
LAUNCH_FLOOR = 3e-6  # a kernel's start and drain on the device (back-to-back launches of the stream)
DEVICE_COPY_RATE = 0.86  # of peak: cuMemcpyDtoD measured on the H200 (RESULTS_CUDA.md)
_FP64 = r"^D(FMA|ADD|MUL|SETP|MNMX)\b"
_WIDTH = re.compile(r"\.(64|128|U8|S8|U16|S16)\b")


@dataclass
class Work:
    """A kernel's work per launch: ``loops``, one ``(items per team, items per trip)`` per loop of its code in
    order (a team kernel); ``dram(fields)``, the bytes it must move (``fields``: the step's sizes)."""
    loops: tuple = ()
    dram: object = None


@dataclass
class Launch:
    code: str  # "brickwork" or "hand CUDA"
    label: str
    kernel: Code
    grid: tuple
    block: tuple
    shared: int
    work: Work | None
    static_shared: int = 0
    row: dict = field(default_factory=dict)


def _prod(t) -> int:
    t = (t, 1, 1) if isinstance(t, int) else t
    return t[0] * t[1] * t[2]


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _width(op: str) -> int:
    m = _WIDTH.search(op.split()[0])
    return {"64": 8, "128": 16, "U8": 1, "S8": 1, "U16": 2, "S16": 2}[m.group(1)] if m else 4


def _memory_ops(ops) -> tuple[int, int, int]:
    """(loads, stores, bytes per thread) of the global/generic accesses among ``ops``."""
    bare = [machine_code._PREDICATE.sub("", op) for op in ops]
    loads = [op for op in bare if re.search(machine_code._GLOBAL_LOAD, op)]
    stores = [op for op in bare if re.search(machine_code._GLOBAL_STORE, op)]
    return len(loads), len(stores), sum(_width(op) for op in loads + stores)


def blocks_per_sm(registers: int, threads: int, shared: int) -> int:
    """Resident blocks of one SM (registers allocated per warp in units of 256)."""
    warps = -(-threads // 32)
    per_warp = -(-max(registers, 1) * 32 // 256) * 256
    by_registers = (SM_REGISTERS // per_warp) // warps
    by_shared = SM_SHARED // (shared + BLOCK_SHARED_RESERVED) if shared else SM_BLOCKS
    return max(0, min(SM_BLOCKS, SM_THREADS // threads, by_registers, by_shared))


def estimate(launch: Launch, gpu: str, fields: dict) -> dict:
    """The model's numbers for one launch (see the module docstring)."""
    sms, clock, bandwidth = GPUS[gpu]
    code, threads, blocks = launch.kernel, _prod(launch.block), _prod(launch.grid)
    warps_per_block = -(-threads // 32)
    in_loops = set()
    for a, b in code.spans:
        in_loops.update(range(a, b + 1))
    straight = [op for i, op in enumerate(code.instructions) if i not in in_loops]
    loops = [(a, b) for a, b in code.spans if b > a]
    spec = launch.work.loops if launch.work else ()
    warp_instructions = len(straight) * warps_per_block * blocks
    fp64 = sum(1 for op in straight if re.search(_FP64, machine_code._PREDICATE.sub("", op))) * warps_per_block * blocks
    s_loads, s_stores, s_bytes = _memory_ops(straight)
    team = bool(spec)
    requested = s_bytes * (32 if team else threads) * (warps_per_block if team else 1) * blocks
    in_flight = s_loads  # a plain kernel's loads, issued together before their use
    waits = TEAM_CHAIN if team else 1  # memory latencies a block waits for outside its loops
    for n, (a, b) in enumerate(loops):
        ops = code.instructions[a:b + 1]
        loads, _, nbytes = _memory_ops(ops)
        f64 = sum(1 for op in ops if re.search(_FP64, machine_code._PREDICATE.sub("", op)))
        items, per_trip = spec[n] if n < len(spec) else (1, 1)
        # warp w's lanes take items 32w.., each thread every ``threads``-th: its trips are its first lane's
        trips = sum(_ceil(_ceil(items - 32 * w, threads), per_trip) for w in range(warps_per_block) if items > 32 * w)
        warp_instructions += len(ops) * trips * blocks
        fp64 += f64 * trips * blocks
        requested += nbytes * items // per_trip * blocks
        in_flight = max(in_flight, loads)
        waits += _ceil(_ceil(items, threads), per_trip)  # a trip waits for its loads at least once
    resident = blocks_per_sm(code.registers, threads, launch.shared + launch.static_shared)
    warps_per_sm = min(resident * warps_per_block, -(-blocks // sms) * warps_per_block)
    dram = launch.work.dram(fields) if launch.work and launch.work.dram else requested
    busy = min(sms, blocks)  # SMs with a block
    rate = min(0.9 * bandwidth, busy * warps_per_sm * 32 * 8 * max(in_flight, 1) / LATENCY)
    issue = min(4.0, warps_per_sm / ISSUE_GAP)  # warp instructions per SM and clock
    t_dram, t_issue, t_fp64 = dram / rate, warp_instructions / (busy * issue * clock), fp64 / (busy * 2 * clock)
    t_latency = -(-blocks // (sms * max(resident, 1))) * waits * LATENCY  # rounds of resident blocks
    terms = {"launch": LAUNCH_FLOOR, "memory": t_dram, "issue": t_issue, "fp64": t_fp64, "latency": t_latency}
    bound = max(terms, key=terms.get)
    seconds = terms[bound]
    return {"registers": code.registers, "blocks/SM": resident, "warps/SM": warps_per_sm,
            "warp instructions": warp_instructions, "fp64": fp64, "requested": requested, "dram": dram,
            "in flight": in_flight, "seconds": seconds, "bound": bound}


# -- the work of each kernel ------------------------------------------------------------------------------------
def step_fields(n: int, block: int, ghosts: int = 2) -> dict:
    """Sizes of the step in bytes of one float64 variable: the interior, the blocks with their ghosts, the
    ghost cells, the hand code's one array with ghosts."""
    nblocks = (n // block) ** 2
    return {"interior": 8 * n * n, "with_ghosts": 8 * nblocks * (block + 2 * ghosts) ** 2,
            "ghosts": 8 * nblocks * ((block + 2 * ghosts) ** 2 - block * block),
            "hand": 8 * (n + 2 * ghosts) ** 2, "hand_ghosts": 8 * ((n + 2 * ghosts) ** 2 - n * n),
            "row": block, "ng": ghosts, "n": n}


def brickwork_work(label: str, fields: dict, grid=1) -> Work | None:
    """Work of a brickwork hydro kernel by its label's name: team loops over a row of the block (``grid``: the
    launch's, which tells the two folds of the time step's partials apart)."""
    name, m, g = label.split("[")[0], fields["row"], fields["ng"]
    blocks = (fields["n"] // m) ** 2
    table = {
        # each ghost read once and written once: half per launch
        "copy_boxes": Work(dram=lambda f: f["ghosts"] * 5), "copy_elements": Work(dram=lambda f: f["ghosts"] * 5),
        "cons_to_prim": Work(((m + 2 * g, 2),), lambda f: 10 * f["with_ghosts"]),
        "cfl_rate": Work(((m, 1),), lambda f: 5 * f["interior"]),
        "fluxes": Work(((m + 2, 1), (m + 1, 1)), lambda f: 10 * f["interior"]),
        "fluxes_across_rows": Work(((m, 1),), lambda f: 10 * f["interior"]),
        "update": Work(((m, 1),), lambda f: 25 * f["interior"]),
        "combine_blocks": Work(dram=lambda f: 0), "combine_partials": Work(dram=lambda f: 0),
        # a team per row of partials (la/device_fold.py): each block's m row partials, then the blocks' partials
        "fold_partials": Work(((m if _prod(grid) > 1 else blocks, 1),), lambda f: 0),
        # a thread per ghost value (blocks of 256): its mirror read, the ghost written (the energy's two density
        # reads per column hit the caches)
        "hydrostatic_ghosts": Work(dram=lambda f: 16 * 256 * _prod(grid)),
    }
    return table.get(name)


HAND_WORK = {
    "kh_ghosts_x": Work(dram=lambda f: 5 * f["n"] * 4 * 16),  # 2 columns a side, each cell read and written
    "kh_ghosts_y": Work(dram=lambda f: 5 * (f["n"] + 4) * 4 * 16),
    "kh_primitives": Work(dram=lambda f: 10 * f["hand"]),
    "kh_dt_partial": Work(((16, 1),), lambda f: 4 * f["interior"]),  # grid-stride: n^2 / (1024 x 256) trips
    "kh_dt_final": Work(((4, 1),), lambda f: 0),
    "kh_fluxes_x": Work(dram=lambda f: 10 * f["interior"]),
    "kh_fluxes_y": Work(dram=lambda f: 10 * f["interior"]),
    "kh_update": Work(dram=lambda f: 25 * f["interior"]),
}


# -- recording the launches ------------------------------------------------------------------------------------
#: the settings of ``--walls``: hydrostatic x2 walls, and the gravity along x2 they balance
WALLS = ("mesh.bc_x2=hydrostatic", "hydro.gravity=[0.0, -0.1]")


def brickwork_launches(n: int, block: int, arch: str, walls: bool = False) -> list[Launch]:
    """One ``check()`` + ``step()`` of brickwork's hydro on the stand-in driver (after a first, untimed one);
    ``walls``: with hydrostatic x2 walls (``WALLS``)."""
    import bench_hydro
    from cuda_resources import stand_in_launches

    tool, seen = nvdisasm(), {}
    with stand_in_launches() as (drv, entries):
        sim = bench_hydro.make_hydro(n, block, "auto", "cuda:0", WALLS if walls else ())
        sim.step(sim.check())
        first, entries[:] = len(drv.launches), []
        sim.step(sim.check())
        recorded = list(zip(entries, drv.launches[first:], drv.launch_memory[first:], strict=True))
    fields, out = step_fields(n, block), []
    unit = unit_codes(arch, tool)
    for entry, (_, function, grid, blk, _), (shared, _) in recorded:
        if id(entry.cubin) not in seen:
            seen[id(entry.cubin)] = {c.name: c for c in disassemble(entry.cubin, tool)}
        name, key = drv.function_name(function), entry.label.split("[")[0]
        code = unit.get(key, {}).get(name) or seen[id(entry.cubin)][name]
        out.append(Launch("brickwork", entry.label, code, grid, blk, shared, brickwork_work(entry.label, fields, grid)))
    return out


def unit_codes(arch: str, tool: str) -> dict:
    """kernel name -> entry -> Code of the hydro kernels reduced to the unit-stride path the step's launches run
    (``cuda_machine_code.unit_path``): the cubin a launch loads also holds the general-stride body, whose loops
    and straight code a launch of unit-stride packs never runs."""
    from brickwork.jit import nvrtc
    from brickwork.targets.cuda import CudaTarget, build

    out = {}
    for key, text in machine_code.emulated_units(machine_code.hydro_step, CudaTarget(arch)):
        source = machine_code.unit_path(text)
        cubin = nvrtc.compile_cubin(source, "unit.cu", arch, build.include_dirs(), build.options())
        out[key] = {c.name: c for c in disassemble(cubin, tool)}
    return out


def hand_launches(n: int, arch: str) -> tuple[list[Launch], int]:
    """``cuda_peers.HandKH``'s launches of one step and the bytes of its device copy (U -> U0)."""
    import cuda_peers

    from brickwork.jit import nvrtc

    class Recorder:
        def __init__(self):
            self.next, self.launched, self.copied = 1 << 40, [], 0

        def alloc(self, nbytes):
            self.next += nbytes + 256
            return self.next

        def upload(self, ptr, host):
            pass

        def download(self, ptr, host):
            host[...] = 1.0
            return host

        def copy(self, dst, src, nbytes):
            self.copied += nbytes

        def launch(self, name, grid, block, params):
            self.launched.append((name, grid, block))

    rec = Recorder()
    cuda_peers.HandKH(rec, n).step()
    path = HERE / "cuda" / "hydro_kh.cu"
    cubin = nvrtc.compile_cubin(path.read_text(), path.name, arch, [])
    codes = {c.name: c for c in disassemble(cubin, nvdisasm())}
    reduce_shared = 8 * cuda_peers.KH_REDUCE_THREADS
    return [Launch("hand CUDA", name, codes[name], grid, block, 0, HAND_WORK.get(name),
                   reduce_shared if name.startswith("kh_dt") else 0)
            for name, grid, block in rec.launched], rec.copied


def record(n: int, block: int, arch: str = "sm_90", walls: bool = False) -> tuple[list[Launch], list[Launch], int]:
    """brickwork's launches, the hand step's and the bytes of its device copy."""
    return brickwork_launches(n, block, arch, walls), *hand_launches(n, arch)


def model(recorded: tuple, n: int, block: int, gpu: str) -> dict:
    """Every launch of both steps with its estimate, and the totals."""
    fields = step_fields(n, block)
    ours, hand, copied = recorded
    for launch in ours + hand:
        launch.row = estimate(launch, gpu, fields)
    copy_seconds = 2 * copied / (DEVICE_COPY_RATE * GPUS[gpu][2])
    totals = {}
    for who, launches, extra in (("brickwork", ours, 0.0), ("hand CUDA", hand, copy_seconds)):
        totals[who] = {"launches": len(launches), "seconds": sum(x.row["seconds"] for x in launches) + extra,
                       "dram": sum(x.row["dram"] for x in launches) + 2 * (copied if extra else 0),
                       "requested": sum(x.row["requested"] for x in launches),
                       "warp instructions": sum(x.row["warp instructions"] for x in launches)}
    return {"launches": ours + hand, "totals": totals, "copy_seconds": copy_seconds, "copied": copied, "cells": n * n}


def sensitivity(recorded: tuple, n: int, block: int, gpu: str) -> str:
    """The predicted times and ratio as the two assumed constants vary (the memory latency, the issue gap)."""
    global LATENCY, ISSUE_GAP
    kept = LATENCY, ISSUE_GAP
    lines = ["| memory latency ns | issue gap cycles | brickwork ms | hand ms | ratio |", "|---|---|---|---|---|"]
    try:
        for latency in (400e-9, 630e-9, 900e-9):
            for gap in (4, 6, 8):
                LATENCY, ISSUE_GAP = latency, gap
                t = model(recorded, n, block, gpu)["totals"]
                ours, hand = t["brickwork"]["seconds"], t["hand CUDA"]["seconds"]
                lines.append(f"| {latency * 1e9:.0f} | {gap} | {ours * 1e3:.3f} | {hand * 1e3:.3f} | "
                             f"{hand / ours:.2f} |")
    finally:
        LATENCY, ISSUE_GAP = kept
    return "\n".join(lines) + "\n"


def _by_kernel(launches: list[Launch]) -> list[tuple[Launch, int, float]]:
    """Launches of one code grouped by label and entry: (first launch, count, seconds in all)."""
    groups: dict = {}
    for x in launches:
        key = (x.code, x.label.split("[")[0], x.kernel.name, x.grid, x.block, x.shared)
        first, count, seconds = groups.get(key, (x, 0, 0.0))
        groups[key] = (first, count + 1, seconds + x.row["seconds"])
    return list(groups.values())


def table(result: dict, gpu: str, n: int, block: int, walls: bool = False) -> str:
    with_walls = " (brickwork's with hydrostatic x2 walls)" if walls else ""
    lines = [f"Static model of one hydro KH step{with_walls}, {n}^2 in {block}^2 blocks, float64, on an {gpu.upper()} "
             "(`python benchmarks/cuda_step_model.py`; not a GPU measurement)", "",
             "| code | kernel | launches | grid x block | regs | blocks/SM | warp instr/cell | requested MB | "
             "DRAM MB | loads in flight | bound | us |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    cells = result["cells"]
    for first, count, seconds in _by_kernel(result["launches"]):
        r = first.row
        entry = first.kernel.name
        name = first.label.split("[")[0] + (f" ({entry})" if entry.startswith("bw_entry_") else "")
        shape = f"{first.grid if _prod(first.grid) > 1 else 1} x {_prod(first.block)}" + (
            f", {first.shared} B shared" if first.shared else "")
        lines.append(f"| {first.code} | {name} | {count} | {shape} | {r['registers']} | {r['blocks/SM']} | "
                     f"{r['warp instructions'] * count / cells:.2f} | {r['requested'] * count / 1e6:.0f} | "
                     f"{r['dram'] * count / 1e6:.0f} | {r['in flight']} | {r['bound']} | {seconds * 1e6:.0f} |")
    t = result["totals"]
    lines.append(f"| hand CUDA | cuMemcpyDtoD U -> U0 | 1 | - | - | - | - | - | {2 * result['copied'] / 1e6:.0f} "
                 f"| - | memory | {result['copy_seconds'] * 1e6:.0f} |")
    lines += ["", "| code | launches | requested MB | DRAM MB | warp instr/cell | predicted ms |",
              "|---|---|---|---|---|---|"]
    for who, s in t.items():
        lines.append(f"| {who} | {s['launches']} | {s['requested'] / 1e6:.0f} | {s['dram'] / 1e6:.0f} | "
                     f"{s['warp instructions'] / cells:.2f} | {s['seconds'] * 1e3:.3f} |")
    ratio = t["hand CUDA"]["seconds"] / t["brickwork"]["seconds"]
    lines += ["", f"predicted step ratio (hand time / brickwork time): {ratio:.2f}x"]
    return "\n".join(lines) + "\n"


def this_gpu() -> str:
    """"h100" where device 0 is an H100, else "h200" (also without a GPU)."""
    from brickwork import cuda_driver
    from brickwork.errors import DeviceUnavailableError

    try:
        return "h100" if "H100" in cuda_driver.driver().name(0) else "h200"
    except DeviceUnavailableError:
        return "h200"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--block", type=int, default=256)
    parser.add_argument("--gpu", choices=[*sorted(GPUS), "auto"], default="h200",
                        help="the board to model; auto: this machine's GPU (an H200 unless it is an H100)")
    parser.add_argument("--markdown", help="also write the tables to this file")
    parser.add_argument("--walls", action="store_true", help="brickwork's step with hydrostatic x2 walls")
    parser.add_argument("--sensitivity", action="store_true", help="also the prediction as the assumed memory "
                        "latency and issue gap vary")
    args = parser.parse_args(argv)
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        raise SystemExit("cuda_step_model: NVRTC is not installed (pip install 'brickwork[cuda]')")
    if args.gpu == "auto":
        args.gpu = this_gpu()
    recorded = record(args.n, args.block, walls=args.walls)
    text = table(model(recorded, args.n, args.block, args.gpu), args.gpu, args.n, args.block, args.walls)
    if args.sensitivity:
        text += "\n" + sensitivity(recorded, args.n, args.block, args.gpu)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
