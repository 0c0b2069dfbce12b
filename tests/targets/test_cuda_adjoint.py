"""Backward (adjoint) kernels on the CUDA target, without a GPU: the kernels whose gradients
tests/autodiff checks against finite differences or exact derivatives (every differentiable builtin,
control flow, loops that save values on the tape stack, atomics, stores, functions, structs) are
generated as ``:adjoint`` instances for CUDA and compiled by NVRTC to sm_90 cubins."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import brickwork as wp
from brickwork import pipeline
from brickwork.jit import nvrtc
from brickwork.lang.kernel import Kernel
from brickwork.targets.cuda import CudaTarget
from brickwork.types.generic import is_generic

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from autodiff import test_control_flow, test_tape_api  # noqa: E402
from autodiff.builtin_cases import CASES  # noqa: E402
from autodiff.test_builtin_gradients import _module_source  # noqa: E402
from gpu_compile import cubin_arch  # noqa: E402

TARGET = CudaTarget("sm_90")
#: generic kernels of the control-flow tests, with the types those tests launch them with
GENERIC = {"generic_square": [wp.array(dtype=wp.float64)] * 2, "cw_square": [wp.array(dtype=wp.vec3d)] * 2}


def _module_kernels(module) -> list:
    found = []
    for name, k in vars(module).items():
        if isinstance(k, Kernel) and k.source is not None:
            if not any(is_generic(t) for _, t in k.params):
                found.append((f"{module.__name__.split('.')[-1]}::{name}", k, [t for _, t in k.params]))
            elif name in GENERIC:
                found.append((f"{module.__name__.split('.')[-1]}::{name}", k, GENERIC[name]))
    return found


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    path = tmp_path_factory.mktemp("cuda_adjoint_cases") / "bw_cuda_adjoint_cases.py"
    path.write_text(_module_source())
    spec = importlib.util.spec_from_file_location("bw_cuda_adjoint_cases", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    entries = [(f"builtin::{n}:{c.name}", getattr(module, f"k{n}"), None) for n, c in enumerate(CASES)]
    entries = [(name, k, [t for _, t in k.params]) for name, k, _ in entries]
    entries += _module_kernels(test_control_flow) + _module_kernels(test_tape_api)
    jobs, names, out = [], [], {}
    for name, k, types in entries:
        try:
            text, meta = pipeline.generate(k, types, name, target=TARGET, mode="release:adjoint")
        except Exception as e:  # noqa: BLE001 - a kernel the CPU cannot differentiate either is checked below
            out[name] = (k, types, e, None)
            continue
        key = pipeline.cache_key(pipeline.key_parts(k, types, "release:adjoint", TARGET))
        jobs.append((key, text, name, meta))
        names.append((name, k, types, text))
    for (name, k, types, text), result in zip(names, TARGET.compile_many(jobs)):
        out[name] = (k, types, text, result)
    return out


def test_every_gradient_checked_kernel_has_a_cuda_backward_kernel(builds):
    assert len(builds) >= len(CASES) + 15
    failures = []
    for name, (k, types, text, result) in builds.items():
        if isinstance(text, Exception):  # the CPU refuses it too, with the same message
            with pytest.raises(type(text)) as on_cpu:
                pipeline.generate(k, types, name, mode="release:adjoint")
            assert str(on_cpu.value) == str(text), name
            continue
        if isinstance(result, Exception):
            failures.append(f"{name}: {result}")
            continue
        path, meta = result
        with open(path, "rb") as f:
            assert cubin_arch(f.read()) == 90, name
        assert meta["variant"] == "adjoint" and meta["gpu_launch"]["grid"] == "points"
    assert not failures, "\n".join(failures)


def test_loops_save_values_on_a_per_thread_tape_stack(builds):
    _, _, text, _ = builds["test_control_flow::power_loop"]
    assert "bw::tape_stack bw_tape;" in text and "bw_tape.push(" in text and "bw_tape.pop<int32_t>()" in text


def test_adjoint_scatters_are_device_atomics(builds):
    """No phased rows on a GPU: every adjoint accumulation into an array is an atomic add."""
    _, _, text, _ = builds["test_control_flow::laplacian"]
    assert text.count("bw::atomic_add(&bw::at_split<UNIT>(v_adj_u,") == 7  # neighbours: constant terms apart
