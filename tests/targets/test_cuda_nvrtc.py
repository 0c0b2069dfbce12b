"""The CUDA target without a GPU: generate CUDA C++ for many kernels and compile each with NVRTC to a
sm_90 cubin (any NVRTC error fails), plus the generated source's structure and the build's errors.

Compiled: every instance of ``cuda_corpus.entries()`` (each statement kind, builtin family, element
type, atomics, printing, structs, generics, launch shapes) and every module-level kernel with concrete
parameter types in the CPU tests of lang/, frontend/, targets/ and runtime/. All compile at once, in
parallel, into the session's kernel cache.
"""

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest

import brickwork as wp
from brickwork import pipeline
from brickwork.errors import KernelError, ToolchainError
from brickwork.jit import cache, nvrtc
from brickwork.lang.kernel import Kernel
from brickwork.passes.gpu_grid import POINTS_PER_THREAD
from brickwork.targets.cuda import CudaTarget, build
from brickwork.targets.cuda.loader import CudaEntry
from brickwork.types.generic import is_generic

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
import cuda_corpus  # noqa: E402

from gpu_compile import cubin_arch  # noqa: E402

HARVESTED_PACKAGES = ("lang", "frontend", "targets", "runtime")
TARGET = CudaTarget("sm_90")


def _harvest() -> list:
    """(id, kernel, types) of the module-level kernels with concrete parameters in the CPU tests."""
    found = []
    for pkg in HARVESTED_PACKAGES:
        for path in sorted((TESTS / pkg).glob("test_*.py")):
            if path.name == Path(__file__).name:
                continue
            module = importlib.import_module(f"{pkg}.{path.stem}")
            for name, k in vars(module).items():
                if isinstance(k, Kernel) and k.source is not None and not any(is_generic(t) for _, t in k.params):
                    found.append((f"{pkg}/{path.stem}::{name}", k, [t for _, t in k.params]))
    return found


CORPUS = cuda_corpus.entries()
HARVESTED = _harvest()


@pytest.fixture(scope="module")
def builds():
    """id -> ("source", text, (path, meta) or exception) or ("typing", exception) for every instance."""
    out, jobs, ids = {}, [], []
    for name, k, types in CORPUS + HARVESTED:
        try:
            text, meta = pipeline.generate(k, types, name, target=TARGET)
        except Exception as e:  # noqa: BLE001 - each instance's error is checked by its own test
            out[name] = ("typing", e)
            continue
        key = pipeline.cache_key(pipeline.key_parts(k, types, target=TARGET))
        jobs.append((key, text, name, meta))
        ids.append((name, text))
    for (name, text), result in zip(ids, TARGET.compile_many(jobs)):
        out[name] = ("source", text, result)
    return out


def _compiled(builds, name):
    kind, *rest = builds[name]
    if kind == "typing":
        raise rest[0]
    text, result = rest
    if isinstance(result, Exception):
        raise result
    path, meta = result
    with open(path, "rb") as f:
        assert cubin_arch(f.read()) == 90
    return text, path, meta


@pytest.mark.parametrize("name", [e[0] for e in CORPUS])
def test_corpus_instance_compiles_to_sm90_cubin(builds, name):
    text, path, meta = _compiled(builds, name)
    assert path.endswith(cache.CUBIN) and meta["arch"] == "sm_90" and meta["artifact"] == cache.CUBIN
    tiles = {"tiles": True} if meta["tid_dims"] >= 2 else {}  # a launch of 2+ dimensions may run in tiles
    launch = dict(meta["gpu_launch"])
    per_thread = launch.pop("per_thread", 1)  # a 1-D launch of a short straight body: 4 points per thread
    assert per_thread == 1 or (per_thread == POINTS_PER_THREAD and meta["tid_dims"] == 1)
    assert launch == {"grid": "points", "block": 256, "shared_bytes": 0, "arena": None, **tiles}
    assert 'extern "C" __global__ void __launch_bounds__(256) bw_entry(const Packed p, char* bw_arena_global)' in text
    assert text.count("__global__") == 1  # no arena: one entry
    # the bounds guard of the last block; of the last thread's points
    assert "        return;" in text if per_thread == 1 else "                break;" in text
    assert "#pragma" not in text


@pytest.mark.parametrize("name", [e[0] for e in HARVESTED])
def test_cpu_test_kernel_compiles_for_cuda(builds, name):
    """A CPU test kernel compiles to a cubin, or (kernels written to fail typing) fails with the CPU's error."""
    kind, *rest = builds[name]
    if kind == "typing":
        k, types = next((k, t) for n, k, t in HARVESTED if n == name)
        with pytest.raises(type(rest[0])) as on_cpu:
            pipeline.generate(k, types, name)
        assert isinstance(rest[0], KernelError) and str(on_cpu.value) == str(rest[0])
        return
    _compiled(builds, name)


