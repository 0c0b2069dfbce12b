"""A per-point scratch pad of several components may hold more than 2**31 slots: its length and its slots are
int64. Before, a row of 2048 cells with 2**20 components per cell made an int32 length of -2**31, a pad of 0
bytes, and the body wrote 2 GiB past it (segfault); 4096 cells wrapped the length to 0 and the slots too. The
body runs in a child process, since the pad (2-4 GiB, touched at a few pages) must be reserved."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BODY = Path(__file__).with_name("scratch_wide_body.py")


@pytest.mark.parametrize("nx", [2048, 4096])
def test_a_pad_of_more_than_2_31_slots_holds_each_cells_last_component(nx):
    done = subprocess.run([sys.executable, str(BODY), str(nx)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    row = np.array(done.stdout.split(), dtype=np.int64)
    np.testing.assert_array_equal(row, np.arange(nx) % 100)
