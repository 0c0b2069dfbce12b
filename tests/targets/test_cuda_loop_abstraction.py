"""The loop abstraction, nested parallelism and reductions on the CUDA target, without a GPU.

- Every kernel instance that the emulation tests of tests/la, tests/la_reduce and tests/mesh
  (par_for) build for the GPU mapping is generated for CUDA and compiled by NVRTC to an sm_90 cubin
  (an NVRTC error fails). Those tests run here too (recording what they build), so the instances are
  also checked against numpy on the emulation target, which executes the same mapped IR.
- Golden CUDA sources of each tag pair, of scratch with a barrier, of block reductions and of nested
  teams (``golden/cuda_*.cu``; ``BRICKWORK_UPDATE_GOLDEN=1`` rewrites them), with the placement of
  ``__syncthreads()`` and of shared memory asserted.
- The launch geometry (blocks, threads, dynamic shared memory, the global arena) against a fake
  driver, and ``la.raw`` refused for CUDA.
"""

from __future__ import annotations

import gc
import os
import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import la, pipeline
from brickwork.errors import LaunchError, TargetUnsupportedError
from brickwork.jit import nvrtc
from brickwork.la.outer import _prepare
from brickwork.lang.body import body_kernel
from brickwork.lang.instance import Instance
from brickwork.lang.kernel import Kernel
from brickwork.targets.cuda import CudaTarget
from brickwork.targets.cuda.geometry import ArenaExpressionError, LaunchPlan, arena_function
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