def test_the_harvest_is_broad():
    assert len(HARVESTED) >= 80 and len(CORPUS) >= 60


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


SAXPY_CUDA = '''\
// brickwork CUDA kernel instance saxpy
#include "brickwork_cuda.h"
namespace {

template <bool UNIT>
__device__ __forceinline__ void body(float v_a, bw::array_t<float, 1> v_x, bw::array_t<float, 1> v_y, const int32_t n0) {
    (void)n0;
    int32_t v_i{};
    int64_t v__gpu_p1{};
    int32_t v_i_p0_4{};
    float v__gpu_v2_p0_5{};
    float v__gpu_v3_p0_6{};
    int32_t v__gpu_c7{};
    int32_t v_i_p1_8{};
    float v__gpu_v2_p1_9{};
    float v__gpu_v3_p1_10{};
    int32_t v__gpu_c11{};
    int32_t v_i_p2_12{};
    float v__gpu_v2_p2_13{};
    float v__gpu_v3_p2_14{};
    int32_t v__gpu_c15{};
    int32_t v_i_p3_16{};
    float v__gpu_v2_p3_17{};
    float v__gpu_v3_p3_18{};
    int32_t v__gpu_c19{};
    int32_t v__gpu_c20{};
    int64_t v__gpu_q21{};
    v__gpu_p1 = bw::add(bw::mul(bw::cast<int64_t>(((int32_t)blockIdx.x)), bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(4LL))), bw::cast<int64_t>(((int32_t)threadIdx.x)));
    if (bw::truth(bw::lt(bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(3LL))), bw::cast<int64_t>(n0)))) {
        v__gpu_c7 = bw::cast<int32_t>(bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(0LL))));
        v__gpu_c11 = bw::cast<int32_t>(bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(1LL))));
        v__gpu_c15 = bw::cast<int32_t>(bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(2LL))));
        v__gpu_c19 = bw::cast<int32_t>(bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(3LL))));
        v_i_p0_4 = v__gpu_c7;
        v_i_p1_8 = v__gpu_c11;
        v_i_p2_12 = v__gpu_c15;
        v_i_p3_16 = v__gpu_c19;
        v__gpu_v2_p0_5 = bw::at<UNIT>(v_x, (int64_t)(v_i_p0_4));
        v__gpu_v2_p1_9 = bw::at<UNIT>(v_x, (int64_t)(v_i_p1_8));
        v__gpu_v2_p2_13 = bw::at<UNIT>(v_x, (int64_t)(v_i_p2_12));
        v__gpu_v2_p3_17 = bw::at<UNIT>(v_x, (int64_t)(v_i_p3_16));
        v__gpu_v3_p0_6 = bw::at<UNIT>(v_y, (int64_t)(v_i_p0_4));
        v__gpu_v3_p1_10 = bw::at<UNIT>(v_y, (int64_t)(v_i_p1_8));
        v__gpu_v3_p2_14 = bw::at<UNIT>(v_y, (int64_t)(v_i_p2_12));
        v__gpu_v3_p3_18 = bw::at<UNIT>(v_y, (int64_t)(v_i_p3_16));
        bw::at<UNIT>(v_y, (int64_t)(v_i_p0_4)) = bw::add(bw::mul(v_a, v__gpu_v2_p0_5), v__gpu_v3_p0_6);
        bw::at<UNIT>(v_y, (int64_t)(v_i_p1_8)) = bw::add(bw::mul(v_a, v__gpu_v2_p1_9), v__gpu_v3_p1_10);
        bw::at<UNIT>(v_y, (int64_t)(v_i_p2_12)) = bw::add(bw::mul(v_a, v__gpu_v2_p2_13), v__gpu_v3_p2_14);
        bw::at<UNIT>(v_y, (int64_t)(v_i_p3_16)) = bw::add(bw::mul(v_a, v__gpu_v2_p3_17), v__gpu_v3_p3_18);
    } else {
        { const int64_t _stop1 = bw::add(v__gpu_p1, bw::mul(bw::cast<int64_t>(((int32_t)blockDim.x)), int64_t(4LL))); const int64_t _step1 = bw::cast<int64_t>(((int32_t)blockDim.x));
        for (int64_t _it1 = v__gpu_p1; _it1 < _stop1; _it1 += _step1) {
            v__gpu_q21 = _it1;
            if (bw::truth(bw::ge(v__gpu_q21, bw::cast<int64_t>(n0)))) {
                break;
            }
            v__gpu_c20 = bw::cast<int32_t>(v__gpu_q21);
            v_i = v__gpu_c20;
            bw::at<UNIT>(v_y, (int64_t)(v_i)) = bw::add(bw::mul(v_a, bw::at<UNIT>(v_x, (int64_t)(v_i))), bw::at<UNIT>(v_y, (int64_t)(v_i)));
        } }
    }
}

struct Args {
    float v_a;
    bw::array_t<float, 1> v_x;
    bw::array_t<float, 1> v_y;
};

struct Packed {  // the CPU entry's buffer: header, then the arguments
    bw::launch_header h;
    Args a;
};

}  // namespace
extern "C" __global__ void __launch_bounds__(256) bw_entry(const Packed p, char* bw_arena_global) {
    body<true>(p.a.v_a, p.a.v_x, p.a.v_y, (int32_t)p.h.dim[0]);
}
'''


