"""wp.config.verify_fp: arrays a launch leaves holding NaN or infinity are printed after the launch."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import LaunchError


@wp.struct
class Slot:
    field: float
    v: wp.vec3


@wp.kernel
def divide(a: wp.array(dtype=float), b: wp.array(dtype=float), d: float):
    i = wp.tid()
    b[i] = a[i] / d


@wp.kernel
def slot_divide(s: wp.array(dtype=Slot), d: float):
    i = wp.tid()
    s[i].v[1] = 1.0 / d
    s[i].field /= d


@wp.kernel
def set_component(v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v[i][0] = 1.0


def test_reports_nan_and_inf_of_written_arrays(capfd):
    a, b = wp.array([0.0, 1.0, 2.0], dtype=float), wp.zeros(3)
    with wp.config.override(verify_fp=True):
        wp.launch(divide, 3, inputs=[a, b, 1.0])
        assert capfd.readouterr().out == ""  # finite: nothing printed
        wp.launch(divide, 3, inputs=[a, b, 0.0])
    out = capfd.readouterr().out
    assert out == "verify_fp: kernel divide wrote nan and inf to argument 'b' (first at index [0])\n"
    np.testing.assert_array_equal(np.isinf(b.numpy()), [False, True, True])  # the launch ran as usual


def test_struct_fields_and_components_are_checked(capfd):
    s = wp.zeros(2, dtype=Slot)
    with wp.config.override(verify_fp=True):
        wp.launch(slot_divide, 2, inputs=[s, 0.0])
    out = capfd.readouterr().out
    assert "kernel slot_divide wrote nan and inf to argument 's'" in out


def test_off_by_default(capfd):
    assert wp.config.verify_fp is False
    b = wp.zeros(2)
    wp.launch(divide, 2, inputs=[wp.ones(2), b, 0.0])
    assert capfd.readouterr().out == ""


def test_stores_to_components_of_read_only_arrays_are_refused():
    """A store to a component of an element writes the array (verify_fp checks it; launch refuses it
    for read-only memory)."""
    frozen = np.zeros((2, 3), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(LaunchError, match="argument 'v' is a read-only array"):
        wp.launch(set_component, 2, inputs=[wp.array(frozen, dtype=wp.vec3, copy=False)])
