"""Gradients through structs that hold arrays: a struct argument's arrays get their gradients in a
backward launch, through field reads, copies, constructors, nested structs and fields set in a
function, and tape.zero() clears them."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


@wp.struct
class Model:
    dt: float
    gravity: wp.vec3
    m: wp.array(dtype=float)


@wp.struct
class State:
    x: wp.array(dtype=wp.vec3)
    v: wp.array(dtype=wp.vec3)


@wp.struct
class World:
    state: State
    scale: float


@wp.kernel
def step(state_in: State, state_out: State, model: Model):
    i = wp.tid()
    state_out.v[i] = state_in.v[i] + model.gravity / model.m[i] * model.dt
    state_out.x[i] = state_in.x[i] + state_out.v[i] * model.dt


@wp.kernel
def step_through_copies(state_in: State, state_out: State, model: Model):
    i = wp.tid()
    rescaled = Model(1.0, model.gravity / model.m[i] * model.dt, model.m)
    out = State(state_out.x, state_out.v)
    out.v[i] = state_in.v[i] + rescaled.gravity
    out.x[i] = state_in.x[i] + out.v[i] * model.dt


@wp.kernel
def squared_norms(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.dot(x[i], x[i]))


@wp.kernel
def nested(world: World, loss: wp.array(dtype=float)):
    i = wp.tid()
    s = world.state
    wp.atomic_add(loss, 0, world.scale * wp.dot(s.x[i], s.v[i]))


@wp.struct
class Holder:
    v: wp.vec3
    arr: wp.array(dtype=float)


@wp.func
def make_holder(x: wp.vec3, arr: wp.array(dtype=float)) -> Holder:
    h = Holder()
    h.v = 2.0 * x
    h.arr = arr
    return h


@wp.kernel
def through_function(x: wp.array(dtype=wp.vec3), arr: wp.array(dtype=float), loss: wp.array(dtype=float)):
    h = make_holder(x[0], arr)
    loss[0] = wp.dot(h.v, h.v) + h.arr[0] * h.v[0]


def _problem(rng, dim=5):
    m = rng.random(dim) + 0.1
    model = Model()
    model.m = wp.array(m, dtype=float, requires_grad=True)
    model.dt = 0.01
    model.gravity = wp.vec3(0.0, 0.0, -9.81)
    x, v = rng.normal(size=(dim, 3)), rng.normal(size=(dim, 3))
    state_in = State(wp.array(x, dtype=wp.vec3, requires_grad=True), wp.array(v, dtype=wp.vec3, requires_grad=True))
    state_out = State(wp.empty_like(state_in.x, requires_grad=True), wp.empty_like(state_in.v, requires_grad=True))
    return m, model, state_in, state_out


def test_struct_arrays_get_their_gradients_and_zero_clears_them():
    rng = np.random.default_rng(123)
    m, model, state_in, state_out = _problem(rng)
    gravity, dt = np.array([0.0, 0.0, -9.81]), 0.01
    for kernel in (step, step_through_copies):
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(kernel, 5, inputs=[state_in, state_out, model])
            wp.launch(squared_norms, 5, inputs=[state_out.x, loss])
        tape.backward(loss)
        dl_dx = 2.0 * state_out.x.numpy()
        dl_dv = dl_dx * dt
        dl_dm = (dl_dv * (-gravity * dt / m[:, None] ** 2)).sum(-1)
        np.testing.assert_allclose(state_in.x.grad.numpy(), dl_dx, rtol=1e-6)
        np.testing.assert_allclose(state_in.v.grad.numpy(), dl_dv, rtol=1e-6)
        np.testing.assert_allclose(model.m.grad.numpy(), dl_dm, rtol=1e-5)
        tape.zero()
        assert not state_in.x.grad.numpy().any() and not state_in.v.grad.numpy().any()
        assert not model.m.grad.numpy().any()


def test_nested_struct_arrays_get_their_gradients():
    rng = np.random.default_rng(5)
    x, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    world = World(State(wp.array(x, dtype=wp.vec3, requires_grad=True), wp.array(v, dtype=wp.vec3, requires_grad=True)),
                  3.0)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(nested, 4, inputs=[world, loss])
    tape.backward(loss)
    np.testing.assert_allclose(world.state.x.grad.numpy(), 3.0 * v, rtol=1e-6)
    np.testing.assert_allclose(world.state.v.grad.numpy(), 3.0 * x, rtol=1e-6)


def test_array_set_in_a_struct_by_a_function_gets_its_gradient():
    x = wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3, requires_grad=True)
    arr = wp.array([5.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(through_function, 1, inputs=[x, arr, loss])
    tape.backward(loss=loss)
    # loss = 4 x.x + 2 arr x0
    np.testing.assert_allclose(x.grad.numpy()[0], [8.0 + 10.0, 16.0, 24.0], rtol=1e-6)
    np.testing.assert_allclose(arr.grad.numpy(), [2.0], rtol=1e-6)


@wp.struct
class Particle:
    tag: int
    mass: float
    pos: wp.vec3


@wp.kernel
def particle_loss(particles: wp.array(dtype=Particle), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, particles[i].mass * 2.0 + wp.length_sq(particles[i].pos))


@wp.kernel
def particle_loss_at_tid(particles: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = particles[i].mass * wp.length_sq(particles[i].pos)


def test_array_of_structs_gradient_goes_to_each_float_field():
    parts = [Particle(i, float(i), wp.vec3(1.0, float(i), 0.0)) for i in range(4)]
    a = wp.array(parts, dtype=Particle, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(particle_loss, 4, inputs=[a, loss])
    tape.backward(loss)
    g = a.grad.numpy()
    np.testing.assert_array_equal(g["mass"], np.full(4, 2.0))
    np.testing.assert_array_equal(g["pos"], [[2.0, 2.0 * i, 0.0] for i in range(4)])
    assert not g["tag"].any()
    out = wp.zeros(4, dtype=float, requires_grad=True)
    tape.zero()
    with wp.Tape() as tape:
        wp.launch(particle_loss_at_tid, 4, inputs=[a, out])
    tape.backward(grads={out: wp.ones(4, dtype=float)})
    g = a.grad.numpy()
    np.testing.assert_array_equal(g["mass"], [1.0 + i * i for i in range(4)])
    np.testing.assert_array_equal(g["pos"], [[2.0 * i, 2.0 * i * i, 0.0] for i in range(4)])


@wp.struct
class Layer:
    weight: float
    values: wp.array(dtype=float)


@wp.struct
class Stack:
    layer: Layer
    out: wp.array(dtype=float)


@wp.kernel
def write_through_elements(layers: wp.array(dtype=Layer), x: wp.array(dtype=float)):
    i = wp.tid()
    layer = layers[i % 2]
    layer.values[i] = layer.weight * x[i]


@wp.kernel
def read_through_elements(layers: wp.array(dtype=Layer), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = layers[i % 2].values[i]
    wp.atomic_add(loss, 0, v * v)


@wp.kernel
def nested_through_elements(stacks: wp.array(dtype=Stack), x: wp.array(dtype=float)):
    i = wp.tid()
    s = stacks[0]
    s.out[i] = s.layer.values[i] * x[i]


@wp.kernel
def sum_squares(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i] * y[i])


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize("struct_grad", [False, True])
def test_stores_through_an_array_of_structs_pass_their_gradient(target, struct_grad):
    """y[i] = w * x[i] stored through layers[i % 2].values (the same y in both elements), then sum(y^2): as
    Warp 1.19, dx = 2 w^2 x and y's gradient is cleared by the store's reverse; the weight's adjoint goes to
    the elements' float field where the array of structs has a gradient (2 w x^2, summed per element)."""
    with config.override(target=target):
        x = wp.array([1.0, 2.0, 3.0, 4.0], dtype=float, requires_grad=True)
        y = wp.zeros(4, dtype=float, requires_grad=True)
        layers = wp.array([Layer(2.0, y), Layer(3.0, y)], dtype=Layer, requires_grad=struct_grad)
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        with wp.Tape() as tape:
            wp.launch(write_through_elements, 4, inputs=[layers, x])
            wp.launch(sum_squares, 4, inputs=[y, loss])
        tape.backward(loss)
        w, xs = np.array([2.0, 3.0, 2.0, 3.0]), x.numpy()
        np.testing.assert_allclose(x.grad.numpy(), 2.0 * w * w * xs)
        np.testing.assert_array_equal(y.grad.numpy(), np.zeros(4))
        if struct_grad:
            dw = 2.0 * w * xs * xs
            np.testing.assert_allclose(layers.grad.numpy()["weight"], [dw[0] + dw[2], dw[1] + dw[3]])
        tape.zero()
        assert not x.grad.numpy().any()
        with wp.Tape() as tape:  # again after tape.zero(): the same gradient
            wp.launch(write_through_elements, 4, inputs=[layers, x])
            wp.launch(sum_squares, 4, inputs=[y, loss])
        tape.backward(loss)
        np.testing.assert_allclose(x.grad.numpy(), 2.0 * w * w * xs)