def test_the_cuda_cache_key_covers_the_runtime_header(tmp_path, monkeypatch):
    """A cubin built against another brickwork_cuda.h (before the arena had two entries, say) is never loaded:
    the header's content, and the CUDA target's modules, are in the target's identity, which every CUDA
    cache key holds (``targets/keys.py``)."""
    from brickwork.jit import toolchain
    from brickwork.targets import cuda, keys

    digest = cuda._cuda_digest()
    assert f"generator {digest}" in TARGET.identity()
    parts = keys.key_parts(saxpy, [wp.float32, wp.array(dtype=float), wp.array(dtype=float)], "release", TARGET)
    assert parts["compiler and flags"] == TARGET.identity()
    folder = tmp_path / "include"
    shutil.copytree(toolchain.include_dir(), folder)
    header = folder / "brickwork_cuda.h"
    header.write_text(header.read_text().replace("gpu_global_arena", "gpu_block"))
    monkeypatch.setattr(toolchain, "include_dir", lambda: str(folder))
    cuda._cuda_digest.cache_clear()
    try:
        assert cuda._cuda_digest() != digest
    finally:
        cuda._cuda_digest.cache_clear()


def test_saxpy_source_is_the_golden_text():
    text, meta = pipeline.generate(saxpy, [wp.float32, wp.array(dtype=float), wp.array(dtype=float)], "saxpy",
                                   target=TARGET)
    assert text == SAXPY_CUDA
    assert meta["tid_dims"] == 1


def test_a_3d_launch_runs_in_tiles_or_splits_the_thread_index_row_major(builds):
    """A tile (blockDim.y > 1) finds its point by multiply-adds; a one-dimensional block takes one
    division per coordinate (the remainder by a multiply and subtract), in 32-bit unsigned arithmetic
    below 2^31 points, in 64-bit above."""
    full, _, _ = _compiled(builds, "launch_3d")
    tiled = ["if (bw::truth(bw::gt(((int32_t)blockDim.y), int32_t(1)))) {",
             "v__gpu_c4 = bw::add(bw::mul(((int32_t)blockIdx.x), ((int32_t)blockDim.x)), ((int32_t)threadIdx.x));",
             "v__gpu_c3 = bw::add(bw::mul(((int32_t)blockIdx.y), ((int32_t)blockDim.y)), ((int32_t)threadIdx.y));",
             "v__gpu_c2 = bw::add(bw::mul(((int32_t)blockIdx.z), ((int32_t)blockDim.z)), ((int32_t)threadIdx.z));",
             "if (bw::truth((bw::truth((bw::truth(bw::ge(v__gpu_c4, n2)) || bw::truth(bw::ge(v__gpu_c3, n1)))) || "
             "bw::truth(bw::ge(v__gpu_c2, n0))))) {"]
    positions = [full.index(s) for s in tiled]
    assert positions == sorted(positions)
    text = full[full.index("} else {") + len("} else {"):]  # the one-dimensional blocks
    points = "bw::mul(bw::mul(bw::cast<int64_t>(n0), bw::cast<int64_t>(n1)), bw::cast<int64_t>(n2))"
    order = ["bw::add(bw::mul(bw::cast<int64_t>(((int32_t)blockIdx.x)), bw::cast<int64_t>(((int32_t)blockDim.x))), "
             "bw::cast<int64_t>(((int32_t)threadIdx.x)));",
             f"if (bw::truth(bw::ge(v__gpu_p1, {points}))) {{",
             f"if (bw::truth(bw::lt({points}, int64_t(2147483648LL)))) {{",
             "v__gpu_r5 = bw::cast<uint32_t>(v__gpu_p1);",
             "v__gpu_r6 = bw::div(v__gpu_r5, bw::cast<uint32_t>(n2));",
             "v__gpu_c4 = bw::cast<int32_t>(bw::sub(v__gpu_r5, bw::mul(v__gpu_r6, bw::cast<uint32_t>(n2))));",
             "v__gpu_r7 = bw::div(v__gpu_r6, bw::cast<uint32_t>(n1));",
             "v__gpu_c2 = bw::cast<int32_t>(v__gpu_r7);",
             "} else {",
             "v__gpu_r9 = bw::div(v__gpu_r8, bw::cast<int64_t>(n2));",
             "v__gpu_r10 = bw::div(v__gpu_r9, bw::cast<int64_t>(n1));"]
    positions = [text.index(s) for s in order]
    assert positions == sorted(positions)
    assert "bw::mod(" not in text  # the kernel has no % of its own
    assert "body<true>(p.a.v_a, (int32_t)p.h.dim[0], (int32_t)p.h.dim[1], (int32_t)p.h.dim[2])" in text


