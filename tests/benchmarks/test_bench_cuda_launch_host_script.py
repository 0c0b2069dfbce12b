"""benchmarks/bench_cuda_launch_host.py: one small run through the stand-in driver prints a row per launch form
with its microseconds, and the load."""

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_cuda_launch_host  # noqa: E402


def test_a_small_run_prints_a_row_per_launch_form(capsys):
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed (pip install 'brickwork[cuda]')")
    assert bench_cuda_launch_host.main(["--calls", "5", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\| ((?:wp\.launch|la\.outer)[^|]+) \| ([0-9.]+) \|$", out, re.M)
    assert len(rows) == 3 and all(float(t) > 0 for _, t in rows), out
    assert re.search(r"^load [0-9.]+ -> [0-9.]+$", out, re.M)
