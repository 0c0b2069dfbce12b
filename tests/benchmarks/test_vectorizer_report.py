"""The loop-abstraction benchmark kernels compile to vector loops: g++'s vectorizer report.

Each benchmark kernel (benchmarks/la_cases.py: recon+flux and the Laplacian, both tag pairs; the
hydro benchmark's fused stage, run as a ring of rows, without and with a passive scalar) is launched once at a small size into a cache of its own; the launch's
compile (the kernel cache's flags) also writes g++'s ``-fopt-info-vec-all`` report and its assembly. In the body's unit-stride instantiation
(the only one a unit holds until a launch passes another stride; pack arguments never do) g++ must
vectorize at least as many loops as the source has ``#pragma omp simd`` loops, report none of the reasons an innermost loop fails for (aliasing,
access patterns, calls, control flow), vectorize no loop nested in a simd loop in its place (a runtime loop
over a few components inside it: the count alone would not tell), and emit no gather or scatter: the innermost
loops walk memory with unit stride from base pointers hoisted out of them. No timing.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import weakref
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la
from brickwork.jit import compile as jit_compile
from brickwork.jit import toolchain
from brickwork.lang import companions, instance

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import la_cases  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None or "g++" not in Path(toolchain.settings().cxx).name
    or "clang" in toolchain.settings().version.lower(),
    reason="the report is g++'s (-fopt-info-vec)")

# Why a loop g++ tried was not vectorized, for the reasons an innermost loop of a stencil can fail
# for. Outer loops fail too (a while loop over rows has control flow), reported at their own line of
# the kernel: only reports inside a simd loop, or in brickwork.h (where an inlined statement of the
# loop's body puts the loop's location), count.
INNER_LOOP_FAILURES = ("possible alias", "complicated access pattern", "relevant stmt not supported",
                       "control flow in loop", "unsupported data-type", "function call", "bad data references",
                       "not suitable for gather", "can't determine dependence")


def _sources(kind: str, loop: str, inner: str, cache: Path) -> list[Path]:
    kl = SimpleNamespace(wp=wp)
    if kind == "recon":
        inputs = la_cases._recon_inputs(quick=True)
        run, flux = la_cases.la_recon_flux(kl, inputs["q"], inputs["cells"], inputs["block"], loop, inner)
        run()
        np.testing.assert_allclose(flux(), la_cases.recon_flux_numpy(inputs["q"]), rtol=1e-12, atol=1e-12)
    elif kind.startswith("components"):
        _component_loops(cache, int(kind.partition(":")[2] or NCOMP))
    elif kind == "laplacian":
        a = np.random.default_rng(3).random((10, 10, 10), dtype=np.float32)
        run, _ = la_cases.la_laplacian(kl, a, loop, inner, nblocks=2)
        run()
    else:  # bench_hydro's fused stage (bovi + memory: a ring of rows) on a small mesh, "hydro+scalar" with one
        from brickwork.apps import hydro

        sim = hydro.Hydro(hydro.build_config({
            "problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [16, 16], "block_nx": [8, 8]},
            "hydro": {"reconstruction": "plm", "limiter": "mc", "riemann": "hllc", "integrator": "rk2",
                      "dtype": "float64", "stage": "fused", "nscalars": int(kind == "hydro+scalar")}},
            source="test"))
        sim.set_initial()
        sim.step(sim.check())
        return [p for p in _kernel_sources(cache) if "_la_ring" in p.read_text()][:1]
    return _kernel_sources(cache)


NCOMP = 6  # a loop over 6 components g++ vectorized in place of the cells before brickwork unrolled it
# (17 and 32: more than max_unroll, unrolled in the code run per point all the same)


@wp.func
def _limited_faces(a: wp.float64, b: wp.float64, c: wp.float64):
    """The face values of a cell with an MC-limited slope (a PLM reconstruction)."""
    dl = b - a
    dr = c - b
    mc = wp.min(wp.min(wp.float64(2.0) * wp.abs(dl), wp.float64(2.0) * wp.abs(dr)), wp.float64(0.5) * wp.abs(dl + dr))
    slope = wp.where(dl * dr > wp.float64(0.0), wp.where(dl + dr < wp.float64(0.0), -mc, mc), wp.float64(0.0))
    return b - wp.float64(0.5) * slope, b + wp.float64(0.5) * slope


def _limited_faces_numpy(a, b, c):
    dl, dr = b - a, c - b
    mc = np.minimum(np.minimum(2.0 * np.abs(dl), 2.0 * np.abs(dr)), 0.5 * np.abs(dl + dr))
    slope = np.where(dl * dr > 0.0, np.where(dl + dr < 0.0, -mc, mc), 0.0)
    return b - 0.5 * slope, b + 0.5 * slope


def _component_loops(cache: Path, ncomp: int) -> None:
    """A cell kernel with plain ``for c in range(ncomp)`` loops (``bovi``, ``logical_flat``), as the fused hydro
    stage's reconstruction was: components into scratch, each one's limited face values into two more, then
    the sum of their differences, checked against numpy."""
    nb, n, ng = 1, 16, 1
    f_host = np.random.default_rng(5).random((ncomp, 1 + 2 * ng, n + 2 * ng, n + 2 * ng))  # one block
    f = wp.array(f_host, dtype=wp.float64)
    out = wp.zeros((nb, 1 + 2 * ng, n + 2 * ng, n + 2 * ng), dtype=wp.float64)
    space = la.IndexSpace.box(la.bovi, la.logical_flat, nb, n, n, 1, ng, ninner=la.ij_slab)
    d1 = int(space.get_delta(wp.X1DIR))

    def body(r, b):
        hr = r.add_halo(la.halo.pm_i)
        s = la.get_per_point_scratch(wp.float64, hr, dims=(ncomp,))
        for idx in la.inner(hr):
            k, j, i = r.get_kji(idx)
            for c in range(ncomp):
                s[c, idx] = f[c, k, j, i] * wp.float64(c + 1)
        r.team_barrier()
        lo = la.get_per_point_scratch(wp.float64, r, dims=(ncomp,))
        up = la.get_per_point_scratch(wp.float64, r, dims=(ncomp,))
        for idx in la.inner(r):
            for c in range(ncomp):
                lo[c, idx], up[c, idx] = _limited_faces(s[c, idx - d1], s[c, idx], s[c, idx + d1])
        r.team_barrier()
        for idx in la.inner(r):
            k, j, i = r.get_kji(idx)
            total = wp.float64(0.0)
            for c in range(ncomp):
                total = total + (up[c, idx] - lo[c, idx])
            out[b, k, j, i] = total

    la.outer(space, body)
    g = f_host[:, ng:-ng, ng:-ng] * np.arange(1, ncomp + 1).reshape(ncomp, 1, 1, 1)
    lo, up = _limited_faces_numpy(g[..., :-2], g[..., 1:-1], g[..., 2:])
    np.testing.assert_allclose(out.numpy()[0, ng:-ng, ng:-ng, ng:-ng], (up - lo).sum(axis=0), rtol=1e-12)


def _kernel_sources(cache: Path) -> list[Path]:
    """The ``<cache>/*/*/kernel.cpp`` files; a background precompiled-header build renames its
    staging folder while we look, which ``os.walk`` (unlike ``Path.glob``) steps over."""
    return sorted(Path(root) / "kernel.cpp" for root, _, files in os.walk(cache)
                  if "kernel.cpp" in files and Path(root).parent.parent == cache)


def _simd_lines(text: str) -> set:
    """Line numbers (1-based) of the ``#pragma omp simd`` loops of ``text``, braces included."""
    lines, inside = text.splitlines(), set()
    for n, line in enumerate(lines):
        if line.strip() != "#pragma omp simd":
            continue
        depth, m = 0, n + 1
        while True:
            depth += lines[m].count("{") - lines[m].count("}")
            inside.add(m + 1)
            if depth <= 0 and "{" in "".join(lines[n + 1:m + 1]):
                break
            m += 1
    return inside