def test_functions_are_device_functions_and_float16_is_half(builds):
    text, _, _ = _compiled(builds, "arithmetic[float16]")
    assert "template <bool UNIT> __device__ __forceinline__ bw::half f_twice_" in text
    assert "bw::array_t<bw::half, 1> v_x" in text


def test_atomics_use_the_device_runtime(builds):
    text, _, _ = _compiled(builds, "atomics_arith[float64]")
    assert "bw::atomic_add(&bw::at<UNIT>(v_a," in text
    header = (Path(wp.__file__).parent / "include" / "brickwork_cuda_atomics.h").read_text()
    assert "atomicAdd(p, v)" in header and "atomicCAS(up, assumed, new_bits)" in header


def test_printing_is_device_printf(builds):
    text, _, _ = _compiled(builds, "printing")
    assert 'printf("thread %d of %lld: %f %g\\n", (v_i), (v_n),' in text


def test_structs_are_declared_before_use(builds):
    text, _, _ = _compiled(builds, "structs")
    particle, scene = text.index("struct S_Particle_"), text.index("struct S_Scene_")
    assert particle < scene < text.index("struct Args")


def test_nvrtc_errors_are_toolchain_errors_with_the_log_and_the_kept_source():
    make = build.make_cubin("sm_90")
    with pytest.raises(ToolchainError) as err:
        make("f" * 40, 'extern "C" __global__ void bw_entry() { undefined_thing(); }\n', "broken", {})
    message = str(err.value)
    assert "NVRTC rejected the CUDA code generated for broken" in message
    assert "undefined_thing" in message  # NVRTC's log
    kept = message.split("source kept at ")[1].split(" ")[0]
    assert os.path.exists(kept) and "undefined_thing" in open(kept).read()
    assert cache.lookup("f" * 40) is None  # nothing published


def test_a_second_build_of_the_same_key_does_not_run_nvrtc(builds):
    text, path, meta = _compiled(builds, "launch_2d")
    before = build.nvrtc_calls
    entry = next(e for e in CORPUS if e[0] == "launch_2d")
    key = pipeline.cache_key(pipeline.key_parts(entry[1], entry[2], target=TARGET))
    [(again, _)] = TARGET.compile_many([(key, text, "launch_2d", {})])
    assert os.path.samefile(again, path) and build.nvrtc_calls == before  # both pinned names of one entry


def test_another_key_with_the_same_source_copies_the_cubin_without_running_nvrtc(builds):
    text, path, meta = _compiled(builds, "launch_2d")
    before = build.nvrtc_calls
    other = "e" * 40
    [(copied, copied_meta)] = TARGET.compile_many([(other, text, "launch_2d under another key", {})])
    assert build.nvrtc_calls == before
    entry = next(e for e in CORPUS if e[0] == "launch_2d")
    assert copied_meta["same_source_as"] == pipeline.cache_key(pipeline.key_parts(entry[1], entry[2], target=TARGET))
    with open(copied, "rb") as f, open(path, "rb") as g:
        assert f.read() == g.read()
    # ptxas's resource report comes along with the cubin (keyed by the kernel's name in it, renamed in a batch)
    assert copied_meta["resources"] == meta["resources"]
    report = CudaEntry(copied, copied_meta).resources
    assert report == CudaEntry(path, meta).resources and set(report) == {"bw_entry"} and report["bw_entry"].registers > 0
    # the same source for another architecture is another cubin
    [(sm80, sm80_meta)] = CudaTarget("sm_80").compile_many([("d" * 40, text, "launch_2d for sm_80", {})])
    assert build.nvrtc_calls == before + 1 and "same_source_as" not in sm80_meta and sm80_meta["arch"] == "sm_80"