def test_reads_and_nested_stores_through_an_array_of_structs_pass_their_gradient():
    a = wp.array([1.0, -2.0, 0.5], dtype=float, requires_grad=True)
    b = wp.array([4.0, 5.0, 6.0], dtype=float, requires_grad=True)
    no_grad = wp.array([7.0, 8.0, 9.0], dtype=float)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    layers = wp.array([Layer(1.0, a), Layer(1.0, no_grad)], dtype=Layer)
    with wp.Tape() as tape:
        wp.launch(read_through_elements, 3, inputs=[layers, loss])
    tape.backward(loss)
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 0.0, 1.0])  # elements 0 and 2 read a, 1 the array without
    assert loss.numpy()[0] == 1.0 + 64.0 + 0.25
    out = wp.zeros(3, dtype=float, requires_grad=True)
    x = wp.array([2.0, 3.0, 4.0], dtype=float, requires_grad=True)
    stacks = wp.array([Stack(Layer(0.0, b), out)], dtype=Stack)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(nested_through_elements, 3, inputs=[stacks, x])
        wp.launch(sum_squares, 3, inputs=[out, loss])
    tape.backward(loss)
    bs, xs = b.numpy(), x.numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * bs * bs * xs)
    np.testing.assert_allclose(b.grad.numpy(), 2.0 * bs * xs * xs)


def test_the_adjoint_of_a_device_array_of_structs_points_at_the_gradients():
    """On a CUDA device the descriptors are written into device memory (a stand-in driver: no kernel runs)."""
    import os
    import struct
    import sys

    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from brickwork.types.held_arrays import point_at_gradients
    from runtime.cuda_fake import FakeDriver, installed

    with installed(FakeDriver()):
        y = wp.zeros(4, dtype=float, requires_grad=True, device="cuda:0")
        z = wp.zeros(4, dtype=float, device="cuda:0")
        layers = wp.array([Layer(2.0, y), Layer(3.0, z), Layer(1.0, y)], dtype=Layer, device="cuda:0")
        adj = wp.full(3, Layer(5.0, None), dtype=Layer, device="cuda:0")
        point_at_gradients(layers, adj)
        got = adj.numpy()
        pointers = [struct.unpack_from("<Qq", bytes(got["values"][i])) for i in range(3)]
        assert pointers == [(y.grad.ptr, 4), (0, 0), (y.grad.ptr, 4)]  # z has no gradient: a null array
        assert list(got["weight"]) == [5.0, 5.0, 5.0]  # numeric fields left as they were
