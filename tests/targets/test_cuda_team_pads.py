"""A team's scratch pad whose sizes need more than 2**61 bytes on a GPU target: its byte count would
wrap around to a small pad that in-range indices write past, and a block's arena cannot grow. The CPU
stops in ``bw::pad_bytes`` with a message (tests/mesh/test_par_for.py); the CUDA host checks the pads
whose sizes it can evaluate from the launch's arguments before the launch, with the same message
(through a fake driver here), and the emulation target stops as the CPU does."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.targets.cuda.geometry import LaunchPlan, ScratchPadSizeError, check_pad

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS / "runtime") not in sys.path:
    sys.path.insert(0, str(TESTS / "runtime"))

from cuda_fake import FakeDriver, installed  # noqa: E402

MESSAGE = "a team's scratch pad of sizes ({}) of {}-byte elements needs more than 2**61 bytes"


@pytest.mark.parametrize("nbytes, sizes, refused", [
    (8, [2**58], False),  # 2**61 bytes exactly
    (8, [2**58 + 1], True),
    (8, [2**32, 2**32], True),  # 2**67: wraps around to 0 in int64
    (4, [2**31, 2**31, 4], True),
    (8, [2**62, 2**62, 0], True),  # overflowed before the zero, as bw::pad_bytes counts
    (8, [-5, 2**62], False),  # a size below 0 counts 0
    (2, [3, 4], False),
])
def test_the_pad_check_counts_as_the_cpu_does(nbytes, sizes, refused):
    if not refused:
        check_pad(nbytes, sizes, "k")
        return
    with pytest.raises(ScratchPadSizeError, match=r"kernel 'k': " + MESSAGE.format(
            ", ".join(map(str, sizes)), nbytes).replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        check_pad(nbytes, sizes, "k")


def test_a_plan_evaluates_the_recorded_sizes_of_the_arguments():
    plan = LaunchPlan({"grid": "slices", "block": 128, "arena": None, "pads": [[4, ["n", "mul[nw](n, int64(2))"]]]},
                      "team")
    params = [("n", None)]
    assert plan.geometry((3,), (2**29,), params) == (3, 128, 0, 0)
    with pytest.raises(ScratchPadSizeError, match=r"kernel 'team': a team's scratch pad of sizes \(2147483648, "
                                                  r"4294967296\) of 4-byte elements"):
        plan.geometry((3,), (2**31,), params)


def _body(out, sizes):
    rows, columns = sizes

    def body(member, j):
        big = wp.ScratchPad2D(member, wp.float64, rows, columns)

        def one(i):
            big[i, i] = wp.float64(1.0)
            out[j, i] = 1.0

        wp.par_for_inner(member, 0, 3, one)

    return body


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_an_overflowing_pad_is_refused_before_the_launch():
    with installed(FakeDriver()) as fake, wp.ScopedDevice("cuda:0"):
        out = wp.zeros((2, 4), dtype=wp.float32)
        with pytest.raises(ScratchPadSizeError, match=r"a team's scratch pad of sizes \(4294967296, 4294967296\) "
                                                      r"of 8-byte elements needs more than 2\*\*61 bytes") as err:
            wp.par_for_outer(0, 0, 2, _body(out, (2**32, 2**32)))
        assert isinstance(err.value, wp.LaunchError) and fake.launches == []
        np.testing.assert_array_equal(out.numpy(), 0.0)
        wp.par_for_outer(64, 0, 2, _body(out, (2, 4)))  # a pad that fits: launched
        assert len(fake.launches) == 1


def test_the_emulation_stops_with_the_cpus_message(tmp_path):
    script = tmp_path / "huge_scratch.py"
    script.write_text(textwrap.dedent("""
        import brickwork as wp
        from brickwork import config

        def body(member, j):
            big = wp.ScratchPad2D(member, wp.float64, 4294967296, 4294967296)

            def one(i):
                big[i, i] = wp.float64(1.0)

            wp.par_for_inner(member, 0, 3, one)

        with config.override(target="cuda-emulation"):
            wp.par_for_outer(0, 0, 1, body)
        print("not reached")
    """))
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode != 0 and "not reached" not in done.stdout
    assert "brickwork: " + MESSAGE.format("4294967296, 4294967296", 8) in done.stderr, done.stderr


#: a pad whose sizes depend on the team (the host cannot check them before the launch): team j's rows are
#: 2**32 (j + 1), so team 0's pad is 2**32 x 2**32 float64s
PER_TEAM_SCRIPT = """
import brickwork as wp
from brickwork import config

def body(member, j):
    big = wp.ScratchPad2D(member, wp.float64, wp.int64(j + 1) * wp.int64(4294967296), wp.int64(4294967296))

    def one(i):
        big[i, i] = wp.float64(1.0)

    wp.par_for_inner(member, 0, 3, one)

{launch}
print("not reached")
"""


def _per_team_body():
    """The body of PER_TEAM_SCRIPT, in this file (the frontend reads a kernel's source from its file)."""
    def body(member, j):
        big = wp.ScratchPad2D(member, wp.float64, wp.int64(j + 1) * wp.int64(4294967296), wp.int64(4294967296))

        def one(i):
            big[i, i] = wp.float64(1.0)

        wp.par_for_inner(member, 0, 3, one)

    return body


def test_the_emulation_stops_a_pad_whose_sizes_depend_on_the_team(tmp_path):
    script = tmp_path / "per_team_scratch.py"
    script.write_text(PER_TEAM_SCRIPT.format(launch="with config.override(target='cuda-emulation'):\n"
                                                    "    wp.par_for_outer(0, 0, 1, body)"))
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode != 0 and "not reached" not in done.stdout
    assert "brickwork: " + MESSAGE.format("4294967296, 4294967296", 8) in done.stderr, done.stderr


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_a_pad_whose_sizes_depend_on_the_team_is_checked_on_the_device():
    """The host cannot evaluate such sizes, so it launches (a fake driver here: nothing runs), and the device counts
    the pad's bytes as ``bw::pad_bytes`` does and stops the launch with its message: the cubin holds the message
    (it had none before: a pad of 2**64 float64s wrapped around to 0 bytes and was written past)."""
    with installed(FakeDriver()) as fake, wp.ScopedDevice("cuda:0"):
        out = wp.zeros((2, 4), dtype=wp.float32)
        wp.par_for_outer(0, 0, 1, _per_team_body())
        assert len(fake.launches) == 1  # the host did not refuse it
        [cubin] = fake.modules
    assert b") of %d-byte elements needs more than 2**61 bytes" in cubin
    np.testing.assert_array_equal(out.numpy(), 0.0)
