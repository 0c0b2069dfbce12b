"""The sm_90 machine code of the CUDA benchmark kernels, brickwork's beside the hand-written references,
counted without a GPU.

    python benchmarks/cuda_machine_code.py [--arch sm_90] [--markdown FILE] [--dump DIR]

Needs NVRTC (the ``cuda`` extra), the ``dev`` extra (it reuses the tests' record of the instances a run builds,
``tests/gpu_compile.py``) and NVIDIA's disassembler: ``pip install nvidia-cuda-nvdisasm``.

A machine without a GPU cannot time a kernel, but it can read what the GPU would run: NVRTC compiles
each kernel of ``bench_cuda.py``'s rows to a cubin, ``nvdisasm`` lists its instructions, and the
cubin's ``.nv.info`` attributes give its registers per thread. brickwork's kernels are taken on the
path a benchmark launch runs: unit-stride arrays with 32-bit offsets, and a tiled launch where the
kernel has one. The loop-abstraction and hydro kernels are found by running the benchmark's code on the
emulation target (``cuda-emulation``), which builds the same GPU-mapped instances.

Per kernel: registers per thread, instructions, loads and stores (global and generic, shared, local:
spills; predicated ones too), block barriers (``BAR.SYNC``), and the instructions of each loop (a
backward branch): a team loop's count is the work of one cell. Fewer instructions are not a speed by
themselves; they are what a GPU run will be compared with.
"""

from __future__ import annotations

import argparse
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # gpu_compile.recording

import numpy as np  # noqa: E402

_INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")  # offsets past 0xffff have 5+ digits
_LABEL = re.compile(r"^(\.L_x_\d+):")
_BRANCH = re.compile(r"\bBRA\b.*?`?\(?(\.L_x_\d+)")
_EIATTR_REGCOUNT = 0x2F
_GLOBAL_LOAD, _GLOBAL_STORE = r"^(LDG|LD)\.", r"^(STG|ST)\."  # LD/ST: generic addresses (a team's arena)
_BLOCK_BARRIER = r"^BAR\.SYNC"  # __syncthreads (a __syncwarp of a converged warp emits nothing)
_PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")  # an instruction's guard


@dataclass
class Code:
    name: str
    registers: int
    instructions: list[str]
    loops: list[int]
    spans: list[tuple[int, int]] = ()  # each loop's first and last instruction (indices into ``instructions``)

    def count(self, pattern: str) -> int:
        """Instructions matching ``pattern``, predicated ones (``@P0 LDG...``) by their opcode."""
        return sum(1 for i in self.instructions if re.search(pattern, _PREDICATE.sub("", i)))


def nvdisasm() -> str:
    """The path of ``nvdisasm``: on PATH, else in the ``nvidia-cuda-nvdisasm`` wheel."""
    found = shutil.which("nvdisasm")
    if found:
        return found
    import importlib.util

    for package in ("nvidia.cu13", "nvidia.cuda_nvdisasm", "nvidia"):
        try:
            spec = importlib.util.find_spec(package)
        except ModuleNotFoundError:
            continue
        for root in (spec.submodule_search_locations or []) if spec is not None else []:
            for path in Path(root).rglob("nvdisasm"):
                if path.is_file():
                    return str(path)
    raise SystemExit("cuda_machine_code: nvdisasm not found; pip install nvidia-cuda-nvdisasm")


def register_counts(cubin: bytes) -> dict[str, int]:
    """function name -> registers per thread, from the EIATTR_REGCOUNT attributes of ``.nv.info`` (each
    names its function by symbol index)."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]

    def text(table: int, offset: int) -> str:
        start = sections[table][4] + offset
        return cubin[start:cubin.index(b"\0", start)].decode()

    named = {text(shstrndx, s[0]): s for s in sections}
    symtab = named[".symtab"]
    strtab = sections.index(named[".strtab"])
    symbols = [text(strtab, struct.unpack_from("<I", cubin, symtab[4] + i * 24)[0]) for i in range(symtab[5] // 24)]
    info = named.get(".nv.info")
    out: dict[str, int] = {}
    p, stop = (info[4], info[4] + info[5]) if info else (0, 0)
    while p < stop:
        fmt, attr = cubin[p], cubin[p + 1]
        if fmt == 4:  # EIFMT_SVAL: a 16-bit size, then the value
            size = struct.unpack_from("<H", cubin, p + 2)[0]
            if attr == _EIATTR_REGCOUNT:
                symbol, count = struct.unpack_from("<II", cubin, p + 4)
                out[symbols[symbol]] = count
            p += 4 + size
        else:  # EIFMT_NVAL, BVAL, HVAL: four bytes in all
            p += 4
    return out


def disassemble(cubin: bytes, tool: str) -> list[Code]:
    """Every function of ``cubin``: its registers, instructions (no NOPs) and loops."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        text = subprocess.run([tool, "-c", f.name], capture_output=True, text=True, check=True).stdout
    registers = register_counts(cubin)
    functions: list[tuple[str, list]] = []
    for line in text.splitlines():
        m = re.match(r"\s*\.text\.(\w+):", line)
        if m:
            functions.append((m.group(1), []))
            continue
        if not functions:
            continue
        m = _LABEL.match(line.strip())
        if m:
            functions[-1][1].append(("label", m.group(1)))
            continue
        m = _INSTRUCTION.match(line)
        if m and not m.group(1).startswith("NOP"):
            functions[-1][1].append(("op", m.group(1)))
    codes = []
    for name, items in functions:
        ops, where = [], {}
        for kind, value in items:
            if kind == "label":
                where[value] = len(ops)
            else:
                ops.append(value)
        spans = []
        for i, op in enumerate(ops):
            m = _BRANCH.search(op)
            if m and where.get(m.group(1), len(ops)) < i:  # a backward branch closes a loop
                spans.append((where[m.group(1)], i))
        codes.append(Code(name, registers.get(name, 0), ops, [b - a + 1 for a, b in spans], spans))
    return codes


