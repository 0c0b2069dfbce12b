"""Accesses of struct array fields that a launch does not test (``ir/field_checks.py``) are tested as they run on
the GPU targets too: the emulation target raises ``BoundsError`` naming the access's line, as the CPU does, and a
CUDA launch reads the device's record back after the kernel (``targets/cuda/loader.py``), through a fake driver
here (the record is the one a GPU would write) and on a GPU in tests/runtime/test_cuda_device.py."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.pipeline import generate
from brickwork.targets.cuda import CudaTarget
from runtime import test_field_access_checks as fields
from runtime.cuda_fake import FakeDriver, installed

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


def test_an_unset_field_read_in_a_branch_is_refused_on_the_emulation():
    with config.override(target="cuda-emulation"):
        ss, kept = fields._elements(3, 2)
        ss.numpy()["scale"][2] = 1.0  # the branch is taken at the unset element too
        out = wp.full(3, -1.0, dtype=float)
        fields._refused(fields.read_in_branch, [ss, out], "read_in_branch's access")
        np.testing.assert_array_equal(out.numpy()[:2], [1.0, 11.0])  # the set elements ran (the unset one read a
        # dummy element, as a debug build does)
        ss.numpy()["scale"][2] = 0.0  # not reached: no error
        out.fill_(-1.0)
        wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out])
        np.testing.assert_array_equal(out.numpy(), [1.0, 11.0, -1.0])


def test_an_atomic_on_an_unset_field_in_a_loop_writes_nothing_there_on_the_emulation():
    with config.override(target="cuda-emulation"):
        ss, kept = fields._elements(3, 2)
        out = wp.full(1, 2.0, dtype=float)
        fields._refused(fields.add_in_loop, [ss, out], "add_in_loop's access")
    np.testing.assert_array_equal(kept[0].numpy(), [2.0, 1.0, 2.0])
    np.testing.assert_array_equal(kept[1].numpy(), [12.0, 11.0, 12.0])
    assert ss.numpy()["values"][2].tobytes() == bytes(ss.numpy()["values"][2].nbytes)  # still unset


@pytest.mark.parametrize("kernel, checks", [(fields.plain, 0), (fields.unconditional, 0), (fields.read_in_branch, 1),
                                            (fields.through_a_func, 1)])
def test_the_cuda_source_tests_the_accesses_the_cpus_tests(kernel, checks):
    text, meta = generate(kernel, kernel.concrete_types(), kernel.key, target=CudaTarget("sm_90"))
    assert ("at_checked" in text) is bool(checks)  # (a point's copies and both stride versions hold the test)
    assert meta.get("field_checks", False) is bool(checks)


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@needs_nvrtc
def test_a_cuda_launch_reads_the_record_of_an_unset_field_back(fake):
    """The record the kernel writes (its access's "+N" line, relative to the kernel) is raised as the CPU raises
    it, with the kernel's file:line, and cleared for the next launch; a launch that recorded nothing runs on."""
    text, _ = generate(fields.read_in_branch, fields.read_in_branch.concrete_types(), "k", target=CudaTarget("sm_90"))
    [where] = set(re.findall(r'"(\+\d+ \(an array held[^"]*)"', text))  # what the device would point the record at
    ss = wp.zeros(3, dtype=fields.Samples, device="cuda:0")
    out = wp.zeros(3, dtype=float, device="cuda:0")
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")  # nothing recorded: no error
    assert len(fake.launches) == 1
    literal = fake.alloc(0, 256)
    fake.memory[literal][:len(where) + 1] = where.encode() + b"\0"
    record = fake.globals["bw_bounds_record"][0]
    fake.memory[record][:] = struct.pack("<i4xQi4x4q4q", 1, literal, 1, 1, 0, 0, 0, 0, 0, 0, 0)
    with pytest.raises(wp.BoundsError) as e:
        wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    message, line = str(e.value), fields._line("read_in_branch's access")
    assert message.startswith(f"kernel '{fields.read_in_branch.key}': index (1) is out of bounds for shape (0) at "), \
        message
    assert f"{line} (an array held in a struct's field: one never set is None" in message, message
    assert fake.memory[record][:4] == b"\0\0\0\0"  # cleared for the next launch
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    assert len(fake.launches) == 3
