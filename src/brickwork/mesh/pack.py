"""Variable tags, pack descriptors and sparse packs.

A ``PackDescriptor`` names variables (fields, sparse pools, or all fields with given flags); its
``get_pack(md)`` gives a ``SparsePack`` over the blocks of a ``MeshData``. Host access::

    rho, mom = VarTag("density"), VarTag("momentum")
    desc = PackDescriptor(mesh, [rho, mom], with_fluxes=True)
    pack = desc.get_pack(mesh.mesh_data())
    pack[b, mom(1), k, j, i] = 2.0            # component 1 of momentum on pack block b
    pack[b, TE.F1, VarTag("B")(0), k, j, i]  # element F1 of a face field
    pack[b, idx, k, j, i]                     # flat variable index
    pack.flux(b, X1DIR, rho(), k, j, i)       # flux of density through x1 faces
    pack[b, rho()]                            # leave out k, j, i for a (nk, nj, ni) view

Flat index space (per block, as in Parthenon): the descriptor's variables in order; variable ``v``
occupies ``[get_lower_bound(b, v), get_upper_bound(b, v)]``, one index per component of every
instance allocated on block b (sparse instances are *densified per block*: instance ``s`` of a
pool is the s-th allocated one, at ``lb + s * ncomp + c``). An absent variable has bounds
``(-1, -2)`` and size 0. Face/Edge fields use one flat index per component; the element is chosen
by the ``TopologicalElement`` in the key.

Host access reads and writes the storage; on a CUDA device each access copies (see ``storage``).

Layout for compiled kernels (all numpy arrays, built once per pack):

* ``pack.arrays``: list of field storage arrays ``(nblocks_mesh, nslots, nk, nj, ni)`` (see
  ``fields``); ``pack.flux_arrays``: the flux arrays ``(nblocks_mesh, ndim*ncomp, nk, nj, ni)``.
* ``pack.index_table``: int32 ``(nblocks, max_vars, 4)``; row ``[b, idx]`` is
  ``(array_id, lid, slot, elem_stride)``: the value of flat index ``idx`` on pack block ``b`` for
  element ``te`` is ``arrays[array_id][lid, slot + (int(te) % 3) * elem_stride, k, j, i]``
  (Cell/Node fields: element term 0). Unused rows are -1.
* ``pack.flux_table``: int32 ``(nblocks, max_vars, 4)``; ``(flux_array_id, lid, slot,
  dir_stride)``: the flux in direction ``dir`` is
  ``flux_arrays[flux_array_id][lid, slot + (dir - 1) * dir_stride, k, j, i]``; -1 rows where the
  variable has no fluxes (or the pack was built without ``with_fluxes``).
* ``pack.bounds``: int32 ``(nblocks, nvars, 2)`` lower/upper flat bounds per descriptor variable.
* ``pack.block_lids``: int64 ``(nblocks,)``, the storage block of each pack block.

Packs hold references to the storage arrays, so they see every value change; after a sparse
allocation changes, call ``get_pack`` again (it caches per MeshData and allocation state).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .indexing import TopologicalElement
from .metadata import MetadataFlag, as_flag
from .package import FieldSpec, Package


@dataclass(frozen=True)
class VarRef:
    """A variable tag with a chosen component (what ``tag(c)`` returns)."""

    tag: VarTag
    component: int

    @property
    def name(self) -> str:
        """The variable's name."""
        return self.tag.name


@dataclass(frozen=True)
class VarTag:
    """Names a variable in a pack: a field, a sparse pool's base name or a sparse instance.

    Kernel code calls tags at compile time: ``rho(1)`` names component 1 of "rho"."""

    name: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"VarTag needs a non-empty field name, got {self.name!r}")

    def __call__(self, component: int = 0) -> VarRef:
        try:
            c = operator.index(component)
        except TypeError:
            raise TypeError(
                f"variable {self.name!r}: component must be an integer, got {component!r}"
            ) from None
        return VarRef(self, c)


