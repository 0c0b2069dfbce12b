"""A slice's step that is zero at run time on the GPU targets: the emulation raises ``SliceStepError`` at the launch,
as the CPU does; the CUDA module records it (its line relative to the kernel's: the cubin names no file) and the host
raises it where it next waits for the device, through a fake driver here (the record a GPU would write)."""

from __future__ import annotations

import re
import struct

import pytest

import brickwork as wp
from brickwork import config, pending_checks
from brickwork.jit import nvrtc
from brickwork.pipeline import generate
from brickwork.targets.cuda import CudaTarget
from runtime.cuda_fake import installed

from .test_cuda_field_checks import RecordPerModule

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@wp.kernel
def strided(a: wp.array(dtype=float), step: int, out: wp.array(dtype=int)):
    out[0] = a[::step].shape[0]  # the slice


_LINE = next(n for n, text in enumerate(open(__file__).read().splitlines(), 1) if text.endswith("# the slice"))
_MESSAGE = f"kernel 'strided': slice step cannot be zero at {__file__}:{_LINE}"


def test_the_emulation_raises_a_zero_step_after_the_launch():
    with config.override(target="cuda-emulation"):
        a, out = wp.array([1.0, 2.0, 3.0], dtype=float), wp.full(1, -1, dtype=int)
        wp.launch(strided, dim=1, inputs=[a, -2, out])
        assert out.numpy().tolist() == [2]
        with pytest.raises(wp.SliceStepError) as info:
            wp.launch(strided, dim=1, inputs=[a, 0, out])
    assert str(info.value) == _MESSAGE and out.numpy().tolist() == [0]


@needs_nvrtc
def test_a_cuda_zero_step_is_raised_at_the_next_wait_with_the_kernels_file_and_line():
    text, meta = generate(strided, strided.concrete_types(), "strided", target=CudaTarget("sm_90"))
    assert __file__ not in text and meta["field_checks"] is True  # the source names no file; the record is read
    [where] = set(re.findall(r'"(\+\d+)"', text))
    for inst, _ in strided.launch_table.values():  # a module handle of an earlier driver
        getattr(inst.fn, "_loaded", {}).clear()
    with installed(RecordPerModule()) as fake:
        a, out = wp.zeros(3, dtype=float, device="cuda:0"), wp.zeros(1, dtype=int, device="cuda:0")
        wp.launch(strided, dim=1, inputs=[a, 0, out], device="cuda:0")
        (inst,) = [entry[0] for key, entry in strided.launch_table.items() if key[0] == "cuda:0"]
        literal = fake.alloc(0, 64)
        fake.memory[literal][:len(where) + 1] = where.encode() + b"\0"
        record = fake.global_address(0, inst.fn._loaded[0][0], "bw_bounds_record")[0]
        fake.memory[record][:] = struct.pack("<i4xQi4x4q4q", 1, literal, -1, *[0] * 8)  # n = -1: a zero step
        with pytest.raises(wp.SliceStepError) as info:
            wp.synchronize()
        assert str(info.value) == _MESSAGE
        wp.synchronize()  # raised once: the record was cleared
        assert pending_checks.pending == {}
