"""Block-structured mesh: blocks, fields, packs, boundaries, on the CPU or a CUDA device.

Modules, one job each:

* ``indexing``: ``IndexShape``, ``IndexRange``, ``IndexDomain``, ``TopologicalElement``
  (``TE``), ``TopologicalType``, ``X1DIR..X3DIR``.
* ``metadata``: ``Metadata`` flags; ``package``: ``Package`` and field declarations.
* ``mesh``: ``Mesh``, ``MeshBlock`` (layout, neighbours); ``coordinates``: block coordinates;
  ``fields``: the storage layout (one array per field); ``meshdata``: ``MeshData``; ``footprint``: the
  memory a mesh will take, checked before anything is allocated.
* ``pack``: ``VarTag``, ``PackDescriptor``, ``SparsePack``.
* ``storage``: field storage on a device; ``copies``: box-copy kernels.
* ``boundary``: boundary conditions; ``exchange``: ghost exchange plans; ``messages``: across ranks.

See ``docs/mesh.md`` for the user guide.
"""

from . import parthenon_names
from .boundary import BoundaryCondition
from .coordinates import UniformCoordinates
from .fields import Field
from .footprint import MeshSizeError
from .indexing import (
    TE,
    X1DIR,
    X2DIR,
    X3DIR,
    IndexDomain,
    IndexRange,
    IndexShape,
    TopologicalElement,
    TopologicalType,
)
from .mesh import Mesh, MeshBlock, NeighborBlock
from .meshdata import MeshData
from .metadata import Metadata, MetadataFlag
from .pack import PackDescriptor, SparsePack, VarRef, VarTag
from .package import FieldSpec, Package, SparsePool

__all__ = [
    "TE",
    "X1DIR",
    "X2DIR",
    "X3DIR",
    "BoundaryCondition",
    "Field",
    "FieldSpec",
    "IndexDomain",
    "IndexRange",
    "IndexShape",
    "Mesh",
    "MeshBlock",
    "MeshData",
    "MeshSizeError",
    "Metadata",
    "MetadataFlag",
    "NeighborBlock",
    "PackDescriptor",
    "Package",
    "SparsePack",
    "SparsePool",
    "TopologicalElement",
    "TopologicalType",
    "UniformCoordinates",
    "VarRef",
    "VarTag",
]


def __getattr__(name: str):
    """Only for a name this module lacks: Parthenon's (``StateDescriptor``, ``TaskList``) gets brickwork's."""
    raise parthenon_names.missing_module_attribute(__name__, name, lambda: list(globals()))