def _as_tag(var: object) -> VarTag:
    if isinstance(var, VarTag):
        return var
    if isinstance(var, VarRef):
        return var.tag
    if isinstance(var, str):
        return VarTag(var)
    raise TypeError(f"expected a VarTag, a var(c) reference or a field name, got {var!r}")


def _packages_of(source: object) -> list[Package]:
    if isinstance(source, Package):
        return [source]
    mesh = getattr(source, "mesh", source)  # a MeshData has .mesh
    if hasattr(mesh, "packages") and hasattr(mesh, "fields"):
        return list(mesh.packages)
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes)):
        pkgs = list(source)
        if all(isinstance(p, Package) for p in pkgs):
            return pkgs
    raise TypeError(
        f"PackDescriptor source must be a Mesh, MeshData, Package or list of Packages, got {source!r}"
    )


class PackDescriptor:
    """Which variables a pack holds, resolved against packages once.

    ``PackDescriptor(source, vars=None, flags=(), with_fluxes=False)``: ``source`` is a Mesh,
    MeshData, Package or list of Packages; ``vars`` lists field names or ``VarTag``s (None: every
    field having all ``flags``); ``flags`` are ``Metadata`` flags each variable must have;
    ``with_fluxes`` adds the flux arrays of ``WithFluxes`` fields.
    """

    def __init__(
        self, source: object, vars: Iterable | None = None, flags: Iterable = (), *, with_fluxes=False
    ):
        packages = _packages_of(source)
        dense: dict[str, FieldSpec] = {}
        pools: dict[str, tuple[FieldSpec, ...]] = {}
        instances: dict[str, FieldSpec] = {}
        for pkg in packages:
            for name, spec in pkg.fields.items():
                (instances if spec.is_sparse else dense)[name] = spec
            for base, pool in pkg.sparse_pools.items():
                pools[base] = pool.instances
        if isinstance(flags, (MetadataFlag, str)):
            flags = (flags,)
        self.flags = tuple(as_flag(f) for f in flags)
        self.with_fluxes = bool(with_fluxes)
        if vars is None:
            names = [n for n in dense] + [b for b in pools]
            tags = [
                VarTag(n) for n in names if self._specs_for(n, dense, pools, instances)[0].has(*self.flags)
            ]
        else:
            if isinstance(vars, (str, VarTag)):
                vars = [vars]
            tags = [_as_tag(v) for v in vars]
        seen: set[str] = set()
        self._specs: list[tuple[FieldSpec, ...]] = []
        for tag in tags:
            if tag.name in seen:
                raise ValueError(f"PackDescriptor: variable {tag.name!r} is listed twice")
            seen.add(tag.name)
            specs = self._specs_for(tag.name, dense, pools, instances)
            missing = [f.name for f in self.flags if not specs[0].has(f)]
            if missing:
                raise ValueError(
                    f"PackDescriptor: field {tag.name!r} lacks the required flags {', '.join(missing)}"
                )
            self._specs.append(specs)
        self.vars: tuple[VarTag, ...] = tuple(tags)
        self._position = {tag.name: v for v, tag in enumerate(tags)}

    @staticmethod
    def _specs_for(name, dense, pools, instances) -> tuple[FieldSpec, ...]:
        if name in dense:
            return (dense[name],)
        if name in pools:
            return pools[name]
        if name in instances:
            return (instances[name],)
        known = sorted(set(dense) | set(pools))
        raise KeyError(f"PackDescriptor: unknown field {name!r} (known fields: {', '.join(known) or 'none'})")

    def __repr__(self) -> str:
        return f"PackDescriptor(vars={[t.name for t in self.vars]}, with_fluxes={self.with_fluxes})"

    def var_position(self, var: object) -> int:
        """Position of ``var`` among the descriptor's variables; KeyError if absent."""
        name = _as_tag(var).name
        if name not in self._position:
            listing = ", ".join(t.name for t in self.vars)
            raise KeyError(f"variable {name!r} is not in this pack (it holds: {listing or 'nothing'})")
        return self._position[name]

    def get_pack(self, md) -> SparsePack:
        """The pack over the blocks of ``md``, reused while no sparse allocation changes."""
        version = md.mesh.allocation_version
        cached = md._packs.get(self)
        if cached is not None and cached[0] == version:
            return cached[1]
        pack = SparsePack(self, md)
        md._packs[self] = (version, pack)
        return pack


