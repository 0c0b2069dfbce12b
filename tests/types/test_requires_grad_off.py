"""a.requires_grad = False lets go of the gradient, as Warp 1.19 (newuser round 9): a.grad stayed the old
array, with its values, where a Warp program that freezes a parameter then tests `a.grad is None`."""

import weakref

import numpy as np

import brickwork as wp


def test_turning_gradients_off_releases_the_array():
    a = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    a.grad.fill_(5.0)
    old = weakref.ref(a.grad)
    a.requires_grad = False
    assert a.grad is None and not a.requires_grad and old() is None
    assert a.numpy().tolist() == [1.0, 2.0]  # the data stays
    a.requires_grad = True  # on again: a new gradient, zeros
    assert a.grad.numpy().tolist() == [0.0, 0.0]
