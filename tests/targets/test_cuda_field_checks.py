"""Accesses of struct array fields that a launch does not test (``ir/field_checks.py``) are tested as they run on
the GPU targets too: the emulation target raises ``BoundsError`` naming the access's line at the launch, as the CPU
does; a CUDA launch does not wait for the kernel: the device's record is read where the host next waits for the
device (``brickwork/pending_checks.py``), through a fake driver here (the record is the one a GPU would write) and
on a GPU in tests/runtime/test_cuda_device.py."""

from __future__ import annotations

import os
import re
import struct

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pending_checks
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


def test_a_set_field_indexed_past_its_end_on_the_emulation_has_no_note_on_unset_fields():
    with config.override(target="cuda-emulation"):
        s = fields.Samples()
        s.values = wp.zeros(2, dtype=float)
        out = wp.full(3, 4.0, dtype=float)
        message = fields._refused(fields.parameter_in_branch, [s, out], "parameter_in_branch's access", shape="(2)")
        fields._refused(fields.parameter_in_branch, [fields.Samples(), out], "parameter_in_branch's access")  # unset:
        # the note stays
    assert message == (f"kernel '{fields.parameter_in_branch.key}': index (2) is out of bounds for shape (2) at "
                       f"{os.path.dirname(fields.__file__)}/" + fields._line("parameter_in_branch's access"))
    np.testing.assert_array_equal(s.values.numpy(), [4.0, 4.0])  # in range: written; index 2: not
    np.testing.assert_array_equal(out.numpy(), 4.0)


@pytest.mark.parametrize("kernel, checks", [(fields.plain, 0), (fields.unconditional, 0), (fields.read_in_branch, 1),
                                            (fields.through_a_func, 1)])
def test_the_cuda_source_tests_the_accesses_the_cpus_tests(kernel, checks):
    text, meta = generate(kernel, kernel.concrete_types(), kernel.key, target=CudaTarget("sm_90"))
    assert ("at_checked" in text) is bool(checks)  # (a point's copies and both stride versions hold the test)
    assert meta.get("field_checks", False) is bool(checks)


class RecordPerModule(FakeDriver):
    """The fake driver with a bounds record of each module's own, as each cubin has on a GPU."""

    def global_address(self, ordinal, module, name):
        key = (module, name)
        if key not in self.globals:
            self.globals[key] = (self.alloc(ordinal, 88), 88)
        return self.globals[key]


@pytest.fixture
def fake():
    for kernel in (fields.read_in_branch, fields.through_a_func):  # loaded by an earlier test's driver: a module
        for inst, _ in kernel.launch_table.values():  # handle of that one, which this driver may give out again
            getattr(inst.fn, "_loaded", {}).clear()
    with installed(RecordPerModule()) as drv:
        drv.copies = []
        download = drv.copy_to_host

        def to_host(ordinal, dst, src, nbytes):
            drv.copies.append(("down", nbytes))
            return download(ordinal, dst, src, nbytes)

        drv.copy_to_host = to_host
        yield drv


def _record(fake, kernel, index: int = 1, shape: int = 0) -> None:
    """Write what the device records for ``kernel``'s checked access at ``index`` of a field of ``shape`` elements
    (0: unset; its "+N" line, relative to the kernel's, as a string of the module) into the record of the module it
    was loaded as."""
    text, _ = generate(kernel, kernel.concrete_types(), "k", target=CudaTarget("sm_90"))
    [where] = set(re.findall(r'"([^"]* \(an array held[^"]*)"', text))  # a @func's access: its file:line
    literal = fake.alloc(0, 256)
    fake.memory[literal][:len(where) + 1] = where.encode() + b"\0"
    ptr = fake.global_address(0, _module_of(fake, kernel), "bw_bounds_record")[0]
    fake.memory[ptr][:] = struct.pack("<i4xQi4x4q4q", 1, literal, 1, index, 0, 0, 0, shape, 0, 0, 0)


def _module_of(fake, kernel) -> int:
    (inst,) = [entry[0] for (device, _), entry in kernel.launch_table.items() if device == "cuda:0"]
    return inst.fn._loaded[0][0]


def _record_set(fake, kernel) -> bool:
    return fake.memory[fake.global_address(0, _module_of(fake, kernel), "bw_bounds_record")[0]][:4] != bytes(4)


def _arguments():
    return wp.zeros(3, dtype=fields.Samples, device="cuda:0"), wp.zeros(3, dtype=float, device="cuda:0")


def _names(error, kernel, access: str, index: int = 1) -> bool:
    """Whether ``error`` names the kernel, the index, the access's file:line and the field."""
    message = str(error)
    return (message.startswith(f"kernel '{kernel.key}': index ({index}) is out of bounds for shape (0) at ")
            and f"{fields._line(access)} (an array held in a struct's field: one never set is None" in message)


@needs_nvrtc
def test_a_checked_launch_neither_waits_nor_copies_and_the_next_wait_raises_its_record(fake):
    """The launch notes the kernel only: no copy, no synchronisation, whatever it recorded. wp.synchronize()
    reads the record (one copy of it), raises it with the kernel's file:line and clears it; the launches after
    run on, and a launch that recorded nothing raises nothing."""
    ss, out = _arguments()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    wp.synchronize()  # nothing recorded: no error
    assert fake.copies == [("down", 88)] and fake.synchronized == [0]
    fake.copies.clear()
    fake.synchronized.clear()
    fake.stream_log.clear()
    _record(fake, fields.read_in_branch)
    for _ in range(5):
        wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    assert fake.copies == [] and fake.synchronized == []  # zero extra driver work on the launch path
    assert fake.stream_log == [("launch", 0)] * 5
    with pytest.raises(wp.BoundsError) as e:
        wp.synchronize()
    assert _names(e.value, fields.read_in_branch, "read_in_branch's access"), str(e.value)
    assert fake.copies[0] == ("down", 88) and fake.synchronized == [0]
    assert not _record_set(fake, fields.read_in_branch) and pending_checks.pending == {}
    wp.synchronize()  # raised once
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0])  # the copy reads the clear record: no error
    assert len(fake.launches) == 7


