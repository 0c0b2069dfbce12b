"""Team launches on a CUDA device (marker ``cuda_device``; skipped without a GPU; scripts/gpu_check.sh
runs them): the grid of slices (x the last launch dimension, y the one before, z the rest) and the
one-dimensional grid past CUDA's y limit give every block its slice; a block sum's last rounds by warp
shuffles give the bits of the GPU's order that the emulation computes; a scratch pad whose sizes
overflow is refused before the launch."""

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.jit import nvrtc
from brickwork.targets.cuda.geometry import ScratchPadSizeError

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

TESTS = Path(__file__).resolve().parents[1]
for sub in ("la", "la_reduce", "targets"):
    if str(TESTS / sub) not in sys.path:
        sys.path.insert(0, str(TESTS / sub))

import test_cuda_slice_grid as slice_grid  # noqa: E402
import test_cuda_team_pads as team_pads  # noqa: E402
import test_la_reductions_emulation as reductions  # noqa: E402

DEV = "cuda:0"


@pytest.mark.parametrize("sizes", slice_grid.TEAM_SIZES, ids=slice_grid.TEAM_IDS)
def test_each_block_runs_its_slice(sizes):
    with wp.ScopedDevice(DEV):
        got, want = slice_grid.run_teams(sizes)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("nx", [16, 3], ids=["7-cells-a-thread", "fewer-cells-than-threads"])
def test_a_block_sum_has_the_bits_of_the_gpus_order(nx):
    with wp.ScopedDevice(DEV):
        got, want = reductions.gpu_order_case(nx, DEV)
    assert got.tobytes() == want.tobytes()


def test_an_overflowing_pad_is_refused_before_the_launch():
    with wp.ScopedDevice(DEV):
        out = wp.zeros((2, 4), dtype=wp.float32)
        with pytest.raises(ScratchPadSizeError, match=r"sizes \(4294967296, 4294967296\) of 8-byte elements"):
            wp.par_for_outer(0, 0, 2, team_pads._body(out, (2**32, 2**32)))
        np.testing.assert_array_equal(out.numpy(), 0.0)
        wp.par_for_outer(64, 0, 2, team_pads._body(out, (2, 4)))
        np.testing.assert_array_equal(out.numpy(), 1.0)


def test_a_pad_whose_sizes_depend_on_the_team_stops_the_launch(tmp_path):
    """The host cannot check such sizes: the device counts the pad's bytes as the CPU does and traps (printing the
    CPU's message from the device), in a process of its own (a trap leaves its CUDA context unusable)."""
    import os
    import subprocess

    script = tmp_path / "per_team_scratch_on_the_device.py"
    script.write_text(team_pads.PER_TEAM_SCRIPT.format(
        launch=f"with wp.ScopedDevice({DEV!r}):\n    wp.par_for_outer(0, 0, 1, body)\n    wp.synchronize()"))
    src = str(TESTS.parent / "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode != 0 and "not reached" not in done.stdout, done.stdout + done.stderr
    assert "CudaError" in done.stderr or "CUDA_ERROR" in done.stderr, done.stderr
