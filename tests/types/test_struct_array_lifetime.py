"""An array of structs keeps the arrays its elements point to alive (held_arrays.py): after the struct values
that held them are dropped and collected, the data stays readable on the host and in kernels, however the
elements were stored (construction, item assignment, fill_, assign, wp.copy, clone, copy.deepcopy, views)."""

import copy
import gc

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Chunk:
    data: wp.array(dtype=float)
    n: int


@wp.struct
class Pair:
    chunk: Chunk
    ids: wp.array(dtype=wp.int32)


@wp.kernel
def chunk_sums(chunks: wp.array(dtype=Chunk), out: wp.array(dtype=float)):
    i = wp.tid()
    c = chunks[i]
    for j in range(c.n):
        out[i] += c.data[j]


N = 4096


def chunk(value: float, n: int = N) -> Chunk:
    """A struct value that alone holds its array."""
    return Chunk(data=wp.array(np.full(n, value, dtype=np.float32), dtype=float), n=n)


def _churn():
    """Collect what nothing holds, and reuse the memory, so that freed field arrays would read as garbage."""
    gc.collect()
    return [np.full(N, -7.0, dtype=np.float32) for _ in range(64)]


def _sums(chunks) -> list:
    return [float(c.data.numpy().sum()) for c in chunks.list()]


def test_data_stays_readable_after_the_struct_values_are_collected():
    chunks = wp.array([chunk(1.0), chunk(2.0)], dtype=Chunk)
    junk = _churn()
    assert _sums(chunks) == [N * 1.0, N * 2.0]
    assert chunks[0].data is chunks.list()[0].data  # the array stored, not a view of its address
    out = wp.zeros(2, dtype=float)
    wp.launch(chunk_sums, dim=2, inputs=[chunks, out])
    assert out.numpy().tolist() == [N * 1.0, N * 2.0]
    del junk


def test_every_way_of_storing_elements_keeps_their_arrays():
    stored = wp.zeros(3, dtype=Chunk)
    stored[0] = chunk(1.0)
    stored[1:3] = [chunk(2.0), chunk(3.0)]
    filled = wp.zeros(2, dtype=Chunk).fill_(chunk(4.0))
    full = wp.full(2, chunk(5.0))
    assigned = wp.zeros(2, dtype=Chunk)
    assigned.assign(wp.array([chunk(6.0), chunk(7.0)], dtype=Chunk))
    copied = wp.zeros(3, dtype=Chunk)
    wp.copy(copied, wp.array([chunk(8.0)], dtype=Chunk), dest_offset=2, count=1)
    cloned = wp.clone(wp.array([chunk(9.0)], dtype=Chunk))
    deep = copy.deepcopy(wp.array([chunk(10.0)], dtype=Chunk))
    remade = wp.array(wp.array([chunk(11.0)], dtype=Chunk))
    base = wp.zeros(4, dtype=Chunk)
    view = base[::2]
    view[1] = chunk(12.0)  # through a view: recorded for the memory's owner
    del view
    junk = _churn()
    assert _sums(stored) == [N * 1.0, N * 2.0, N * 3.0]
    assert _sums(filled) == [N * 4.0] * 2 and _sums(full) == [N * 5.0] * 2
    assert _sums(assigned) == [N * 6.0, N * 7.0]
    assert copied[2].data.numpy().sum() == N * 8.0 and copied[0].data is None
    assert cloned[0].data.numpy().sum() == N * 9.0 and deep[0].data.numpy().sum() == N * 10.0
    assert remade[0].data.numpy().sum() == N * 11.0 and base[2].data.numpy().sum() == N * 12.0
    del junk


def test_nested_structs_arrays_are_kept_too():
    pair = Pair(chunk=chunk(3.0, 8), ids=wp.array([1, 2, 3], dtype=wp.int32))
    pairs = wp.array([pair], dtype=Pair)
    del pair
    junk = _churn()
    assert pairs[0].chunk.data.numpy().tolist() == [3.0] * 8 and pairs[0].ids.numpy().tolist() == [1, 2, 3]
    del junk


def test_reassigning_an_element_again_and_again_keeps_only_what_is_stored():
    chunks = wp.zeros(1, dtype=Chunk)
    for i in range(300):
        chunks[0] = chunk(float(i), 4)
    assert len(chunks._held) < 100  # pruned: not every array ever stored
    junk = _churn()
    assert chunks[0].data.numpy().tolist() == [299.0] * 4
    del junk


def test_storing_what_does_not_fit_changes_nothing():
    chunks = wp.array([chunk(1.0, 4), chunk(2.0, 4)], dtype=Chunk)
    before = chunks.numpy().tobytes()
    with pytest.raises(TypeError, match=r"a\[0\] = ...: an array of Chunk takes Chunk values, got a float \(3.0\)"):
        chunks[0] = 3.0  # was: every field set to 3.0
    with pytest.raises(TypeError, match=r"a\[0:2\] = ...: an array of Chunk takes Chunk values, got an int \(5\)"):
        chunks[0:2] = [chunk(9.0, 4), 5]
    with pytest.raises(TypeError, match="Incompatible array data types: destination dtype=Chunk, source dtype=Pair"):
        chunks[0:1] = wp.zeros(1, dtype=Pair)
    with pytest.raises(TypeError, match="fill_: an array of Chunk takes Chunk values, got a vec3f"):
        chunks.fill_(wp.vec3())
    assert chunks.numpy().tobytes() == before and _sums(chunks) == [4.0, 8.0]


def test_indexed_views_of_an_array_of_structs_store_and_read_the_arrays():
    base = wp.zeros(3, dtype=Chunk)
    picked = base[wp.array([0, 2], dtype=wp.int32)]
    picked.fill_(chunk(5.0, 4))
    junk = _churn()
    assert [c.data is None for c in base.list()] == [False, True, False]
    assert [float(c.data.numpy().sum()) for c in picked.list()] == [20.0, 20.0]
    del junk


def test_struct_records_copied_as_numpy_data_keep_their_arrays():
    """Records taken out as numpy data (``numpy()``, a copy of it) and stored again point to arrays some array of
    structs recorded: the new array records them too, so they outlive the first one (no reads of freed memory)."""
    src = wp.array([chunk(1.0), chunk(2.0)], dtype=Chunk)
    records = src.numpy().copy()
    made = wp.array(records, dtype=Chunk)
    wrapped = wp.from_numpy(records.copy(), dtype=Chunk)
    assigned = wp.empty(2, dtype=Chunk)
    assigned.assign(records)
    items = wp.empty(2, dtype=Chunk)
    items[:] = records
    del src
    gc.collect()
    _garbage = [np.full(N, -1.0, dtype=np.float32) for _ in range(64)]
    for a in (made, wrapped, assigned, items):
        out = wp.zeros(2, dtype=float)
        wp.launch(chunk_sums, dim=2, inputs=[a, out])
        assert out.numpy().tolist() == [1.0 * N, 2.0 * N]
        assert a[1].data.numpy()[0] == 2.0