def _reporting_compiles(monkeypatch, tmp: Path) -> dict:
    """Each shared library the kernel cache compiles from here on also writes g++'s vectorizer report and its
    assembly (``-save-temps=obj``: the same compile's ``.s``): returns {source text: (report, assembly)}, so
    that the launch's own compile gives what ``_report`` would compile a second time for."""
    compiled, run, numbers = {}, jit_compile._run, itertools.count()

    def reporting_run(cmd: list, label: str):
        if "-shared" not in cmd:
            return run(cmd, label)
        source, output = cmd[-3], cmd[-1]  # CompilerSettings.command ends with [source, "-o", output]
        report = tmp / f"vec{next(numbers)}.txt"  # a batch's compiles run at once, each with its own file
        proc = run([*cmd[:-3], "-save-temps=obj", f"-fopt-info-vec-all={report}", *cmd[-3:]], label)
        temps = [Path(f"{output}-{Path(source).stem}{ext}") for ext in (".s", ".ii", ".o")]
        if proc.returncode == 0 and temps[0].is_file():
            compiled[Path(source).read_text()] = (report.read_text(), temps[0].read_text())
        for temp in temps:  # nothing but the library goes into the cache entry
            temp.unlink(missing_ok=True)
        return proc

    monkeypatch.setattr(jit_compile, "_run", reporting_run)
    return compiled


