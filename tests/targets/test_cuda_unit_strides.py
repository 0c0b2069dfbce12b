"""A CUDA instance is built with its unit-stride body only (targets/cuda/unit.py): the host sends a launch whose
packed header says an array is not unit-strided (on a GPU: 2**31 elements or more) to the instance's strided
variant, built at that launch, which serves every later launch. Checked with the stand-in driver (launches
recorded, cubins compiled by NVRTC for real)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.runtime.packing import UNIT_INNER_FLAG

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

RUNTIME_TESTS = Path(__file__).resolve().parents[1] / "runtime"
if str(RUNTIME_TESTS) not in sys.path:
    sys.path.insert(0, str(RUNTIME_TESTS))

from cuda_fake import FakeDriver, installed  # noqa: E402


@wp.kernel
def stamp_row(a: wp.array2d(dtype=wp.int8), v: wp.int8):
    i = wp.tid()
    a[0, i] = v


class WideView:
    """Another library's CUDA array (``__cuda_array_interface__``) of 2**31 int8 elements over ``ptr``: a launch
    with it cannot take 32-bit offsets, so its header's unit_inner is 0. Nothing is allocated for it."""

    def __init__(self, ptr: int):
        self.ptr = ptr

    @property
    def __cuda_array_interface__(self):
        return {"shape": (2**16, 2**15), "typestr": "|i1", "data": (self.ptr, False), "version": 3, "strides": None}


def test_a_launch_without_unit_strides_runs_the_strided_variant_from_then_on(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    with installed(FakeDriver()) as drv, config.override(compile_module=False):
        small = wp.zeros((1, 8), dtype=wp.int8, device="cuda:0")
        wp.launch(stamp_row, dim=8, inputs=[small, 3], device="cuda:0")
        (inst, _pack), = stamp_row.launch_table.values()
        assert inst._general is None and inst.fn.unit_only and len(drv.modules) == 1
        first = drv.launches[-1]
        assert first[4][UNIT_INNER_FLAG] == 1 and drv.function_name(first[1]) == "bw_entry"

        wp.launch(stamp_row, dim=8, inputs=[WideView(small.ptr), 5], device="cuda:0")
        wide = drv.launches[-1]
        assert wide[4][UNIT_INNER_FLAG] == 0
        assert len(drv.modules) == 2 and wide[1] // 1000 == 2  # the strided variant's cubin, loaded now
        assert inst._general.variant == "strided" and not inst._general.fn.unit_only
        assert inst.fn is inst._general.fn  # from now on the instance's entry

        wp.launch(stamp_row, dim=8, inputs=[small, 7], device="cuda:0")
        assert len(drv.modules) == 2 and drv.launches[-1][1] == wide[1] and len(drv.launches) == 3
        assert [launch[4][UNIT_INNER_FLAG] for launch in drv.launches] == [1, 0, 1]
    # what each cubin was compiled from: the unit-stride body only, then both
    sources = {path.read_text().count("body<false>(") for path in tmp_path.glob("*/*/kernel.cu")}
    assert sources == {0, 1}
