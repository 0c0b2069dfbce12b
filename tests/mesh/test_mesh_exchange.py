"""Ghost exchange and boundary conditions against np.pad references of a global array."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mesh_reference import setup_field

from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, ghost_cells

STRATEGIES = ["lattice", "pairwise"]
KINDS = ["periodic", "outflow", "reflecting"]


def scalar_package(*extra, shape=(), name="q", dtype=np.float64):
    pkg = Package("test")
    pkg.add_field(name, Metadata("Cell", "FillGhost", *extra), shape=shape, dtype=dtype)
    return pkg


def make_mesh(nblocks, block_nx, ng, boundaries, pkg, strategy="lattice"):
    nx = tuple(nb * n for nb, n in zip(nblocks, block_nx))
    return Mesh(nx, block_nx, nghost=ng, boundaries=boundaries, packages=[pkg], exchange=strategy)


def check(mesh, name, elements, ncomp, flips=((), (), ()), seed=0):
    expected = setup_field(mesh, name, elements, ncomp, flips, np.random.default_rng(seed))
    mesh.fill_ghosts()
    np.testing.assert_array_equal(mesh.data(name), expected)


# -- cell fields, every boundary kind, several layouts and ghost widths ---------------------------

LAYOUTS_1D = [(1,), (2,), (4,)]
LAYOUTS_2D = [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2)]
LAYOUTS_3D = [(1, 1, 1), (2, 1, 1), (2, 2, 2), (4, 2, 2)]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ng", [1, 2, 3, 4])
@pytest.mark.parametrize("layout", LAYOUTS_1D)
def test_cell_1d(layout, ng, kind, strategy):
    mesh = make_mesh(layout, (4,), ng, kind, scalar_package(), strategy)
    check(mesh, "q", ["CC"], 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ng", [1, 2, 3])
@pytest.mark.parametrize("layout", LAYOUTS_2D)
def test_cell_2d(layout, ng, kind, strategy):
    mesh = make_mesh(layout, (4, 3), ng, kind, scalar_package(), strategy)
    check(mesh, "q", ["CC"], 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ng", [1, 2])
@pytest.mark.parametrize("layout", LAYOUTS_3D)
def test_cell_3d(layout, ng, kind, strategy):
    mesh = make_mesh(layout, (3, 2, 2), ng, kind, scalar_package(), strategy)
    check(mesh, "q", ["CC"], 1)


def test_cell_3d_wide_ghosts():
    mesh = make_mesh((2, 2, 1), (4, 4, 4), 4, "periodic", scalar_package())
    check(mesh, "q", ["CC"], 1)


MIXED = [
    {"x1": "periodic", "x2": "reflecting", "x3": "outflow"},
    {"inner_x1": "outflow", "outer_x1": "reflecting", "x2": "periodic", "x3": "reflecting"},
    {IndexDomain.inner_x1: "reflecting", IndexDomain.outer_x1: "outflow", "x2": "outflow", "x3": "periodic"},
]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("boundaries", MIXED)
def test_mixed_boundaries_3d_edges_and_corners(boundaries, strategy):
    mesh = make_mesh((2, 3, 2), (3, 2, 2), 2, boundaries, scalar_package(shape=(2,)), strategy)
    check(mesh, "q", ["CC"], 2)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_reflecting_flips_normal_component_of_vectors(ndim, strategy):
    layout = {1: (2,), 2: (2, 2), 3: (2, 1, 2)}[ndim]
    block = {1: (4,), 2: (3, 4), 3: (2, 3, 2)}[ndim]
    pkg = scalar_package("Vector", shape=(3,), name="mom")
    mesh = make_mesh(layout, block, 2, "reflecting", pkg, strategy)
    check(mesh, "mom", ["CC"], 3, flips=({0}, {1}, {2}))


def test_reflecting_flip_applies_only_at_reflecting_sides():
    pkg = scalar_package("Vector", shape=(3,), name="mom")
    bc = {"x1": "periodic", "inner_x2": "reflecting", "outer_x2": "outflow"}
    mesh = make_mesh((2, 2), (4, 4), 2, bc, pkg)
    expected = setup_field(mesh, "mom", ["CC"], 3, ((), (), ()), np.random.default_rng(3))
    mesh.fill_ghosts()
    got = mesh.data("mom")
    lower = [b.lid for b in mesh.blocks if b.lx2 == 0]
    # the x2 component flips in the inner_x2 ghost rows only (k=0, j<2)
    np.testing.assert_array_equal(got[lower, 1, :, :2], -expected[lower, 1, :, 2:4][:, :, ::-1])
    np.testing.assert_array_equal(got[lower, 0, :, :2], expected[lower, 0, :, 2:4][:, :, ::-1])
    upper = [b.lid for b in mesh.blocks if b.lx2 == 1]
    np.testing.assert_array_equal(got[upper, 1, :, 6:], np.repeat(got[upper, 1, :, 5:6], 2, axis=2))


# -- face, edge and node fields -------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layout", [(1, 1), (2, 2), (3, 1)])
def test_face_field_2d(layout, kind, strategy):
    pkg = Package("mhd")
    pkg.add_field("B", Metadata("Face", "FillGhost"))
    mesh = make_mesh(layout, (3, 4), 2, kind, pkg, strategy)
    check(mesh, "B", ["F1", "F2", "F3"], 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("boundaries", ["reflecting", MIXED[0], MIXED[1]])
def test_face_vector_field_3d(boundaries, strategy):
    pkg = Package("mhd")
    pkg.add_field("B", Metadata("Face", "FillGhost", "Vector"), shape=(2,))
    mesh = make_mesh((2, 2, 2), (2, 3, 2), 2, boundaries, pkg, strategy)
    flips = ({0, 1}, {2, 3}, {4, 5})  # element F_d (two components each) flips at x_d walls
    check(mesh, "B", ["F1", "F2", "F3"], 2, flips=flips)


@pytest.mark.parametrize("kind", KINDS)
def test_face_field_cell_mem_aligned_clips_outermost_face(kind):
    pkg = Package("mhd")
    pkg.add_field("B", Metadata("Face", "FillGhost", "CellMemAligned"))
    mesh = make_mesh((2, 2), (4, 4), 2, kind, pkg)
    assert mesh.data("B").shape == (4, 3, 1, 8, 8)
    check(mesh, "B", ["F1", "F2", "F3"], 1)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("topology,elements", [("Edge", ["E1", "E2", "E3"]), ("Node", ["NN"])])
@pytest.mark.parametrize("boundaries", ["periodic", "outflow", MIXED[2]])
def test_edge_and_node_fields_3d(topology, elements, boundaries, strategy):
    pkg = Package("p")
    pkg.add_field("e", Metadata(topology, "FillGhost"))
    mesh = make_mesh((2, 1, 2), (3, 2, 2), 2, boundaries, pkg, strategy)
    check(mesh, "e", elements, 1)


def test_shared_faces_are_not_exchanged():
    pkg = Package("mhd")
    pkg.add_field("B", Metadata("Face", "FillGhost"))
    mesh = make_mesh((2,), (4,), 2, "periodic", pkg)
    f1 = mesh.field("B").element_slots(3)
    data = mesh.data("B")
    data[0, f1, 0, 0, 6] = 1.0  # block 0's copy of the face it shares with block 1
    data[1, f1, 0, 0, 2] = 2.0  # block 1's copy of the same face
    mesh.fill_ghosts()
    assert data[0, f1, 0, 0, 6] == 1.0 and data[1, f1, 0, 0, 2] == 2.0


# -- user boundary functions, dtypes, sparse fields, selection ------------------------------------


def test_user_boundary_function_called_per_block_and_field():
    calls = []

    def inflow(block, view, side, field):
        calls.append((block.gid, side, field, view.shape))
        ng = block.mesh.nghost
        if side == IndexDomain.inner_x1:
            view[:, :, :, :ng] = 7.0 if field == "a" else -7.0

    pkg = Package("p")
    pkg.add_field("a", Metadata("Cell", "FillGhost"))
    pkg.add_field("b", Metadata("Cell", "FillGhost"))
    pkg.add_field("c", Metadata("Cell"))  # not FillGhost: never passed to the function
    mesh = Mesh(
        (8, 4), (4, 2), nghost=2, boundaries={"inner_x1": inflow, "outer_x1": "outflow"}, packages=[pkg]
    )
    mesh.fill_ghosts()
    left = sorted(b.gid for b in mesh.blocks if b.lx1 == 0)
    assert sorted(c[0] for c in calls if c[2] == "a") == left
    assert {c[1] for c in calls} == {IndexDomain.inner_x1}
    assert {c[3] for c in calls} == {(1, 1, 6, 8)}
    a, b = mesh.data("a"), mesh.data("b")
    assert np.all(a[left, :, :, :, :2] == 7.0) and np.all(b[left, :, :, :, :2] == -7.0)


def test_a_user_boundary_view_kept_after_the_call_cannot_write_the_field():
    kept = []

    def inflow(block, view, side):
        view[:, :, :, : block.mesh.nghost] = 3.0
        kept.append(view)

    mesh = make_mesh((2, 1), (4, 4), 2, {"inner_x1": inflow, "outer_x1": "outflow", "x2": "periodic"},
                     scalar_package())
    mesh.fill_ghosts()
    before = np.array(mesh.data("q"))
    assert len(kept) == 1 and np.all(kept[0][:, :, :, :2] == 3.0)  # it wrote the field during the call
    with pytest.raises(ValueError, match="read-only"):
        kept[0][:, :, :, :2] = 99.0  # later: refused (it wrote the live field on the CPU)
    np.testing.assert_array_equal(mesh.data("q"), before)
    mesh.fill_ghosts()  # a new call gets a new, writable view
    assert len(kept) == 2 and kept[1].flags.writeable is False


def test_user_boundary_sees_earlier_directions_filled():
    """A user x2 boundary runs after the x1 sweep: it may read the x1 ghosts it copies from."""

    def mirror_x2(block, view, side):
        ng = block.mesh.nghost
        if side == IndexDomain.inner_x2:
            view[:, :, :ng, :] = view[:, :, ng : ng + 1, :]
        else:
            view[:, :, -ng:, :] = view[:, :, -ng - 1 : -ng, :]

    pkg = scalar_package()
    user = make_mesh((2, 2), (4, 4), 2, {"x1": "periodic", "x2": mirror_x2}, pkg)
    ref = make_mesh((2, 2), (4, 4), 2, {"x1": "periodic", "x2": "outflow"}, scalar_package())
    rng = np.random.default_rng(5)
    user.data("q")[:] = ref.data("q")[:] = rng.standard_normal(ref.data("q").shape)
    user.fill_ghosts()
    ref.fill_ghosts()
    np.testing.assert_array_equal(user.data("q"), ref.data("q"))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.complex128])
def test_exchange_keeps_dtype(dtype):
    pkg = scalar_package("Vector", shape=(2,), dtype=dtype)
    mesh = make_mesh((2, 2), (4, 4), 2, "reflecting", pkg)
    data = mesh.data("q")
    assert data.dtype == dtype
    data[:] = np.arange(data.size).reshape(data.shape).astype(dtype)
    interior = data[:, :, :, 2:6, 2:6].copy()
    mesh.fill_ghosts()
    assert data.dtype == dtype
    np.testing.assert_array_equal(data[:, :, :, 2:6, 2:6], interior)
    # block 0 touches inner_x1: component 0 (normal to x1) flips, component 1 mirrors unchanged
    np.testing.assert_array_equal(data[0, 0, 0, 2:6, 1], -interior[0, 0, 0, :, 0])
    np.testing.assert_array_equal(data[0, 1, 0, 2:6, 0], interior[0, 1, 0, :, 1])


def test_sparse_fields_exchange_only_through_allocated_blocks():
    pkg = Package("p")
    pkg.add_field("tr", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[3])
    mesh = Mesh((8,), (4,), nghost=2, boundaries="periodic", packages=[pkg])
    mesh.fill_ghosts()  # nothing allocated anywhere: a no-op
    mesh.allocate_sparse(0, "tr", 3)
    data = mesh.data("tr_3")
    data[0, 0, 0, 0, 2:6] = [1.0, 2.0, 3.0, 4.0]
    mesh.fill_ghosts()
    np.testing.assert_array_equal(data[0, 0, 0, 0], [0, 0, 1, 2, 3, 4, 0, 0])  # block 1 reads as zero
    np.testing.assert_array_equal(data[1], 0)  # an unallocated block stays zero
    mesh.allocate_sparse(1, "tr", 3)
    mesh.fill_ghosts()
    np.testing.assert_array_equal(data[1, 0, 0, 0], [3, 4, 0, 0, 0, 0, 1, 2])


def test_sparse_blocks_without_the_instance_read_as_zeros_and_relay_corners():
    """A block without the instance counts as zeros in the exchange, whatever was written into it, yet relays
    its neighbours' ghosts as edges and corners: the ghosts are np.pad of the global array with zeros there
    (block 0's upper corner is block 3's value, passed through unallocated block 2's x1 ghosts)."""
    pkg = Package("p")
    pkg.add_field("tr", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1])
    mesh = Mesh((8, 8), (4, 4), nghost=2, boundaries="periodic", packages=[pkg], exchange="pairwise")
    mesh.allocate_sparse(0, "tr", 1)
    mesh.allocate_sparse(3, "tr", 1)
    data = mesh.data("tr_1")
    data[...] = 7.0  # also into blocks 1 and 2, which lack the instance: never seen by a neighbour
    data[0, 0, 0, 2:6, 2:6] = 1.0
    data[3, 0, 0, 2:6, 2:6] = 4.0
    glob = np.zeros((8, 8))
    glob[:4, :4], glob[4:, 4:] = 1.0, 4.0
    glob = np.pad(glob, 2, mode="wrap")
    mesh.fill_ghosts()
    np.testing.assert_array_equal(data[0, 0, 0], glob[:8, :8])
    np.testing.assert_array_equal(data[3, 0, 0], glob[4:, 4:])
    assert data[0, 0, 0, 6, 6] == 4.0 and data[0, 0, 0, 6, 3] == 0.0  # corner from block 3, edge from block 2
    np.testing.assert_array_equal(data[[1, 2]], 0.0)


