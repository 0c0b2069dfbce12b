"""Errors Warp's own tests match by text: brickwork raises them with Warp's exception types and words (besides its
own), so code that catches Warp's errors catches brickwork's. No array is touched by a launch that fails."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Point:
    x: float


def _launch_untouched(k, error, pattern, extra=()):
    """Launching ``k`` raises ``error`` matching ``pattern``, and its array argument keeps its values."""
    a = wp.array(np.arange(3, dtype=np.float32), dtype=float)
    with pytest.raises(error, match=pattern) as e:
        wp.launch(k, dim=1, inputs=[a, *extra])
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 2.0])
    return e.value


def test_undefined_name_is_a_key_error_too():
    @wp.kernel
    def k(a: wp.array(dtype=float)):
        a[0] = missing_symbol  # noqa: F821

    e = _launch_untouched(k, KeyError, "Referencing undefined symbol: missing_symbol")
    assert isinstance(e, wp.KernelNameError) and isinstance(e, NameError)
    assert "name 'missing_symbol' is not defined" in str(e)
    assert str(e).startswith("File ")  # not KeyError's quoted repr


def test_missing_module_function_and_namespace():
    @wp.kernel
    def missing_func(a: wp.array(dtype=float)):
        a[0] = wp.missing_func(42)

    @wp.kernel
    def missing_namespace(a: wp.array(dtype=float)):
        a[0] = float(wp.foo.bar.tid())

    e = _launch_untouched(missing_func, wp.KernelAttributeError, r"Could not find function wp\.missing_func")
    assert "module 'brickwork' has no attribute 'missing_func'" in str(e)
    _launch_untouched(missing_namespace, AttributeError, r"`foo` is not an attribute of 'wp'")


def test_struct_attribute_names_the_value_and_the_struct():
    @wp.kernel
    def k(a: wp.array(dtype=float), p: Point):
        a[0] = p.nonexisting

    _launch_untouched(k, AttributeError, rf"`nonexisting` is not an attribute of 'p' \({__name__}\.Point\)$",
                      extra=[Point()])


def test_kernels_return_no_value():
    @wp.kernel
    def return_none(a: wp.array(dtype=float)):
        a[0] = 1.0
        return None

    @wp.kernel
    def annotated(a: wp.array(dtype=float)) -> float:
        a[0] = 1.0

    @wp.kernel
    def annotated_none(a: wp.array(dtype=float)) -> None:
        a[0] = 5.0
        return

    pattern = r"Warp kernels cannot return values\. Write results to output arguments"
    _launch_untouched(return_none, wp.KernelTypeError, pattern)
    e = _launch_untouched(annotated, wp.KernelTypeError, pattern)
    assert "annotated to return float" in str(e)
    a = wp.zeros(1, dtype=float)
    wp.launch(annotated_none, dim=1, inputs=[a])
    assert a.numpy()[0] == 5.0


def test_list_and_dict_displays():
    @wp.kernel
    def uses_list(a: wp.array(dtype=float)):
        x = [1.0, 2.0]  # noqa: F841
        a[0] = 1.0

    @wp.kernel
    def uses_dict(a: wp.array(dtype=float)):
        x = {"a": 1.0}  # noqa: F841
        a[0] = 1.0

    e = _launch_untouched(uses_list, RuntimeError, r"List constructs are not supported in kernels\. Use vectors")
    assert isinstance(e, wp.KernelSyntaxError)
    _launch_untouched(uses_dict, wp.KernelSyntaxError, r"Construct `ast\.Dict` not supported in kernels\.")


def test_printf_takes_at_most_32_values():
    @wp.kernel
    def k(a: wp.array(dtype=float)):
        wp.printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
                  "%d\n", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                  25, 26, 27, 28, 29, 30, 31, 32)
        a[0] = 1.0

    e = _launch_untouched(k, RuntimeError, r"the maximum number of variadic arguments that can be passed to "
                                           r"`printf` is 32$")
    assert isinstance(e, wp.KernelTypeError) and "got 33 values" in str(e)


def test_struct_inheritance_is_refused():
    @wp.struct
    class Parent:
        x: int

    with pytest.raises(RuntimeError, match=r"struct Child derives from Parent: Warp structs must be defined as "
                                           r"base classes$"):
        @wp.struct
        class Child(Parent):
            y: int


def test_operand_types_that_differ_are_named_as_warp_names_them():
    @wp.kernel
    def scalars(a: wp.array(dtype=float)):
        a[0] = float(1 * 1.0)

    @wp.kernel
    def vectors(a: wp.array(dtype=float)):
        a[0] = float(wp.dot(wp.vec2(1.0, 2.0), wp.vec2h(1.0, 2.0)))

    e = _launch_untouched(scalars, RuntimeError, r"Input types must be the same, got \['int32', 'float32'\]")
    assert isinstance(e, wp.KernelTypeError) and "operand types must match" in str(e)
    _launch_untouched(vectors, RuntimeError, r"Input types must be exactly the same, got \['vec2f', 'vec2h'\]")


def test_too_many_indices_on_a_sub_array():
    @wp.kernel
    def k(a: wp.array(dtype=float), m: wp.array2d(dtype=wp.mat44)):
        m[0][2, 2] = 6.0
        a[0] = 1.0

    m = wp.zeros((1, 1), dtype=wp.mat44)
    _launch_untouched(k, wp.KernelTypeError, r"Incorrect number of indices specified for array indexing: an array "
                                             r"of 1 dimensions needs 1 indices, got 2", extra=[m])
    assert not m.numpy().any()


@wp.func
def _double(x: float):
    return 2.0 * x


@wp.func
def _halve(x: float):
    return 0.5 * x


def test_a_function_valued_local_keeps_its_function():
    @wp.kernel
    def to_function(a: wp.array(dtype=float)):
        f = _double
        f = _halve
        a[0] = f(3.0)

    @wp.kernel
    def to_value(a: wp.array(dtype=float)):
        f = _double
        f = 1.0
        a[0] = f

    @wp.kernel
    def same_again(a: wp.array(dtype=float)):
        f = _double
        f = _double
        t = wp.float32
        t = wp.float32
        a[0] = f(t(3.0))

    _launch_untouched(to_function, wp.KernelTypeError, r"rebinding function-valued local 'f' to another value")
    _launch_untouched(to_value, wp.KernelTypeError, r"rebinding function-valued local 'f' to a non-function value")
    a = wp.zeros(1, dtype=float)
    wp.launch(same_again, dim=1, inputs=[a])
    assert a.numpy()[0] == 6.0


def test_unique_module_per_kernel():
    def make(name):
        @wp.kernel(module="unique", name=name)
        def k(a: wp.array(dtype=float)):
            a[0] = 1.0

        return k

    ka, kb = make("kernel_a"), make("kernel_b")
    assert ka.module is not kb.module and ka.module.name != kb.module.name
    assert (ka.key, kb.key) == ("kernel_a", "kernel_b")


def test_a_slot_write_with_a_non_integer_array_index_says_so():
    @wp.kernel
    def set_x(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
        v[0.0].x = a[0]

    @wp.kernel
    def add_x(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
        v[a[1]].x += 1.0

    @wp.kernel
    def plain(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
        a[0] = v[a[1]].x  # a read

    vs = wp.zeros(2, dtype=wp.vec3)
    for k in (set_x, add_x):
        e = _launch_untouched(k, TypeError, "Array slot write indices must be integers, got float32", [vs])
        assert isinstance(e, wp.KernelTypeError) and "line" in str(e)
    e = _launch_untouched(plain, TypeError, "indices must be integers, got float32", [vs])
    assert "Array slot write" not in str(e).splitlines()[-1]
    assert not vs.numpy().any()
