"""A launch refuses an array of structs whose elements hold arrays or textures of another device, and an array of
textures of another device (the kernel would read another device's addresses: the CPU crashed), naming the
argument and the devices; nothing runs. Elements overwritten since with ones of the launch device pass (the
launch looks again before it refuses)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.runtime import streams

from .cuda_fake import FakeDriver, installed


@wp.struct
class Points:
    xs: wp.array(dtype=float)
    scale: float


@wp.struct
class Sampler:
    tex: wp.Texture2D
    scale: float


@wp.kernel
def first_points(items: wp.array(dtype=Points), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = items[i].xs[0] * items[i].scale


@wp.kernel
def sample_each(textures: wp.array(dtype=wp.Texture2D), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(textures[i], wp.vec2f(0.5, 0.5), dtype=float)


@wp.kernel
def sample_held(items: wp.array(dtype=Sampler), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(items[i].tex, wp.vec2f(0.5, 0.5), dtype=float) * items[i].scale


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        streams.forget_device_streams()
        yield drv
        streams.forget_device_streams()


def points(xs, scale=1.0):
    p = Points()
    p.xs, p.scale = xs, scale
    return p


def test_an_array_of_structs_holding_another_devices_array_is_refused_until_the_element_is_replaced(fake):
    items = wp.array([points(wp.array([2.0], dtype=float)), points(wp.array([3.0], dtype=float, device="cuda:0"))],
                     dtype=Points)
    out = wp.full(2, 7.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"launch of '.*first_points' on cpu: argument 'items' is an array of "
                                             r"Points whose elements hold arrays or textures on cuda:0; .*arrays: "
                                             r"copy them with a.to\('cpu'\)"):
        wp.launch(first_points, dim=2, inputs=[items], outputs=[out])
    assert out.numpy().tolist() == [7.0, 7.0] and fake.launches == []
    items[1] = points(wp.array([3.0], dtype=float), 2.0)  # the element now holds a CPU array
    wp.launch(first_points, dim=2, inputs=[items], outputs=[out])
    assert out.numpy().tolist() == [2.0, 6.0]
    items.fill_(points(wp.array([5.0], dtype=float, device="cuda:0")))  # fill_ records what it stores too
    with pytest.raises(wp.LaunchError, match="elements hold arrays or textures on cuda:0"):
        wp.launch(first_points, dim=2, inputs=[items], outputs=[out])
    with pytest.raises(wp.LaunchError, match="argument 'items' is an array of Points whose elements hold arrays"):
        wp.launch(first_points, dim=2, inputs=[wp.clone(items)], outputs=[out])  # a copy holds what the source held
    assert out.numpy().tolist() == [2.0, 6.0]


def test_an_indexed_array_of_structs_is_checked_through_the_array_it_indexes(fake):
    items = wp.array([points(wp.array([1.0], dtype=float, device="cuda:0"))], dtype=Points)
    view = wp.indexedarray(items, [wp.array([0], dtype=wp.int32)])

    @wp.kernel
    def through_index(items: wp.indexedarray(dtype=Points), out: wp.array(dtype=float)):
        out[0] = items[0].xs[0]

    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.LaunchError, match="argument 'items' is an array of Points whose elements hold arrays"):
        wp.launch(through_index, dim=1, inputs=[view], outputs=[out])
    assert out.numpy().tolist() == [0.0]


def test_an_array_of_textures_of_another_device_is_refused(fake):
    on_gpu = wp.Texture2D(np.full((2, 2), 4.0, np.float32), device="cuda:0")
    on_cpu = wp.Texture2D(np.full((2, 2), 3.0, np.float32), device="cpu")
    textures = wp.array([on_cpu, on_gpu], dtype=wp.Texture2D)
    out = wp.full(2, 9.0, dtype=float)
    with pytest.raises(wp.LaunchError, match=r"argument 'textures' is an array of Texture2D whose elements are "
                                             r"textures on cuda:0; the textures of an array must be on the launch "
                                             r"device \(make them with device='cpu'\)"):
        wp.launch(sample_each, dim=2, inputs=[textures], outputs=[out])
    assert out.numpy().tolist() == [9.0, 9.0]
    replacement = wp.Texture2D(np.full((2, 2), 5.0, np.float32), device="cpu")  # kept: arrays do not hold textures
    textures[1] = replacement
    wp.launch(sample_each, dim=2, inputs=[textures], outputs=[out])
    assert out.numpy().tolist() == [3.0, 5.0]


def test_a_struct_array_holding_a_texture_of_another_device_is_refused(fake):
    held = Sampler()
    held.tex, held.scale = wp.Texture2D(np.full((2, 2), 2.0, np.float32), device="cuda:0"), 10.0
    items = wp.array([held], dtype=Sampler)
    out = wp.full(1, 9.0, dtype=float)
    with pytest.raises(wp.LaunchError, match="argument 'items' is an array of Sampler whose elements hold arrays or "
                                             "textures on cuda:0"):
        wp.launch(sample_held, dim=1, inputs=[items], outputs=[out])
    held.tex = wp.Texture2D(np.full((2, 2), 2.0, np.float32), device="cpu")
    items[0] = held
    wp.launch(sample_held, dim=1, inputs=[items], outputs=[out])
    assert out.numpy().tolist() == [20.0]


def test_a_texture_of_another_device_freed_since_is_still_refused(fake):
    textures = wp.array([wp.Texture2D(np.ones((2, 2), np.float32), device="cuda:0")], dtype=wp.Texture2D)  # freed
    out = wp.full(1, 9.0, dtype=float)
    with pytest.raises(wp.LaunchError, match="elements are textures on a freed texture"):
        wp.launch(sample_each, dim=1, inputs=[textures], outputs=[out])
    assert out.numpy().tolist() == [9.0]


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_a_cuda_array_of_structs_holding_cpu_arrays_is_refused_on_the_gpu(fake):
    items = wp.array([points(wp.array([1.0], dtype=float))], dtype=Points, device="cuda:0")
    out = wp.zeros(1, dtype=float, device="cuda:0")
    with pytest.raises(wp.LaunchError, match=r"on cuda:0: argument 'items' is an array of Points whose elements hold "
                                             r"arrays or textures on cpu; .*a.to\('cuda:0'\)"):
        wp.launch(first_points, dim=1, inputs=[items], outputs=[out], device="cuda:0")
    assert fake.launches == []
    good = wp.array([points(wp.array([1.0], dtype=float, device="cuda:0"))], dtype=Points, device="cuda:0")
    wp.launch(first_points, dim=1, inputs=[good], outputs=[out], device="cuda:0")
    assert len(fake.launches) == 1
