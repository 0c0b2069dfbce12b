"""Field storage: one contiguous array per field, covering every local block, on the mesh's device.

Layout of ``Field.data``: ``(nblocks, nslots, nk, nj, ni)``, C order, ghosts included.

* The slot axis is element-major: slot ``e * ncomp + c`` holds component ``c`` (flattened
  component shape, C order) of element ``e`` (``int(te) % 3``: F1/E1 -> 0, F2/E2 -> 1,
  F3/E3 -> 2; Cell and Node fields have the single element 0). So ``nslots = ncomp`` for
  Cell/Node fields and ``3 * ncomp`` for Face/Edge fields.
* Cell fields (and Face/Edge/Node fields with ``CellMemAligned``) use the cell memory extents,
  ``IndexShape.memory_extents(CC)``: ``nx + 2*ng`` per active direction, 1 per inactive one.
  Other Face/Edge/Node fields use the node extents ``memory_extents(NN)``, one more per active
  direction, shared by all three elements (some slots of F1 at ``j = nj-1`` are never used).
* ``Field.flux`` (fields with ``WithFluxes``): ``(nblocks, ndim * ncomp, nk, nj, ni)`` with the
  cell memory extents, direction-major (slot ``(dir-1) * ncomp + c``). The flux through the
  lower face of cell ``(k, j, i)`` is stored at ``(k, j, i)``; face ``ie+1`` lands in a ghost slot.
* On the CPU the arrays are numpy arrays; on a CUDA device they are ``storage.DeviceStorage``
  (the same shape and layout in device memory; the host side, ``element``, ``block``, indexing,
  sees copies).
* A sparse instance allocates its arrays the first time any local block allocates it. Blocks where
  it is not allocated hold zeros: ``Mesh.fill_ghosts`` zeroes them before and after the exchange
  (``zero_unallocated``), so a neighbour reading them in a ghost exchange reads zeros.
"""

from __future__ import annotations

import numpy as np

from . import storage
from .indexing import TE, IndexShape, TopologicalElement, TopologicalType
from .metadata import MetadataFlag
from .package import FieldSpec


def cell_like(spec: FieldSpec) -> bool:
    """Whether a field of ``spec`` is stored with the cell memory extents (else the node extents)."""
    return spec.topological_type == TopologicalType.Cell or spec.has(MetadataFlag.CellMemAligned)


