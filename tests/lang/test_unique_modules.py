"""Kernels of ``module="unique"`` (identity of redeclarations, module names, ``module_options``),
module contents and ``Module.load``, and deterministic mode."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


def _doubler():
    @wp.kernel(module="unique")
    def double_it(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] * 2.0

    return double_it


def _constant_writer(c):
    @wp.kernel(module="unique")
    def write_constant(x: wp.array(dtype=wp.float32)):
        x[0] = float(c)

    return write_constant


def _table_writer(values):
    @wp.kernel
    def write_table(out: wp.array(dtype=int)):
        for i in range(wp.static(len(values))):
            out[i] = wp.static(values[i])  # deferred: reads the list's items when compiled

    return write_table


def test_identical_unique_kernels_are_one_object():
    first, second = _doubler(), _doubler()
    assert first is second and first.module is second.module
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    wp.launch(second, 3, inputs=[x])
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0, 6.0])


def test_unique_kernels_with_other_captured_values_differ():
    one, other = _constant_writer(1), _constant_writer(2)
    assert one is not other and one.module.name != other.module.name
    assert _constant_writer(1) is one
    x = wp.zeros(1, dtype=wp.float32)
    wp.launch(other, 1, inputs=[x])
    assert x.numpy()[0] == 2.0


def test_kernel_options_distinguish_unique_kernels():
    def make(**options):
        @wp.kernel(module="unique", **options)
        def twice(x: wp.array(dtype=Any)):
            i = wp.tid()
            x[i] = x[i] + x[i]

        return twice

    assert make(grid_stride=True) is not make(grid_stride=False)
    assert make(enable_backward=False).options == {"enable_backward": False}
    assert make(enable_cuda_smem_spilling=False) is make()  # False is the default: left out


def test_captured_lists_are_compiled_by_their_items():
    # the compiled code of a deferred wp.static(values[i]) depends on the list's items (cache key)
    out = wp.zeros(2, dtype=int)
    wp.launch(_table_writer([100, 200]), 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [100, 200])
    wp.launch(_table_writer([999, 888]), 1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [999, 888])


def test_module_options_are_the_unique_modules_options():
    @wp.kernel(module="unique", module_options={"fast_math": True, "deterministic_max_records": 2})
    def with_options(x: wp.array(dtype=float)):
        x[0] = 1.0

    assert with_options.module.options["fast_math"] is True
    assert with_options.module.options["deterministic_max_records"] == 2
    assert wp.get_module_options()["fast_math"] is False  # the shared module is untouched


@pytest.mark.parametrize("kwargs, error, text", [
    ({"module_options": {"fast_math": True}}, ValueError, 'requires module="unique"'),
    ({"module_options": {}}, ValueError, 'requires module="unique"'),
    ({"module_options": {"fast_math": True}, "module": "shared"}, ValueError, 'requires module="unique"'),
    ({"module_options": "fast_math", "module": "unique"}, TypeError, "must be a dict, got str"),
    ({"module_options": {"fast_mth": True}, "module": "unique"}, ValueError, "unknown module_options: 'fast_mth'"),
    ({"module_options": {"deterministic": 1}, "module": "unique"}, ValueError, "DeterministicMode value, got 1"),
    ({"module_options": {"deterministic_max_records": -1}, "module": "unique"}, ValueError, "non-negative, got -1"),
    ({"module_options": {"deterministic_max_records": 1.5}, "module": "unique"}, TypeError, "got float"),
    ({"module_options": {"deterministic_max_records": True}, "module": "unique"}, TypeError, "got bool"),
])
def test_module_options_errors(kwargs, error, text):
    with pytest.raises(error, match=text.replace("(", r"\(")):
        @wp.kernel(**kwargs)
        def refused(x: wp.array(dtype=float)):
            x[0] = 1.0


def test_config_deterministic_is_captured_when_the_module_is_made():
    with wp.config.override(deterministic=wp.DeterministicMode.RUN_TO_RUN):
        @wp.kernel(module="unique")
        def captured(x: wp.array(dtype=float)):
            x[0] = 2.0

    assert captured.module.options["deterministic"] == wp.DeterministicMode.RUN_TO_RUN
    assert wp.DeterministicMode.NOT_GUARANTEED == 0 and wp.DeterministicMode.GPU_TO_GPU == 2


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN})
def _deterministic_sum(values: wp.array(dtype=wp.float32), total: wp.array(dtype=wp.float32)):
    wp.atomic_add(total, 0, values[wp.tid()])


def test_deterministic_atomics_add_in_thread_order():
    rng = np.random.default_rng(3)
    values = (rng.standard_normal(4096) * 10.0 ** rng.integers(-3, 4, 4096)).astype(np.float32)
    expected = np.float32(0.0)
    for v in values:  # one thread, thread-id order
        expected = np.float32(expected + v)
    with wp.config.override(parallel_threshold=64, num_threads=2):  # would go parallel otherwise
        for _ in range(3):
            total = wp.zeros(1, dtype=wp.float32)
            wp.launch(_deterministic_sum, len(values), inputs=[wp.array(values), total])
            assert total.numpy()[0] == expected


def test_module_contents_and_load():
    assert _deterministic_sum.module.kernels == {"_deterministic_sum": _deterministic_sum}
    shared = wp.get_module(__name__)
    assert "_Holder" in shared.structs and shared.structs["_Holder"] is _Holder
    assert shared.functions == {"_plus_one": _plus_one}
    assert _deterministic_sum.module.load("cpu") is None


def test_module_load_raises_the_kernel_error():
    @wp.kernel(module="unique")
    def broken(x: wp.array(dtype=float)):
        x[0] = undefined_name  # noqa: F821

    with pytest.raises(wp.KernelError, match="undefined_name"):
        broken.module.load()


@wp.struct
class _Holder:
    h: wp.handle
    scale: float


@wp.func
def _plus_one(x: int):
    return x + 1


@wp.kernel
def _handles(s: _Holder, h: wp.handle, out: wp.array(dtype=wp.uint64)):
    out[0] = s.h
    out[1] = h
    out[2] = s.h + wp.uint64(1)


def test_handle_is_a_uint64():
    s = _Holder()
    assert s.h == 0
    s.h = 123
    out = wp.zeros(3, dtype=wp.uint64)
    wp.launch(_handles, 1, inputs=[s, 7, out])
    np.testing.assert_array_equal(out.numpy(), [123, 7, 124])
    assert issubclass(wp.handle, wp.uint64) and int(wp.handle(5)) == 5
    assert wp.zeros(2, dtype=wp.handle).dtype is wp.uint64


def test_launches_of_a_generic_kernel_add_overloads():
    @wp.kernel(module="unique")
    def add_twice(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
        i = wp.tid()
        y[i] = x[i] + x[i]

    assert add_twice.overloads == {}
    for dtype in (wp.float32, wp.float64, wp.float32):
        x = wp.array(np.array([1.0, 2.0]), dtype=dtype)
        y = wp.zeros(2, dtype=dtype)
        wp.launch(add_twice, 2, inputs=[x, y])
        np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    assert len(add_twice.overloads) == 2
    assert _deterministic_sum.overloads == {}  # a concrete kernel has none


def test_a_changed_return_annotation_is_another_unique_kernel():
    """The return annotation is part of a unique kernel's identity: a second declaration whose annotation
    now names a type is a new kernel, refused at launch (kernels return nothing)."""
    Ret = None

    @wp.kernel(module="unique")
    def returns_alias(x: float) -> Ret:
        return

    first = returns_alias
    wp.launch(first, dim=1, inputs=[3.0], device="cpu")
    Ret = float  # noqa: F841 - read by the annotation below

    @wp.kernel(module="unique")
    def returns_alias(x: float) -> Ret:  # noqa: F811 - a redeclaration is the point
        return

    assert returns_alias is not first
    with pytest.raises(wp.KernelTypeError, match="return"):
        wp.launch(returns_alias, dim=1, inputs=[3.0], device="cpu")


def _bit_counter(dtype):
    @wp.kernel(module="unique")
    def count_bits(values: wp.array(dtype=dtype), counts: wp.array(dtype=wp.int32)):
        i = wp.tid()
        counts[i] = wp.bit_count(values[i])

    return count_bits


@pytest.mark.parametrize("dtype", [wp.int8, wp.uint8, wp.int16, wp.uint64])
def test_an_annotation_naming_a_variable_of_the_enclosing_function_is_part_of_the_identity(dtype):
    """``dtype`` is evaluated in the annotation, not captured by the kernel's code: each dtype is its own
    kernel (before, the first declaration came back for every dtype and refused the others' arrays)."""
    kernel = _bit_counter(dtype)
    assert _bit_counter(dtype) is kernel
    assert all(_bit_counter(other) is not kernel for other in (wp.int32, wp.uint32) if other is not dtype)
    bits = np.array([0, 1, 3, 0x7F, 0x55], dtype=wp.dtype_to_numpy(dtype))
    values, counts = wp.array(bits, dtype=dtype), wp.zeros(5, dtype=wp.int32)
    wp.launch(kernel, dim=5, inputs=[values], outputs=[counts])
    np.testing.assert_array_equal(counts.numpy(), [0, 1, 2, 7, 4])
