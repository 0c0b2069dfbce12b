"""Mesh construction, block lattice, neighbours, coordinates and field storage."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import (
    TE,
    BoundaryCondition,
    IndexDomain,
    IndexShape,
    Mesh,
    Metadata,
    Package,
    ghost_cells,
)


def package():
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "FillGhost", "WithFluxes"))
    pkg.add_field("mom", Metadata("Cell", "Vector", "WithFluxes"), shape=(3,))
    pkg.add_field("B", Metadata("Face"), shape=(2,))
    pkg.add_field("Bc", Metadata("Face", "CellMemAligned"))
    pkg.add_field("E", Metadata("Edge"))
    pkg.add_field("phi", Metadata("Node"), dtype=np.float32)
    pkg.add_field("tr", Metadata("Cell", "Sparse"), sparse_ids=[1, 5])
    return pkg


def test_block_lattice_and_locations():
    mesh = Mesh((12, 8, 4), (4, 4, 2), nghost=1)
    assert mesh.ndim == 3 and mesh.nblocks_per_dim == (3, 2, 2) and mesh.nblocks == 12
    assert [b.gid for b in mesh.block_list] == list(range(12))
    assert [b.location for b in mesh.blocks[:4]] == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)]
    b7 = mesh.blocks[7]
    assert (b7.lx1, b7.lx2, b7.lx3) == (1, 0, 1)
    assert all(b.rank == 0 and b.lid == b.gid and b.is_local for b in mesh.block_list)
    assert mesh.cellbounds == IndexShape(2, 4, 4, 1)


def test_the_documented_defaults():
    """docs/mesh.md's table of what each argument left out gives."""
    mesh = Mesh((8, 4))
    assert mesh.block_nx == (8, 4, 1) and mesh.nblocks == mesh.nblocks_global == 1 and mesh.nghost == 2
    assert mesh.xmin == (0.0, 0.0, 0.0) and mesh.xmax == (1.0, 1.0, 1.0) and mesh.fields == {}
    assert {side.name: mesh.boundary_kind(side).value for side in mesh.boundaries} == {
        "inner_x1": "periodic", "outer_x1": "periodic", "inner_x2": "periodic", "outer_x2": "periodic"}
    walls = Mesh((8, 4), boundaries={"x2": "reflecting"})  # a side the dict leaves out is outflow
    assert [walls.boundary_kind(side).value for side in walls.boundaries] == ["outflow", "outflow", "reflecting",
                                                                              "reflecting"]
    assert mesh.nranks == 1 and mesh.device == wp.get_device() and ghost_cells.strategy(mesh) == "lattice"


def test_one_and_two_dimensional_meshes():
    m1 = Mesh(16, 4)
    assert m1.ndim == 1 and m1.nx == (16, 1, 1) and m1.block_nx == (4, 1, 1)
    assert m1.cellbounds.memory_extents() == (1, 1, 8)
    m2 = Mesh((6, 4), nghost=3)  # one block by default
    assert m2.nblocks == 1 and m2.cellbounds.memory_extents() == (1, 10, 12)


def test_neighbors_periodic_and_not():
    mesh = Mesh((9, 6), (3, 3), boundaries={"x1": "periodic", "x2": "outflow"}, nghost=1)
    corner = mesh.blocks[0]  # (0, 0)
    offsets = sorted(n.offset for n in corner.neighbors)
    assert offsets == [(-1, 0, 0), (-1, 1, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0)]
    west = corner.neighbor(-1, 0)
    assert (west.gid, west.location, west.wrapped) == (2, (2, 0, 0), (True, False, False))
    assert corner.neighbor(0, -1) is None
    assert corner.neighbor(1, 1).gid == 4
    assert corner.boundary(IndexDomain.inner_x2).kind is BoundaryCondition.outflow
    assert corner.boundary(IndexDomain.inner_x1) is None  # periodic: a neighbour lies there
    assert mesh.blocks[4].boundary(IndexDomain.outer_x2).kind is BoundaryCondition.outflow


