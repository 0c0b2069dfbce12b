"""A launch whose dim would take an access that every launch point makes out of its array is refused
before the kernel runs (``ir/launch_bounds.py``): a ``LaunchError`` naming the array, the access's file and
line, the index reached and the shape; no array changes. Accesses that may not run at every point (in a
branch, a loop, after an early return, on the lazy side of an expression) are never checked, so a guarded
kernel launched over more points than its array still runs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp

HERE = __file__.rsplit("/", 1)[-1]


@wp.kernel
def fill_index(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = float(i)


@wp.kernel
def shift_left(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i + 1]


@wp.kernel
def fill_2d(x: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    x[i, j] = i * 10 + j


@wp.kernel
def read_fifth(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    out[0] = x[5]


@wp.kernel
def guarded(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < x.shape[0]:
        x[i] = 1.0


@wp.kernel
def early_return(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i >= x.shape[0]:
        return
    x[i] = 2.0


@wp.kernel
def in_loop(x: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    for _ in range(n):
        x[i] = 3.0


@wp.kernel
def halved(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    i = i // 2
    x[i] = 4.0


@wp.kernel
def lazy_sides(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    n = x.shape[0]
    a = x[i] if i < n else 0.0
    b = i < n and x[i] > 0.0
    if b or a > 0.0:
        out[0] = 1


@wp.kernel
def count_all(counts: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.atomic_add(counts, i, 1.0)


def test_a_dim_past_the_array_is_refused_naming_the_access_and_nothing_is_written():
    x = wp.array(np.full(4, -1.0, dtype=np.float32))
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(fill_index, dim=10, inputs=[x])
    message = str(e.value)
    assert "'fill_index'" in message and "'x'" in message and f"{HERE}:" in message
    assert "index 9" in message and "shape (4,)" in message
    assert x.numpy().tolist() == [-1.0] * 4
    wp.launch(fill_index, dim=4, inputs=[x])  # the same kernel, in bounds, still runs
    assert x.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    wp.launch(fill_index, dim=2, inputs=[x])
    assert x.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_an_index_plus_a_constant_counts_its_offset():
    x = wp.array(np.arange(5, dtype=np.float32))
    y = wp.zeros(5, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=r"index 5 on its axis 0 .*plus 1.*'x' has shape \(5,\)"):
        wp.launch(shift_left, dim=5, inputs=[x, y])
    assert y.numpy().tolist() == [0.0] * 5
    wp.launch(shift_left, dim=4, inputs=[x, y])
    assert y.numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 0.0]


def test_each_component_of_a_multidimensional_tid_is_bounded_by_its_axis():
    x = wp.zeros((3, 4), dtype=wp.int32)
    with pytest.raises(wp.LaunchError, match=r"index 4 on its axis 1 \(tid\(\) component 1 runs to 4\).*\(3, 4\)"):
        wp.launch(fill_2d, dim=(3, 5), inputs=[x])
    with pytest.raises(wp.LaunchError, match=r"axis 0"):
        wp.launch(fill_2d, dim=(4, 4), inputs=[x])
    assert not x.numpy().any()
    wp.launch(fill_2d, dim=(3, 4), inputs=[x])
    np.testing.assert_array_equal(x.numpy(), np.arange(3)[:, None] * 10 + np.arange(4)[None, :])


def test_one_tid_index_over_a_tuple_dim_is_bounded_by_the_first_extent():
    """``i = wp.tid()`` over ``dim=(3, 2)`` is the first index (as Warp): it runs to 2, not to 5."""
    x = wp.zeros(2, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=r"index 2 on its axis 0 \(tid\(\) component 0 runs to 2\)"):
        wp.launch(fill_index, dim=(3, 2), inputs=[x])
    assert not x.numpy().any()
    x3 = wp.zeros(3, dtype=wp.float32)
    wp.launch(fill_index, dim=(3, 2), inputs=[x3])
    assert x3.numpy().tolist() == [0.0, 1.0, 2.0]


def test_a_constant_index_past_the_array_is_refused_at_any_dim():
    out = wp.zeros(1, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match=r"index 5 on its axis 0, but 'x' has shape \(3,\)"):
        wp.launch(read_fifth, dim=1, inputs=[wp.zeros(3, dtype=wp.float32), out])
    wp.launch(read_fifth, dim=1, inputs=[wp.array(np.arange(6, dtype=np.float32)), out])
    assert out.numpy()[0] == 5.0


def test_atomics_count_as_accesses():
    counts = wp.zeros(3, dtype=wp.float32)
    with pytest.raises(wp.LaunchError, match="'counts'"):
        wp.launch(count_all, dim=4, inputs=[counts])
    assert counts.numpy().tolist() == [0.0, 0.0, 0.0]


def test_accesses_that_may_not_run_at_every_point_are_not_checked():
    x = wp.zeros(3, dtype=wp.float32)
    wp.launch(guarded, dim=8, inputs=[x])
    assert x.numpy().tolist() == [1.0, 1.0, 1.0]
    wp.launch(early_return, dim=8, inputs=[x])
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]
    wp.launch(in_loop, dim=3, inputs=[x, 0])  # the loop may not run: dim is checked by nothing here
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]
    wp.launch(halved, dim=6, inputs=[x])  # i is reassigned: no longer the launch index
    assert x.numpy().tolist() == [4.0, 4.0, 4.0]
    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(lazy_sides, dim=8, inputs=[wp.array(np.ones(3, dtype=np.float32)), out])
    assert out.numpy()[0] == 1


def test_numpy_arguments_are_checked_too():
    x = np.full(2, -1.0, dtype=np.float32)
    with pytest.raises(wp.LaunchError, match=r"shape \(2,\)"):
        wp.launch(fill_index, dim=3, inputs=[x])
    assert x.tolist() == [-1.0, -1.0]


def test_debug_builds_report_the_access_as_it_runs(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "debug")
    x = wp.zeros(2, dtype=wp.float32)
    with pytest.raises(wp.BoundsError):
        wp.launch(fill_index, dim=3, inputs=[x])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 9), dim=st.integers(1, 12))
def test_a_launch_is_refused_exactly_when_it_would_leave_the_array(n, dim):
    x = wp.array(np.full(n, -1.0, dtype=np.float32))
    if dim > n:
        with pytest.raises(wp.LaunchError):
            wp.launch(fill_index, dim=dim, inputs=[x])
        assert (x.numpy() == -1.0).all()
    else:
        wp.launch(fill_index, dim=dim, inputs=[x])
        assert x.numpy().tolist() == [float(i) for i in range(dim)] + [-1.0] * (n - dim)


def test_a_refused_launch_is_not_recorded_on_a_tape():
    x = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    with wp.Tape() as tape:
        with pytest.raises(wp.LaunchError):
            wp.launch(fill_index, dim=5, inputs=[x])
        with pytest.raises(wp.LaunchError):  # a value the packer refuses: not taped either
            wp.launch(shift_left, dim=2, inputs=[x, 7])
    assert len(tape.launches) == 0
    tape.backward()  # nothing to replay
    assert x.grad.numpy().tolist() == [0.0, 0.0, 0.0]


@wp.kernel
def fill_inline_tid(x: wp.array(dtype=wp.float32)):
    x[wp.tid()] = 3.0  # tid() as the index itself, Warp's common spelling


@wp.kernel
def shift_inline_tid(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    y[wp.tid()] = x[wp.tid() + 1]


def test_tid_itself_as_the_index_is_checked():
    # it was not: the launch wrote past the end (and a None argument, an empty array, crashed the process)
    x = wp.full(2, 7.0)
    with pytest.raises(wp.LaunchError, match=r"the access of 'x' at .*:\d+ runs at every launch point.*shape \(2,\)"):
        wp.launch(fill_inline_tid, dim=3, inputs=[x])
    assert x.numpy().tolist() == [7.0, 7.0]
    with pytest.raises(wp.LaunchError, match=r"'x' has shape \(0,\).*None for an array argument is an empty array"):
        wp.launch(fill_inline_tid, dim=1, inputs=[None])
    x2, y = wp.full(3, 1.0), wp.full(3, 5.0)
    with pytest.raises(wp.LaunchError, match=r"the access of 'x' .* index 3 on its axis 0"):
        wp.launch(shift_inline_tid, dim=3, inputs=[x2, y])
    assert y.numpy().tolist() == [5.0, 5.0, 5.0]
    wp.launch(fill_inline_tid, dim=2, inputs=[x])
    wp.launch(shift_inline_tid, dim=2, inputs=[x2, y])
    assert x.numpy().tolist() == [3.0, 3.0] and y.numpy().tolist() == [1.0, 1.0, 5.0]