def _check_value(value: object, dtype: np.dtype, what: str) -> None:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biufc" or not np.can_cast(arr.dtype, dtype, casting="same_kind"):
        raise TypeError(f"cannot store {arr.dtype} values in {what} (dtype {dtype})")


class SparsePack:
    """Variables of a ``PackDescriptor`` over the blocks of a ``MeshData`` (see module docstring)."""

    def __init__(self, descriptor: PackDescriptor, md):
        mesh = md.mesh
        self.descriptor = descriptor
        self.md = md
        self.ndim = mesh.ndim
        self.block_lids = np.array(md.lids, dtype=np.int64)
        self.arrays: list[np.ndarray] = []
        self.flux_arrays: list[np.ndarray] = []
        self._fields: list = []  # Field per array id
        self._flux_fields: list = []  # Field per flux array id
        array_id: dict[str, int] = {}
        flux_id: dict[str, int] = {}
        nb, nv = len(self.block_lids), len(descriptor.vars)
        self.bounds = np.empty((nb, nv, 2), dtype=np.int32)
        self.bounds[..., 0], self.bounds[..., 1] = -1, -2
        rows: list[list[tuple]] = []
        flux_rows: list[list[tuple]] = []
        self._names: list[list[tuple[str, int]]] = []  # (variable, component) per flat index
        for b, lid in enumerate(self.block_lids):
            row, frow, names = [], [], []
            for v, specs in enumerate(descriptor._specs):
                start = len(row)
                for spec in specs:
                    fld = mesh.fields.get(spec.name)
                    if fld is None:
                        raise KeyError(f"field {spec.name!r} of the descriptor is not on this mesh")
                    if not fld.allocated[lid]:
                        continue
                    if spec.name not in array_id:
                        array_id[spec.name] = len(self.arrays)
                        self.arrays.append(fld.data)
                        self._fields.append(fld)
                    fid = -1
                    if descriptor.with_fluxes and fld.has_fluxes:
                        if spec.name not in flux_id:
                            flux_id[spec.name] = len(self.flux_arrays)
                            self.flux_arrays.append(fld.flux)
                            self._flux_fields.append(fld)
                        fid = flux_id[spec.name]
                    nc = spec.ncomp
                    for c in range(nc):
                        row.append((array_id[spec.name], int(lid), c, nc))
                        frow.append((fid, int(lid), c, nc) if fid >= 0 else (-1, -1, -1, -1))
                        names.append((descriptor.vars[v].name, len(row) - 1 - start))
                if len(row) > start:
                    self.bounds[b, v] = (start, len(row) - 1)
            rows.append(row)
            flux_rows.append(frow)
            self._names.append(names)
        self.max_vars = max((len(r) for r in rows), default=0)
        self.index_table = np.full((nb, self.max_vars, 4), -1, dtype=np.int32)
        self.flux_table = np.full((nb, self.max_vars, 4), -1, dtype=np.int32)
        for b in range(nb):
            if rows[b]:
                self.index_table[b, : len(rows[b])] = rows[b]
                self.flux_table[b, : len(rows[b])] = flux_rows[b]

    def __repr__(self) -> str:
        return f"SparsePack(nblocks={self.get_nblocks()}, vars={[t.name for t in self.descriptor.vars]})"

    # -- queries --------------------------------------------------------------------------------
    def kernel_value(self, adjoint: bool = False):
        """This pack as a kernel argument (see ``brickwork.mesh.kernel_pack``); ``adjoint``: the same
        over the fields' gradients (what a backward kernel adds into)."""
        cached = self.__dict__.get("_adjoint_kernel_value" if adjoint else "_kernel_value")
        if cached is not None:  # the launch path: no import statement
            return cached
        from .kernel_pack import kernel_value

        return kernel_value(self, adjoint)

    def zero_grad(self) -> None:
        """Set the gradients of the fields the pack reaches to zero."""
        for fld in self.fields():
            fld.zero_grad()

    def fields(self) -> list:
        """The fields whose storage (data or fluxes) the pack reaches."""
        return list(dict.fromkeys([*self._fields, *self._flux_fields]))

    def get_nblocks(self) -> int:
        """Number of blocks in the pack."""
        return len(self.block_lids)

    def get_max_number_of_vars(self) -> int:
        """Largest flat variable count over the pack's blocks."""
        return self.max_vars

    def _block(self, b: object) -> int:
        try:
            bi = operator.index(b)
        except TypeError:
            raise TypeError(f"pack block index must be an integer, got {b!r}") from None
        if not 0 <= bi < len(self.block_lids):
            raise IndexError(f"block index {bi} out of range for a pack of {len(self.block_lids)} blocks")
        return bi

    def get_lower_bound(self, b: int, var: object) -> int:
        """First flat index of ``var`` on block ``b``; -1 if absent there."""
        return int(self.bounds[self._block(b), self.descriptor.var_position(var), 0])

    def get_upper_bound(self, b: int, var: object) -> int:
        """Last flat index of ``var`` on block ``b``; -2 if absent there."""
        return int(self.bounds[self._block(b), self.descriptor.var_position(var), 1])

    def get_size(self, b: int, var: object) -> int:
        """Number of flat indices of ``var`` on block ``b`` (upper - lower + 1; 0 if absent)."""
        return self.get_upper_bound(b, var) - self.get_lower_bound(b, var) + 1

    def get_index(self, b: int, var: object) -> int:
        """Flat index of ``var(c)`` on block ``b`` (lower bound + c); -1 if absent."""
        lb = self.get_lower_bound(b, var)
        return -1 if lb < 0 else lb + (var.component if isinstance(var, VarRef) else 0)

    def contains(self, b: int, var: object) -> bool:
        """True when ``var`` has at least one instance on block ``b``."""
        return self.get_size(b, var) > 0

    # -- element access -------------------------------------------------------------------------
    def _flat(self, b: int, var: object) -> int:
        if isinstance(var, (VarTag, VarRef, str)):
            comp = var.component if isinstance(var, VarRef) else 0
            name = _as_tag(var).name
            lb, size = self.get_lower_bound(b, var), self.get_size(b, var)
            if size == 0:
                raise IndexError(f"variable {name!r} is not allocated on pack block {b}")
            if not 0 <= comp < size:
                raise IndexError(
                    f"component {comp} out of range for variable {name!r} on pack block {b} "
                    f"(valid 0..{size - 1})"
                )
            return lb + comp
        try:
            idx = operator.index(var)
        except TypeError:
            raise TypeError(f"expected a variable (VarTag, var(c)) or a flat index, got {var!r}") from None
        n = int((self.index_table[b, :, 0] >= 0).sum())
        if not 0 <= idx < n:
            raise IndexError(f"flat variable index {idx} out of range on pack block {b} (valid 0..{n - 1})")
        return idx

    def _locate(
        self, b: object, te: TopologicalElement | None, var: object
    ) -> tuple[np.ndarray, int, int, str]:
        bi = self._block(b)
        flat = self._flat(bi, var)
        aid, lid, slot, stride = (int(x) for x in self.index_table[bi, flat])
        fld = self._fields[aid]
        elements = fld.spec.elements
        name = self._names[bi][flat][0]
        if te is None:
            if len(elements) > 1:
                valid = ", ".join(e.name for e in elements)
                raise IndexError(
                    f"variable {name!r} is a {fld.spec.topological_type.name} field: give an element "
                    f"({valid}), e.g. pack[b, TE.{elements[0].name}, var(c), k, j, i]"
                )
            e = 0
        else:
            if te not in elements:
                valid = ", ".join(x.name for x in elements)
                raise IndexError(f"variable {name!r} has no element {te.name} (it has {valid})")
            e = elements.index(te)
        return self.arrays[aid], lid, slot + e * stride, name

    @staticmethod
    def _split(key: object) -> tuple[object, TopologicalElement | None, object, tuple]:
        if not isinstance(key, tuple) or len(key) < 2:
            raise IndexError("pack keys are pack[b, var, k, j, i] or pack[b, te, var, k, j, i]")
        if isinstance(key[1], TopologicalElement):
            if len(key) < 3:
                raise IndexError("pack[b, te, var, ...] needs a variable after the element")
            return key[0], key[1], key[2], key[3:]
        return key[0], None, key[1], key[2:]

    def __getitem__(self, key):
        b, te, var, kji = self._split(key)
        arr, lid, slot, _ = self._locate(b, te, var)
        return arr[(lid, slot, *kji)]

    def __setitem__(self, key, value) -> None:
        b, te, var, kji = self._split(key)
        arr, lid, slot, name = self._locate(b, te, var)
        _check_value(value, arr.dtype, f"variable {name!r}")
        arr[(lid, slot, *kji)] = value

    @property
    def flux(self) -> "_FluxAccess":
        """Fluxes: ``pack.flux(b, dir, var, k, j, i)`` reads, ``pack.flux[b, dir, var, k, j, i] = f``
        writes (the same form works in kernel code); without k, j, i a writable (nk, nj, ni) view."""
        return _FluxAccess(self)

    def _flux(self, b: int, direction: int, var: object, *kji):
        storage, index = self._flux_location(b, direction, var)
        return storage[index + tuple(kji)]

    def _flux_location(self, b: int, direction: int, var: object) -> tuple:
        """(flux storage, (lid, slot)) of ``var``'s flux in ``direction`` on pack block ``b``."""
        if not self.descriptor.with_fluxes:
            raise ValueError("this pack has no fluxes: build its PackDescriptor with with_fluxes=True")
        if direction not in range(1, self.ndim + 1):
            raise IndexError(
                f"flux direction {direction!r} is not active in a {self.ndim}-D mesh (valid 1..{self.ndim})"
            )
        bi = self._block(b)
        flat = self._flat(bi, var)
        fid, lid, slot, stride = (int(x) for x in self.flux_table[bi, flat])
        if fid < 0:
            name = self._names[bi][flat][0]
            raise ValueError(f"variable {name!r} has no flux arrays (declare it with Metadata.WithFluxes)")
        return self.flux_arrays[fid], (lid, slot + (direction - 1) * stride)


class _FluxAccess:
    """``pack.flux``: callable for reads, subscriptable for reads and writes."""

    __slots__ = ("pack",)

    def __init__(self, pack: SparsePack):
        self.pack = pack

    def __call__(self, b, direction, var, *kji):
        return self.pack._flux(b, direction, var, *kji)

    def __getitem__(self, key):
        b, direction, var, *kji = key
        return self.pack._flux(b, direction, var, *kji)

    def __setitem__(self, key, value) -> None:
        b, direction, var, *kji = key
        if len(kji) != 3:
            raise IndexError("pack.flux[b, dir, var, k, j, i] = value needs k, j and i")
        storage, index = self.pack._flux_location(b, direction, var)
        _check_value(value, storage.dtype, "flux")
        storage[index + tuple(kji)] = value  # through the storage: on a device a view would be a copy
