"""scipy.sparse matrices to and from ``BsrMatrix`` (``bsr_from_scipy``, ``bsr_to_scipy``; newuser round 13): the
values, structure and products against scipy's, explicit zeros and duplicates as scipy keeps them, and the
refusals. scipy stays optional: ``import brickwork.sparse`` does not import it."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
import brickwork.sparse as sp

ss = pytest.importorskip("scipy.sparse")


def _random_csr(shape, seed):
    return ss.random_array(shape, density=0.35, rng=np.random.default_rng(seed), format="csr", dtype=np.float64)


def test_a_csr_array_becomes_a_csr_matrix_with_scipys_products():
    s = _random_csr((8, 6), 1)
    a = sp.bsr_from_scipy(s)
    assert a.shape == (8, 6) and a.block_shape == (1, 1) and a.dtype is wp.float64 and a.nnz_sync() == s.nnz
    assert a.offsets.numpy().tolist() == s.indptr.tolist()
    assert a.columns.numpy()[:s.nnz].tolist() == s.indices.tolist()
    assert a.values.numpy()[:s.nnz].tolist() == s.data.tolist()
    x = np.random.default_rng(2).standard_normal(6)
    assert np.allclose((a @ wp.array(x)).numpy(), s @ x, rtol=1e-14, atol=1e-14)


def test_blocks_of_a_given_shape_and_back_hold_scipys_values():
    s = _random_csr((6, 4), 3)
    a = sp.bsr_from_scipy(s, block_shape=(2, 2))
    assert a.block_shape == (2, 2) and a.dtype is wp.mat22d and a.nrow == 3 and a.ncol == 2
    back = sp.bsr_to_scipy(a)
    assert isinstance(back, ss.bsr_array) and back.blocksize == (2, 2) and back.dtype == np.float64
    assert np.array_equal(back.toarray(), s.toarray())
    reference = s.tobsr(blocksize=(2, 2))
    reference.sort_indices()  # brickwork's columns ascend in each row; scipy's tobsr leaves them in any order
    assert back.indptr.tolist() == reference.indptr.tolist() and back.indices.tolist() == reference.indices.tolist()
    again = sp.bsr_from_scipy(back)  # a bsr_array keeps its block size
    assert again.block_shape == (2, 2) and np.array_equal(sp.bsr_to_scipy(again).toarray(), s.toarray())


def test_duplicates_are_summed_and_stored_zeros_stay_as_scipy_keeps_them():
    coo = ss.coo_array((np.array([1.0, 2.0, 0.0, 4.0]), (np.array([0, 0, 1, 2]), np.array([1, 1, 0, 2]))),
                       shape=(3, 3))
    a = sp.bsr_from_scipy(coo, dtype=wp.float32)
    assert a.dtype is wp.float32 and a.nnz_sync() == 3  # (0, 1) summed; the stored zero at (1, 0) kept
    back = sp.bsr_to_scipy(a)
    assert isinstance(back, ss.csr_array) and back.dtype == np.float32
    assert back.indptr.tolist() == [0, 1, 2, 3] and back.indices.tolist() == [1, 0, 2]
    assert back.data.tolist() == [3.0, 0.0, 4.0]


def test_a_brickwork_matrix_with_padded_rows_goes_to_scipy():
    a = sp.bsr_zeros(3, 3, wp.float64, row_capacity=2)
    sp.bsr_set_from_triplets(a, wp.array([2, 0, 2], dtype=int), wp.array([2, 1, 0], dtype=int),
                             wp.array([5.0, 1.0, 7.0], dtype=wp.float64), topology="padded")
    dense = sp.bsr_to_scipy(a).toarray()
    assert dense.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [7.0, 0.0, 5.0]]


@pytest.mark.parametrize("call, error, message", [
    (lambda: sp.bsr_from_scipy(np.eye(3)), TypeError,
     "bsr_from_scipy: 'matrix' must be a scipy.sparse matrix or array, got ndarray (a dense numpy array converts "
     "with scipy.sparse.csr_array(a))"),
    (lambda: sp.bsr_from_scipy(ss.eye_array(5), block_shape=(2, 2)), ValueError,
     "bsr_from_scipy: a matrix of shape (5, 5) is not made of 2x2 blocks (each dimension must be a multiple of "
     "the block's)"),
    (lambda: sp.bsr_from_scipy(ss.eye_array(4), block_shape=(0, 2)), ValueError,
     "bsr_from_scipy: 'block_shape' must be two positive ints (rows, cols), got (0, 2)"),
    (lambda: sp.bsr_from_scipy(ss.eye_array(2, dtype=np.complex128)), TypeError,
     "bsr_from_scipy: blocks of complex128 values are not a brickwork scalar type (pass dtype=wp.float32 or "
     "wp.float64 to convert them)"),
    (lambda: sp.bsr_to_scipy(ss.eye_array(2)), TypeError, "bsr_to_scipy: 'matrix' must be a BsrMatrix, got"),
])
def test_refusals_name_the_problem(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value).startswith(message)


def test_without_scipy_a_conversion_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    with pytest.raises(ImportError, match=r"^bsr_to_scipy needs scipy, which is not installed \(pip install scipy\)$"):
        sp.bsr_to_scipy(sp.bsr_zeros(2, 2, wp.float64))


def test_importing_brickwork_sparse_does_not_import_scipy():
    code = "import sys, brickwork.sparse; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(1, 5), cols=st.integers(1, 5), blocks=st.sampled_from([(1, 1), (2, 2)]),
       density=st.floats(0.0, 1.0), seed=st.integers(0, 2**16))
def test_a_round_trip_keeps_every_value_and_stored_entry(rows, cols, blocks, density, seed):
    shape = (rows * blocks[0], cols * blocks[1])
    s = ss.random_array(shape, density=density, rng=np.random.default_rng(seed), format="csr", dtype=np.float64)
    back = sp.bsr_to_scipy(sp.bsr_from_scipy(s, block_shape=blocks))
    assert back.shape == shape and back.dtype == np.float64
    assert np.array_equal(back.toarray(), s.toarray())
    assert back.nnz == s.tobsr(blocksize=blocks).nnz  # the blocks scipy stores, explicit zeros inside them too
