"""A kernel that fails to compile raises its error at every launch with the build's traceback and the frames of
that launch only: the stored exception raised again had grown by every earlier launch's frames (four a launch)."""

import traceback

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def _formats_a_string(a: wp.array(dtype=float)):
    i = wp.tid()
    print(f"a = {a[i]}")
    a[i] = 9.0


def _launch(a):
    wp.launch(_formats_a_string, dim=3, inputs=[a])


def test_each_launch_shows_its_own_frames_only():
    a = wp.array(np.arange(3, dtype=np.float32))
    seen = []
    for _ in range(4):
        with pytest.raises(wp.KernelSyntaxError, match="f-strings are not supported in kernels") as e:
            _launch(a)
        frames = traceback.extract_tb(e.value.__traceback__)
        seen.append([(f.name, f.lineno) for f in frames])
        assert sum(f.name == "_launch" for f in frames) == 1, frames  # this launch's, none of the earlier ones
    assert seen[1] == seen[2] == seen[3]  # the same frames at every launch after the first (which built it)
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 2.0])