def _stencil(lt, it):
    geo = M.Geo(2, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    with la_emulation.config.override(target="cuda-emulation"):
        got, want = la_emulation.run_stencil(M.make_space(lt, it, geo, ninner=5, backend=la.team), geo, M.DIAG)
    np.testing.assert_array_equal(got, want)


#: name -> a call of an emulation test (it checks its results against numpy as it runs)
SOURCES: dict = {}
for (_lt, _it), _id in zip(M.TAG_PAIRS, TAG_IDS):
    SOURCES[f"la-{_id}"] = (lambda lt=_lt, it=_it: (la_emulation.test_exactly_once_for_each_ninner(lt, it),
                                                   la_emulation.test_scratch_index_forms_alias_and_zero(lt, it),
                                                   la_emulation.test_views_match_pack_access(lt, it),
                                                   _stencil(lt, it)))
for _lt, _it in reduce_emulation.cpu_tests.TAG_PAIRS:
    SOURCES[f"reduce-{_lt.name}-{_it.name}"] = (
        lambda lt=_lt, it=_it: reduce_emulation.test_every_reducer_matches_numpy(lt, it))
SOURCES["reduce-int-and-float32"] = lambda: [reduce_emulation.test_integer_and_single_precision(d, n) for d, n in
                                             ((wp.int32, np.int32), (wp.int64, np.int64), (wp.float32, np.float32))]
SOURCES["reduce-scratch-two-folds"] = reduce_emulation.test_scratch_producer_barrier_and_two_inner_reduce_calls
SOURCES["reduce-min-max-loc"] = lambda: [reduce_emulation.test_min_loc_ties_keep_the_first_cell(lt)
                                         for lt in (la.bvoi, la.bovi)]
SOURCES["par-for-outer-teams"] = lambda: [par_for_emulation.test_team_scratch_barrier_and_team_level_statements(n)
                                          for n in (0, 1 << 20)]
SOURCES["par-for"] = lambda: [par_for_emulation.test_cpu_tests_on_emulation(n) for n in (
    "test_par_for_three_ranges_with_captured_array_and_offsets", "test_par_for_one_and_four_ranges_and_lambda")]

# backward kernels of outer bodies (scratch with atomic adjoint slots, barriers, Sum folds)
SOURCES["adjoint-scratch"] = lambda: [la_gradients.test_scratch_producer_consumer(lt, it, "cuda-emulation")
                                      for lt, it in (("bvoi", "logical_flat"), ("bovi", "memory"),
                                                     ("boiv", "logical_coords"))]
SOURCES["adjoint-reduce-sum"] = lambda: la_gradients.test_outer_reduce_sum_is_a_loss("bovi", "memory", "cuda-emulation")
# outer-body values the visits use: their adjoints summed over the slice's threads in a one-value scratch
SOURCES["adjoint-slice-values"] = lambda: [
    slice_value_gradients.test_slice_values_used_by_visits_on_the_gpu_emulation(lt, it)
    for lt, it in (("bvoi", "logical_flat"), ("bovi", "memory"))] + [
    slice_value_gradients.test_matrix_slice_value_read_by_element_and_row("bovi", "logical_flat"),
    slice_value_gradients.test_struct_and_tuple_slice_values_used_by_visits("bovi", "logical_flat")]
# par_for_outer team values the iterations use: their adjoints summed in pads of the team's arena
SOURCES["adjoint-team-values"] = lambda: [
    team_gradients.test_a_team_value_used_by_the_iterations("cuda-emulation"),
    team_gradients.test_team_values_used_by_two_loops_by_component_and_by_the_team_body("cuda-emulation"),
    team_gradients.test_struct_and_tuple_team_values_used_by_the_iterations("cuda-emulation")]


def _cubin_arch(data: bytes) -> int:
    assert data[:4] == b"\x7fELF" and struct.unpack_from("<H", data, 18)[0] == 190, "not a CUDA ELF file"
    return struct.unpack_from("<I", data, 48)[0] & 0xFF


@pytest.fixture(scope="module")
def compiled():
    """source name -> [(label, text, result)]: the GPU-mapped instances each emulation test launched
    (built or found), compiled for CUDA (each distinct instance once)."""
    used: dict = {name: [] for name in SOURCES}
    get_instance = Kernel.get_instance

    def recording(self, *args, **kwargs):
        inst = get_instance(self, *args, **kwargs)
        if inst.target == "cuda-emulation":
            used[current].append(inst)
        return inst

    adjoint = Instance.adjoint

    def recording_adjoint(self):
        inst = adjoint(self)
        if inst.target == "cuda-emulation":
            used[current].append(inst)
        return inst

    Kernel.get_instance = recording
    Instance.adjoint = recording_adjoint
    try:
        for current, run in SOURCES.items():  # noqa: B007 - `current` is read by recording()
            # empty launch tables: every launch takes the slow path once, which asks get_instance
            for kernel in [o for o in gc.get_objects() if isinstance(o, Kernel)]:
                kernel.launch_table.clear()
            run()
    finally:
        Kernel.get_instance = get_instance
        Instance.adjoint = adjoint
    jobs, results = [], {}
    for insts in used.values():
        for inst in insts:
            ident = (id(inst.kernel), inst.arg_types, inst.mode)
            if ident in results:
                continue
            text, meta = pipeline.generate(inst.kernel, inst.arg_types, inst.label, TARGET, inst.mode)
            key = pipeline.cache_key(pipeline.key_parts(inst.kernel, inst.arg_types, inst.mode, TARGET))
            jobs.append((key, text, inst.label, meta))
            results[ident] = (inst.label, text)
    for (ident, (label, text)), result in zip(list(results.items()), TARGET.compile_many(jobs)):
        results[ident] = (label, text, result)
    return {name: list({(id(i.kernel), i.arg_types, i.mode): results[(id(i.kernel), i.arg_types, i.mode)]
                        for i in insts}.values()) for name, insts in used.items()}


@pytest.mark.parametrize("name", list(SOURCES))
def test_every_instance_the_emulation_tests_build_compiles_for_cuda(compiled, name):
    built = compiled[name]
    assert built, f"{name} built no GPU-mapped instance"
    for label, text, result in built:
        assert not isinstance(result, Exception), f"{label}: {result}"
        path, meta = result
        with open(path, "rb") as f:
            assert _cubin_arch(f.read()) == 90, label
        assert meta["arch"] == "sm_90" and meta["gpu_launch"]["block"] in (128, 256)


def test_the_compiled_instances_cover_blocks_barriers_arenas_and_block_reductions(compiled):
    texts = [text for built in compiled.values() for _, text, _ in built]
    assert len(texts) >= 40
    assert any("__syncthreads();" in t for t in texts)
    assert any("bw::gpu_arena(bw_blk," in t and "extern __shared__" in t for t in texts)
    assert any("sh__gpu_red_bytes[128 * sizeof(" in t for t in texts)
    assert any("__launch_bounds__(256)" in t for t in texts)  # boiv and par_for: one thread per point
    adjoints = [text for _, text, _ in compiled["adjoint-scratch"]]
    assert any("bw::atomic_add(&(" in t for t in adjoints)  # the slice's threads share its adjoint scratch
    sums = [text for _, text, _ in compiled["adjoint-slice-values"] if "_adj_sum_" in text]
    assert sums and all("__syncthreads();" in t for t in sums)  # the slice values' sums, read after a barrier
    team_sums = [text for _, text, _ in compiled["adjoint-team-values"] if "_adj_sum_" in text]
    assert team_sums and all("bw::atomic_add(" in t and "__syncthreads();" in t for t in team_sums)


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
        assert re.search(r"for \(int32_t (_it\d+) = bw::add\([^;]*, \(\(int32_t\)threadIdx.x\)\); \1 < _stop\d+; "
                         r"\1 \+= (_step\d+)\)", text)
        assert re.search(r"const int32_t _step\d+ = \(\(int32_t\)blockDim.x\);", text)


def test_scratch_barrier_and_block_level_store_golden():
    text, meta = la_source(mapping.scratch_body, la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE))
    check_golden("cuda_scratch", text)
    lines = body_lines(text)
    arena = next(i for i, s in enumerate(lines) if "bw::gpu_arena(bw_blk," in s and s.endswith(", 49152);"))
    scratch = next(i for i, s in enumerate(lines) if "bw::team_alloc<double, 1>(" in s)
    barrier = lines.index("__syncthreads();")
    producer = next(i for i, s in enumerate(lines) if s.startswith("for (") and "threadIdx.x" in s)
    consumer = next(i for i, s in enumerate(lines) if s.startswith("for (") and "threadIdx.x" in s and i > barrier)
    assert arena < scratch < producer < barrier < consumer and lines.count("__syncthreads();") == 1
    assert lines[-4:] == ["if (bw::truth(bw::eq(((int32_t)threadIdx.x), int32_t(0)))) {", lines[-3], "}", "}"]  # store on thread 0
    assert "extern __shared__ __align__(64) unsigned char bw_arena_shared[];" in text
    assert "const bw::gpu_block blk{bw_arena_shared, bw_arena_global};" in text
    assert meta["gpu_launch"]["arena"] is not None and meta["gpu_launch"]["shared_limit"] == 49152


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
    assert lines.count("__syncthreads();") == 1 + 7  # the threads' values stored, then each of log2(128) steps
    steps = [s for s in lines if s.startswith("if (bw::truth(bw::lt(((int32_t)threadIdx.x), int32_t(")]
    assert [int(s.split("int32_t(")[1].split(")")[0]) for s in steps] == [64, 32, 16, 8, 4, 2, 1]
    assert "atomic" not in text  # block partials are stored, then combined in slice order on the device
    assert meta["gpu_launch"]["shared_bytes"] == 128 * (8 if not reducer.with_location else 24)


