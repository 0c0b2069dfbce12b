"""A kernel that misses the cache is built with its module's other kernels (``lang.companions``), as Warp
builds a module at the first launch of any of its kernels; adjoints with the adjoints of the kernels launched."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from tests.kernel_files import kernel_module

import brickwork as wp
from brickwork import config, pipeline
from brickwork.jit import compile as jit

MODULE = """
from typing import Any


@wp.kernel
def double(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = 2.0 * x[i]


@wp.kernel
def add_one(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@wp.kernel
def square(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def scale_any(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]
"""

BROKEN = """

@wp.kernel
def broken(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = no_such_name
"""


def _instance(kernel):
    return kernel.get_instance(kernel.concrete_types())


def test_the_first_launch_builds_the_module_s_concrete_kernels_in_one_compiler_run(root, tmp_path):
    m, _ = kernel_module(tmp_path, MODULE)
    x = wp.array(np.arange(4, dtype=np.float32), dtype=wp.float32)
    before = jit.compiler_calls
    with config.override(compile_jobs=1):
        wp.launch(m.double, dim=4, inputs=[x])
    assert jit.compiler_calls - before == 1  # double, add_one and square share one run
    assert _instance(m.add_one).loaded and _instance(m.square).loaded
    assert not m.scale_any.instances  # a generic kernel waits for its types
    y = wp.zeros(4, dtype=wp.float32)
    wp.launch(m.add_one, dim=4, inputs=[x])
    wp.launch(m.square, dim=4, inputs=[x, y])
    assert jit.compiler_calls - before == 1  # their launches compile nothing
    assert x.numpy().tolist() == [1.0, 3.0, 5.0, 7.0]
    assert y.numpy().tolist() == [1.0, 9.0, 25.0, 49.0]


def test_on_the_emulation_target_the_first_launch_builds_the_module_s_kernels_for_it(root, tmp_path, every_companion):
    m, _ = kernel_module(tmp_path, MODULE)
    x = wp.array(np.arange(4, dtype=np.float32), dtype=wp.float32)
    y = wp.zeros(4, dtype=wp.float32)
    before = jit.compiler_calls
    with config.override(target="cuda-emulation", compile_jobs=1):
        wp.launch(m.double, dim=4, inputs=[x])
        assert jit.compiler_calls - before == 1  # double, add_one and square share one run
        assert _instance(m.add_one).loaded and _instance(m.square).loaded
        wp.launch(m.add_one, dim=4, inputs=[x])
        wp.launch(m.square, dim=4, inputs=[x, y])
    assert jit.compiler_calls - before == 1
    assert not _instance(m.add_one).loaded  # the CPU's instances are other ones, not built
    assert x.numpy().tolist() == [1.0, 3.0, 5.0, 7.0]
    assert y.numpy().tolist() == [1.0, 9.0, 25.0, 49.0]


def test_compile_module_off_builds_only_the_kernel_launched(root, tmp_path):
    m, _ = kernel_module(tmp_path, MODULE)
    x = wp.array(np.ones(3, dtype=np.float32), dtype=wp.float32)
    with config.override(compile_module=False):
        wp.launch(m.double, dim=3, inputs=[x])
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]
    assert not _instance(m.add_one).loaded and not _instance(m.square).loaded


def test_a_kernel_that_fails_to_type_raises_at_its_own_launch_not_its_neighbour_s(root, tmp_path):
    m, path = kernel_module(tmp_path, MODULE + BROKEN)
    x = wp.array(np.ones(3, dtype=np.float32), dtype=wp.float32)
    wp.launch(m.double, dim=3, inputs=[x])  # builds its neighbours; broken's error stays unraised
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]
    inst = _instance(m.broken)
    assert not inst.loaded and inst.error is None
    assert _instance(m.add_one).loaded
    with pytest.raises(wp.errors.KernelNameError, match="no_such_name") as info:
        wp.launch(m.broken, dim=3, inputs=[x])
    assert f'{path.name}", line ' in str(info.value) and "in broken" in str(info.value)  # its file and line
    assert x.numpy().tolist() == [2.0, 2.0, 2.0]  # nothing ran


def test_a_neighbour_whose_typing_warns_is_left_to_warn_at_its_own_launch(root, tmp_path, monkeypatch):
    m, _ = kernel_module(tmp_path, MODULE)
    generate = pipeline.generate

    def warning_generate(kernel, arg_types, label, *args, **kwargs):
        if kernel.key == "add_one":
            warnings.warn("add_one: a warning of its typing", UserWarning, stacklevel=1)
        return generate(kernel, arg_types, label, *args, **kwargs)

    monkeypatch.setattr(pipeline, "generate", warning_generate)
    x = wp.array(np.ones(2, dtype=np.float32), dtype=wp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none escapes from the neighbour's trial
        wp.launch(m.double, dim=2, inputs=[x])
    assert _instance(m.square).loaded and not _instance(m.add_one).loaded
    with pytest.warns(UserWarning, match="a warning of its typing"):
        wp.launch(m.add_one, dim=2, inputs=[x])
    assert x.numpy().tolist() == [3.0, 3.0]


def test_a_kernel_of_a_unique_module_builds_alone(root, tmp_path):
    m, _ = kernel_module(tmp_path, MODULE + """

@wp.kernel(module="unique")
def negate(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = -x[i]
""")
    x = wp.array(np.ones(2, dtype=np.float32), dtype=wp.float32)
    wp.launch(m.negate, dim=2, inputs=[x])
    assert x.numpy().tolist() == [-1.0, -1.0]
    assert not _instance(m.double).loaded
    wp.launch(m.double, dim=2, inputs=[x])
    assert not _instance(m.negate).adjoint().loaded and _instance(m.square).loaded


ADJOINTS = """

@wp.kernel
def cube(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i] * x[i]


@wp.kernel
def total(y: wp.array(dtype=wp.float32), loss: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.atomic_add(loss, 0, 3.0 * y[i])


@wp.kernel
def unused(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = wp.sin(x[i])
"""


def test_the_first_backward_launch_builds_the_adjoints_of_the_kernels_launched_together(root, tmp_path,
                                                                                       every_companion):
    m, _ = kernel_module(tmp_path, ADJOINTS)
    values = np.array([1.0, 2.0, -0.5], dtype=np.float32)
    x = wp.array(values, dtype=wp.float32, requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(m.cube, dim=3, inputs=[x], outputs=[y])
        wp.launch(m.total, dim=3, inputs=[y], outputs=[loss])
    before = jit.compiler_calls
    with config.override(compile_jobs=1):
        tape.backward(loss)
    assert jit.compiler_calls - before == 1  # both adjoints in one run
    # unused was built forward as a companion, never launched: its adjoint is not built
    assert _instance(m.unused).loaded and not _instance(m.unused).adjoint().loaded
    np.testing.assert_allclose(x.grad.numpy(), 9.0 * values**2, rtol=1e-6)
    assert loss.numpy()[0] == pytest.approx(3.0 * float(np.sum(values**3)), rel=1e-6)