def test_user_boundaries_skip_blocks_without_the_sparse_instance():
    """A user boundary function runs for a sparse instance only on the blocks that have it (the others' ghosts
    are zeroed after the exchange anyway): none at all while no block of the side has it."""
    calls = []

    def inflow(block, view, side, field):
        calls.append((block.gid, field))
        view[..., : block.mesh.nghost] = 5.0

    pkg = Package("p")
    pkg.add_field("tr", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1, 2])
    mesh = Mesh((8, 8), (4, 4), nghost=2, boundaries={"inner_x1": inflow, "outer_x1": "outflow", "x2": "periodic"},
                packages=[pkg])
    mesh.allocate_sparse(2, "tr", 1)  # blocks 0 and 2 touch inner_x1; tr_2 lives on block 1 only
    mesh.allocate_sparse(1, "tr", 2)
    mesh.fill_ghosts()
    assert calls == [(2, "tr_1")]
    one, two = mesh.data("tr_1"), mesh.data("tr_2")
    assert np.all(one[2, 0, 0, 2:6, :2] == 5.0)
    np.testing.assert_array_equal(one[[0, 1, 3]], 0.0)  # the blocks without the instance stay zero
    np.testing.assert_array_equal(two[[0, 2, 3]], 0.0)


def test_only_fill_ghost_fields_and_selection():
    pkg = Package("p")
    pkg.add_field("a", Metadata("Cell", "FillGhost"))
    pkg.add_field("b", Metadata("Cell", "FillGhost"))
    pkg.add_field("c", Metadata("Cell"))
    mesh = Mesh((8,), (4,), nghost=1, packages=[pkg])
    for name in "abc":
        mesh.data(name)[:] = 1.0
        mesh.data(name)[:, :, :, :, 1:5] = 2.0
    mesh.fill_ghosts("a")
    assert np.all(mesh.data("a") == 2.0)
    assert np.all(mesh.data("b")[:, :, :, :, 0] == 1.0)
    mesh.fill_ghosts()
    assert np.all(mesh.data("b") == 2.0)
    assert np.all(mesh.data("c")[:, :, :, :, 0] == 1.0)


