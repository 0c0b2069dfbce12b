"""A module's ``mode`` option (Warp's ``wp.set_module_options({"mode": "debug"})``): it builds that module's
kernels with bounds checks whatever ``config.mode`` says, takes effect on the next launch, and is checked;
debug reports name the file and line of a tile index the user wrote."""

import inspect
from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


def _shifter(module, **options):
    @wp.kernel(module=module, **options)
    def shift(a: wp.array(dtype=float), b: wp.array(dtype=float)):
        i = wp.tid()
        b[i] = a[i + 1]

    return shift


def _launch_past_the_end(kernel):
    a, b = wp.array(np.arange(4.0, dtype=np.float32)), wp.zeros(4, dtype=float)
    wp.launch(kernel, dim=4, inputs=[a, b])  # reads a[4] at the last point


def test_a_unique_kernels_debug_module_option_checks_bounds_in_release():
    shift = _shifter("unique", module_options={"mode": "debug"})
    assert config.mode == "release"
    with pytest.raises(wp.BoundsError, match=r"kernel 'shift': index \(4\) is out of bounds for shape \(4\) at "
                                             r".*test_module_mode.py:\d+"):
        _launch_past_the_end(shift)


def test_set_module_options_mode_takes_effect_at_the_next_launch():
    shift = _shifter("bw_test_module_mode")
    a, b = wp.array(np.arange(4.0, dtype=np.float32)), wp.zeros(4, dtype=float)
    wp.launch(shift, dim=3, inputs=[a, b])  # built in release first
    try:
        wp.set_module_options({"mode": "debug"}, module="bw_test_module_mode")
        wp.launch(shift, dim=3, inputs=[a, b])  # in bounds: the same values
        np.testing.assert_array_equal(b.numpy(), [1, 2, 3, 0])
        with pytest.raises(wp.BoundsError, match=r"index \(4\) is out of bounds"):
            _launch_past_the_end(shift)
        with config.override(mode="release"):  # the module's option wins over config.mode
            with pytest.raises(wp.BoundsError):
                _launch_past_the_end(shift)
    finally:
        wp.set_module_options({"mode": None}, module="bw_test_module_mode")
    assert {inst.mode for inst in shift.instances.values()} == {"release", "debug"}


def test_config_debug_mode_applies_where_the_module_sets_none():
    shift = _shifter("bw_test_module_mode_none")
    assert wp.get_module_options("bw_test_module_mode_none")["mode"] is None
    with config.override(mode="debug"), pytest.raises(wp.BoundsError):
        _launch_past_the_end(shift)


@pytest.mark.parametrize("bad", ["fast", "DEBUG", 1])
def test_a_mode_other_than_release_or_debug_is_refused_and_changes_nothing(bad):
    before = wp.get_module_options("bw_test_module_mode_bad")
    with pytest.raises(ValueError, match=rf"'mode' option must be None, 'release' or 'debug', got {bad!r}"):
        wp.set_module_options({"mode": bad, "max_unroll": 3}, module="bw_test_module_mode_bad")
    assert wp.get_module_options("bw_test_module_mode_bad") == before
    with pytest.raises(ValueError, match=r"@kernel for 'k': the 'mode' option must be"):
        wp.kernel(lambda: None, key="k", module="unique", module_options={"mode": bad})


@pytest.mark.parametrize("bad", ["dbg", "Debug", 1])
def test_a_config_mode_other_than_release_or_debug_is_refused_at_the_launch_and_changes_nothing(bad):
    """``wp.config.mode = "Debug"`` (assigned at run time) built release kernels without a word: a launch
    refuses it, on the first launch and after one in release."""
    shift = _shifter("bw_test_module_mode_config_bad")
    a, b = wp.array(np.arange(4.0, dtype=np.float32)), wp.zeros(4, dtype=float)
    wp.launch(shift, dim=3, inputs=[a, b])
    np.testing.assert_array_equal(b.numpy(), [1, 2, 3, 0])
    b.zero_()
    for kernel in (shift, _shifter("bw_test_module_mode_config_bad_first")):
        with config.override(mode=bad), pytest.raises(
                config.SettingError, match=rf"brickwork.config.mode must be 'release' or 'debug', got {bad!r}"):
            wp.launch(kernel, dim=3, inputs=[a, b])
        np.testing.assert_array_equal(b.numpy(), [0, 0, 0, 0])
    wp.launch(shift, dim=3, inputs=[a, b])  # config.mode is back to release
    np.testing.assert_array_equal(b.numpy(), [1, 2, 3, 0])


@wp.kernel(module="unique", module_options={"mode": "debug"})
def tile_indices(out: wp.array(dtype=int), i: int, j: int):
    t = wp.tile_arange(6, dtype=int)
    u = wp.tile_reshape(t, shape=(2, 3))
    out[0] = wp.tile_extract(u, i, j)
    out[1] = u[i, j]


def test_debug_reports_name_the_line_of_a_tile_index():
    out = wp.zeros(2, dtype=int)
    wp.launch_tiled(tile_indices, dim=[1], inputs=[out, 1, 2], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), [5, 5])
    line = inspect.getsourcelines(tile_indices.func)[1] + 4  # the tile_extract line
    with pytest.raises(wp.BoundsError, match=rf"index \(0, 3\) is out of bounds for shape \(2, 3\) at "
                                             rf".*test_module_mode.py:{line}"):
        wp.launch_tiled(tile_indices, dim=[1], inputs=[out, 0, 3], block_dim=1)


@wp.kernel(module="unique", module_options={"mode": "debug"})
def from_lane(out: wp.array(dtype=float), lane: int):
    t = wp.tile_from_thread(shape=(3,), value=2.5, thread_idx=lane)
    wp.tile_store(out, t)


def test_debug_mode_checks_the_lane_of_tile_from_thread():
    out = wp.zeros(3, dtype=float)
    wp.launch_tiled(from_lane, dim=[1], inputs=[out, 0], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), [2.5, 2.5, 2.5])
    with pytest.raises(wp.BoundsError, match=r"index \(1\) is out of bounds for shape \(1\) at .*test_module_mode"):
        wp.launch_tiled(from_lane, dim=[1], inputs=[out, 1], block_dim=1)


def test_an_overload_and_a_kernels_own_module_object_follow_a_mode_change():
    """``wp.overload``'s instance kept the launch table of its first mode, and ``module=kernel.module`` of a
    unique kernel set the options of another, new module."""

    @wp.kernel(module="unique")
    def put(a: wp.array(dtype=Any), i: int):
        a[i] = a.dtype(1)

    declared = wp.overload(put, [wp.array(dtype=wp.float32), int])
    a = wp.zeros(4, dtype=wp.float32)
    wp.launch(declared, dim=1, inputs=[a, 1])  # built in release
    wp.set_module_options({"mode": "debug"}, module=put.module)
    assert wp.get_module_options(put.module)["mode"] == "debug"
    with pytest.raises(wp.BoundsError, match=r"kernel 'put\[float32\]': index \(10\) is out of bounds for shape \(4\)"):
        wp.launch(declared, dim=1, inputs=[a, 10])
    np.testing.assert_array_equal(a.numpy(), [0, 1, 0, 0])  # nothing written by the refused launch
