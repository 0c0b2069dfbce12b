"""The adjoint of the ghost exchange (``exchange.TransposedExchange``: kernels on the gradients) against the
transpose of the exchange's linear map, found by filling ghosts of cells numbered 1, 2, ...: each ghost holds
the number of the cell it was copied from (negated where a reflecting wall flips it), so its gradient must
land there, summed with every other ghost of that cell, and the ghost's own gradient must be cleared.

Gradients of small integers sum exactly in any order, so the kernels must match that reference bit for bit,
on the CPU (whole rows per work item) and on the emulation target (the GPU's one element per item), on every
boundary kind, both exchange strategies, cell vectors and face fields, and blocks smaller than twice the
ghost layers (whose cells two copies of a sweep read: the copies run in waves). With random float gradients,
the CPU and the emulation target agree bit for bit too: every source element sums its ghosts in one order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brickwork import config
from brickwork.mesh import Mesh, Metadata, Package, ghost_cells
from brickwork.mesh.copies import Box, Copy
from brickwork.mesh.transposed_copies import waves

KINDS = ["periodic", "outflow", "reflecting"]
TARGETS = ["cpu", "cuda-emulation"]


def make_mesh(nx, block, ng, kind, strategy="auto", topology="Cell", shape=(3,)):
    pkg = Package("p")
    pkg.add_field("q", Metadata(topology, "FillGhost", "Vector"), shape=shape)
    return Mesh(nx, block, nghost=ng, boundaries=kind, packages=[pkg], exchange=strategy)


def sparse_mesh(lids):
    """A 2-D mesh of 3x2 blocks whose sparse field ``q_1`` is allocated on blocks ``lids`` only."""
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1])
    mesh = Mesh((6, 4), (2, 2), nghost=2, boundaries="periodic", packages=[pkg])
    for lid in lids:
        mesh.allocate_sparse(lid, "q", 1)
    return mesh


def reference_adjoint(mesh, g: np.ndarray, name="q") -> np.ndarray:
    """The transpose of ``fill_ghosts`` applied to ``g``: found from an exchange of numbered cells."""
    data = mesh.data(name)
    numbers = np.arange(1, data.size + 1, dtype=np.float64).reshape(data.shape)
    data[...] = numbers
    with config.override(target="cpu"):
        mesh.fill_ghosts()
    filled = np.asarray(data).ravel()
    came = filled != 0  # 0: zeroed (a block without a sparse instance, or a ghost copied from one)
    source = np.abs(filled[came]).astype(np.int64) - 1  # the cell each element's value came from
    out = np.zeros(g.size)
    np.add.at(out, source, np.sign(filled[came]) * g.ravel()[came])
    return out.reshape(g.shape)


def run_adjoint(mesh, g: np.ndarray, target: str, name="q") -> np.ndarray:
    """``g`` as the field's gradient, then the exchange's adjoint (as a tape's backward pass runs it)."""
    fld = mesh.field(name)
    fld.grad[...] = g
    with config.override(target=target):
        fields = ghost_cells.ghost_fields(mesh, None)
        ghost_cells.transposed_of(mesh, fields).run()
    return fld.grad.copy()


def integer_gradient(mesh, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-50, 50, mesh.data("q").shape).astype(np.float64)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("strategy", ["lattice", "pairwise"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("nblocks, block, ng", [((3,), (4,), 2), ((2, 3), (4, 3), 2), ((2, 1, 2), (3, 4, 3), 1),
                                                ((3, 2), (2, 3), 2)], ids=["1d", "2d", "3d", "2d-small-blocks"])
def test_cell_vector_adjoint_is_the_transposed_exchange(target, strategy, kind, nblocks, block, ng):
    nx = tuple(n * b for n, b in zip(nblocks, block))
    mesh = make_mesh(nx, block, ng, kind, strategy)
    g = integer_gradient(mesh, 5)
    expected = reference_adjoint(mesh, g)
    np.testing.assert_array_equal(run_adjoint(mesh, g, target), expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kind", KINDS)
def test_face_field_adjoint_is_the_transposed_exchange(target, kind):
    mesh = make_mesh((6, 8, 6), (3, 4, 3), 2, kind, topology="Face", shape=())
    g = integer_gradient(mesh, 6)
    np.testing.assert_array_equal(run_adjoint(mesh, g, target), reference_adjoint(mesh, g))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ndim=st.integers(1, 3), nb=st.integers(1, 3), ng=st.integers(1, 3), kind=st.sampled_from(KINDS),
       strategy=st.sampled_from(["lattice", "pairwise"]), seed=st.integers(0, 2**16))
def test_property_adjoint_is_the_transposed_exchange(ndim, nb, ng, kind, strategy, seed):
    block = tuple(ng + d for d in range(ndim))  # from ng cells: twice the ghost layers exceed some blocks
    mesh = make_mesh(tuple(nb * b for b in block), block, ng, kind, strategy)
    g = integer_gradient(mesh, seed)
    np.testing.assert_array_equal(run_adjoint(mesh, g, "cpu"), reference_adjoint(mesh, g))


@pytest.mark.parametrize("kind", KINDS)
def test_float_sums_are_the_same_bit_for_bit_on_the_cpu_and_the_emulation(kind):
    mesh = make_mesh((6, 4), (2, 2), 2, kind, "pairwise")  # every interior cell is read by several ghosts
    g = np.random.default_rng(8).standard_normal(mesh.data("q").shape)
    on_cpu = run_adjoint(mesh, g, "cpu")
    np.testing.assert_array_equal(run_adjoint(mesh, g, "cuda-emulation"), on_cpu)
    np.testing.assert_array_equal(run_adjoint(mesh, g, "cpu"), on_cpu)  # and run to run
    np.testing.assert_allclose(on_cpu, reference_adjoint(mesh, g), rtol=1e-14, atol=1e-14)


def test_blocks_smaller_than_twice_the_ghost_layers_run_their_copies_in_waves():
    mesh = make_mesh((6,), (2,), 2, "reflecting", "lattice")
    transposed = ghost_cells.transposed_of(mesh, ghost_cells.ghost_fields(mesh, None))
    # x1: the shift copies of both sides and the walls read the same two interior cells of each block
    assert len(transposed.sweeps[0].launches) > 1
    wide = make_mesh((12,), (6,), 2, "reflecting", "lattice")
    assert len(ghost_cells.transposed_of(wide, ghost_cells.ghost_fields(wide, None)).sweeps[0].launches) == 1


def test_copies_writing_ghosts_another_copy_reads_are_refused():
    """The waves' precondition (one sweep writes only ghosts that no copy of it reads) is checked, not assumed."""
    row = Box(0, (4,), (1,))
    shifted = Box(2, (4,), (1,))
    base = 1 << 20
    first = Copy(np.dtype(np.float64), base, row, base + 64, row)
    second = Copy(np.dtype(np.float64), base + 64, shifted, base + 256, row)
    with pytest.raises(AssertionError, match="ghosts another reads"):
        waves([first, second])


@pytest.mark.parametrize("target", TARGETS)
def test_sparse_blocks_without_the_instance_get_no_gradient_and_pass_none(target):
    """``fill_ghosts`` zeroes the blocks without a sparse instance before and after the exchange: their
    gradient is cleared, and nothing of a ghost copied from them reaches them."""
    mesh = sparse_mesh([0, 2, 3])
    g = np.random.default_rng(2).integers(-50, 50, mesh.data("q_1").shape).astype(np.float64)
    expected = reference_adjoint(mesh, g, "q_1")
    assert not expected[[1, 4, 5]].any() and expected[[0, 2, 3]].any()
    np.testing.assert_array_equal(run_adjoint(mesh, g, target, "q_1"), expected)


def test_a_sparse_instance_allocated_nowhere_has_no_gradient():
    mesh = sparse_mesh([])
    with pytest.raises(ValueError, match="sparse field 'q_1' is not allocated on any block"):
        _ = mesh.field("q_1").grad
