"""Fabric arrays (``wp.fabricarray``, ``wp.indexedfabricarray``, arrays of arrays): one logical array over
buckets of memory, checked against numpy in kernels (CPU, the emulation target, NVRTC) and on the host."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.errors import BoundsError, LaunchError

_CODES = {wp.float32: ("f4", 1, ""), wp.float64: ("f8", 1, ""), wp.int32: ("i4", 1, ""), wp.vec3: ("f4", 3, "vector"),
          wp.mat22: ("f4", 4, "matrix"), wp.quat: ("f4", 4, "quat")}


def interface(data: wp.array, sizes: list, attrib: str = "x") -> dict:
    """A Fabric interface dict whose attribute ``attrib`` holds ``data`` cut into buckets of ``sizes``."""
    assert sum(sizes) == data.shape[0]
    step = data.numpy().nbytes // max(data.shape[0], 1)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(int) if sizes else []
    base, count, role = _CODES[data.dtype]
    return {"version": 1, "device": str(data.device), "_ref": data,
            "attribs": {attrib: {"type": (True, base, count, 0, role), "access": 2, "counts": list(sizes),
                                 "pointers": [(data.ptr or 0) + int(s) * step for s in starts]}}}


def fabric(values: np.ndarray, sizes: list, dtype=wp.float32):
    data = wp.array(values, dtype=dtype)
    return data, wp.fabricarray(interface(data, sizes), "x")


@wp.kernel
def double_and_add(a: wp.fabricarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] + float(len(a))
    a[i] = 2.0 * a[i]
    wp.atomic_add(a, i, 0.5)


@wp.kernel
def copy_any(a: wp.indexedfabricarray(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i]


@wp.kernel
def copy_fabric_any(a: wp.fabricarray(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = a[i] + a[i]


@pytest.mark.parametrize("sizes", [[10], [3, 0, 4, 3], [1] * 10, [0, 10, 0]])
def test_a_kernel_reads_and_writes_every_bucket(sizes):
    values = np.arange(10, dtype=np.float32) * 1.5
    data, fa = fabric(values, sizes)
    assert fa.shape == (10,) and fa.size == len(fa) == 10 and fa.dtype is wp.float32 and fa.ndim == 1
    out = wp.zeros(10, dtype=float)
    wp.launch(double_and_add, dim=10, inputs=[fa, out])
    np.testing.assert_array_equal(out.numpy(), values + 10)
    np.testing.assert_array_equal(data.numpy(), 2 * values + 0.5)  # the buckets are the data's memory


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_reads_fabric_and_indexed_fabric_arrays():
    values = np.arange(12, dtype=np.float32)
    data, fa = fabric(values, [5, 0, 7])
    picks = np.array([11, 0, 6, 5], np.int32)
    out, out2 = wp.zeros(12, dtype=float), wp.zeros(4, dtype=float)
    with config.override(target="cuda-emulation"):
        wp.launch(double_and_add, dim=12, inputs=[fa, out])
        wp.launch(copy_any, dim=4, inputs=[fa[wp.array(picks, dtype=wp.int32)], out2])
    np.testing.assert_array_equal(out.numpy(), values + 12)
    np.testing.assert_array_equal(out2.numpy(), (2 * values + 0.5)[picks])


@pytest.mark.parametrize("dtype,values", [
    (wp.float32, np.arange(6, dtype=np.float32)),
    (wp.int32, np.arange(6, dtype=np.int32) - 3),
    (wp.vec3, np.arange(18, dtype=np.float32).reshape(6, 3)),
    (wp.mat22, np.arange(24, dtype=np.float32).reshape(6, 2, 2)),
])
def test_generic_kernels_take_each_dtype_their_own_instance(dtype, values):
    _, fa = fabric(values, [2, 4], dtype)
    out = wp.zeros(6, dtype=dtype)
    wp.launch(copy_fabric_any, dim=6, inputs=[fa, out])
    np.testing.assert_array_equal(out.numpy(), values + values)
    np.testing.assert_array_equal(fa.numpy(), values)


def test_an_indexed_fabric_array_picks_elements():
    values = np.arange(8, dtype=np.float64) ** 2
    _, fa = fabric(values, [3, 5], wp.float64)
    picks = np.array([7, 1, 1, 4], np.int32)
    ifa = fa[wp.array(picks, dtype=wp.int32)]
    assert isinstance(ifa, wp.indexedfabricarray) and ifa.shape == (4,) and ifa.dtype is wp.float64
    out = wp.zeros(4, dtype=wp.float64)
    wp.launch(copy_any, dim=4, inputs=[ifa, out])
    np.testing.assert_array_equal(out.numpy(), values[picks])
    np.testing.assert_array_equal(ifa.numpy(), values[picks])


def test_host_fill_zero_assign_and_copy_write_through_the_buckets():
    data, fa = fabric(np.zeros(7, np.float32), [2, 0, 5])
    fa.fill_(3.25)
    np.testing.assert_array_equal(data.numpy(), np.full(7, 3.25))
    ifa = fa[wp.array([0, 6], dtype=wp.int32)]
    ifa.zero_()
    np.testing.assert_array_equal(data.numpy(), [0, 3.25, 3.25, 3.25, 3.25, 3.25, 0])
    ifa.fill_(-1.0)
    np.testing.assert_array_equal(fa.numpy(), [-1, 3.25, 3.25, 3.25, 3.25, 3.25, -1])
    fa.assign(np.arange(7))
    np.testing.assert_array_equal(data.numpy(), np.arange(7))
    src = wp.array(np.arange(7, dtype=np.float32) + 10)
    wp.copy(fa, src)
    np.testing.assert_array_equal(data.numpy(), np.arange(7) + 10)
    with pytest.raises(RuntimeError, match="not supported for indexed or Fabric arrays"):  # as Warp
        wp.copy(fa, src, dest_offset=5, src_offset=0, count=2)
    np.testing.assert_array_equal(data.numpy(), np.arange(7) + 10)
    back = wp.zeros(7, dtype=float)
    wp.copy(back, fa)
    np.testing.assert_array_equal(back.numpy(), data.numpy())
    np.testing.assert_array_equal(fa.contiguous().numpy(), data.numpy())


def test_vector_elements_fill_and_read_back():
    data, fa = fabric(np.zeros((4, 3), np.float32), [1, 3], wp.vec3)
    fa.fill_(wp.vec3(1.0, 2.0, 3.0))
    np.testing.assert_array_equal(data.numpy(), np.tile([1.0, 2.0, 3.0], (4, 1)))
    assert fa.list()[2] == wp.vec3(1.0, 2.0, 3.0)


def _arrays_interface(arrays: list, sizes: list) -> tuple:
    """A Fabric interface of an attribute whose elements are the arrays ``arrays`` (depth 1)."""
    pointers = wp.array(np.array([a.ptr for a in arrays], np.uint64), dtype=wp.uint64)
    lengths = wp.array(np.array([a.shape[0] for a in arrays], np.uint64), dtype=wp.uint64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(int)
    info = {"type": (True, "f4", 1, 1, ""), "access": 2, "counts": sizes,
            "pointers": [pointers.ptr + 8 * int(s) for s in starts],
            "array_lengths": [lengths.ptr + 8 * int(s) for s in starts]}
    return {"version": 1, "device": "cpu", "attribs": {"x": info}}, (arrays, pointers, lengths)


@wp.kernel
def sum_inner(a: wp.fabricarray(dtype=float, ndim=2), out: wp.array(dtype=float), lengths: wp.array(dtype=int)):
    i = wp.tid()
    inner = a[i]
    lengths[i] = len(inner)
    total = wp.float32(0.0)
    for j in range(len(inner)):
        total += inner[j]
    out[i] = total
    a[i, 0] = -1.0


def test_an_array_of_arrays_gives_each_element_its_own_array():
    rows = [np.arange(n, dtype=np.float32) + n for n in (3, 1, 4, 2)]
    arrays = [wp.array(r) for r in rows]
    iface, keep = _arrays_interface(arrays, [1, 3])
    fa = wp.fabricarrayarray(data=iface, attrib="x")
    assert fa.ndim == 2 and fa.shape == (4,) and fa.dtype is wp.float32
    out, lengths = wp.zeros(4, dtype=float), wp.zeros(4, dtype=int)
    wp.launch(sum_inner, dim=4, inputs=[fa, out, lengths])
    np.testing.assert_array_equal(out.numpy(), [r.sum() for r in rows])
    np.testing.assert_array_equal(lengths.numpy(), [3, 1, 4, 2])
    assert [a.numpy()[0] for a in arrays] == [-1.0] * 4
    with pytest.raises(RuntimeError, match="Filling Fabric arrays of arrays is not supported"):
        fa.fill_(1.0)
    with pytest.raises(RuntimeError, match="arrays of different lengths"):
        fa.numpy()
    del keep


def test_struct_fields_hold_fabric_arrays():
    @wp.struct
    class Attributes:
        values: wp.fabricarray(dtype=float)
        picked: wp.indexedfabricarray(dtype=float)

    @wp.kernel
    def bump(s: Attributes):
        i = wp.tid()
        s.values[i] = s.values[i] + 1.0
        s.picked[i] = s.picked[i] + 10.0

    data, fa = fabric(np.zeros(4, np.float32), [3, 1])
    s = Attributes()
    s.values = fa
    s.picked = fa[wp.array([3, 2], dtype=wp.int32)]
    wp.launch(bump, dim=2, inputs=[s])
    np.testing.assert_array_equal(data.numpy(), [1, 1, 10, 10])
    moved = s.to("cpu")
    assert moved.values is fa and moved.picked is s.picked
    assert Attributes.key == "test_struct_fields_hold_fabric_arrays__locals__Attributes"
    with pytest.raises(TypeError, match="Struct field 'values' expects a Warp Fabric array, got list"):
        s.values = [1.0]
    with pytest.raises(TypeError, match="Struct field 'picked' expects a Warp indexed Fabric array, got fabricarray"):
        s.picked = fa
    _, ints = fabric(np.zeros(2, np.int32), [2], wp.int32)
    with pytest.raises(TypeError, match="Struct field 'values' expects dtype float32, got int32"):
        s.values = ints
    assert s.values is fa  # unchanged by the refused assignments


@pytest.mark.parametrize("change,error,message", [
    (lambda i: i.update(version=2), ValueError, "Unsupported Fabric interface version: 2"),
    (lambda i: i.update(device=0), ValueError, "Invalid Fabric interface device: 0"),
    (lambda i: i.update(attribs=None), ValueError, "Failed to get Fabric interface attributes"),
    (lambda i: i["attribs"].update(x=None), ValueError, "Failed to get attribute 'x'"),
    (lambda i: i["attribs"]["x"].update(type=(True, "f4", 1, 0)), ValueError,
     r"must contain five elements, got 4"),
    (lambda i: i["attribs"]["x"].update(type=(True, "s", 1, 0, "")), RuntimeError,
     "base data type 's' is not supported"),
    (lambda i: i["attribs"]["x"].update(type=(False, "f4", 1, 0, "")), RuntimeError, "cannot be used in Warp"),
    (lambda i: i["attribs"]["x"].update(type=(True, "f4", 1, 0, "text")), RuntimeError, "role 'text'"),
    (lambda i: i["attribs"]["x"].update(type=(True, "f4", 3, 0, "matrix")), ValueError, "square element count"),
    (lambda i: i["attribs"]["x"].update(type=(True, "f4", 1, 2, "")), ValueError, "Invalid attribute array depth: 2"),
    (lambda i: i["attribs"]["x"].update(counts=[1]), RuntimeError, "pointers and counts must be lists of the same"),
    (lambda i: i["attribs"]["x"].update(counts=[5, -1]), ValueError, "a bucket count is negative"),
])
def test_a_bad_interface_is_refused_with_a_message_naming_the_problem(change, error, message):
    data = wp.array(np.arange(4, dtype=np.float32))
    iface = interface(data, [2, 2])
    change(iface)
    with pytest.raises(error, match=message):
        wp.fabricarray(iface, "x")
    np.testing.assert_array_equal(data.numpy(), np.arange(4))


def test_bad_arguments_are_refused():
    data, fa = fabric(np.arange(4, dtype=np.float32), [4])
    with pytest.raises(ValueError, match="Invalid attribute name: None"):
        wp.fabricarray(interface(data, [4]), None)
    with pytest.raises(ValueError, match="expected dict or object with __fabric_arrays_interface__"):
        wp.fabricarray([1, 2], "x")
    with pytest.raises(TypeError, match="dtype int32 does not match attribute 'x' of type float32"):
        wp.fabricarray(interface(data, [4]), "x", dtype=wp.int32)
    with pytest.raises(ValueError, match="ndim 2 does not match attribute 'x'"):
        wp.fabricarray(interface(data, [4]), "x", ndim=2)
    with pytest.raises(ValueError, match="only support indexing using index arrays"):
        fa[1]
    with pytest.raises(IndexError, match="index 4 is outside the fabric array of 4 elements"):
        fa[wp.array([0, 4], dtype=wp.int32)]
    with pytest.raises(ValueError, match="Index array must use int32"):
        fa[wp.array([0], dtype=wp.int64)]
    with pytest.raises(ValueError, match="cannot assign data of shape"):
        fa.assign(np.zeros(3))
    np.testing.assert_array_equal(data.numpy(), np.arange(4))


def test_a_plain_array_is_not_a_fabric_array_parameter():
    with pytest.raises(LaunchError, match="argument 'a' must be fabricarray"):
        wp.launch(double_and_add, dim=1, inputs=[wp.zeros(1, dtype=float), wp.zeros(1, dtype=float)])


def test_bounds_are_checked_in_debug_mode(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "debug")
    _, fa = fabric(np.zeros(3, np.float32), [1, 2])
    with pytest.raises(BoundsError, match=r"index \(3\) is out of bounds for shape \(3\)"):
        wp.launch(double_and_add, dim=4, inputs=[fa, wp.zeros(4, dtype=float)])


def test_annotations_and_types():
    assert wp.fabricarray[wp.float32] is wp.fabricarray(dtype=wp.float32)
    assert repr(wp.indexedfabricarray(dtype=wp.vec3, ndim=2)) == "indexedfabricarray(dtype=vec3f, ndim=2)"
    assert wp.fabricarray[wp.float32] is not wp.array(dtype=wp.float32)
    with pytest.raises(ValueError, match="ndim must be 1"):
        wp.fabricarray(dtype=float, ndim=3)


# -- array subclasses (the launch's signature of their instances) -------------------------------------------------

class Tagged(wp.array):
    def __init__(self, *args, tag, **kwargs):
        self.tag = tag
        super().__init__(*args, **kwargs)


@wp.kernel
def twice_any(a: wp.array(dtype=Any), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(a[i]) * 2.0


def test_instances_of_one_array_subclass_with_two_dtypes_get_two_instances():
    out = wp.zeros(2, dtype=float)
    wp.launch(twice_any, dim=2, inputs=[Tagged(np.array([1.5, 2.5], np.float32), dtype=wp.float32, tag="f"), out])
    np.testing.assert_array_equal(out.numpy(), [3.0, 5.0])
    # the same subclass, another dtype: not the float32 instance reading int32 bits
    wp.launch(twice_any, dim=2, inputs=[Tagged(np.array([1, 2], np.int32), dtype=wp.int32, tag="i"), out])
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])


def test_a_class_of_two_array_families_is_refused_at_launch():
    class Both(wp.array, wp.indexedarray):
        pass

    both = Both(np.zeros(2, np.float32), dtype=wp.float32)
    out = wp.zeros(2, dtype=float)
    with pytest.raises(LaunchError, match=r"argument 'a' is a Both, which derives from more than one native array "
                                          r"family \(array and indexedarray\)"):
        wp.launch(twice_any, dim=2, inputs=[both, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0])


class FixedChild(wp.fixedarray):
    pass


def test_fixedarray_is_a_class_whose_call_gives_the_type():
    assert wp.fixedarray(dtype=float, shape=(2, 3)) is FixedChild(dtype=float, shape=(2, 3))
    assert wp.fixedarray(dtype=int, shape=4).shape == (4,)


def test_gradients_do_not_flow_through_fabric_arrays():
    @wp.kernel
    def weighted_square(w: wp.fabricarray(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = w[i] * x[i] * x[i]

    data, w = fabric(np.array([1.0, 2.0, 3.0], np.float32), [1, 2])
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(weighted_square, dim=3, inputs=[w, x, y])
    tape.backward(grads={y: wp.ones(3, dtype=float)})
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 8.0, 18.0])  # 2 w x
    assert w.grad is None and not w.requires_grad
    np.testing.assert_array_equal(data.numpy(), [1.0, 2.0, 3.0])