def _report(source: Path, tmp: Path) -> tuple[str, str]:
    """g++'s vectorizer report and the assembly of ``source``, compiled as the kernel cache does (for a unit
    the launch compiled in a batch with others, whose report would name the batch's lines)."""
    settings = toolchain.settings()
    report, asm = tmp / "vec.txt", tmp / "kernel.s"
    cmd = settings.command(str(source), str(asm), toolchain.include_dir())
    cmd = [c for c in cmd if c != "-shared"] + ["-S", f"-fopt-info-vec-all={report}"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return report.read_text(), asm.read_text()


@pytest.mark.parametrize(("kind", "loop", "inner"), [
    ("recon", "bovi", "logical_flat"), ("recon", "bvoi", "memory"), ("laplacian", "bovi", "logical_flat"),
    ("laplacian", "bvoi", "memory"), ("hydro", "bovi", "memory"), ("hydro+scalar", "bovi", "memory"),
    ("components", "bovi", "logical_flat"), ("components:17", "bovi", "logical_flat"),
    ("components:32", "bovi", "logical_flat")])
def test_benchmark_kernels_innermost_loops_are_vector_loops(kind, loop, inner, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setattr(config, "cache_dir", str(cache))
    # instances earlier tests typed or named ahead and never launched would be built with this launch's miss,
    # into this cache, beside (or in one unit with) the benchmark kernel
    monkeypatch.setattr(instance, "_pending", [])
    monkeypatch.setattr(companions, "_expected", weakref.WeakSet())
    compiled = _reporting_compiles(monkeypatch, tmp_path)
    (source,) = _sources(kind, loop, inner, cache)
    text = source.read_text()
    simd_loops = text.count("#pragma omp simd")
    assert simd_loops >= 1
    report, asm = compiled[text] if text in compiled else _report(source, tmp_path)
    per_function = [int(n) for n in re.findall(r"vectorized (\d+) loops in function", report)]
    assert "run<false>" not in text  # pack arguments: unit innermost stride by construction
    assert sum(n >= simd_loops for n in per_function) >= 1, (simd_loops, per_function)
    inside = _simd_lines(text)
    failures = []
    for line in report.splitlines():
        m = re.match(r"(.*?):(\d+):\d+: missed: (.*)", line)
        if m and any(r in m.group(3) for r in INNER_LOOP_FAILURES):
            if not m.group(1).endswith("kernel.cpp") or int(m.group(2)) in inside:
                failures.append(line)
    assert failures == []
    # a loop nested in a simd loop vectorized instead of it (the fused stage's reconstruction over its
    # primitives' slots once was, with a scalar: 6 slots, not unrolled, and the cells ran scalar)
    lines = text.splitlines()
    nested = {n for n in inside if lines[n - 1].lstrip().startswith("for (") and lines[n - 2].strip() != "#pragma omp simd"}
    instead = [line for line in report.splitlines()
               if (m := re.match(r"(.*?):(\d+):\d+: optimized: loop vectorized", line))
               and m.group(1).endswith("kernel.cpp") and int(m.group(2)) in nested]
    assert instead == []
    assert not re.search(r"\b(v|vp)(gather|scatter)", asm)
