"""``wp.load_module``: build a module's declared kernel instances now; refuse modules without kernels."""

import sys
import types
import unittest

import numpy as np
import pytest

import brickwork as wp
from brickwork.lang.instance import _pending


@wp.kernel
def _fill(a: wp.array(dtype=wp.Any), value: wp.Any):
    a[wp.tid()] = value


def test_load_module_builds_the_callers_declared_instances():
    wp.overload(_fill, [wp.array(dtype=wp.float64), wp.float64])
    assert any(p.kernel is _fill for p in _pending)
    wp.load_module()  # this test module, by default
    assert not any(p.kernel is _fill for p in _pending)
    a = wp.zeros(3, dtype=wp.float64)
    wp.launch(_fill, dim=3, inputs=[a, wp.float64(2.5)])
    np.testing.assert_array_equal(a.numpy(), [2.5, 2.5, 2.5])
    wp.load_module(sys.modules[__name__])  # the module object, or its name
    wp.load_module(__name__, recursive=True)


@pytest.mark.parametrize("module", ["no_such_module_anywhere", unittest, types.ModuleType("empty_mod")])
def test_load_module_refuses_modules_without_kernels_functions_or_structs(module):
    name = module if isinstance(module, str) else module.__name__
    if isinstance(module, types.ModuleType) and name not in sys.modules:
        sys.modules[name] = module
    try:
        with pytest.raises(RuntimeError, match=f"Module '{name}' does not contain any Warp kernels, functions, "
                                               f"or structs"):
            wp.load_module(module)
    finally:
        if name == "empty_mod":
            del sys.modules[name]


def test_load_module_takes_brickworks_library_modules():
    """``wp.load_module(wp.utils)`` (Warp code precompiling warp.utils) builds what they hold: here nothing, as
    their algorithms run without kernels, and that is not an error."""
    import brickwork.utils

    wp.load_module(brickwork.utils)
    wp.load_module("brickwork.utils", recursive=True)
    wp.load_module(wp.optim)
    assert wp.utils.array_sum(wp.array([1.0, 2.0], dtype=float)) == 3.0
