"""Parthenon's names, answered with brickwork's: an ``AttributeError`` for a name a Parthenon user types
(``pack.GetNBlocks()``, ``pkg.AddField``, ``wp.par_reduce``, ``Metadata("Cell", "OneCopy")``) says what it is
called here, where Python's plain "has no attribute" would leave them to search the docs.

Two kinds of hint: a name that is brickwork's attribute spelled in Parthenon's CamelCase (``GetNBlocks`` is
``get_nblocks``: the same letters, case and underscores aside) is found on the object itself, so it stays true
as the classes grow; the names that differ otherwise, or that brickwork does without, are listed below.
"""

from __future__ import annotations

import enum

_GUIDE = "docs/coming_from_parthenon.md"
_REDUCE = ("a reduction is la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), body), the body folding "
           "la.inner_reduce(rng, lambda k, j, i: value); it is collective over MPI ranks, with no MPI_Allreduce "
           f"after it ({_GUIDE}, 'Reductions: par_reduce')")
_TASKS = ("brickwork has no task lists: call your steps in order from your own time loop (mesh.fill_ghosts() and "
          f"la.outer_reduce are collective over MPI ranks and wait for each other) ({_GUIDE})")
_CALLBACKS = ("a Package declares fields only, it holds no callbacks: call your own function from your time loop "
              f"({_GUIDE}, 'A time loop of your own')")
_PARAMS = "a Package holds no parameters: keep them in a Python object of your own (a dict, a dataclass)"

#: Per class (or module) name: Parthenon's name -> what to write in brickwork.
_OTHER_NAMES: dict[str, dict[str, str]] = {
    "brickwork": {"par_reduce": _REDUCE, "par_for_reduce": _REDUCE, "TaskList": _TASKS, "TaskCollection": _TASKS,
                  "TaskRegion": _TASKS, "DevExecSpace": "nothing: par_for runs on the mesh's or the current device"},
    "brickwork.la": {"par_reduce": _REDUCE, "TaskList": _TASKS},
    "brickwork.mesh": {"StateDescriptor": "brickwork.mesh.Package(name)",
                       "MakePackDescriptor": "brickwork.mesh.PackDescriptor(mesh, [var1, var2])",
                       "TaskList": _TASKS, "TaskCollection": _TASKS, "TaskRegion": _TASKS,
                       "MeshBlockData": "brickwork.mesh.MeshData (mesh.mesh_data([block]) for one block)"},
    "Package": {"AddParam": _PARAMS, "Param": _PARAMS, "UpdateParam": _PARAMS, "AllParams": _PARAMS,
                "AddSparsePool": "add_field(name, Metadata('Cell', 'Sparse', ...), sparse_ids=[1, 2])",
                "FillDerivedBlock": _CALLBACKS, "FillDerivedMesh": _CALLBACKS, "FillDerived": _CALLBACKS,
                "EstimateTimestepBlock": _CALLBACKS, "EstimateTimestepMesh": _CALLBACKS,
                "EstimateTimestep": _CALLBACKS, "PreFillDerivedBlock": _CALLBACKS,
                "PostFillDerivedBlock": _CALLBACKS, "CheckRefinementBlock": "nothing: the mesh is uniform"},
    "SparsePack": {"GetLevel": "nothing: the mesh is uniform, every block has level 0",
                   "GetCoordinates": "mesh.blocks[b].coords (on the host)"},
    "Mesh": {"GetNumMeshBlocksThisRank": "mesh.nblocks", "nbtotal": "mesh.nblocks_global",
             "PreCommFillDerived": _CALLBACKS, "UserWorkBeforeOutput": _CALLBACKS,
             "ApplyUserWorkBeforeOutput": _CALLBACKS},
    "MeshData": {"GetBlockData": "md.blocks[b] (a MeshBlock: block.data(name))", "NumBlocks": "md.nblocks",
                 "GetMeshPointer": "md.mesh", "GetParentPointer": "md.mesh"},
    "MeshBlock": {"pmy_mesh": "block.mesh", "meshblock_data": "block.data(name)"},
    "UniformCoordinates": {"Xc": "coords.x_center(d)[i] (every cell centre of direction d, ghosts included)",
                           "Xf": "coords.x_face(d)[i]", "Dxc": "coords.dx(d)", "Dxf": "coords.dx(d)",
                           "CellWidth": "coords.dx(d)", "Volume": "coords.cell_volume()",
                           "CellVolume": "coords.cell_volume()", "FaceArea": "coords.face_area(d)"},
}

