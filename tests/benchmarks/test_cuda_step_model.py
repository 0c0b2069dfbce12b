"""benchmarks/cuda_step_model.py's arithmetic without a GPU, NVRTC or a disassembler: resident blocks per SM,
a team loop's trips, the bytes its loads request and the term that bounds a launch."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import cuda_step_model as model  # noqa: E402
from cuda_machine_code import Code  # noqa: E402


@pytest.mark.parametrize("registers, threads, shared, blocks", [
    (92, 128, 0, 5),  # 96 registers a thread allocated: 65536 / (4 warps x 3072)
    (72, 128, 20768, 7),  # registers allow 7 (72 x 32 = 2304 a warp), shared memory 10
    (27, 256, 0, 8),  # threads: 2048 / 256
    (14, 256, 2048, 8),
    (40, 128, 110000, 2),  # shared memory: 233472 / (110000 + 1024)
    (255, 1024, 0, 0),  # a block the registers cannot hold
])
def test_resident_blocks_follow_sm_90s_limits(registers, threads, shared, blocks):
    assert model.blocks_per_sm(registers, threads, shared) == blocks


def _launch(ops, spans, loops, grid, block=128, dram=None, registers=32):
    code = Code("bw_entry", registers, ops, [b - a + 1 for a, b in spans], spans)
    return model.Launch("brickwork", "k[t]", code, grid, (block, 1, 1), 0, model.Work(loops, dram))


def test_a_team_loop_runs_one_trip_per_item_of_each_thread_and_requests_its_loads_per_item():
    # 2 straight instructions, then a loop of 4: a load of 8 bytes, an FP64 add, a store of 8 bytes, the branch
    ops = ["S2R R0, SR_CTAID.X", "LDG.E.64 R2, desc[UR4][R2.64]",
           "LDG.E.64 R4, desc[UR4][R6.64]", "DADD R4, R4, R4", "STG.E.64 desc[UR4][R6.64], R4", "@P0 BRA `(.L_x_1)"]
    launch = _launch(ops, [(2, 5)], ((258, 1),), (100, 1, 1), dram=lambda f: 1e6)
    row = model.estimate(launch, "h200", {})
    # 258 items, 128 threads: warp 0's first lane takes 3 (0, 128, 256), warps 1-3 2: 9 trips of a block's warps
    assert row["warp instructions"] == 100 * (4 * 2 + 9 * 4)
    assert row["fp64"] == 100 * 9
    assert row["requested"] == 100 * (258 * 16 + 4 * 32 * 8)  # the loop's 16 bytes per item; the table read a warp
    assert (row["dram"], row["in flight"], row["blocks/SM"], row["warps/SM"]) == (1e6, 1, 16, 4)
    # 100 blocks on 100 SMs, 4 warps each with one 8-byte load in flight: 100 x 1 KB / 630 ns; 1 MB takes 615 us
    assert row["bound"] == "memory"
    assert row["seconds"] == pytest.approx(1e6 / (100 * 4 * 32 * 8 / model.LATENCY))


def test_paired_items_halve_the_trips_and_a_tiny_launch_is_bound_by_its_start():
    ops = ["DADD R4, R4, R4", "DADD R4, R4, R4", "@P0 BRA `(.L_x_1)"]
    single = model.estimate(_launch(ops, [(0, 2)], ((256, 1),), (1, 1, 1)), "h100", {})
    paired = model.estimate(_launch(ops, [(0, 2)], ((256, 2),), (1, 1, 1)), "h100", {})
    assert (single["warp instructions"], paired["warp instructions"]) == (4 * 2 * 3, 4 * 1 * 3)
    # a team waits for its tables (3 dependent loads) and each of its 2 trips: 5 latencies
    assert single["bound"] == "latency" and single["seconds"] == pytest.approx(5 * model.LATENCY)
    tiny = model.estimate(_launch(ops[:2], [], (), (1, 1, 1)), "h100", {})  # a plain kernel waits once
    assert tiny["bound"] == "launch" and tiny["seconds"] == model.LAUNCH_FLOOR


def test_the_step_fields_count_each_variable_once():
    f = model.step_fields(2048, 256)
    assert f["interior"] == 8 * 2048 ** 2
    assert f["with_ghosts"] == 8 * 64 * 260 ** 2 and f["ghosts"] == f["with_ghosts"] - f["interior"]
    assert f["hand"] == 8 * 2052 ** 2
    assert model.brickwork_work("fluxes[vec10d, P]", f).loops == ((258, 1), (257, 1))
    assert model.brickwork_work("update[vec10d]", f).dram(f) == 25 * f["interior"]
    assert model.brickwork_work("a_kernel_the_model_does_not_know", f) is None
