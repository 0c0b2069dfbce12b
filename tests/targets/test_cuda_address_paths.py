"""What the CUDA target says to NVRTC about addresses and products, checked without a GPU: a pack's
storage (``bw::raw``) is global memory, so its loads and stores are global ones (``ld.global``) also in
a kernel with shared memory, and the loop abstraction's division by a reciprocal takes the high word
of a 32 x 32-bit product with ``__umulhi``."""

import collections
import ctypes
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, ir, pipeline
from brickwork.jit import nvrtc
from brickwork.targets.cuda import CudaTarget, build
from brickwork.targets.cuda.render import CudaRenderer, umulhi_factors
from brickwork.types.scalars import int32, int64, uint32, uint64

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")

def _ptx(source: str) -> str:
    """NVRTC's PTX of ``source`` (compute_90) with the CUDA target's headers and options."""
    lib = nvrtc._lib()
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"k.cu", 0, None, None) == 0
    try:
        opts = ["--gpu-architecture=compute_90", *(f"--include-path={d}" for d in build.include_dirs()),
                *build.NVRTC_OPTIONS]
        argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        assert lib.nvrtcCompileProgram(prog, len(opts), argv) == 0
        size = ctypes.c_size_t()
        assert lib.nvrtcGetPTXSize(prog, ctypes.byref(size)) == 0
        ptx = ctypes.create_string_buffer(size.value)
        assert lib.nvrtcGetPTX(prog, ptx) == 0
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _recon_flux_source() -> str:
    """The CUDA source of the loop-abstraction benchmark's reconstruction and flux kernel (a pack read in
    two team loops, their results kept in a block scratch in shared memory, a pack's flux written)."""
    root = Path(__file__).resolve().parents[2]
    for folder in (root / "benchmarks", root / "tests"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import la_cases

    from gpu_compile import recording

    q = np.random.default_rng(0).random((8, 12, 12, 12))
    with config.override(target="cuda-emulation"), recording() as created:
        la_cases.la_recon_flux(SimpleNamespace(wp=wp), q, 16, 8, "bovi", "logical_flat")[0]()
    inst = next(i for i in created if i.fn is not None and i.kernel.key == "recon_flux")
    return pipeline.generate(inst.kernel, inst.arg_types, inst.label, CudaTarget("sm_90"), inst.mode)[0]


@needs_nvrtc
def test_pack_storage_is_loaded_and_stored_as_global_memory():
    text = _recon_flux_source()
    assert "bw::raw<double>(" in text and "bw::gpu_shared_arena" in text
    memory = collections.Counter(re.findall(r"\b((?:ld|st)\.(?:global\.|shared\.|local\.)?f64)\b", _ptx(text)))
    # before bw::raw said so, most of the pack's loads and some stores were generic (ld.f64, st.f64)
    assert set(memory) == {"ld.global.f64", "st.global.f64", "ld.shared.f64", "st.shared.f64"}, memory
    assert "__umulhi(" in text and "uint64_t(32ULL)" not in text  # each cell's (j, i) from its flat index


@needs_nvrtc
def test_the_box_copies_load_and_store_the_fields_as_global_memory():
    """``copy_elements`` and ``add_back_elements`` address the fields through ``global_array``: before, their
    element loads and stores were generic (copy_elements f64: 1 ld.f64, 2 st.f64; add_back_elements f64:
    7 and 8), as ``wp.array(ptr=...)``'s must stay (its address may be a local's)."""
    from brickwork.mesh.copies import element_kernel
    from brickwork.mesh.transposed_copies import add_back_element_kernel

    for k in (element_kernel(wp.float64, 8, False), add_back_element_kernel(wp.float64, 8)):
        text = pipeline.generate(k, [t for _, t in k.params], k.key, CudaTarget("sm_90"))[0]
        assert "bw::array_from_global_ptr<" in text and "bw::array_from_ptr<" not in text
        memory = collections.Counter(re.findall(r"\b((?:ld|st)(?:\.global|\.shared|\.local|\.param)?)\.[usbf]\d+\b",
                                                _ptx(text)))
        assert set(memory) == {"ld.global", "st.global", "ld.param"}, (k.key, memory)


def test_global_array_is_checked_as_wp_array_over_a_pointer():
    from brickwork.errors import KernelTypeError
    from brickwork.frontend.array_pointers import global_array

    def no_dtype(a: wp.array(dtype=wp.uint64)):
        b = global_array(ptr=a[0], shape=(1,))
        b[0] = 1.0

    with pytest.raises(KernelTypeError, match=r"global_array\(\) in a kernel needs dtype"):
        pipeline.generate(wp.kernel(no_dtype), [wp.array(dtype=wp.uint64)], "no_dtype")
    with pytest.raises(RuntimeError, match="only be used inside a kernel"):
        global_array(ptr=0, shape=(1,), dtype=wp.float32)


def _local(name, t):
    return ir.IRLocal(name, t)


def _high_word(n, m, shift=32, to=int32):
    wide = ir.IRCall("mul", [ir.IRCast(n, uint64), ir.IRCast(m, uint64)], uint64)
    return ir.IRCast(ir.IRCall("rshift", [wide, ir.IRConst(shift, uint64)], uint64), to)


def test_high_word_of_a_32_bit_product_is_umulhi():
    n = ir.IRCast(_local("f", int32), uint32)
    e = _high_word(n, _local("m", uint32))
    assert umulhi_factors(e) == (n, e.arg.args[0].args[1].arg)
    assert CudaRenderer().expr(e) == "bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v_f), v_m))"
    assert CudaRenderer().expr(_high_word(n, _local("m", uint32), to=uint32)).startswith("bw::cast<uint32_t>(__umulhi(")


@pytest.mark.parametrize("case", ["shift 31", "64-bit factor", "signed factor", "64-bit result"])
def test_other_products_are_left_as_written(case):
    n, m = ir.IRCast(_local("f", int32), uint32), _local("m", uint32)
    e = {"shift 31": lambda: _high_word(n, m, shift=31),
         "64-bit factor": lambda: _high_word(n, _local("m", uint64)),
         "signed factor": lambda: _high_word(_local("f", int32), m),
         "64-bit result": lambda: _high_word(n, m, to=int64)}[case]()
    assert umulhi_factors(e) is None  # rendered as the CPU renders it