def test_fill_ghosts_bad_names_change_nothing():
    pkg = Package("p")
    pkg.add_field("a", Metadata("Cell", "FillGhost"))
    pkg.add_field("c", Metadata("Cell"))
    mesh = Mesh((8,), (4,), nghost=1, packages=[pkg])
    mesh.data("a")[:] = np.arange(12.0).reshape(2, 1, 1, 1, 6)
    before = mesh.data("a").copy()
    with pytest.raises(KeyError, match="unknown field 'zz'"):
        mesh.fill_ghosts(["a", "zz"])
    with pytest.raises(ValueError, match="'c' lacks Metadata.FillGhost"):
        mesh.fill_ghosts(["a", "c"])
    np.testing.assert_array_equal(mesh.data("a"), before)


def test_lattice_plan_uses_few_copies():
    """The lattice plan's copy count does not grow with the number of blocks."""
    pkgs = [scalar_package() for _ in range(2)]
    small = make_mesh((2, 2), (4, 4), 2, "periodic", pkgs[0])
    large = make_mesh((8, 8), (4, 4), 2, "periodic", pkgs[1])
    n_small = len(ghost_cells.plan(small, small.field("q")).steps)
    n_large = len(ghost_cells.plan(large, large.field("q")).steps)
    assert n_small == n_large == 8  # 2 directions x 2 sides x (shift + wrap)


