"""Kernels and arrays in the scientific Python ecosystem (newuser round 13). A kernel or ``@wp.func`` pickles by
reference, as a Python function does, so ``multiprocessing`` can send it to a worker, which imports its module to
find it; a copy of one is the object itself. An array's ``__array__`` and ``__array_interface__`` let numpy and
matplotlib read it directly: ``np.asarray(a)`` and ``a.numpy()`` share its memory, ``np.array(a)`` copies."""

import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import brickwork as wp

from .cuda_fake import FakeDriver, installed


@wp.kernel
def scale(s: wp.float32, x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = s * x[i]


@wp.func
def squared(v: wp.float32):
    return v * v


def _make_local_kernel():
    @wp.kernel
    def local_scale(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = 2.0 * x[i]

    return local_scale


def _scale_in_worker(args):
    kernel, s = args
    x = wp.array(np.arange(4, dtype=np.float32))
    wp.launch(kernel, dim=4, inputs=[s, x])
    return x.numpy()


def test_kernels_and_functions_pickle_and_copy_as_themselves():
    for obj in (scale, squared):
        assert pickle.loads(pickle.dumps(obj)) is obj
        assert copy.copy(obj) is obj and copy.deepcopy(obj) is obj
    x = wp.array([1.0, 2.0], dtype=wp.float32)
    state = copy.deepcopy({"kernel": scale, "x": x})
    assert state["kernel"] is scale and state["x"] is not x
    assert state["x"].numpy().tolist() == [1.0, 2.0] and not np.shares_memory(state["x"].numpy(), x.numpy())


def test_a_kernel_defined_in_a_function_is_refused_naming_it_and_where():
    kernel = _make_local_kernel()
    with pytest.raises(TypeError) as caught:
        pickle.dumps(kernel)
    line = _make_local_kernel.__code__.co_firstlineno + 1
    assert str(caught.value) == (
        f"cannot pickle kernel 'local_scale' ({__file__}:{line}): a kernel pickles by reference, as a Python "
        f"function does, and it is defined inside a function (_make_local_kernel.<locals>.local_scale); define it at "
        f"the top level of a module, which the other process imports to find it")
    assert copy.deepcopy(kernel) is kernel  # a copy needs no name


def test_a_spawned_worker_launches_a_pickled_kernel():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        results = pool.map(_scale_in_worker, [(scale, 2.0), (scale, 0.5)])
    base = np.arange(4, dtype=np.float32)
    assert [r.tolist() for r in results] == [(2 * base).tolist(), (0.5 * base).tolist()]


def test_numpy_reads_an_array_directly_sharing_its_memory():
    x = wp.array(np.linspace(0.0, 1.0, 5, dtype=np.float32))
    shared, view, copied = np.asarray(x), x.numpy(), np.array(x)
    wp.launch(scale, dim=5, inputs=[2.0, x])
    expected = 2 * np.linspace(0.0, 1.0, 5, dtype=np.float32)
    assert np.array_equal(shared, expected) and np.array_equal(view, expected)  # the kernel's writes show
    assert np.array_equal(copied, expected / 2)
    assert np.sum(x) == np.sum(expected) and np.sin(x).tolist() == np.sin(expected).tolist()
    v = wp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=wp.vec3)
    assert np.asarray(v).shape == (2, 3) and np.asarray(v).dtype == np.float32


def test_a_numpy_array_passed_to_a_launch_is_written_in_place():
    data = np.arange(4, dtype=np.float32)
    wp.launch(scale, dim=4, inputs=[3.0, data])
    assert data.tolist() == [0.0, 3.0, 6.0, 9.0]


def test_matplotlib_shows_an_array_directly():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    image = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    fig, ax = plt.subplots()
    try:
        shown = ax.imshow(image)
        assert np.array_equal(np.asarray(shown.get_array()), image.numpy())
    finally:
        plt.close(fig)


def test_a_big_arrays_repr_is_numpys_summary_a_small_ones_its_values():
    assert repr(wp.array([1.5, 2.0], dtype=wp.float32)) == "array([1.5, 2.0], dtype=float32, device=cpu)"
    big = wp.array(np.arange(1001, dtype=np.float64))  # numpy's default threshold is 1000 elements
    assert repr(big) == ("array([   0.,    1.,    2., ...,  998.,  999., 1000.], shape=(1001,), dtype=float64, "
                         "device=cpu)")
    with np.printoptions(threshold=2000):
        assert repr(big) == f"array({np.arange(1001.0).tolist()!r}, dtype=float64, device=cpu)"
    vectors = repr(wp.zeros(400, dtype=wp.vec3))  # 1200 scalars
    assert vectors.startswith("array([[0., 0., 0.],\n       [0., 0., 0.],") and "...," in vectors
    assert vectors.endswith("[0., 0., 0.]], shape=(400,), dtype=vec3f, device=cpu)")
    with installed(FakeDriver()):  # a device array's repr: one host copy, summarized alike
        on_gpu = wp.array(np.arange(1001, dtype=np.float64), device="cuda:0")
        assert repr(on_gpu) == repr(big).replace("device=cpu", "device=cuda:0")
        assert repr(wp.array([1.0, 2.0], dtype=float, device="cuda:0")) == "array([1.0, 2.0], dtype=float32, device=cuda:0)"


def test_comparisons_are_identity_as_in_warp_and_numpy_compares_values():
    a, b = wp.array([1.0, 2.0], dtype=wp.float32), wp.array([1.0, 2.0], dtype=wp.float32)
    assert (a == a) is True and (a == b) is False and (a != b) is True
    with pytest.raises(TypeError, match=r"^comparing an array \('<'\) is not mapped on the host"):
        _ = a < b
    assert np.array_equal(a, b) and np.equal(a, wp.array([1.0, 3.0], dtype=wp.float32)).tolist() == [True, False]
