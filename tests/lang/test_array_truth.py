"""Arrays as conditions in kernels (``if a:``, ``not a``, ``a and b``, ``x if a else y``, ``wp.where(a, ..)``):
true when the array has data, as Warp's "not null"."""

import pytest

import brickwork as wp


@wp.kernel
def truths(a: wp.array(dtype=float), b: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    if a:
        out[0] = 1
    if not a:
        out[1] = 1
    out[2] = wp.where(b, 1, 0)
    out[3] = wp.select(a, 1, 0)  # Warp's order: the second value when true
    out[4] = 7 if b else 8
    out[5] = int(a and b)
    out[6] = int(a or b)
    out[7] = int(not b)


def run(a, b):
    out = wp.zeros(8, dtype=int)
    wp.launch(truths, dim=1, inputs=[a, b, out])
    return out.numpy().tolist()


@pytest.mark.parametrize("a_given, b_given", [(True, True), (False, True), (True, False), (False, False)])
def test_null_and_given_arrays(a_given, b_given):
    a = wp.zeros(3, dtype=float) if a_given else None
    b = wp.zeros((2, 2), dtype=float) if b_given else None
    ta, tb = int(a_given), int(b_given)
    assert run(a, b) == [ta, 1 - ta, tb, 1 - ta, 7 if b_given else 8, ta & tb, ta | tb, 1 - tb]


def test_empty_arrays_are_false_as_in_warp():
    # Warp gives an array without elements no memory (a null pointer): it tests false
    data = wp.zeros((3, 4), dtype=float)
    assert run(wp.zeros(0, dtype=float), wp.zeros((2, 0), dtype=float))[:3] == [0, 1, 0]
    assert run(data[1], data[:, 1:2])[:3] == [1, 0, 1]  # views with elements are true


def test_an_empty_array_reaches_a_kernel_as_a_null_pointer():
    # as Warp's: a kernel that writes one anyway faults at once instead of overwriting the few bytes
    # numpy allocates for an array without elements
    for empty in (wp.zeros(0, dtype=float), wp.empty((2, 0), dtype=float), wp.zeros(5, dtype=float)[5:]):
        assert empty.ptr is None
        assert int.from_bytes(empty._packed[:8], "little") == 0  # the descriptor's data pointer
    full = wp.zeros(5, dtype=float)[1:]
    assert int.from_bytes(full._packed[:8], "little") == full.ptr != 0


def test_array_over_a_null_address_is_false():
    @wp.kernel
    def over(p: wp.uint64, n: int, out: wp.array(dtype=int)):
        view = wp.array(ptr=p, shape=(n,), dtype=float)
        out[0] = wp.where(view, 1, 2)

    out = wp.zeros(1, dtype=int)
    wp.launch(over, dim=1, inputs=[wp.uint64(0), 4, out])
    assert out.numpy()[0] == 2
    a = wp.zeros(4, dtype=float)
    wp.launch(over, dim=1, inputs=[wp.uint64(a.ptr), 4, out])
    assert out.numpy()[0] == 1


def test_a_struct_is_still_no_condition():
    @wp.struct
    class S:
        x: float

    @wp.kernel
    def bad(s: S, out: wp.array(dtype=int)):
        if s:
            out[0] = 1

    with pytest.raises(wp.KernelTypeError, match="a condition must be a bool or a number, got S"):
        wp.launch(bad, dim=1, inputs=[S(), wp.zeros(1, dtype=int)])


@wp.kernel
def scaled(x: wp.array(dtype=float), w: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = 2.0
    if w:
        s = w[i]
    y[i] = wp.where(not w, 3.0, s) * x[i]


def test_backward_of_a_launch_with_a_null_array():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scaled, dim=2, inputs=[x, None, y])  # None: a null array, under a tape too
    tape.backward(grads={y: wp.ones(2, dtype=float)})
    assert y.numpy().tolist() == [3.0, 6.0] and x.grad.numpy().tolist() == [3.0, 3.0]

    w = wp.array([5.0, 7.0], dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scaled, dim=2, inputs=[x, w, y])
    x.grad.zero_()
    tape.backward(grads={y: wp.ones(2, dtype=float)})
    assert y.numpy().tolist() == [5.0, 14.0]
    assert x.grad.numpy().tolist() == [5.0, 7.0] and w.grad.numpy().tolist() == [1.0, 2.0]


def test_a_null_array_argument_is_made_once_per_type_and_device():
    # None stands for an empty array of the parameter's type: launches after the first reuse it (the launch
    # path then allocates nothing), and a 2-D parameter gets its own 2-D one
    from brickwork.runtime import launch as launching

    for _ in range(3):
        assert run(None, None) == [0, 1, 0, 1, 8, 0, 0, 1]
        assert run(wp.zeros(3, dtype=float), None)[:3] == [1, 0, 0]
    stand_ins = {t: a for (t, _), a in launching._NULL_ARRAYS.items() if t in (truths.params[0][1],
                                                                              truths.params[1][1])}
    assert sorted(a.shape for a in stand_ins.values()) == [(0,), (0, 0)]
    assert all(a.size == 0 and a.ptr is None for a in stand_ins.values())
    before = dict(launching._NULL_ARRAYS)
    run(None, None)
    assert all(launching._NULL_ARRAYS[k] is v for k, v in before.items())


def test_a_null_array_under_a_tape_is_the_launchs_own():
    # the tape's read/write checks follow array objects: a shared stand-in would tie unrelated launches
    from brickwork.runtime import launch as launching

    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    y = wp.zeros(2, dtype=float, requires_grad=True)
    before = dict(launching._NULL_ARRAYS)
    with wp.Tape():
        wp.launch(scaled, dim=2, inputs=[x, None, y])
    assert launching._NULL_ARRAYS == before
    assert y.numpy().tolist() == [3.0, 6.0]
