"""wp.can_access(device, array) and wp.clear_lto_cache(), Warp 1.19's host functions (newuser round 10)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit.store import cache_root

from .cuda_fake import FakeDriver, installed


def test_a_device_accesses_its_own_arrays_only():
    a = wp.array([1.0, 2.0, 3.0], dtype=float, device="cpu")
    gathered = wp.indexedarray(a, [wp.array([0, 2], dtype=int)])
    assert wp.can_access("cpu", a) is True and wp.can_access(wp.get_device("cpu"), gathered) is True
    pinned = wp.array([1.0], dtype=float, device="cpu", pinned=True)
    with installed(FakeDriver()):
        on_gpu = wp.zeros(2, dtype=float, device="cuda:0")
        assert wp.can_access("cuda:0", on_gpu) is True
        # launches refuse arrays of another device: pinned host memory too (Warp 1.19 lets a UVA GPU read it)
        assert wp.can_access("cuda:0", a) is False and wp.can_access("cuda:0", pinned) is False
        assert wp.can_access("cpu", on_gpu) is False
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("resource", [np.zeros(3), [1.0], None, wp.array(dtype=float)], ids=str)
def test_anything_but_an_array_is_a_type_error(resource):
    with pytest.raises(TypeError, match=r"wp.can_access\(\) takes an array, not \w+ \(Warp 1.19 answers for "
                                        r"concrete Warp arrays only\)"):
        wp.can_access("cpu", resource)


def test_an_unknown_device_is_named():
    with pytest.raises(ValueError, match="nope"):
        wp.can_access("nope", wp.zeros(1))


def test_clear_lto_cache_leaves_the_kernel_cache_as_it_is(tmp_path):
    entry = tmp_path / "entry" / "meta.json"
    entry.parent.mkdir()
    entry.write_text("{}")
    with config.override(kernel_cache_dir=str(tmp_path)):
        assert cache_root() == str(tmp_path) and wp.clear_lto_cache() is None
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["entry", "meta.json"] and entry.read_text() == "{}"