def test_nested_teams_golden():
    kernel = body_kernel(mapping.teams_body, "outer", 1)
    types = [type_of_value(v) for v in kernel.arguments([0], 0)]
    text, meta = pipeline.generate(kernel, types, "teams", target=TARGET)
    check_golden("cuda_nested_teams", text)
    lines = body_lines(text)
    assert lines.count("__syncthreads();") == 1 and "v_member = bw::gpu_arena(bw_blk, v__bw_scratch, 49152);" \
        in text
    assert meta["gpu_launch"] == {"grid": "slices", "block": 128, "shared_bytes": 0, "arena": "_bw_scratch",
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
    assert LaunchPlan({"grid": "points", "block": 256, "arena": None}).geometry(1000, (), []) == (4, 256, 0, 0)
    plan = LaunchPlan({"grid": "slices", "block": 128, "arena": "_bw_scratch", "shared_limit": 1024})
    assert plan.geometry(6, (1000,), params) == (6, 128, 1000, 0)
    assert plan.geometry(6, (1025,), params) == (6, 128, 0, 1088)  # 64-byte blocks


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_a_loop_abstraction_launch_runs_a_block_per_slice_with_its_arena(fake, limit):
    geo = M.Geo(3, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    with la_emulation.config.override(gpu_shared_limit=limit), wp.ScopedDevice("cuda:0"):
        space = M.make_space(la.bvoi, la.logical_flat, geo, ninner=5, backend=la.team)
        f = wp.zeros(geo.shape, dtype=wp.int32)
        out = wp.zeros(geo.shape, dtype=wp.int32)
        mask = wp.zeros(geo.shape[1:], dtype=wp.int32)
        offsets = wp.zeros((4, 3), dtype=wp.int32)
        la.outer(space, la_emulation.stencil_body(f, out, offsets, mask, M.DIAG))
    [(_, _, grid, block, _)] = fake.launches
    [(shared, arena)] = fake.launch_memory
    # the scratch: 2 int32 per memory cell from (ks-1, js-1, is-1) to (ke, je, ie) (the DIAG halo), + 64
    first, end = (0 * 4 + 0) * 6 + 0, (3 * 4 + 2) * 6 + 4
    nbytes = (end - first + 1) * 2 * 4 + 64
    assert (grid, block) == (3, 128)  # bvoi: a block per mesh block
    if limit:
        assert (shared, arena) == (nbytes, 0)
    else:  # every block's arena, rounded up to 64 bytes, in one global buffer
        assert shared == 0 and len(fake.memory[arena]) == 3 * ((nbytes + 63) // 64 * 64)