def test_26_neighbors_in_3d_periodic():
    mesh = Mesh((6, 6, 6), (2, 2, 2), nghost=1)
    for block in mesh.blocks:
        assert len(block.neighbors) == 26
        for n in block.neighbors:
            expect = tuple((block.location[d] + n.offset[d]) % 3 for d in range(3))
            assert n.location == expect
            assert n.gid == expect[0] + 3 * (expect[1] + 3 * expect[2])
    single = Mesh((4, 4, 4), nghost=1)
    assert {n.gid for n in single.blocks[0].neighbors} == {0}
    assert len(single.blocks[0].neighbors) == 26


def test_coordinates():
    mesh = Mesh((8, 4), (4, 2), nghost=2, xmin=(-1.0, 0.0), xmax=(1.0, 2.0))
    assert (mesh.x1min, mesh.x1max, mesh.x2min, mesh.x2max, mesh.x3min, mesh.x3max) == (-1, 1, 0, 2, 0, 1)
    c = mesh.blocks[3].coords  # location (1, 1)
    assert c.dx(1) == 0.25 and c.dx(2) == 0.5 and c.dx(3) == 1.0
    np.testing.assert_allclose(c.x_center(1), [-0.375, -0.125, 0.125, 0.375, 0.625, 0.875, 1.125, 1.375])
    np.testing.assert_allclose(c.x_face(2), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    np.testing.assert_allclose(c.x_center(3), [0.5])
    np.testing.assert_allclose(c.x_face(3), [0.0, 1.0])
    assert c.cell_volume == 0.125 and c.face_area(1) == 0.5
    assert c.cell_volumes().shape == (1, 6, 8) and np.all(c.cell_volumes() == 0.125)
    assert c.xmin == (0.0, 1.0, 0.0) and c.xmax == (1.0, 2.0, 1.0)


def test_every_block_has_the_mesh_cell_widths_bit_for_bit():
    """A block's own (xmax - xmin) / nx can round away from the mesh's width (here 1/24 and 0.3/9 in
    several blocks); a solver reading dx from any one block must get the same bits on any rank count."""
    mesh = Mesh((24, 9), (8, 3), nghost=2, xmin=(0.0, 0.1), xmax=(1.0, 0.4))
    want = ((1.0 - 0.0) / 24, (0.4 - 0.1) / 9, 1.0)
    assert any((b.coords.xmax[0] - b.coords.xmin[0]) / 8 != want[0] for b in mesh.blocks)  # the case exists
    for b in mesh.blocks:
        assert tuple(b.coords.dx(d) for d in (1, 2, 3)) == want


def test_storage_layout():
    mesh = Mesh((8, 6, 4), (4, 3, 2), nghost=1, packages=[package()])
    nb = mesh.nblocks
    assert nb == 8
    assert mesh.data("rho").shape == (nb, 1, 4, 5, 6)
    assert mesh.field("rho").flux.shape == (nb, 3, 4, 5, 6)
    assert mesh.field("mom").flux.shape == (nb, 9, 4, 5, 6)
    assert mesh.field("mom").flux_array(2).shape == (nb, 3, 4, 5, 6)
    assert mesh.data("B").shape == (nb, 6, 5, 6, 7)  # node extents, 3 elements x 2 components
    assert mesh.field("B").element(TE.F2).shape == (nb, 2, 5, 6, 7)
    assert mesh.data("Bc").shape == (nb, 3, 4, 5, 6)
    assert mesh.data("E").shape == (nb, 3, 5, 6, 7)
    assert mesh.data("phi").shape == (nb, 1, 5, 6, 7) and mesh.data("phi").dtype == np.float32
    assert mesh.data("rho").flags.c_contiguous
    assert mesh.field("B").flux is None
    view = mesh.blocks[2].data("mom")
    view[1, 0, 0, 0] = 9.0
    assert mesh.data("mom")[2, 1, 0, 0, 0] == 9.0  # block views alias the one array


def test_fluxes_only_in_active_directions():
    mesh = Mesh((8, 4), (4, 4), nghost=2, packages=[package()])
    assert mesh.field("rho").flux.shape == (2, 2, 1, 8, 8)
    with pytest.raises(ValueError, match="flux direction 3 is not active \\(valid 1..2\\)"):
        mesh.field("rho").flux_array(3)
    with pytest.raises(ValueError, match="'B' has no flux arrays"):
        mesh.field("B").flux_array(1)


def test_sparse_allocation():
    mesh = Mesh((8,), (4,), nghost=1, packages=[package()])
    fld = mesh.field("tr_5")
    assert fld.data is None and not mesh.is_allocated(0, "tr", 5)
    with pytest.raises(ValueError, match="'tr_5' is not allocated on any block"):
        mesh.data("tr_5")
    assert mesh.allocate_sparse(1, "tr", 5) is True
    assert mesh.allocate_sparse(mesh.blocks[1], "tr", 5) is False
    assert mesh.is_allocated(1, "tr", 5) and not mesh.is_allocated(0, "tr", 5)
    assert mesh.is_allocated(0, "rho")
    assert mesh.data("tr_5").shape == (2, 1, 1, 1, 6)
    mesh.data("tr_5")[1] = 3.0
    mesh.allocate_sparse(0, "tr", 5)
    mesh.data("tr_5")[0] = 4.0
    assert mesh.deallocate_sparse(1, "tr", 5) is True
    assert np.all(mesh.data("tr_5")[1] == 0) and np.all(mesh.data("tr_5")[0] == 4.0)
    assert mesh.deallocate_sparse(0, "tr", 5) is True and fld.data is None
    assert mesh.deallocate_sparse(0, "tr", 5) is False
    version = mesh.allocation_version
    mesh.allocate_sparse(0, "tr", 1)
    assert mesh.allocation_version == version + 1


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda m: m.allocate_sparse(0, "tr", 2),
            ValueError,
            "'tr' has no sparse id 2 \\(ids: \\[1, 5\\]\\)",
        ),
        (lambda m: m.allocate_sparse(0, "rho", 1), ValueError, "'rho' is not a sparse pool"),
        (lambda m: m.allocate_sparse(0, "trx", 1), KeyError, "unknown field 'trx'; did you mean 'tr'"),
        (lambda m: m.allocate_sparse(5, "tr", 1), IndexError, "block index 5 out of range"),
        (lambda m: m.allocate_sparse("0", "tr", 1), TypeError, "block must be a MeshBlock"),
        (lambda m: m.deallocate_sparse(0, "rho", None), ValueError, "'rho' is not a sparse pool"),
        (lambda m: m.field("rh"), KeyError, "unknown field 'rh'"),
    ],
)
def test_sparse_and_field_lookup_errors(call, error, message):
    mesh = Mesh((8,), (4,), nghost=1, packages=[package()])
    with pytest.raises(error, match=message):
        call(mesh)
    assert mesh.allocation_version == 0
    assert all(mesh.field(n).data is None for n in ("tr_1", "tr_5"))


