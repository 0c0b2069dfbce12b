"""Textures on a CUDA device: with the fake driver (device memory is host memory there, launches recorded) the
descriptor and texels land in device memory with the device's addresses, the launch passes the texture's
struct, copies go through the device buffer; on a real GPU (marker ``cuda_device``, skipped without one) the
sampling matches the CPU's."""

import struct

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp
from brickwork import cuda_driver
from brickwork.jit import nvrtc
from brickwork.runtime.texture_data import DESCRIPTOR

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


def _device_bytes(fake, ptr, n):
    base = max(b for b in fake.memory if b <= ptr)
    return bytes(fake.memory[base][ptr - base:ptr - base + n])


@wp.kernel
def _sample(t: wp.Texture2D, c: wp.array(dtype=wp.vec2), out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, c[i], dtype=wp.vec2f)


@needs_nvrtc
def test_a_cuda_texture_lives_in_device_memory_and_a_launch_passes_its_struct():
    data = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    with installed(FakeDriver()) as fake:
        tex = wp.Texture2D(data, address_mode=wp.TextureAddressMode.WRAP, device="cuda:0")
        head = np.frombuffer(_device_bytes(fake, tex.id, DESCRIPTOR.itemsize), dtype=DESCRIPTOR)[0]
        assert (head["ndim"], head["num_levels"], head["num_channels"], head["width"][0], head["height"][0]) == \
            (2, 1, 2, 4, 3)
        assert _device_bytes(fake, int(head["level"][0]), data.nbytes) == data.tobytes()
        out = np.zeros_like(data)
        tex.copy_to(out)
        np.testing.assert_array_equal(out, data)
        tex.copy_from(wp.array(data[::-1].copy(), dtype=wp.vec2, device="cuda:0"))
        assert _device_bytes(fake, int(head["level"][0]), data.nbytes) == data[::-1].tobytes()
        c = wp.zeros(2, dtype=wp.vec2, device="cuda:0")
        wp.launch(_sample, dim=2, inputs=[tex, c], outputs=[wp.zeros(2, dtype=wp.vec2, device="cuda:0")],
                  device="cuda:0")
        assert tex._to_bytes() in fake.launches[-1][4]
        assert struct.unpack("<QiiI4x", tex._to_bytes())[:3] == (tex.id, 4, 3)
        with pytest.raises(RuntimeError, match="cuda_texture is only supported for CUDA textures"):
            tex.cuda_texture  # noqa: B018 - no texture objects: sampling reads global memory


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine")
@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')")
def test_sampling_on_a_gpu_matches_the_cpu():
    rng = np.random.default_rng(2)
    data = rng.standard_normal((9, 7, 2)).astype(np.float32)
    c = rng.uniform(-1, 2, (256, 2)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda:0"):
        tex = wp.Texture2D(data, address_mode=wp.TextureAddressMode.MIRROR, num_mip_levels=0, device=device)
        out = wp.zeros(len(c), dtype=wp.vec2, device=device)
        wp.launch(_sample, dim=len(c), inputs=[tex, wp.array(c, dtype=wp.vec2, device=device)], outputs=[out],
                  device=device)
        results.append(out.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)  # the GPU may fuse multiply-adds


@wp.struct
class _Holder:
    tex: wp.Texture2D
    scale: float


@wp.kernel
def _sample_held(s: _Holder, out: wp.array(dtype=float)):
    out[0] = wp.texture_sample(s.tex, wp.vec2f(0.5, 0.5), dtype=float) * s.scale


@wp.struct
class _Both:
    tex: wp.Texture2D
    out: wp.array(dtype=float)


@wp.kernel
def _sample_both(s: _Both):
    s.out[0] = wp.texture_sample(s.tex, wp.vec2f(0.5, 0.5), dtype=float)


@needs_nvrtc
def test_a_texture_of_another_device_is_refused_naming_the_argument_and_both_devices():
    data = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    with installed(FakeDriver()) as fake:
        on_gpu = wp.Texture2D(data, device="cuda:0")
        on_cpu = wp.Texture2D(data, device="cpu")
        c, out = wp.zeros(2, dtype=wp.vec2), wp.full(2, wp.vec2(5.0, 5.0), dtype=wp.vec2)
        with pytest.raises(wp.LaunchError, match=r"launch of '.*_sample' on cpu: argument 't' is a Texture2D on "
                                                 r"cuda:0; a texture must be on the launch device \(make it with "
                                                 r"device='cpu'\)"):
            wp.launch(_sample, dim=2, inputs=[on_gpu, c], outputs=[out])
        wp.launch(_sample, dim=2, inputs=[on_cpu, c], outputs=[out])  # the same kernel's CPU entry, now well used
        np.testing.assert_array_equal(out.numpy(), [data[0, 0], data[0, 0]])  # clamped to the first texel
        out.fill_(wp.vec2(5.0, 5.0))
        with pytest.raises(wp.LaunchError, match=r"argument 't' is a Texture2D on cuda:0"):
            wp.launch(_sample, dim=2, inputs=[on_gpu, c], outputs=[out])  # and again from the launch table
        np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 5.0))  # nothing ran
        gpu_c, gpu_out = wp.zeros(2, dtype=wp.vec2, device="cuda:0"), wp.zeros(2, dtype=wp.vec2, device="cuda:0")
        with pytest.raises(wp.LaunchError, match=r"on cuda:0: argument 't' is a Texture2D on cpu; .*device='cuda:0'"):
            wp.launch(_sample, dim=2, inputs=[on_cpu, gpu_c], outputs=[gpu_out], device="cuda:0")
        assert fake.launches == []


@needs_nvrtc
def test_a_struct_holding_a_texture_of_another_device_is_refused():
    with installed(FakeDriver()) as fake:
        held = _Holder(tex=wp.Texture2D(np.full((2, 2), 3.0, np.float32), device="cuda:0"), scale=2.0)
        out = wp.full(1, 9.0, dtype=float)
        with pytest.raises(wp.LaunchError, match=r"on cpu: argument 's' holds textures on cuda:0; textures in a "
                                                 r"struct must be on the launch device \(make them with device='cpu'\)"):
            wp.launch(_sample_held, dim=1, inputs=[held], outputs=[out])
        assert out.numpy()[0] == 9.0
        held.tex = wp.Texture2D(np.full((2, 2), 3.0, np.float32), device="cpu")
        wp.launch(_sample_held, dim=1, inputs=[held], outputs=[out])
        assert out.numpy()[0] == 6.0
        wp.launch(_sample_held, dim=1, inputs=[_Holder(scale=2.0)], outputs=[out])  # an empty texture field: anywhere
        assert out.numpy()[0] == 0.0
        both = _Both(tex=wp.Texture2D(np.full((2, 2), 3.0, np.float32), device="cuda:0"), out=out)
        with pytest.raises(wp.LaunchError, match=r"argument 's' holds arrays or textures on cuda:0; arrays and textures "
                                                 r"in a struct must be on the launch device \(arrays: copy them with "
                                                 r"a.to\('cpu'\); textures: make them with device='cpu'\)"):
            wp.launch(_sample_both, dim=1, inputs=[both])
        assert out.numpy()[0] == 0.0
        assert fake.launches == []