class Field:
    """The storage of one dense field or one sparse instance on the local blocks."""

    def __init__(self, spec: FieldSpec, shape: IndexShape, nblocks: int, device=None, rank: tuple | None = None):
        """``rank``: ``(rank, nranks)`` of the process on a mesh spread over several ranks (for messages)."""
        from ..device import CPU

        self.spec = spec
        self.device = CPU if device is None else device
        self.ndim = shape.ndim
        self.nblocks = nblocks
        self.extents = shape.memory_extents(TE.CC if cell_like(spec) else TE.NN)
        self.cell_extents = shape.memory_extents(TE.CC)
        self.data = None  # numpy array, or DeviceStorage on a CUDA device
        self.flux = None
        self.allocated = np.zeros(nblocks, dtype=bool)
        self.rank = rank
        self._zero_fill = None  # (key, copies.ZeroFill) of the last zero_unallocated on a device
        if not spec.is_sparse:
            self._create_arrays()
            self.allocated[:] = True

    def __repr__(self) -> str:
        state = "unallocated" if self.data is None else f"shape={self.data.shape}"
        return f"Field({self.name!r}, {state}, dtype={self.spec.dtype})"

    @property
    def name(self) -> str:
        """The field's full name (``base_id`` for a sparse instance)."""
        return self.spec.name

    @property
    def has_fluxes(self) -> bool:
        """True when the field was declared ``WithFluxes``."""
        return self.spec.has(MetadataFlag.WithFluxes)

    @property
    def grad(self) -> np.ndarray:
        """The gradient of ``data`` (same shape, zeros until a ``wp.Tape`` backward pass adds into it;
        created on first use, where ``data`` lives: on a CUDA device a ``storage.DeviceStorage``)."""
        data = self._require_data()
        if getattr(self, "_grad", None) is None or self._grad.shape != data.shape:
            self._grad = storage.zeros(data.shape, data.dtype, self.device)
        return self._grad

    @property
    def flux_grad(self) -> np.ndarray | None:
        """The gradient of ``flux`` (None without fluxes; created on first use, where ``flux`` lives)."""
        if self.flux is None:
            return None
        if getattr(self, "_flux_grad", None) is None or self._flux_grad.shape != self.flux.shape:
            self._flux_grad = storage.zeros(self.flux.shape, self.flux.dtype, self.device)
        return self._flux_grad

    def zero_grad(self) -> None:
        """Set the gradients of ``data`` and ``flux`` to zero (where they exist; on a device, memsets)."""
        for g in (getattr(self, "_grad", None), getattr(self, "_flux_grad", None)):
            if isinstance(g, storage.DeviceStorage):
                g.zero()
            elif g is not None:
                g[...] = 0

    def _create_arrays(self) -> None:
        spec = self.spec
        self.data = storage.zeros((self.nblocks, spec.nslots, *self.extents), spec.dtype, self.device)
        if self.has_fluxes:
            self.flux = storage.zeros((self.nblocks, self.ndim * spec.ncomp, *self.cell_extents), spec.dtype,
                                      self.device)

    def element_slots(self, te: TopologicalElement) -> slice:
        """Slice of the slot axis holding element ``te``; ValueError if the field lacks it."""
        te = TopologicalElement(te)
        if te not in self.spec.elements:
            valid = ", ".join(e.name for e in self.spec.elements)
            raise ValueError(f"field {self.name!r} has no element {te.name} (it has {valid})")
        e = self.spec.elements.index(te)
        return slice(e * self.spec.ncomp, (e + 1) * self.spec.ncomp)

    def element(self, te: TopologicalElement = TE.CC) -> np.ndarray:
        """View ``(nblocks, ncomp, nk, nj, ni)`` of one element (on a CUDA device: a read-only host copy)."""
        return storage.host_view(self._require_data(), (slice(None), self.element_slots(te)))

    def flux_array(self, direction: int) -> np.ndarray:
        """View ``(nblocks, ncomp, nk, nj, ni)`` of the fluxes in ``direction`` (on a CUDA device: a read-only host
        copy)."""
        if not self.has_fluxes:
            raise ValueError(f"field {self.name!r} has no flux arrays (declare it with Metadata.WithFluxes)")
        if direction not in range(1, self.ndim + 1):
            raise ValueError(
                f"field {self.name!r}: flux direction {direction!r} is not active (valid 1..{self.ndim})"
            )
        nc = self.spec.ncomp
        flux = self.flux
        assert flux is not None, "flux arrays are allocated together with data"
        return storage.host_view(flux, (slice(None), slice((direction - 1) * nc, direction * nc)))

    def _require_data(self) -> np.ndarray:
        if self.data is None:
            if self.rank is None:
                raise ValueError(f"sparse field {self.name!r} is not allocated on any block")
            rank, nranks = self.rank
            raise ValueError(
                f"sparse field {self.name!r} is not allocated on any block of rank {rank} (of {nranks}), so this "
                f"rank stores no array for it (other ranks' blocks may have it; each rank stores only its own "
                f"blocks). Check `mesh.field({self.name!r}).data is None` before using it here")
        return self.data

    def block(self, lid: int) -> np.ndarray:
        """View ``(nslots, nk, nj, ni)`` of one local block (on a CUDA device: a read-only host copy)."""
        return storage.host_view(self._require_data(), lid)

    def allocate(self, lid: int) -> bool:
        """Allocate on local block ``lid``; returns False if it already was."""
        if self.allocated[lid]:
            return False
        if self.data is None:
            self._create_arrays()
        self.allocated[lid] = True
        return True

    def deallocate(self, lid: int) -> bool:
        """Deallocate a sparse instance on block ``lid`` (its values become zero); False if absent."""
        if not self.spec.is_sparse:
            raise ValueError(f"field {self.name!r} is dense: only sparse fields can be deallocated")
        if not self.allocated[lid]:
            return False
        self.allocated[lid] = False
        if not self.allocated.any():
            self.data = None
            self.flux = None
            return True
        self.zero_unallocated()
        return True

    def zero_unallocated(self) -> None:
        """Keep the invariant that blocks without this sparse instance hold zeros."""
        if self.data is None or self.allocated.all():
            return
        absent = ~self.allocated
        if isinstance(self.data, storage.DeviceStorage):  # a kernel, so the exchange stays on the device
            self._zero_blocks_on_device(np.flatnonzero(absent))
            return
        self.data[absent] = 0
        if self.flux is not None:
            self.flux[absent] = 0

    def zero_unallocated_grad(self) -> None:
        """Set the gradient of the blocks without this sparse instance to zero (on a device, by a kernel)."""
        if self.data is None or self.allocated.all():
            return
        absent = ~self.allocated
        grad = self.grad
        if not isinstance(grad, storage.DeviceStorage):
            grad[absent] = 0
            return
        from .copies import ZeroFill

        key = (storage.address(grad), tuple(np.flatnonzero(absent).tolist()))
        if getattr(self, "_grad_zero_fill", None) is None or self._grad_zero_fill[0] != key:
            self._grad_zero_fill = (key, ZeroFill([grad], self.device, key[1]))
        self._grad_zero_fill[1].run()

    def _zero_blocks_on_device(self, lids) -> None:
        """Zero blocks ``lids`` of the device arrays with a kernel (kept for the next call with the same
        arrays and blocks: ``fill_ghosts`` zeroes the same blocks before and after every exchange)."""
        from .copies import ZeroFill

        arrays = [a for a in (self.data, self.flux) if a is not None]
        key = (tuple(storage.address(a) for a in arrays), tuple(int(lid) for lid in lids))
        if self._zero_fill is None or self._zero_fill[0] != key:
            self._zero_fill = (key, ZeroFill(arrays, self.device, key[1]))
        self._zero_fill[1].run()