def unit_path(source: str) -> str:
    """A generated unit with its entry reduced to the launch a benchmark runs: tiles where the kernel has them (a
    unit's entry already runs only the unit-stride body, 32-bit offsets; a launch that needs the general one builds
    a variant of its own)."""
    return source.replace("bw::truth(bw::gt(((int32_t)blockDim.y), int32_t(1)))", "true")


def brickwork_units(arch: str) -> list[tuple[str, str]]:
    """(row, CUDA source) of brickwork's kernels of the benchmark rows."""
    import la_cases
    import lang_kernels

    import brickwork as wp
    from brickwork import pipeline
    from brickwork.targets.cuda import CudaTarget

    target = CudaTarget(arch)
    ks = lang_kernels.make_kernels(wp)
    units = [("saxpy", pipeline.generate(ks.saxpy_f32, [wp.array(dtype=wp.float32)] * 2 + [wp.float32], "saxpy",
                                         target=target)[0]),
             ("laplacian", pipeline.generate(ks.laplacian3d_f32, [wp.array3d(dtype=wp.float32)] * 2, "laplacian",
                                             target=target)[0])]

    def recon_flux(lt, it):
        q = np.random.default_rng(0).random((8, 20, 20, 20))
        la_cases.la_recon_flux(SimpleNamespace(wp=wp), q, 32, 16, lt, it)[0]()

    rows = [(f"recon+flux {lt}+{it}", lambda lt=lt, it=it: recon_flux(lt, it))
            for lt, it in (("bovi", "logical_flat"), ("bvoi", "memory"))] + [("hydro step", hydro_step)]
    for row, run in rows:
        units += [(f"{row}: {key}", text) for key, text in emulated_units(run, target)]
    return units


def hydro_step() -> None:
    """One ``check()`` and ``step()`` of the benchmark's hydro case, small (the kernels are the 2048^2 case's)."""
    import bench_hydro

    sim = bench_hydro.make_hydro(128, 64, "auto", "cpu")
    sim.step(sim.check())


def emulated_units(run, target) -> list[tuple[str, str]]:
    """(kernel name, CUDA source) of each kernel ``run()`` launches on the emulation target, which builds the
    GPU-mapped instances a CUDA device runs."""
    from brickwork import config, pipeline
    from gpu_compile import recording  # the tests' record of the instances the emulation builds

    with config.override(target="cuda-emulation"), recording() as created:
        run()
    seen, units = set(), []
    for inst in created:
        if inst.fn is None or inst.kernel.key in seen:
            continue
        seen.add(inst.kernel.key)
        units.append((inst.kernel.key, pipeline.generate(inst.kernel, inst.arg_types, inst.label, target,
                                                          inst.mode)[0]))
    return units


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--dump", help="also write each unit's CUDA source and machine code into this folder")
    args = parser.parse_args(argv)
    from brickwork.jit import nvrtc
    from brickwork.targets.cuda import build

    if not nvrtc.is_available():
        raise SystemExit("cuda_machine_code: NVRTC is not installed (pip install 'brickwork[cuda]')")
    tool = nvdisasm()
    rows = []
    dump = Path(args.dump) if args.dump else None
    if dump:
        dump.mkdir(parents=True, exist_ok=True)
    for n, (row, source) in enumerate(brickwork_units(args.arch)):
        cubin = nvrtc.compile_cubin(unit_path(source), "unit.cu", args.arch, build.include_dirs(), build.options())
        if dump:
            stem = f"{n:02d}_" + re.sub(r"\W+", "_", row).strip("_")
            (dump / f"{stem}.cu").write_text(unit_path(source))
            with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                f.write(cubin)
                f.flush()
                (dump / f"{stem}.sass").write_text(
                    subprocess.run([tool, "-c", f.name], capture_output=True, text=True, check=True).stdout)
        codes = disassemble(cubin, tool)  # a kernel with a scratch arena has a second entry (global arena)
        rows += [("brickwork", row if len(codes) == 1 else f"{row} ({code.name})", code) for code in codes]
    for path in (HERE / "cuda" / "kernels.cu", HERE / "cuda" / "hydro_kh.cu"):
        cubin = nvrtc.compile_cubin(path.read_text(), path.name, args.arch, [])
        rows += [("hand CUDA", f"{path.name}: {code.name}", code) for code in disassemble(cubin, tool)]
    release = ".".join(map(str, nvrtc.version()))
    lines = [f"Machine code for {args.arch} (`python benchmarks/cuda_machine_code.py`; NVRTC {release})",
             "", "| code | kernel | registers | instructions | global/generic loads, stores | shared | "
             "local (spills) | block barriers | per loop |", "|---|---|---|---|---|---|---|---|---|"]
    for who, row, code in rows:
        memory = f"{code.count(_GLOBAL_LOAD)}, {code.count(_GLOBAL_STORE)}"
        shared = f"{code.count('^LDS')}, {code.count('^STS')}"
        local = f"{code.count('^LDL')}, {code.count('^STL')}"
        loops = ", ".join(str(n) for n in code.loops if n > 1) or "-"
        lines.append(f"| {who} | {row} | {code.registers} | {len(code.instructions)} | {memory} | {shared} | "
                     f"{local} | {code.count(_BLOCK_BARRIER)} | {loops} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
