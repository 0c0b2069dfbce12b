"""Accesses of struct array fields that the launch does not test (in a branch, a loop, through a local or a
``@func`` parameter: ``ir/field_checks.py``) are tested as they run: an unset field (None: a null address,
shape 0, as in an element of ``wp.zeros``) or one too short is not touched, and the launch raises
``BoundsError`` naming the access's line and the field. They crashed the process (segfault) before. Kernels
without such accesses are generated as before (no test)."""

import threading

import numpy as np
import pytest

import brickwork as wp
from brickwork.pipeline import generate

from .test_launch_bounds_fields import Samples

HERE = __file__.rsplit("/", 1)[-1]


def _line(text: str) -> str:
    """``file:line`` of the first line of this file holding ``text``."""
    with open(__file__) as f:
        return f"{HERE}:{next(n for n, line in enumerate(f, 1) if text in line)}"


@wp.func
def first_of(a: wp.array(dtype=float)) -> float:
    return a[0]  # first_of's access


@wp.kernel
def read_in_branch(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    if ss[i].scale > 0.0:
        out[i] = ss[i].values[1]  # read_in_branch's access


@wp.kernel
def add_in_loop(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    for k in range(ss.shape[0]):
        wp.atomic_add(ss[k].values, 0, out[i])  # add_in_loop's access


@wp.kernel
def through_a_local(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    v = ss[i].values
    if i >= 0:
        v[0] = out[i]  # through_a_local's access


@wp.kernel
def through_a_func(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    if i >= 0:
        out[i] = first_of(ss[i].values)


@wp.kernel
def parameter_in_branch(s: Samples, out: wp.array(dtype=float)):
    i = wp.tid()
    if i < 10:
        s.values[i] = out[i]  # parameter_in_branch's access


@wp.kernel
def guarded(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    if ss[i].values.shape[0] > 1:
        out[i] = ss[i].values[1]


@wp.kernel
def unconditional(ss: wp.array(dtype=Samples), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ss[i].values[0]


@wp.kernel
def runs_on(ss: wp.array(dtype=Samples), reached: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    if ss[i].scale > 0.0:
        out[i] = ss[i].values[0] + 10.0  # runs_on's access
        reached[i] = i + 1


@wp.kernel
def gather_every_other(x: wp.array(dtype=float), reached: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[2 * i] + 10.0
    reached[i] = i + 1


@wp.kernel
def plain(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i > 0:
        out[i] = x[i - 1]


def _elements(n, set_first, length=3):
    """``n`` elements of ``wp.zeros``; the first ``set_first`` hold ``[10 k, 10 k + 1, ...]`` with scale 1."""
    ss = wp.zeros(n, dtype=Samples)
    kept = []
    for k in range(set_first):
        s = Samples()
        s.scale = 1.0
        s.values = wp.array(10.0 * k + np.arange(length, dtype=np.float32))
        ss[k] = s
        kept.append(s.values)
    return ss, kept


def _refused(kernel, inputs, line_text, shape="(0)"):
    with pytest.raises(wp.BoundsError) as e:
        wp.launch(kernel, dim=len(inputs[-1]), inputs=inputs)
    message = str(e.value)
    assert f"'{kernel.key}'" in message and f"out of bounds for shape {shape} at " in message, message
    assert _line(line_text) in message
    # the note on unset fields for an array without elements only: a set field indexed past its end is a plain
    # out-of-bounds access (Warp's example_work_queue enqueues past its 4096-element buffer)
    note = "(an array held in a struct's field: one never set is None"
    assert (note in message) == (shape == "(0)"), message
    assert shape == "(0)" or message.endswith(_line(line_text)), message
    return message


def test_set_fields_read_in_a_branch_give_their_values():
    ss, kept = _elements(3, 3)
    out = wp.full(3, -1.0, dtype=float)
    wp.launch(read_in_branch, dim=3, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 11.0, 21.0])


def test_an_unset_field_read_in_a_branch_is_refused():
    ss, kept = _elements(3, 2)
    ss.numpy()["scale"][2] = 1.0  # the branch is taken at the unset element too
    out = wp.full(3, -1.0, dtype=float)
    _refused(read_in_branch, [ss, out], "read_in_branch's access")
    np.testing.assert_array_equal(out.numpy()[:2], [1.0, 11.0])  # the set elements ran as normal
    # the element whose field is unset is not reached when the branch is not taken: no error
    ss.numpy()["scale"][2] = 0.0
    out.fill_(-1.0)
    wp.launch(read_in_branch, dim=3, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [1.0, 11.0, -1.0])


def test_a_refused_access_is_reported_after_the_launch_which_is_not_undone():
    # what docs/kernel_language.md promises: nothing outside an array is touched, the other launch points' writes
    # stand, and the point whose access was refused runs on (its later writes stand too)
    ss, kept = _elements(3, 2)
    ss.numpy()["scale"][2] = 1.0
    out, reached = wp.full(3, -1.0, dtype=float), wp.zeros(3, dtype=int)
    _refused(runs_on, [ss, reached, out], "runs_on's access")
    np.testing.assert_array_equal(out.numpy()[:2], [10.0, 20.0])  # out[2] took an unspecified value
    np.testing.assert_array_equal(reached.numpy(), [1, 2, 3])


def test_a_debug_mode_bounds_error_is_not_undone_either(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "debug")
    out, reached = wp.full(3, -1.0, dtype=float), wp.zeros(3, dtype=int)
    with pytest.raises(wp.BoundsError, match=r"index \(4\) is out of bounds for shape \(4\)"):
        wp.launch(gather_every_other, dim=3, inputs=[wp.array([1.0, 2.0, 3.0, 4.0]), reached, out])
    np.testing.assert_array_equal(out.numpy()[:2], [11.0, 13.0])
    np.testing.assert_array_equal(reached.numpy(), [1, 2, 3])


def test_an_atomic_in_a_loop_on_an_unset_field_writes_nothing_there():
    ss, kept = _elements(3, 2)
    out = wp.full(1, 2.0, dtype=float)
    _refused(add_in_loop, [ss, out], "add_in_loop's access")
    np.testing.assert_array_equal(kept[0].numpy(), [2.0, 1.0, 2.0])
    np.testing.assert_array_equal(kept[1].numpy(), [12.0, 11.0, 12.0])
    assert ss.numpy()["values"][2].tobytes() == bytes(ss.numpy()["values"][2].nbytes)  # still unset


def test_a_field_through_a_local_or_a_func_parameter_is_tested():
    ss, kept = _elements(2, 1)
    out = wp.full(2, 7.0, dtype=float)
    _refused(through_a_local, [ss, out], "through_a_local's access")
    np.testing.assert_array_equal(kept[0].numpy(), [7.0, 1.0, 2.0])
    _refused(through_a_func, [ss, out], "first_of's access")
    assert out.numpy()[0] == 7.0  # element 0's first value is 7 now (element 1's read was refused: its value
    # is a dummy's, as in a debug build)


def test_a_struct_arguments_unset_or_short_field_in_a_branch_is_refused():
    s = Samples()
    out = wp.full(3, 4.0, dtype=float)
    _refused(parameter_in_branch, [s, out], "parameter_in_branch's access")
    s.values = wp.zeros(2, dtype=float)
    _refused(parameter_in_branch, [s, out], "parameter_in_branch's access", shape="(2)")
    np.testing.assert_array_equal(s.values.numpy(), [4.0, 4.0])  # in range: written; index 2: not
    np.testing.assert_array_equal(out.numpy(), 4.0)


def test_a_guarded_access_of_unset_fields_runs():
    ss, kept = _elements(3, 1)
    out = wp.full(3, -1.0, dtype=float)
    wp.launch(guarded, dim=3, inputs=[ss, out])
    np.testing.assert_array_equal(out.numpy(), [1.0, -1.0, -1.0])


@pytest.mark.parametrize("kernel, checks", [(plain, 0), (unconditional, 0), (read_in_branch, 1), (guarded, 1),
                                            (through_a_func, 1)])
def test_only_accesses_the_launch_does_not_test_are_checked(kernel, checks):
    text, meta = generate(kernel, kernel.concrete_types(), kernel.key)
    assert text.count("at_checked") == checks
    assert meta.get("field_checks", False) is bool(checks)


def test_two_threads_launching_one_kernel_each_get_their_own_error():
    # The error record is one per library and ctypes releases the GIL during a launch: a thread's quick launches
    # during another's long failing one took its error (raised on a launch that was right) and left it none.
    n = 1 << 19
    bad = wp.zeros(n, dtype=Samples)
    s = Samples()
    s.scale = 1.0
    s.values = wp.array(np.arange(3, dtype=np.float32))
    bad.fill_(s)
    unset = Samples()
    unset.scale = 1.0
    bad[0] = unset  # recorded at once, while the launch runs on over the other elements
    good = wp.zeros(4, dtype=Samples)
    good.fill_(s)
    out_bad, out_good = wp.zeros(n, dtype=float), wp.full(4, -1.0, dtype=float)
    counts = {"bad raised": 0, "good raised": 0, "good launches": 0}
    done = threading.Event()

    def launch_bad():
        try:
            for _ in range(8):
                try:
                    wp.launch(read_in_branch, dim=n, inputs=[bad, out_bad])
                except wp.BoundsError:
                    counts["bad raised"] += 1
        finally:
            done.set()

    def launch_good():
        while not done.is_set():
            try:
                wp.launch(read_in_branch, dim=4, inputs=[good, out_good])
            except wp.BoundsError:
                counts["good raised"] += 1
            counts["good launches"] += 1

    threads = [threading.Thread(target=launch_bad), threading.Thread(target=launch_good)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts["bad raised"] == 8 and counts["good raised"] == 0 and counts["good launches"] > 0, counts
    np.testing.assert_array_equal(out_good.numpy(), [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(out_bad.numpy()[1:3], [1.0, 1.0])