def test_the_key_holds_target_arch_and_nvrtc_version():
    types = [wp.float32, wp.array(dtype=float), wp.array(dtype=float)]
    cpu = pipeline.key_parts(saxpy, types)
    sm90 = pipeline.key_parts(saxpy, types, target=TARGET)
    sm80 = pipeline.key_parts(saxpy, types, target=CudaTarget("sm_80"))
    assert sm90["target"] == "cuda" and cpu["target"] == "cpu"
    major, minor = nvrtc.version()
    assert f"nvrtc {major}.{minor} sm_90" in sm90["compiler and flags"]
    assert len({pipeline.cache_key(p) for p in (cpu, sm90, sm80)}) == 3


def test_a_malformed_architecture_is_refused():
    with pytest.raises(ValueError, match="sm_XX"):
        nvrtc.compile_cubin("", "x.cu", "compute_90", [])


def test_without_the_wheel_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setattr(nvrtc, "_wheel_file", lambda dist, pattern: None)
    nvrtc._found.cache_clear()
    try:
        with pytest.raises(nvrtc.NvrtcUnavailable, match=r"nvidia-cuda-nvrtc-cu12.*brickwork\[cuda\]"):
            nvrtc.library_path()
    finally:
        nvrtc._found.cache_clear()


@pytest.mark.parametrize("installed", [["nvidia-cuda-nvrtc"], ["nvidia-cuda-nvrtc", "nvidia-cuda-nvrtc-cu12"]])
def test_cuda_13_wheels_serve_and_the_headers_come_from_the_same_release(monkeypatch, installed):
    """CUDA 13's unsuffixed wheels (as in NVIDIA's images) are used when CUDA 12's are absent; the
    cu12 wheels (the extra's) win when both are there; headers follow NVRTC's release."""
    wheel_of = {f"/wheels/{d}/libnvrtc.so": d for d in installed}
    monkeypatch.setattr(nvrtc, "_wheel_file", lambda dist, pattern: f"/wheels/{dist}/libnvrtc.so"
                        if dist in installed else None)
    monkeypatch.setattr(nvrtc.os.path, "exists", lambda path: path in wheel_of)
    nvrtc._found.cache_clear()
    try:
        expected = "nvidia-cuda-nvrtc-cu12" if "nvidia-cuda-nvrtc-cu12" in installed else "nvidia-cuda-nvrtc"
        assert nvrtc.library_path() == f"/wheels/{expected}/libnvrtc.so"
        assert nvrtc.runtime_wheel() == expected.replace("nvrtc", "runtime")
    finally:
        nvrtc._found.cache_clear()


def test_debug_mode_instances_compile_with_bounds_checks():
    """BRICKWORK_MODE=debug: every access is checked and recorded in the device's bw_bounds_record."""
    entries = [e for e in CORPUS if e[0] in ("launch_4d", "subarrays", "atomics_composite", "structs", "indexed_arrays")]
    jobs = []
    for name, k, types in entries:
        text, meta = pipeline.generate(k, types, name, target=TARGET, mode="debug")
        assert "bw::at_checked<UNIT>(" in text or "bw::subarray_checked(" in text
        jobs.append((pipeline.cache_key(pipeline.key_parts(k, types, "debug", TARGET)), text, name, meta))
    for (_, _, name, _), result in zip(jobs, TARGET.compile_many(jobs)):
        assert not isinstance(result, Exception), f"{name}: {result}"
        path, meta = result
        assert meta["mode"] == "debug"
        with open(path, "rb") as f:
            data = f.read()
        assert cubin_arch(data) == 90 and b"bw_bounds_record" in data


def test_nvrtc_writes_no_precompiled_header_into_the_working_directory(tmp_path, monkeypatch):
    # NVRTC's automatic PCH writes <program>.pch (about 18 MB) where it is told, the working directory
    # by default: brickwork points it at a directory of the process's own, removed at exit.
    monkeypatch.chdir(tmp_path)
    source = '#include "brickwork_cuda.h"\nextern "C" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n'
    opts = build.options()
    cubin = nvrtc.compile_cubin(source, "pch_probe.cu", "sm_90", build.include_dirs(), opts)
    assert cubin_arch(cubin) == 90
    assert list(tmp_path.iterdir()) == []
    if nvrtc.version() >= (12, 8):
        (pch_dir,) = [o.split("=", 1)[1] for o in opts if o.startswith("--pch-dir=")]
        assert os.path.isdir(pch_dir) and not pch_dir.startswith(str(tmp_path))
        assert build.options() == opts  # one directory for the whole process
