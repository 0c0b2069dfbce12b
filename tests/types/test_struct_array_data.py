"""``wp.array(data, dtype=S)`` for a struct ``S``: values of ``S`` or numpy records of its fields; numbers, tuples
and other numpy data are refused (numpy copied each number into every field: ``[1, 2]`` made two records whose
fields were all 1 and all 2, and ``[(1, 2.5)]`` two records of one number each)."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Sample:
    tag: wp.int8
    weight: wp.float64


@wp.kernel
def weighted(samples: wp.array(dtype=Sample), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.float64(samples[i].tag) * samples[i].weight


def _sample(tag, weight):
    s = Sample()
    s.tag = wp.int8(tag)
    s.weight = weight
    return s


def _weighted(samples):
    out = wp.zeros(samples.shape[0], dtype=wp.float64)
    wp.launch(weighted, dim=samples.shape[0], inputs=[samples, out])
    return out.numpy().tolist()


def test_values_and_records_of_the_struct_make_its_array():
    assert _weighted(wp.array([_sample(2, 0.5), _sample(-3, 1.5)], dtype=Sample)) == [1.0, -4.5]
    records = np.zeros(2, dtype=Sample.numpy_dtype())
    records["tag"], records["weight"] = [4, 5], [0.25, 2.0]
    assert _weighted(wp.array(records, dtype=Sample)) == [1.0, 10.0]
    viewed = wp.array(records, dtype=Sample, copy=False)  # the same memory: a kernel's writes would reach it
    assert viewed.ptr == records.ctypes.data
    other_types = np.array([(3, 2.0)], dtype=[("tag", "i4"), ("weight", "f4")])  # the same fields, converted
    assert _weighted(wp.array(other_types, dtype=Sample)) == [6.0]
    assert wp.array([], dtype=Sample).shape == (0,)


@pytest.mark.parametrize("data, named", [
    ([1, 2, 3], "element 0 is an int (1), not a value of struct Sample"),
    ([(1, 2.5), (3, 4.5)], "element 0 is a tuple ((1, 2.5)), not a value of struct Sample"),
    ([[_sample(1, 1.0)], [_sample(2, 2.0)]], "element 0 is a list"),
    ([_sample(1, 1.0), 2.0], "element 1 is a float (2.0)"),
    (np.arange(6, dtype=np.float32).reshape(2, 3), "numpy data of dtype float32 (no fields) are not records of "
                                                   "Sample (fields ('tag', 'weight'))"),
    (np.zeros(2, dtype=[("weight", "f8"), ("tag", "i1")]), "fields ('weight', 'tag')"),
    (np.zeros(2, dtype=[("tag", "i1")]), "fields ('tag',)"),
])
def test_other_data_for_an_array_of_structs_is_refused(data, named):
    before = np.array(data, dtype=object) if isinstance(data, list) else data.copy()
    with pytest.raises(TypeError, match=r"^wp\.array\(dtype=Sample\): ") as caught:
        wp.array(data, dtype=Sample)
    assert named in str(caught.value)
    assert isinstance(caught.value, RuntimeError)  # what Warp raises for such data
    if isinstance(data, np.ndarray):
        np.testing.assert_array_equal(data, before)


def test_bytes_viewed_as_structs_are_refused_not_copied_into_every_field():
    raw = np.arange(48, dtype=np.uint8)
    with pytest.raises(TypeError, match=r"numpy data of dtype uint8 \(no fields\) are not records of Sample"):
        wp.array(raw, dtype=Sample, copy=False)
    assert raw.tolist() == list(range(48))
    assert _weighted(wp.array(raw.view(np.dtype(Sample.numpy_dtype())), dtype=Sample, copy=False)) == [
        float(np.int8(0)) * raw[8:16].view(np.float64)[0], 16.0 * raw[24:32].view(np.float64)[0],
        32.0 * raw[40:48].view(np.float64)[0]]


@pytest.mark.parametrize("element, named", [(str, "str"), (list, "list"), ("float32", "'float32'")])
def test_a_struct_field_of_an_array_of_what_arrays_cannot_hold_is_refused(element, named):
    # it was taken, and a launch with the struct failed on 'no type key for <class 'str'>'
    annotations = {"values": wp.array(dtype=element)}
    with pytest.raises(TypeError, match=rf"^struct Odd: field 'values' is an array of {named}, which arrays cannot "
                                        r"hold \(a scalar, vector, matrix or struct type\)$"):
        wp.struct(type("Odd", (), {"__annotations__": annotations, "__module__": __name__}))