# -- properties -----------------------------------------------------------------------------------


@st.composite
def layouts(draw):
    ndim = draw(st.integers(1, 3))
    nblocks = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    ng = draw(st.integers(1, 3))
    block = tuple(draw(st.integers(ng, ng + 2)) for _ in range(ndim))
    kinds = {f"x{d + 1}": draw(st.sampled_from(KINDS)) for d in range(ndim)}
    return nblocks, block, ng, kinds


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), st.sampled_from(STRATEGIES), st.integers(0, 2**31 - 1))
def test_property_matches_np_pad(layout, strategy, seed):
    nblocks, block, ng, kinds = layout
    mesh = make_mesh(nblocks, block, ng, kinds, scalar_package(shape=(2,)), strategy)
    check(mesh, "q", ["CC"], 2, seed=seed)


@settings(max_examples=20, deadline=None)
@given(layouts(), st.integers(0, 2**31 - 1))
def test_property_exchange_is_idempotent(layout, seed):
    nblocks, block, ng, kinds = layout
    mesh = make_mesh(nblocks, block, ng, kinds, scalar_package("Vector", shape=(3,)))
    data = mesh.data("q")
    data[:] = np.random.default_rng(seed).standard_normal(data.shape)
    mesh.fill_ghosts()
    once = data.copy()
    mesh.fill_ghosts()
    np.testing.assert_array_equal(data, once)