@pytest.mark.parametrize(
    "args,kwargs,message",
    [
        ((0,), {}, "nx1 must be a positive integer, got 0"),
        (((8, -4),), {}, "nx2 must be a positive integer, got -4"),
        (((8, 4.0),), {}, "nx2 must be a positive integer, got 4.0"),
        (((8, 8, 8, 8),), {}, "nx must have 1 to 3 entries"),
        (((),), {}, "nx must have 1 to 3 entries"),
        (("88",), {}, "nx must be an integer or a sequence"),
        (((12, 8), (5, 4)), {}, "nx1=12 is not divisible by block_nx1=5"),
        (((12, 8), (4, 16)), {}, "block_nx2=16 is larger than the mesh \\(nx2=8\\)"),
        (((12, 8), (4, 0)), {}, "block_nx2 must be a positive integer, got 0"),
        (((12, 8), (4,)), {}, "block_nx has 1 entries but nx has 2"),
        (((12, 8), (4, 2)), {"nghost": 3}, "nghost=3 is wider than the block \\(block_nx2=2\\)"),
        (((12,),), {"nghost": -1}, "nghost must be a non-negative integer, got -1"),
        (((12,),), {"xmin": (1.0,), "xmax": (0.0,)}, "x1max \\(0.0\\) must be greater than x1min \\(1.0\\)"),
        (((12,),), {"xmax": (float("inf"),)}, "xmax\\[0\\] must be a finite number, got inf"),
        (((12,),), {"xmin": ("0",)}, "xmin\\[0\\] must be a finite number, got '0'"),
        (((12,),), {"xmin": (-1e308,), "xmax": (1e308,)}, "x1max - x1min .* gives no usable cell width"),
        (((12,),), {"xmax": (5e-324,)}, "x1max - x1min .* gives no usable cell width"),  # a width of 0
        (((12, 4),), {"xmin": (0.0, 0.0, 0.0, 0.0)}, "xmin has 4 entries; give 2 \\(or 3\\)"),
        (((12,),), {"boundaries": "wrap"}, "unknown condition 'wrap'"),
        (((12,),), {"boundaries": {"x2": "outflow"}}, "direction x2, inactive in a 1-D mesh"),
        (((12,),), {"boundaries": {"inner_x1": "periodic"}}, "x1 is periodic on one side only"),
        (((12,),), {"boundaries": {2: "outflow"}}, "integer key 2 is ambiguous"),
        (((12,),), {"boundaries": {"top": "outflow"}}, "unknown key 'top'"),
        (((12,),), {"boundaries": BoundaryCondition.user}, "pass the user function itself"),
        (((12,),), {"exchange": "fast"}, "exchange must be one of"),
    ],
)
def test_mesh_errors_name_the_offending_value(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Mesh(*args, **kwargs)


def test_a_mesh_too_large_for_the_machine_is_refused_before_anything_is_allocated(monkeypatch):
    """The fields' bytes (ghost cells and fluxes included) and the blocks' descriptions are weighed against the
    memory available first: a MeshSizeError naming the sizes, not a raw MemoryError minutes later."""
    import tracemalloc

    from brickwork.mesh import MeshSizeError, footprint

    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell", "FillGhost"))
    pkg.add_field("U", Metadata("Cell", "WithFluxes"), shape=(3,), dtype=np.float32)
    # what Field allocates: 1 slot of float64 and 3 of float32 plus 2 x 3 float32 flux slots, on 4 blocks
    # of 12 x 12 cells with ghosts (in 1-D: 8 + 12 + 12 bytes a cell)
    small = Mesh((16, 16), (8, 8), packages=[pkg])
    assert footprint.field_bytes(small._specs.values(), small.cellbounds, 4) == 4 * 144 * (8 + 12 + 24)
    with pytest.raises(MeshSizeError, match=r"Mesh\(nx=\(2199023255552,\), block_nx=\(2199023255552,\)\) is too "
                       r"large for this machine: its fields need 65536.0 GiB .* but only .* is available"):
        Mesh((2**41,), (2**41,), packages=[pkg])
    monkeypatch.setattr(footprint, "available_memory", lambda: 2**30)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"its 16777216 blocks about 64.0 GiB more on the host.*1.0 GiB is "
                           r"available; larger blocks need less"):
            Mesh((2**12, 2**12), (1, 1), nghost=0, packages=[pkg])
        assert tracemalloc.get_traced_memory()[1] < 2**26  # nothing of the sort was built
    finally:
        tracemalloc.stop()
    assert Mesh((64, 64), (16, 16), packages=[pkg]).fields["T"].data.shape[0] == 16  # a mesh that fits


