"""benchmarks/bench_volume.py: the table of one small run (brickwork alone; no Warp in the test environment)."""

import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_volume  # noqa: E402


def test_a_small_run_prints_every_row_for_one_and_two_threads(capsys, monkeypatch):
    monkeypatch.setenv("BRICKWORK_NUM_THREADS", "3")
    assert bench_volume.main(["--points", "500", "--size", "16", "--radius", "12", "--rounds", "1", "--reps", "1"]) == 0
    assert os.environ["BRICKWORK_NUM_THREADS"] == "3"  # the children's thread counts do not leak
    out = capsys.readouterr().out
    rows = re.findall(r"^\| (.+?) \| ([0-9.]+) \| - \| - \| ([0-9.]+) \| - \| - \|$", out, re.M)
    labels = [r[0] for r in rows]
    assert len(rows) == len(bench_volume.ROWS) == 12
    assert labels[0] == "sample_f LINEAR, dense 16^3" and labels[-3] == "load_from_numpy 16^3"
    # the band of a sphere of radius 12 within 3 voxels: the voxel counts are the build's
    voxels = int(re.search(r"lookup_f, every voxel \((\d+)\)", out)[1])
    index_voxels = int(re.search(r"allocate_by_voxels \((\d+) voxels\)", out)[1])
    assert voxels % 512 == 0 and 0 < index_voxels < voxels
    assert all(float(a) >= 0 and float(b) >= 0 for _, a, b in rows)