@needs_nvrtc
def test_a_copy_to_the_host_raises_the_record_after_copying(fake):
    ss, out = _arguments()
    wp.launch(fields.through_a_func, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.through_a_func, index=0)
    fake.copies.clear()
    with pytest.raises(wp.BoundsError) as e:
        out.numpy()
    assert _names(e.value, fields.through_a_func, "first_of's access", index=0), str(e.value)
    assert fake.copies[:2] == [("down", 12), ("down", 88)]  # the array, then the record
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0])
    assert not _record_set(fake, fields.through_a_func)


@needs_nvrtc
def test_a_set_field_indexed_past_its_end_has_no_note_on_unset_fields(fake):
    """The record of an access past the end of a field that was set (its shape has elements) is a plain
    out-of-bounds error, as on the CPU: the note about unset fields would only mislead; an unset one keeps it."""
    ss, out = _arguments()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.read_in_branch, index=3, shape=3)
    with pytest.raises(wp.BoundsError) as e:
        wp.synchronize()
    assert str(e.value) == (f"kernel '{fields.read_in_branch.key}': index (3) is out of bounds for shape (3) at "
                            f"{os.path.dirname(fields.__file__)}/" + fields._line("read_in_branch's access"))
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.read_in_branch, index=1, shape=0)
    with pytest.raises(wp.BoundsError) as e:
        wp.synchronize()
    assert _names(e.value, fields.read_in_branch, "read_in_branch's access"), str(e.value)
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0])


@needs_nvrtc
def test_two_kernels_recorded_raise_in_launch_order_one_wait_each(fake):
    ss, out = _arguments()
    wp.launch(fields.through_a_func, dim=3, inputs=[ss, out], device="cuda:0")
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.read_in_branch)
    _record(fake, fields.through_a_func, index=0)
    with pytest.raises(wp.BoundsError, match="through_a_func"):
        wp.synchronize()
    assert _record_set(fake, fields.read_in_branch)  # not read yet: raised at the next wait
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        wp.synchronize_device("cuda:0")
    wp.synchronize()
    assert pending_checks.pending == {}


@needs_nvrtc
def test_a_stream_synchronize_raises_the_records_of_launches_on_that_stream_only(fake):
    ss, out = _arguments()
    s, other = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], stream=s)
    _record(fake, fields.read_in_branch)
    fake.copies.clear()
    other.synchronize()  # the launch may still run: its record is not read
    assert fake.copies == []
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        s.synchronize()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], stream=s)
    _record(fake, fields.read_in_branch)
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        wp.synchronize_stream(wp.get_stream("cuda:0"))  # the legacy default stream waits for brickwork's streams


@needs_nvrtc
def test_a_host_copy_leaves_the_launches_on_another_librarys_stream_to_a_synchronize(fake):
    """A stream made elsewhere (Stream(cuda_stream=...), as stream_from_torch makes) may not be ordered with the
    legacy default stream, on which host copies run: a copy does not show its launch finished."""
    ss, out = _arguments()
    foreign = wp.Stream("cuda:0", cuda_stream=0x7777)
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], stream=foreign)
    _record(fake, fields.read_in_branch)
    out.numpy()
    assert _record_set(fake, fields.read_in_branch)
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        wp.synchronize()


@needs_nvrtc
def test_verify_cuda_raises_the_record_at_the_launch(fake):
    ss, out = _arguments()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.read_in_branch)
    with config.override(verify_cuda=True):
        with pytest.raises(wp.BoundsError, match="read_in_branch"):
            wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")


@needs_nvrtc
def test_a_checked_kernel_is_a_node_of_a_cuda_graph_noted_at_each_replay(fake):
    ss, out = _arguments()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")  # loaded before the capture
    wp.synchronize()
    with wp.ScopedCapture(device="cuda:0") as capture:
        wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    assert [kind for kind, *_ in fake.graph_log].count("launch") == 2  # one CUDA graph, launched twice
    wp.synchronize()  # nothing recorded
    _record(fake, fields.read_in_branch)
    wp.capture_launch(capture.graph)
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        wp.synchronize()


@needs_nvrtc
def test_debug_mode_still_raises_at_the_launch(fake):
    ss, out = _arguments()
    with config.override(mode="debug"):
        wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
        _record(fake, fields.read_in_branch)
        with pytest.raises(wp.BoundsError, match="read_in_branch"):
            wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    assert pending_checks.pending == {}


@needs_nvrtc
def test_reading_an_empty_array_neither_waits_nor_raises(fake):
    ss, out = _arguments()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device="cuda:0")
    _record(fake, fields.read_in_branch)
    fake.copies.clear()
    assert wp.empty(0, dtype=float, device="cuda:0").numpy().shape == (0,)  # no copy: the host did not wait
    assert fake.copies == [] and _record_set(fake, fields.read_in_branch)
    with pytest.raises(wp.BoundsError, match="read_in_branch"):
        wp.synchronize()
