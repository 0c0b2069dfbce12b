"""The interface shared by the dense-grid isosurface extractors (marching cubes, surface nets), as Warp 1.19's
``warp.geometry.IsoSurfaceBase``, and the checks and grid mapping they all apply."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..runtime.warp_names import wp

vec3, float32 = wp.vec3, wp.float32


def validate_field(field) -> None:
    """Refuse a field that is not a 3-D float32 array of at least two nodes on every axis (one cell)."""
    if not isinstance(field, wp.array):  # numpy's arrays have a shape, a dtype and a device too
        raise TypeError(f"Expected a float32 array for 'field', but got {type(field).__name__}.")
    shape = tuple(field.shape)
    if len(shape) != 3:
        raise ValueError(f"Expected a 3D array for 'field', but got an array with shape {shape}.")
    if any(n < 2 for n in shape):
        # a thinner field has no cell to extract from
        raise ValueError(
            f"Expected 'field' to have at least 2 nodes on each axis, but got an array with shape {shape}."
        )
    if field.dtype != float32:
        raise TypeError(f"Expected a dtype of wp.float32 for 'field', but got {field.dtype}.")


def check_bounds(name: str, value) -> None:
    """Refuse a bound that is neither None nor three numbers (before anything is stored or run)."""
    if value is None:
        return
    try:
        vec3(*value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"Expected '{name}' to be a vec3 or a sequence of 3 numbers, but got {value!r} "
                         f"({error}).") from None


def resolve_domain_bounds(shape, lower, upper) -> tuple[vec3, vec3]:
    """``(lower, cell size)`` of a grid of ``shape`` nodes spanning ``lower``..``upper``.

    ``lower`` defaults to the origin and ``upper`` to the last node's index, so that node ``(i, j, k)`` sits at
    ``(i, j, k)``."""
    cells = [float(n - 1) for n in shape[:3]]
    low = vec3(0.0, 0.0, 0.0) if lower is None else vec3(*lower)
    high = vec3(*cells) if upper is None else vec3(*upper)
    return low, vec3(*((high[a] - low[a]) / cells[a] for a in range(3)))


class IsoSurfaceBase(ABC):
    """A reusable extractor of the isosurface of a float32 field sampled at the nodes of an ``nx x ny x nz`` grid.

    ``surface(field, threshold)`` fills :attr:`verts` (``vec3``) and :attr:`indices` (flat ``int32``, three per
    triangle unless a backend is asked for quads); ``extract`` does one extraction without an instance. Node
    ``(0, 0, 0)`` maps to ``lower`` and ``(nx-1, ny-1, nz-1)`` to ``upper`` (defaults: the origin and the node
    indices themselves). Faces of a signed distance field (negative inside) wind counter-clockwise seen from
    outside. Vertex positions are differentiable with respect to the field (``wp.Tape``).
    """

    def __init__(self, nx: int, ny: int, nz: int, *, lower=None, upper=None):
        self.nx, self.ny, self.nz = nx, ny, nz
        self.lower, self.upper = lower, upper
        self.verts = None  # vec3 positions of the last surface()
        self.indices = None  # int32 face corners of the last surface()

    def resize(self, nx: int, ny: int, nz: int) -> None:
        """Take fields of ``nx x ny x nz`` nodes from the next :meth:`surface` on."""
        self.nx, self.ny, self.nz = nx, ny, nz

    def _check_field_shape(self, field) -> None:
        if tuple(field.shape) != (self.nx, self.ny, self.nz):
            grid = (self.nx, self.ny, self.nz)
            raise ValueError(f"Field shape {tuple(field.shape)} does not match context grid dimensions {grid}.")

    @abstractmethod
    def surface(self, field, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` (shape ``(nx, ny, nz)``) into ``verts``/``indices``."""

    @classmethod
    @abstractmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None):
        """``(verts, indices)`` of the ``threshold`` isosurface of ``field``, without keeping an instance."""
