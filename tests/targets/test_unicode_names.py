"""Python identifiers may hold any Unicode letter; the generated C++ and CUDA spell them in ASCII.

g++ accepts UTF-8 identifiers, NVRTC (and compilers before g++ 10) do not: a kernel with a local named
``β`` was an "NVRTC rejected the CUDA code ... brickwork bug" error.
"""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import brickwork as wp
from brickwork import pipeline
from brickwork.jit import nvrtc
from brickwork.targets.cpu.cnames import c_name
from brickwork.targets.cuda import CudaTarget


@wp.func
def ƒ(x: float) -> float:
    return x * 2.0


@wp.struct
class Pärticle:
    pös: wp.vec3
    pos: float  # an ASCII field next to a non-ASCII one of similar spelling


@wp.kernel
def kérnel(α: wp.array(dtype=float), ps: wp.array(dtype=Pärticle)):
    i = wp.tid()
    β = α[i] + 1.0
    _β = β * 10.0
    α[i] = ƒ(β) + ps[i].pös[0] + ps[i].pos + _β


def _inputs():
    a = wp.array(np.arange(3, dtype=np.float32))
    host = np.zeros(3, dtype=Pärticle.numpy_dtype())
    host["pös"][:, 0] = [0.5, 1.5, 2.5]
    host["pos"] = 100.0
    return a, wp.array(host, dtype=Pärticle)


def test_non_ascii_names_run_on_the_cpu():
    a, ps = _inputs()
    wp.launch(kérnel, 3, inputs=[a, ps])
    beta = np.arange(3, dtype=np.float32) + 1
    np.testing.assert_array_equal(a.numpy(), 2 * beta + [0.5, 1.5, 2.5] + 100 + 10 * beta)


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')")
def test_non_ascii_names_compile_for_cuda_in_ascii():
    target = CudaTarget("sm_90")
    types = [t for _, t in kérnel.params]
    text, meta = pipeline.generate(kérnel, types, "kérnel", target=target)
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    assert code.isascii(), [line for line in code.splitlines() if not line.isascii()][:3]
    key = pipeline.cache_key(pipeline.key_parts(kérnel, types, target=target))
    (result,) = target.compile_many([(key, text, "kérnel", meta)])
    assert not isinstance(result, Exception), result


_IDENTIFIER = st.text(st.characters(categories=("L", "Nd"), include_characters="_"), min_size=1, max_size=6).filter(
    str.isidentifier)


@given(_IDENTIFIER, _IDENTIFIER)
def test_c_names_are_ascii_identifiers_one_to_one(a, b):
    for name in (a, b):
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", c_name("v", name)), name
    assert (c_name("v", a) == c_name("v", b)) == (a == b)
