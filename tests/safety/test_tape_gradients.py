"""A gradient array is written by backward launches, so one over read-only memory is refused when it is set (attacker
probe: x.grad = wp.array(read-only mmap, copy=False) and tape.backward(l) died of a segmentation fault in the
backward launch; launches refuse read-only arrays they write, but backward launches write gradients unchecked)."""

import mmap

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def square(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def total(y: wp.array(dtype=wp.float32), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])


def _read_only_memory():
    m = mmap.mmap(-1, 16, prot=mmap.PROT_READ)
    return np.frombuffer(m, dtype=np.float32)


def _read_only_flag():
    g = np.zeros(4, np.float32)
    g.setflags(write=False)
    return g


@pytest.mark.parametrize("memory", [_read_only_memory, _read_only_flag])
def test_a_read_only_gradient_is_refused_and_backward_runs_into_the_old_one(memory):
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    before = x.grad
    with pytest.raises(ValueError, match=r"grad must be a writable array: backward launches add into it, but this one "
                                         r"views read-only memory \(or its elements share memory\); pass a copy "
                                         r"\(wp.clone\(g\)\)"):
        x.grad = wp.array(memory(), copy=False)
    assert x.grad is before and x.requires_grad
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=4, inputs=[x], outputs=[y])
        wp.launch(total, dim=4, inputs=[y], outputs=[loss])
    tape.backward(loss)
    assert x.grad.numpy().tolist() == [0.0, 2.0, 4.0, 6.0]


def test_a_writable_gradient_of_strided_memory_is_taken():
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    backing = np.full(8, 7.0, np.float32)
    x.grad = wp.array(backing[::2], copy=False)
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=4, inputs=[x], outputs=[y])
        wp.launch(total, dim=4, inputs=[y], outputs=[loss])
    tape.backward(loss)
    assert backing.tolist() == [7.0, 7.0, 9.0, 7.0, 11.0, 7.0, 13.0, 7.0]  # added into, every other element


@pytest.mark.parametrize("bad, got", [(lambda: wp.ones(4, dtype=wp.float64), "got float64 of shape (4,)"),
                                      (lambda: wp.ones(4, dtype=wp.int32), "got int32 of shape (4,)")])
def test_a_seed_gradient_of_another_dtype_is_refused_before_any_gradient_is_set(bad, got):
    """Tape.backward(grads=...) assigned each seed as it went: a brickwork array of another dtype raised assign's
    CopyTypeError after the seeds before it were set (attacker probe)."""
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y = wp.zeros(4, dtype=wp.float32, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, 4, inputs=[x], outputs=[y])
        wp.launch(total, 4, inputs=[y], outputs=[loss])
    with pytest.raises(ValueError) as info:
        tape.backward(grads={loss: wp.ones(1, dtype=wp.float32), y: bad()})
    assert str(info.value) == ("Tape.backward(grads=...): the gradient of an array of shape (4,) and dtype float32 must "
                               f"be an array of that shape and dtype (or numpy data), {got}")
    assert loss.grad.numpy().tolist() == [0.0] and y.grad.numpy().tolist() == [0.0] * 4
    assert x.grad.numpy().tolist() == [0.0] * 4
    tape.backward(grads={loss: wp.ones(1, dtype=wp.float32), y: np.ones(4)})  # numpy data is converted
    assert x.grad.numpy().tolist() == [0.0, 4.0, 8.0, 12.0]
