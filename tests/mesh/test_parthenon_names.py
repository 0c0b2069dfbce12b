"""A Parthenon user's names (``pack.GetNBlocks()``, ``pkg.AddField``, ``wp.par_reduce``,
``Metadata("Cell", "OneCopy")``) raise errors that name brickwork's spelling, and change nothing."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork import mesh as bm
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.mesh.parthenon_names import hint


@pytest.fixture(scope="module")
def mesh():
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell", "Independent", "FillGhost"))
    return Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])


@pytest.mark.parametrize("owner, name, brickwork_name", [
    ("pack", "GetNBlocks", "get_nblocks"),
    ("pack", "GetMaxNumberOfVars", "get_max_number_of_vars"),
    ("pack", "GetLowerBound", "get_lower_bound"),
    ("package", "AddField", "add_field"),
    ("mesh", "FillGhosts", "fill_ghosts"),
    ("md", "GetBoundsI", "get_bounds_i"),
    ("cellbounds", "GetBoundsJ", "get_bounds_j"),
    ("mesh", "IsAllocated", "is_allocated"),
    ("descriptor", "GetPack", "get_pack"),
    ("mesh", "NGhost", "nghost"),  # an instance attribute
])
def test_a_camel_case_name_names_the_snake_case_one(mesh, owner, name, brickwork_name):
    objects = {"pack": PackDescriptor(mesh, [VarTag("u")]).get_pack(mesh.mesh_data()), "package": mesh.packages[0],
               "mesh": mesh, "md": mesh.mesh_data(), "cellbounds": mesh.cellbounds,
               "descriptor": PackDescriptor(mesh, ["u"])}
    obj = objects[owner]
    with pytest.raises(AttributeError) as caught:
        getattr(obj, name)
    message = str(caught.value)
    assert message.startswith(f"'{type(obj).__name__}' object has no attribute '{name}'")
    assert f"Parthenon's '{name}' is spelled '{brickwork_name}' here" in message
    assert caught.value.name == name and caught.value.obj is obj
    assert hasattr(obj, brickwork_name)  # the name it gives exists


@pytest.mark.parametrize("module, name, words", [
    (wp, "par_reduce", "la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), body)"),
    (la, "par_reduce", "no MPI_Allreduce after it"),
    (wp, "TaskList", "brickwork has no task lists: call your steps in order"),
    (bm, "TaskCollection", "brickwork has no task lists"),
    (bm, "StateDescriptor", "brickwork.mesh.Package(name)"),
    (bm, "MakePackDescriptor", "brickwork.mesh.PackDescriptor(mesh, [var1, var2])"),
])
def test_a_module_names_what_replaces_parthenons_function(module, name, words):
    with pytest.raises(AttributeError, match=rf"module '{module.__name__}' has no attribute '{name}' "
                                             rf"\(Parthenon's '{name}': ") as caught:
        getattr(module, name)
    assert words in str(caught.value)


def test_names_brickwork_does_without_say_what_to_do_instead(mesh):
    package, coords = mesh.packages[0], mesh.blocks[0].coords
    with pytest.raises(AttributeError, match=r"'AddParam': a Package holds no parameters: keep them in a Python"):
        package.AddParam("cfl", 0.4)
    with pytest.raises(AttributeError, match=r"'EstimateTimestepMesh': a Package declares fields only, it holds no "
                                             r"callbacks: call your own function from your time loop"):
        package.EstimateTimestepMesh = package.EstimateTimestepMesh  # a read first: nothing set
    assert "EstimateTimestepMesh" not in vars(package) and list(package.fields) == ["u"]
    with pytest.raises(AttributeError, match=r"'Xc': coords.x_center\(d\)\[i\]"):
        coords.Xc(1, 2)
    assert coords.x_center(1)[2] == 0.125 * 1.5


def test_other_missing_names_keep_pythons_message(mesh):
    with pytest.raises(AttributeError) as caught:
        getattr(mesh, "no_such_thing")  # noqa: B009 - the lookup under test
    assert str(caught.value) == "'Mesh' object has no attribute 'no_such_thing'"
    with pytest.raises(AttributeError) as caught:
        getattr(mesh.packages[0], "_private")  # noqa: B009
    assert str(caught.value) == "'Package' object has no attribute '_private'"
    with pytest.raises(AttributeError, match=r"^module 'brickwork.mesh' has no attribute 'Nope'$"):
        getattr(bm, "Nope")  # noqa: B009
    assert not hasattr(mesh, "GetNBlocks") and hasattr(mesh, "fill_ghosts")
    assert hint("Mesh", "GetZ", lambda: ["get_y", "getz_count"]) == ""  # no attribute of the same letters


def test_parthenons_metadata_flags_say_why_they_are_not_needed():
    with pytest.raises(ValueError, match=r"unknown Metadata flag 'OneCopy' \(Parthenon's OneCopy: every field has "
                                         r"one copy here .*drop the flag\); valid flags: Cell, "):
        Metadata("Cell", "OneCopy")
    with pytest.raises(ValueError, match=r"unknown Metadata flag 'Metadata::Cell' \(write Parthenon's "
                                         r"'Metadata::Cell' as 'Cell'\)"):
        Metadata("Metadata::Cell")
    with pytest.raises(ValueError, match=r"unknown Metadata flag 'Metadata::Bogus'; valid flags"):
        Metadata("Metadata::Bogus")
    package = Package("q")
    with pytest.raises(ValueError, match="OneCopy"):
        package.add_field("u", Metadata(["Cell", "OneCopy"]))
    assert list(package.fields) == []


def test_an_index_domain_in_another_case_names_the_member():
    with pytest.raises(AttributeError, match=r"^type object 'IndexDomain' has no attribute 'Interior' \(Parthenon's "
                                             r"'IndexDomain::interior' is IndexDomain.interior here\)$"):
        getattr(IndexDomain, "Interior")  # noqa: B009
    with pytest.raises(AttributeError, match=r"^type object 'IndexDomain' has no attribute 'middle'$"):
        getattr(IndexDomain, "middle")  # noqa: B009
    assert IndexDomain.interior == IndexDomain["interior"] == IndexDomain(1) and len(IndexDomain) == 8
    assert IndexDomain.outer(2) is IndexDomain.outer_x2 and IndexDomain.inner_x1.is_inner


def test_athenas_boundary_keys_name_the_side():
    with pytest.raises(ValueError, match=r"unknown key 'ox2' \(Parthenon's and Athena\+\+'s 'ox2' is 'outer_x2'\)"):
        Mesh((8, 8), (4, 4), boundaries={"ox2": "outflow"})


def test_pack_access_still_works_through_the_mixin(mesh):
    """The mixin's __getattr__ runs only for names an object lacks: packs, views and reductions are unchanged."""
    pack = PackDescriptor(mesh, [VarTag("u")]).get_pack(mesh.mesh_data())
    ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
    assert pack.get_nblocks() == 4 and (ib.s, ib.e) == (1, 4)
    pack[0, VarTag("u")(), 0, 1, 1] = 3.0
    assert mesh.data("u")[0, 0, 0, 1, 1] == 3.0 and np.count_nonzero(mesh.data("u")) == 1
    mesh.data("u")[...] = 0.0