@settings(max_examples=20, deadline=None)
@given(layouts(), st.integers(0, 2**31 - 1))
def test_property_strategies_agree(layout, seed):
    nblocks, block, ng, kinds = layout
    meshes = [make_mesh(nblocks, block, ng, kinds, scalar_package(), s) for s in STRATEGIES]
    values = np.random.default_rng(seed).standard_normal(meshes[0].data("q").shape)
    for m in meshes:
        m.data("q")[:] = values
        m.fill_ghosts()
    np.testing.assert_array_equal(meshes[0].data("q"), meshes[1].data("q"))


def test_zero_ghost_width_is_a_no_op():
    mesh = make_mesh((2, 2), (3, 3), 0, "reflecting", scalar_package())
    data = mesh.data("q")
    assert data.shape == (4, 1, 1, 3, 3)
    data[:] = np.arange(36.0).reshape(data.shape)
    mesh.fill_ghosts()
    np.testing.assert_array_equal(data, np.arange(36.0).reshape(data.shape))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", KINDS)
def test_copies_on_several_threads_fill_the_same_ghosts(kind, strategy):
    """A fill large enough for several threads (here: the threshold lowered) fills every ghost as
    np.pad does; the copies' work counts elements, so a small exchange stays on one thread."""
    from brickwork import config
    from brickwork.mesh import copies

    mesh = make_mesh((3, 2), (5, 4), 2, kind, scalar_package(shape=(3,)), strategy)
    launches = [entry for program, _ in ghost_cells.exchange_of(mesh, ghost_cells.ghost_fields(mesh, None)).sweeps
                for entry in program.launches]
    elements = sum(items * per_item * copies.COPY_PARALLEL_FACTOR for _, items, _, _, per_item in launches)
    assert elements < copies.COPY_PARALLEL_FACTOR * config.parallel_threshold  # one thread by default
    with config.override(parallel_threshold=1, num_threads=2):
        check(mesh, "q", ["CC"], 3)