def test_package_conflicts_and_types():
    a, b = Package("a"), Package("b")
    a.add_field("rho", Metadata())
    b.add_field("rho", Metadata())
    with pytest.raises(ValueError, match="'rho' is declared by packages 'a' and 'b'"):
        Mesh((8,), packages=[a, b])
    with pytest.raises(TypeError, match="packages must be Package objects"):
        Mesh((8,), packages=["a"])
    with pytest.raises(TypeError, match="expected a BoundaryCondition, a name or a function"):
        Mesh((8,), boundaries=3.5)
    for not_a_list in ("a", 3):  # a string is not a list of one-letter packages
        with pytest.raises(TypeError, match=f"packages must be a list of Package objects, got {not_a_list!r}"):
            Mesh((8,), packages=not_a_list)


def test_one_package_without_a_list():
    """``Mesh(..., packages=pkg)``, a package not in a list, said "'Package' object is not iterable"."""
    pkg = Package("heat")
    pkg.add_field("u", Metadata("Cell", "FillGhost"))
    mesh = Mesh((8, 4), (4, 4), nghost=1, packages=pkg)
    assert mesh.packages == [pkg] and list(mesh.fields) == ["u"]
    assert mesh.data("u").shape == (2, 1, 1, 6, 6)


class FakeComm:
    """Rank ``rank`` of ``size``, as far as building a mesh goes (no messages are sent)."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size

    def Dup(self):
        return self

    def allgather(self, value):  # the mesh's collectives: every rank met no error and describes the same mesh
        return [value] * self.size

    def Isend(self, *args, **kwargs):
        raise AssertionError("no message in this test")

    Irecv = Isend


def test_local_and_global_blocks_are_distinct():
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost"))
    mesh = Mesh((16,), (4,), nghost=1, packages=[pkg], boundaries="outflow", comm=FakeComm(1, 2))
    assert [b.gid for b in mesh.block_list] == [0, 1, 2, 3]
    assert [b.rank for b in mesh.block_list] == [0, 0, 1, 1]  # Morton pieces: 1-D order
    assert [b.gid for b in mesh.blocks] == [2, 3] and [b.lid for b in mesh.blocks] == [0, 1]
    assert mesh.block_list[1].rank == 0 and mesh.block_list[1].lid is None
    assert mesh.data("q").shape == (2, 1, 1, 1, 6)  # storage for the local blocks only
    assert (mesh.nblocks, mesh.nblocks_global) == (2, 4)  # nblocks: this rank's (docs/mesh.md said 4 before)
    assert repr(mesh) == "Mesh(nx=(16,), block_nx=(4,), nghost=1, nblocks_global=4)"
    nbr = mesh.blocks[0].neighbor(-1)
    assert (nbr.gid, nbr.rank, nbr.lid) == (1, 0, None)
    with pytest.raises(ValueError, match="block 1 is owned by rank 0"):
        mesh.block_list[1].data("q")
    with pytest.raises(ValueError, match="lattice exchange needs every block local"):
        Mesh((16,), (4,), nghost=1, packages=[pkg], exchange="lattice", comm=FakeComm(0, 2)).fill_ghosts()


def test_more_ranks_than_blocks_is_refused():
    with pytest.raises(ValueError, match="5 ranks but only 4 blocks"):
        Mesh((16,), (4,), comm=FakeComm(0, 5))


def test_a_mesh_that_another_rank_describes_otherwise_is_refused():
    class OtherOnRank1(FakeComm):
        def allgather(self, value):
            return [value, dict(value, nghost=repr(2)) if isinstance(value, dict) else value]

    with pytest.raises(ValueError, match=r"^the mesh differs between the MPI ranks: nghost is 1 on rank 0 but 2 on "
                                         r"rank 1; every rank must build the same Mesh \(building one is collective\)$"):
        Mesh((16,), (4,), nghost=1, comm=OtherOnRank1(0, 2))


def test_a_mesh_that_another_rank_refuses_is_an_error_here_too():
    """Before, rank 0 went on to compare the descriptions and waited there for ever for rank 1, which had raised."""
    from brickwork.comm import OtherRankError

    class RefusedOnRank1(FakeComm):
        def allgather(self, value):
            return [value, ("ValueError: nx1=15 is not divisible by block_nx1=4: blocks cannot tile the mesh", None)]

    with pytest.raises(OtherRankError, match=r"^building the Mesh failed: ValueError: nx1=15 is not divisible by "
                                             r"block_nx1=4: blocks cannot tile the mesh \(on rank 1 of 2\)$"):
        Mesh((16,), (4,), nghost=1, comm=RefusedOnRank1(0, 2))


def test_comm_must_be_a_communicator():
    with pytest.raises(TypeError, match="comm must be None or an mpi4py intracommunicator"):
        Mesh((16,), (4,), comm="world")


def test_one_process_never_imports_mpi4py():
    """Without an MPI launcher (and without the program importing mpi4py) brickwork stays serial and
    never initialises MPI, even when it builds a mesh and exchanges ghosts."""
    import os
    import subprocess
    import sys

    code = ("import sys; from brickwork.mesh import Mesh, Metadata, Package; p = Package('p'); "
            "p.add_field('q', Metadata('Cell', 'FillGhost')); m = Mesh((8,), (4,), packages=[p]); m.fill_ghosts(); "
            "print(m.nranks, 'mpi4py' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k not in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE",
                                                            "MPI_LOCALNRANKS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "False"]
