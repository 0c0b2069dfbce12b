"""The loop abstraction, nested parallelism and reductions on the CUDA target, without a GPU.

- Every kernel instance that the emulation tests of tests/la, tests/la_reduce and tests/mesh
  (par_for), and the GPU-mapped gradient tests, build is generated for CUDA and compiled by NVRTC to
  an sm_90 cubin by those tests themselves (marked ``compiles_for_cuda``: tests/gpu_compile.py), so
  the instances are checked against numpy on the emulation target, which executes the same mapped IR,
  and compile for the device; this file checks that they are marked.
- Golden CUDA sources of each tag pair, of scratch with a barrier, of block reductions and of nested
  teams (``golden/cuda_*.cu``; ``BRICKWORK_UPDATE_GOLDEN=1`` rewrites them), with the placement of
  ``__syncthreads()`` and of shared memory asserted.
- The launch geometry (blocks, threads, dynamic shared memory, the global arena) against a fake
  driver, and ``la.raw`` refused for CUDA.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

import brickwork as wp
from brickwork import la, pipeline
from brickwork.errors import LaunchError, TargetUnsupportedError
from brickwork.jit import nvrtc
from brickwork.la.outer import _prepare
from brickwork.lang import body
from brickwork.lang.body import body_kernel
from brickwork.targets.cuda import CudaTarget
from brickwork.targets.cuda.geometry import ArenaExpressionError, LaunchPlan, arena_always_fits, arena_function
from brickwork.types.generic import type_of_value

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
for sub in ("la", "la_reduce", "mesh", "passes", "runtime"):
    if str(TESTS / sub) not in sys.path:
        sys.path.insert(0, str(TESTS / sub))

import la_model as M  # noqa: E402
import test_gpu_mapping_golden as mapping  # noqa: E402
import test_la_emulation as la_emulation  # noqa: E402
import test_la_reductions_emulation as reduce_emulation  # noqa: E402
import test_par_for_emulation as par_for_emulation  # noqa: E402
from cuda_fake import FakeDriver, installed  # noqa: E402
from ir_helpers import kernel_partials  # noqa: E402

from autodiff import test_la_gradients as la_gradients  # noqa: E402
from autodiff import test_slice_value_gradients as slice_value_gradients  # noqa: E402
from autodiff import test_team_gradients as team_gradients  # noqa: E402

TARGET = CudaTarget("sm_90")
GOLDEN = Path(__file__).resolve().parent / "golden"
TAG_IDS = M.TAG_IDS


def test_the_emulation_tests_compile_what_they_build_for_cuda():
    """The loop-abstraction, reduction and par_for emulation tests are marked ``compiles_for_cuda``:
    each GPU-mapped instance they build (run on the emulation target against numpy) is also compiled
    by NVRTC to an sm_90 cubin (tests/gpu_compile.py), and some of them check what the CUDA sources
    hold (barriers, the block arena in shared memory, block reductions, atomic adjoint slots)."""
    for module in (la_emulation, reduce_emulation, par_for_emulation):
        assert module.pytestmark.name == "compiles_for_cuda", module.__name__
    for test in (la_gradients.test_scratch_producer_consumer, la_gradients.test_outer_reduce_sum_is_a_loss,
                 team_gradients.test_a_team_value_used_by_the_iterations):
        params = [p for m in test.pytestmark if m.name == "parametrize" and m.args[0] == "target" for p in m.args[1]]
        assert any(getattr(p, "values", None) == ("cuda-emulation",) and p.marks[0].name == "compiles_for_cuda"
                   for p in params), test.__name__
    for test in (slice_value_gradients.test_slice_values_used_by_visits_on_the_gpu_emulation,
                 slice_value_gradients.test_struct_and_tuple_slice_values_used_by_visits):
        assert any(m.name == "compiles_for_cuda" for m in test.pytestmark), test.__name__


# -- golden sources ---------------------------------------------------------------------------------------
def check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.cu"
    if os.environ.get("BRICKWORK_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden file {path} (BRICKWORK_UPDATE_GOLDEN=1 writes it)"
    assert text == path.read_text(), f"CUDA source differs from {path} (BRICKWORK_UPDATE_GOLDEN=1 to accept)"


def la_source(body, space, reduce=False):
    kernel, _ = _prepare(space, body, "outer_reduce" if reduce else "outer", reduce)
    extra = [kernel_partials(space)] if reduce else []
    types = [type_of_value(v) for v in kernel.arguments(space.runtime_geometry(), *extra)]
    return pipeline.generate(kernel, types, "outer", target=TARGET)


def entries(text: str) -> list[list[str]]:
    """The lines of each ``__global__`` function, in order."""
    parts = text.split('extern "C" __global__ ')[1:]
    return [('extern "C" __global__ ' + part).rstrip("\n").splitlines()[:-1] for part in parts]


def body_lines(text: str) -> list[str]:
    """The lines of ``body<UNIT>``, stripped."""
    start = text.index("__device__ __forceinline__ void body(")
    return [line.strip() for line in text[start:text.index("\nstruct Args {", start)].splitlines()]


@pytest.mark.parametrize("lt,it", mapping.TAG_PAIRS, ids=[f"{a}-{b}" for a, b in mapping.TAG_PAIRS])
def test_tag_pair_golden(lt, it):
    space = la.IndexSpace.box(getattr(la, lt), getattr(la, it), **mapping.SPACE)
    text, meta = la_source(mapping.kji_body if it == "logical_coords" else mapping.idx_body, space)
    check_golden(f"cuda_{lt}_{it}", text)
    assert "__syncthreads" not in text and "__shared__" not in text  # no scratch, no barrier, no reduction
    if lt == "boiv":  # a cell per thread: blocks of 256 points, a bounds guard
        assert meta["gpu_launch"]["grid"] == "points" and "__launch_bounds__(256)" in text
        assert "bw::cast<int64_t>(((int32_t)blockDim.x))), bw::cast<int64_t>(((int32_t)threadIdx.x)));" in text
        assert "        return;" in text  # the last block's guard
    else:  # a slice per block: its cells thread-strided
        assert meta["gpu_launch"]["grid"] == "slices" and "__launch_bounds__(128)" in text
        # a short body, two cells per trip (passes/gpu_cell_pairs.py): thread t starts at cell t, steps by two
        # blocks, and runs an odd last cell after the pairs
        first = re.search(r"(v__la_n\d+) = bw::add\([^;]*, \(\(int32_t\)threadIdx.x\)\);", text)
        assert first and re.search(rf"for \(int32_t (_it\d+) = {first[1]}; \1 < _stop\d+; \1 \+= _step\d+\)", text)
        assert re.search(r"const int32_t _step\d+ = bw::mul\(\(\(int32_t\)blockDim.x\), int32_t\(2\)\);", text)
        assert f"if (bw::truth(bw::le({first[1]}, " in text


def test_scratch_barrier_and_block_level_store_golden():
    text, meta = la_source(mapping.scratch_body, la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE))
    check_golden("cuda_scratch", text)
    lines = body_lines(text)
    arena = next(i for i, s in enumerate(lines) if "bw::gpu_arena(bw_blk," in s)
    scratch = next(i for i, s in enumerate(lines) if "bw::team_alloc<double, 1>(" in s)
    barrier = lines.index("__syncthreads();")
    starts = [i for i, s in enumerate(lines) if "threadIdx.x" in s and (s.startswith("for (") or s.startswith("v__la_n"))]
    producer = starts[0]  # a loop's thread-strided start (a paired loop's first cell: passes/gpu_cell_pairs.py)
    consumer = next(i for i in starts if i > barrier)
    assert arena < scratch < producer < barrier < consumer and lines.count("__syncthreads();") == 1
    assert lines[-4:] == ["if (bw::truth(bw::eq(((int32_t)threadIdx.x), int32_t(0)))) {", lines[-3], "}", "}"]  # store on thread 0
    assert lines[0].endswith(", const int32_t n0, const int32_t n1, const ARENA bw_blk) {")
    assert text.count("template <bool UNIT, class ARENA>") == 1
    # an arena whose size depends on the arguments: an entry with it in shared memory, one with it in the global
    # buffer; each runs the unit-stride body only (a launch without unit innermost strides runs the strided variant)
    shared_entry, global_entry = entries(text)
    assert shared_entry[0] == 'extern "C" __global__ void __launch_bounds__(128) bw_entry(const Packed p, char* bw_arena_global) {'
    assert "extern __shared__ __align__(64) unsigned char bw_arena_shared[];  // the arena: it fits" in shared_entry[1]
    assert re.fullmatch(r"    body<true>\(.*, bw::gpu_shared_arena\{bw_arena_shared\}\);", shared_entry[2])
    assert global_entry[0] == ('extern "C" __global__ void __launch_bounds__(128) bw_entry_global(const Packed p, '
                               'char* bw_arena_global) {')
    assert re.fullmatch(r"    body<true>\(.*, bw::gpu_global_arena\{bw_arena_global\}\);", global_entry[1])
    assert "shared" not in global_entry[1] and "body<false>" not in text
    assert meta["gpu_launch"]["arena"] is not None and meta["gpu_launch"]["shared_limit"] == 49152
    # the strided variant: both bodies in the shared-arena entry, the general one in the global entry (the rarer
    # launch compiles one body); the same code otherwise
    kernel, _ = _prepare(la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE), mapping.scratch_body, "outer",
                         False)
    types = [type_of_value(v) for v in kernel.arguments(la.IndexSpace.box(
        la.bovi, la.logical_flat, **mapping.SPACE).runtime_geometry())]
    strided = pipeline.generate(kernel, types, "outer", TARGET, "release:strided")[0]
    shared_entry, global_entry = entries(strided)
    assert shared_entry[2].count("bw::gpu_shared_arena{bw_arena_shared})") == 2
    assert re.fullmatch(r"    if \(p\.h\.unit_inner\) body<true>\(.*\); else body<false>\(.*\);", shared_entry[2])
    assert re.fullmatch(r"    body<false>\(.*, bw::gpu_global_arena\{bw_arena_global\}\);", global_entry[1])
    assert strided.split("}  // namespace")[0] == text.split("}  // namespace")[0]


@pytest.mark.parametrize("reducer", [la.Sum(wp.float64), la.MinLoc(wp.float64)], ids=["sum", "min_loc"])
def test_block_reduction_golden(reducer):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE).with_reducer(reducer)
    text, meta = la_source(mapping.reduce_body, space, reduce=True)
    check_golden(f"cuda_reduce_{'min_loc' if reducer.with_location else 'sum'}", text)
    value = "double" if not reducer.with_location else next(
        s.split()[1] for s in text.splitlines() if s.startswith("struct S_"))
    assert f"__shared__ __align__(16) unsigned char sh__gpu_red_bytes[128 * sizeof({value})];" in text
    assert f"reinterpret_cast<{value}*>(sh__gpu_red_bytes)" in text
    lines = body_lines(text)
    # the threads' values stored, then each of log2(128) steps: the block waits after the store, after step 64
    # (warp 1's values read by warp 0) and after step 32 (warp 0 has read the buffer); steps 16 to 1 are warp
    # shuffles, each followed by its join
    step = "if (bw::truth(bw::lt(((int32_t)threadIdx.x), int32_t("
    shuffle = re.compile(r"v__gpu_lane\d+ = bw::shuffle_down\(v__la_acc, (\d+)\);")
    order = [int(s[len(step):].split(")")[0]) if s.startswith(step) else
             f"shuffle {shuffle.fullmatch(s).group(1)}" if shuffle.fullmatch(s) else s for s in lines
             if s.startswith(step) or s == "__syncthreads();" or shuffle.fullmatch(s)]
    block = "__syncthreads();"
    assert order == [block, 64, block, 32, block, "shuffle 16", "shuffle 8", "shuffle 4", "shuffle 2", "shuffle 1"]
    assert "__syncwarp();" not in text
    assert "atomic" not in text  # block partials are stored, then combined in slice order on the device
    assert meta["gpu_launch"]["shared_bytes"] == 128 * (8 if not reducer.with_location else 24)


def test_nested_teams_golden():
    kernel = body_kernel(mapping.teams_body, "outer", 1)
    types = [type_of_value(v) for v in kernel.arguments([0], 0)]
    text, meta = pipeline.generate(kernel, types, "teams", target=TARGET)
    check_golden("cuda_nested_teams", text)
    lines = body_lines(text)
    assert lines.count("__syncthreads();") == 1 and "v_member = bw::gpu_arena(bw_blk, v__bw_scratch);" in text
    assert [e[0].split("(const")[0].split()[-1] for e in entries(text)] == ["bw_entry", "bw_entry_global"]
    assert meta["gpu_launch"] == {"grid": "slices", "block": 32, "shared_bytes": 0, "arena": "_bw_scratch",
                                  "shared_limit": 49152}


def test_raw_backend_is_refused_for_cuda_naming_the_kernel():
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, **{**mapping.SPACE, "backend": la.raw})
    with pytest.raises(TargetUnsupportedError, match=r"outer.*la\.raw is host-only.*backend=la\.team") as err:
        la_source(mapping.idx_body, space)
    assert isinstance(err.value, LaunchError)  # as the emulation target reports it


# -- launch geometry -----------------------------------------------------------------------------------------
def test_the_arena_expression_evaluates_as_the_kernel_computes_it():
    f = arena_function("add[nw](mul[nw](int64(sub[nw](_a, -3)), int64(8)), div[nw](_b, 2))", ["_b", "_a"])
    assert f((7, 5)) == (5 + 3) * 8 + 3
    assert arena_function("mod[nw](_a, 4)", ["_a"])((-7,)) == -3  # C's remainder: truncated
    with pytest.raises(ArenaExpressionError, match="cannot evaluate 'pow"):
        arena_function("pow(_a, 2)", ["_a"])
    with pytest.raises(ArenaExpressionError, match="cannot evaluate '_c'"):
        arena_function("add(_a, _c)", ["_a"])


def test_launch_plans_for_points_slices_shared_and_global_arenas():
    params = [("_bw_scratch", None)]
    assert LaunchPlan({"grid": "points", "block": 256, "arena": None}).geometry((1000,), (), []) == (4, 256, 0, 0)
    plan = LaunchPlan({"grid": "slices", "block": 128, "arena": "_bw_scratch", "shared_limit": 1024})
    assert plan.geometry((6,), (1000,), params) == (6, 128, 1000, 0)
    assert plan.geometry((2, 3), (1025,), params) == ((3, 2, 1), 128, 0, 1088)  # a grid of slices; 64-byte blocks


def test_only_an_arena_that_may_outgrow_shared_memory_gets_a_global_entry():
    assert arena_always_fits(None, 0)  # no arena: one entry
    assert arena_always_fits("add[nw](mul[nw](int64(3), int64(8)), 64)", 88)
    assert not arena_always_fits("add[nw](mul[nw](int64(3), int64(8)), 64)", 87)
    assert not arena_always_fits("_bw_scratch", 1 << 30)  # a size given by the launch


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_a_loop_abstraction_launch_runs_a_block_per_slice_with_its_arena(fake, limit, monkeypatch):
    # the limit shapes a device instance, which is used for the rest of the process (docs/env.md): a body of the
    # same code as the other case's would share its instance, so each case starts with no body kernels
    monkeypatch.setattr(body, "_BODIES", {})
    geo = M.Geo(3, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    with la_emulation.config.override(gpu_shared_limit=limit), wp.ScopedDevice("cuda:0"):
        space = M.make_space(la.bvoi, la.logical_flat, geo, ninner=5, backend=la.team)
        f = wp.zeros(geo.shape, dtype=wp.int32)
        out = wp.zeros(geo.shape, dtype=wp.int32)
        mask = wp.zeros(geo.shape[1:], dtype=wp.int32)
        offsets = wp.zeros((4, 3), dtype=wp.int32)
        la.outer(space, la_emulation.stencil_body(f, out, offsets, mask, M.DIAG))
    [(_, function, grid, block, _)] = fake.launches
    [(shared, arena)] = fake.launch_memory
    # the scratch: 2 int32 per memory cell from (ks-1, js-1, is-1) to (ke, je, ie) (the DIAG halo), + 64
    first, end = (0 * 4 + 0) * 6 + 0, (3 * 4 + 2) * 6 + 4
    nbytes = (end - first + 1) * 2 * 4 + 64
    assert (grid, block) == (3, 128)  # bvoi: a block per mesh block
    if limit:  # the entry whose arena is the dynamic shared memory, no global buffer
        assert (shared, arena) == (nbytes, 0) and fake.function_name(function) == "bw_entry"
    else:  # every block's arena, rounded up to 64 bytes, in one global buffer, for the other entry
        assert shared == 0 and len(fake.memory[arena]) == 3 * ((nbytes + 63) // 64 * 64)
        assert fake.function_name(function) == "bw_entry_global"