#: Metadata flags of Parthenon's that brickwork does not take, and why nothing is lost without them.
_FLAG_HINTS = {
    "OneCopy": "every field has one copy here (stages are yours to keep: declare a second field); drop the flag",
    "Restart": "mesh.save_restart writes every field; drop the flag",
    "Overridable": "no two packages may declare one field here; drop the flag",
    "Requires": "drop the flag",
    "Provides": "drop the flag",
    "Private": "field names are global here (no two packages may declare one); drop the flag",
    "Tensor": "declare the shape: add_field(name, Metadata('Cell', ...), shape=(3, 3))",
    "Particle": "no particle swarms in brickwork.mesh",
    "ForceRemeshComm": "the mesh is uniform (no remeshing); drop the flag",
}


def _folded(name: str) -> str:
    return name.replace("_", "").lower()


def hint(owner_name: str, name: str, attributes) -> str:
    """What ``name`` (Parthenon's spelling) is called on ``owner_name`` here, or ``""``: a listed name, or one
    of ``attributes()`` with the same letters as ``name`` (case and underscores aside)."""
    listed = _OTHER_NAMES.get(owner_name, {}).get(name)
    if listed is not None:
        return f"Parthenon's {name!r}: {listed}"
    if any(c.isupper() for c in name):  # CamelCase: perhaps ours in snake_case (asked only then: dir is slow)
        same = [a for a in attributes() if not a.startswith("_") and a != name and _folded(a) == _folded(name)]
        if same:
            return f"Parthenon's {name!r} is spelled {same[0]!r} here ({_GUIDE})"
    return ""


def missing_attribute(owner, name: str) -> AttributeError:
    """The ``AttributeError`` for ``owner.name`` (an instance's ``__getattr__`` raises it), with brickwork's
    name for Parthenon's where there is one. Private and special names get Python's plain message."""
    cls = type(owner).__name__
    message = f"{cls!r} object has no attribute {name!r}"
    if not name.startswith("_"):
        found = hint(cls, name, lambda: dir(owner))  # instance attributes too (mesh.nghost)
        if found:
            message += f" ({found})"
    return AttributeError(message, name=name, obj=owner)


def missing_module_attribute(module: str, name: str, attributes) -> AttributeError:
    """The same for ``module.name`` (a module's ``__getattr__``; ``attributes()`` lists its names)."""
    message = f"module {module!r} has no attribute {name!r}"
    found = hint(module, name, attributes)
    if found:
        message += f" ({found})"
    return AttributeError(message, name=name)


def flag_hint(flag: str, valid) -> str:
    """For an unknown Metadata flag: why a flag of Parthenon's that brickwork does not take is not needed, or
    how to write one it takes (``Metadata::Cell`` is ``"Cell"``); else ``""``."""
    bare = flag.removeprefix("Metadata::")
    text = _FLAG_HINTS.get(bare)
    if text is not None:
        return f" (Parthenon's {bare}: {text})"
    if bare != flag and bare in valid:
        return f" (write Parthenon's {flag!r} as {bare!r})"
    return ""


class AnswersParthenonNames:
    """A mixin for the mesh's classes: an attribute the object lacks raises ``missing_attribute``'s error, which
    names brickwork's spelling of a Parthenon name (``__getattr__`` runs only for a name not found otherwise)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        raise missing_attribute(self, name)


class EnumAnsweringParthenonNames(enum.EnumMeta):
    """The metaclass of the mesh's enums: a member the enum lacks names the one of the same letters
    (``IndexDomain.Interior``, Parthenon's ``IndexDomain::interior`` capitalised: ``IndexDomain.interior``),
    where the enum's own error says only ``AttributeError: Interior``."""

    def __getattr__(cls, name: str):
        members = cls.__dict__.get("_member_map_", {})
        if name in members:  # the base metaclass's lookup (Python 3.11 finds members here)
            return members[name]
        message = f"type object {cls.__name__!r} has no attribute {name!r}"
        same = [m for m in members if _folded(m) == _folded(name)] if not name.startswith("_") else []
        if same:
            message += f" (Parthenon's '{cls.__name__}::{same[0]}' is {cls.__name__}.{same[0]} here)"
        raise AttributeError(message, name=name, obj=cls)
