"""wp.launch's own options (attacker round 17, lead 1): block_dim="x" or 2048, max_blocks="x" and record_tape="no"
were taken without a word (record_tape="no" recorded the launch on a tape, a true value), and device=5 was a bare
ValueError. Each is a LaunchError naming the argument and its value before anything runs, on the CPU, on a CUDA
device (the stand-in driver), with record_cmd=True and under a tape; Warp 1.19's forms stay accepted (block_dim None,
0 or negative: the default; max_blocks 0 or negative: no limit; dim=True, dim=() and numpy integers: as Warp)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp
from brickwork.jit import nvrtc

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@wp.kernel
def bump(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


REFUSED = [
    ("block_dim", "x", wp.LaunchError, "block_dim must be an int from 1 to 1024 (None, 0 or a negative int for the "
                                       "default), got str 'x'"),
    ("block_dim", 2.5, wp.LaunchError, "block_dim must be an int from 1 to 1024 (None, 0 or a negative int for the "
                                       "default), got float 2.5"),
    ("block_dim", 2048, wp.LaunchArgumentError, "block_dim must be at most 1024 (the threads of a CUDA block), got "
                                                "2048"),
    ("block_dim", np.int64(1025), wp.LaunchArgumentError, "block_dim must be at most 1024 (the threads of a CUDA "
                                                          "block), got 1025"),
    ("max_blocks", "x", wp.LaunchError, "max_blocks must be an int (0 or negative: no limit), got str 'x'"),
    ("max_blocks", 2.0, wp.LaunchError, "max_blocks must be an int (0 or negative: no limit), got float 2.0"),
    ("record_tape", "no", wp.LaunchError, "record_tape must be True or False, got str 'no'"),
    ("record_tape", 2, wp.LaunchError, "record_tape must be True or False, got int 2"),
]


@pytest.mark.parametrize(("name", "value", "kind", "message"), REFUSED)
@pytest.mark.parametrize("how", ["launch", "record_cmd", "tape"])
def test_an_option_warp_does_not_take_is_named_before_anything_runs(name, value, kind, message, how):
    a = wp.full(4, 1.0, dtype=wp.float32)
    tape = wp.Tape()
    with pytest.raises(kind) as e:
        if how == "tape":
            with tape:
                wp.launch(bump, dim=4, inputs=[a], **{name: value})
        else:
            wp.launch(bump, dim=4, inputs=[a], record_cmd=how == "record_cmd", **{name: value})
    assert str(e.value) == f"launch of 'bump': {message}"
    assert a.numpy().tolist() == [1.0] * 4
    assert tape.launches == []
    wp.launch(bump, dim=4, inputs=[a])  # refused again after a launch of the same signature ran (no cached pass)
    with pytest.raises(kind):
        wp.launch(bump, dim=4, inputs=[a], **{name: value})
    assert a.numpy().tolist() == [2.0] * 4


@pytest.mark.parametrize("device", [5, "gpu", "cpu:0", object()])
def test_a_device_that_names_no_device_is_named(device):
    a = wp.full(4, 1.0, dtype=wp.float32)
    with pytest.raises(wp.LaunchArgumentError) as e:  # a ValueError too, as Warp's
        wp.launch(bump, dim=4, inputs=[a], device=device)
    assert isinstance(e.value, ValueError)
    assert str(e.value).startswith(f"launch of 'bump': device={device!r:.40}: unknown device")
    assert a.numpy().tolist() == [1.0] * 4


@pytest.mark.parametrize(("name", "value"), [("block_dim", 0), ("block_dim", -1), ("block_dim", None),
                                             ("block_dim", 1024), ("block_dim", np.int32(64)), ("block_dim", True),
                                             ("max_blocks", -1), ("max_blocks", 8), ("max_blocks", None),
                                             ("record_tape", False), ("record_tape", 0), ("record_tape", None),
                                             ("record_tape", np.bool_(True))])
def test_warps_forms_stay_accepted(name, value):
    a = wp.full(4, 1.0, dtype=wp.float32)
    wp.launch(bump, dim=4, inputs=[a], **{name: value})
    assert a.numpy().tolist() == [2.0] * 4


@pytest.mark.parametrize(("dim", "expected"), [(True, [2.0, 1.0, 1.0, 1.0]), ((), [2.0, 1.0, 1.0, 1.0]),
                                               (np.int64(3), [2.0, 2.0, 2.0, 1.0]), ([2], [2.0, 2.0, 1.0, 1.0])])
def test_dims_warp_takes_run_as_in_warp(dim, expected):
    a = wp.full(4, 1.0, dtype=wp.float32)
    wp.launch(bump, dim=dim, inputs=[a])
    assert a.numpy().tolist() == expected


@pytest.mark.parametrize(("dim", "message"), [(2.0, "dim must be an int or a tuple of ints, got 2.0"),
                                              ((3, -1), r"dim must not be negative, got \(3, -1\)")])
def test_a_dim_warp_refuses_is_named(dim, message):
    a = wp.full(4, 1.0, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=f"^launch of 'bump': {message}$"):
        wp.launch(bump, dim=dim, inputs=[a])
    assert a.numpy().tolist() == [1.0] * 4


@needs_nvrtc
def test_on_a_cuda_device_too():
    with installed(FakeDriver()) as driver:
        a = wp.full(4, 1.0, dtype=wp.float32, device="cuda:0")
        with pytest.raises(wp.LaunchArgumentError, match=r"^launch of 'bump': block_dim must be at most 1024"):
            wp.launch(bump, dim=4, inputs=[a], device="cuda:0", block_dim=2048)
        with pytest.raises(wp.LaunchError, match=r"^launch of 'bump': max_blocks must be an int"):
            wp.launch(bump, dim=4, inputs=[a], device="cuda:0", max_blocks="x")
        assert driver.launches == [] and a.numpy().tolist() == [1.0] * 4


@pytest.mark.parametrize(("inputs", "outputs", "name", "got"), [(None, (), "inputs", "NoneType"),
                                                                ([], "a", "outputs", "str"),
                                                                ([], "array", "outputs", "array")])
def test_inputs_or_outputs_that_are_no_list_are_named(inputs, outputs, name, got):
    """inputs=None was "'NoneType' object is not iterable"; outputs=a (an array, not [a]) made its elements the
    arguments ("expected 1 arguments (a), got 4")."""
    a = wp.full(4, 1.0, dtype=wp.float32)
    wp.launch(bump, dim=4, inputs=[a])  # the signature is in the table: the refusal is not the first launch's only
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(bump, dim=4, inputs=inputs, outputs=a if outputs == "array" else outputs)
    assert str(e.value) == f"launch of 'bump': {name} must be a list or tuple of arguments, got {got}"
    assert a.numpy().tolist() == [2.0] * 4
