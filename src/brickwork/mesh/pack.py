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
from .parthenon_names import AnswersParthenonNames
from .storage import host_view


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


class PackDescriptor(AnswersParthenonNames):
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


def _check_value(value: object, dtype: np.dtype, what) -> None:
    """TypeError unless ``value`` casts to ``dtype``; ``what`` (a text, or a function giving it, called
    only on error) names the destination."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "biufc" or not np.can_cast(arr.dtype, dtype, casting="same_kind"):
        what = what() if callable(what) else what
        raise TypeError(f"cannot store {arr.dtype} values in {what} (dtype {dtype})")


class _Columns:
    """Per-field facts of a descriptor over some blocks, in descriptor order (one entry per field
    spec: a dense field, or each instance of a sparse pool), computed once per pack."""

    def __init__(self, descriptor: PackDescriptor, mesh, lids: np.ndarray):
        specs = [(v, spec) for v, group in enumerate(descriptor._specs) for spec in group]
        self.fields = [_field_of(mesh, spec) for _, spec in specs]
        self.var = np.array([v for v, _ in specs], dtype=np.int64)
        self.ncomp = np.array([spec.ncomp for _, spec in specs], dtype=np.int64)
        # alloc[b, s]: field s is allocated on pack block b
        self.alloc = np.zeros((len(lids), len(specs)), dtype=bool)
        for s, fld in enumerate(self.fields):
            self.alloc[:, s] = fld.allocated[lids]
        sizes = self.alloc * self.ncomp  # flat indices of each field on each block
        self.ends = np.cumsum(sizes, axis=1)
        self.starts = self.ends - sizes


def _field_of(mesh, spec: FieldSpec):
    fld = mesh.fields.get(spec.name)
    if fld is None:
        raise KeyError(f"field {spec.name!r} of the descriptor is not on this mesh")
    mine = fld.spec
    if (mine.shape, mine.dtype, mine.metadata) != (spec.shape, spec.dtype, spec.metadata):
        # the tables would count the descriptor's components over this mesh's storage: rho(1) of a
        # descriptor's 2-component 'rho' over a mesh's scalar one wrote past its storage
        raise ValueError(f"field {spec.name!r} of the descriptor (shape {spec.shape}, {spec.dtype}, {spec.metadata}) "
                         f"is not this mesh's (shape {mine.shape}, {mine.dtype}, {mine.metadata}): build the "
                         f"PackDescriptor from the mesh (or mesh data) the pack is for")
    return fld


def _first_use_ids(cols: _Columns, wanted: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Storage ids of the ``wanted`` fields: (id per column or -1, first column of each id).

    Ids count distinct fields in the order a block-major scan first meets them allocated (the
    first block, then descriptor order): packs built before keep the same array order."""
    first: dict[str, int] = {}  # a field listed twice (pool and instance) shares one id
    for s, fld in enumerate(cols.fields):
        first.setdefault(fld.name, s)
    used = [s for s in first.values() if wanted[s] and cols.alloc[:, s].any()]
    first_block = {s: int(cols.alloc[:, s].argmax()) for s in used}
    order = sorted(used, key=lambda s: (first_block[s], s))
    id_of = {cols.fields[s].name: i for i, s in enumerate(order)}
    ids = np.array([id_of.get(f.name, -1) for f in cols.fields], dtype=np.int64)
    return ids, order


def _bounds(cols: _Columns, nvars: int) -> np.ndarray:
    """(nblocks, nvars, 2) first/last flat index of each variable; (-1, -2) where absent."""
    nb = cols.alloc.shape[0]
    bounds = np.empty((nb, nvars, 2), dtype=np.int32)
    bounds[..., 0], bounds[..., 1] = -1, -2
    if nvars:
        first = np.searchsorted(cols.var, np.arange(nvars), side="left")  # first column of each var
        last = np.searchsorted(cols.var, np.arange(nvars), side="right") - 1
        lower, upper = cols.starts[:, first], cols.ends[:, last] - 1
        present = upper >= lower
        bounds[..., 0] = np.where(present, lower, -1)
        bounds[..., 1] = np.where(present, upper, -2)
    return bounds


def _tables(cols: _Columns, lids: np.ndarray, aid: np.ndarray, fid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The index and flux tables: one row ``(id, lid, component, ncomp)`` per flat index."""
    nb = len(lids)
    width = int(cols.ends[:, -1].max()) if cols.ends.size else 0
    index_table = np.full((nb, width, 4), -1, dtype=np.int32)
    flux_table = np.full((nb, width, 4), -1, dtype=np.int32)
    col = np.repeat(np.arange(len(cols.ncomp)), cols.ncomp)  # field column of each component
    comp = np.arange(len(col)) - np.repeat(np.cumsum(cols.ncomp) - cols.ncomp, cols.ncomp)
    b, c = np.nonzero(cols.alloc[:, col])  # (block, component) pairs present, block-major
    s = col[c]
    pos = cols.starts[b, s] + comp[c]
    index_table[b, pos] = np.stack([aid[s], lids[b], comp[c], cols.ncomp[s]], axis=1)
    f = fid[s] >= 0
    flux_table[b[f], pos[f]] = np.stack([fid[s[f]], lids[b[f]], comp[c[f]], cols.ncomp[s[f]]], axis=1)
    return index_table, flux_table


class SparsePack(AnswersParthenonNames):
    """Variables of a ``PackDescriptor`` over the blocks of a ``MeshData`` (see module docstring)."""

    def __init__(self, descriptor: PackDescriptor, md):
        mesh = md.mesh
        self.descriptor = descriptor
        self.md = md
        self.ndim = mesh.ndim
        self.block_lids = np.array(md.lids, dtype=np.int64)
        # numpy over (blocks, fields): Python work here is per field, never per block
        cols = _Columns(descriptor, mesh, self.block_lids)
        aid, order = _first_use_ids(cols, np.ones(len(cols.fields), dtype=bool))
        with_flux = [descriptor.with_fluxes and fld.has_fluxes for fld in cols.fields]
        fid, flux_order = _first_use_ids(cols, np.array(with_flux, dtype=bool))
        self._fields: list = [cols.fields[s] for s in order]  # Field per array id
        self._flux_fields: list = [cols.fields[s] for s in flux_order]  # Field per flux array id
        self.arrays: list[np.ndarray] = [fld.data for fld in self._fields]
        self.flux_arrays: list[np.ndarray] = [fld.flux for fld in self._flux_fields]
        self.bounds = _bounds(cols, len(descriptor.vars))
        self.index_table, self.flux_table = _tables(cols, self.block_lids, aid, fid)
        self.max_vars = self.index_table.shape[1]

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

    def get_lower_bound(self, b: int, var: object = None) -> int:
        """First flat index of ``var`` on block ``b``; -1 if absent there. Without ``var`` (Parthenon's
        ``GetLowerBound(b)``): the first of all the block's variables, 0."""
        if var is None:
            self._block(b)
            return 0
        return int(self.bounds[self._block(b), self.descriptor.var_position(var), 0])

    def get_upper_bound(self, b: int, var: object = None) -> int:
        """Last flat index of ``var`` on block ``b``; -2 if absent there. Without ``var`` (Parthenon's
        ``GetUpperBound(b)``): the last of all the block's variables, -1 if it holds none."""
        if var is None:  # a block's flat indices run from 0 without gaps: its last is the largest upper bound
            uppers = self.bounds[self._block(b), :, 1]
            return max(int(uppers.max()), -1) if uppers.size else -1
        return int(self.bounds[self._block(b), self.descriptor.var_position(var), 1])

    def get_size(self, b: int, var: object) -> int:
        """Number of flat indices of ``var`` on block ``b`` (upper - lower + 1; 0 if absent)."""
        return self.get_upper_bound(b, var) - self.get_lower_bound(b, var) + 1

    def get_index(self, b: int, var: object) -> int:
        """Flat index of ``var(c)`` on block ``b`` (lower bound + c); -1 if absent. A component out of the variable's
        range is an IndexError (``rho(-1)`` gave the index of the variable before, ``mom(3)`` of the one after)."""
        lb = self.get_lower_bound(b, var)
        return -1 if lb < 0 else self._flat(b, var)

    def contains(self, b: int, *vars: object) -> bool:
        """Parthenon's ``Contains``: ``contains(b, var)`` is True when ``var`` has at least one instance on
        block ``b``; ``contains(b, v1, v2, ...)`` when all of them do; ``contains(b)`` when the block holds any
        of the pack's variables. A variable the pack was not built with is a KeyError (every one is checked)."""
        if not vars:
            return self.get_upper_bound(b) >= 0
        sizes = [self.get_size(b, var) for var in vars]
        return all(size > 0 for size in sizes)

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

    def _var_name(self, b: int, flat: int) -> str:
        """Name of the descriptor variable holding flat index ``flat`` on pack block ``b``."""
        lower, upper = self.bounds[b, :, 0], self.bounds[b, :, 1]
        v = int(np.flatnonzero((lower <= flat) & (flat <= upper))[0])
        return self.descriptor.vars[v].name

    def _locate(
        self, b: object, te: TopologicalElement | None, var: object
    ) -> tuple[np.ndarray, int, int, tuple[int, int]]:
        """(storage, lid, slot, (pack block, flat index)) of an element; the variable's name is
        looked up only for an error (host access is a hot path)."""
        bi = self._block(b)
        flat = self._flat(bi, var)
        aid, lid, slot, stride = (int(x) for x in self.index_table[bi, flat])
        fld = self._fields[aid]
        elements = fld.spec.elements
        if te is None:
            if len(elements) > 1:
                valid, name = ", ".join(e.name for e in elements), self._var_name(bi, flat)
                raise IndexError(
                    f"variable {name!r} is a {fld.spec.topological_type.name} field: give an element "
                    f"({valid}), e.g. pack[b, TE.{elements[0].name}, var(c), k, j, i]"
                )
            e = 0
        else:
            if te not in elements:
                valid = ", ".join(x.name for x in elements)
                raise IndexError(f"variable {self._var_name(bi, flat)!r} has no element {te.name} (it has {valid})")
            e = elements.index(te)
        return self.arrays[aid], lid, slot + e * stride, (bi, flat)

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
        return host_view(arr, (lid, slot, *_cells(kji)))

    def __setitem__(self, key, value) -> None:
        b, te, var, kji = self._split(key)
        _cells(kji)
        arr, lid, slot, where = self._locate(b, te, var)
        _check_value(value, arr.dtype, lambda: f"variable {self._var_name(*where)!r}")
        arr[(lid, slot, *kji)] = value

    @property
    def flux(self) -> "_FluxAccess":
        """Fluxes: ``pack.flux(b, dir, var, k, j, i)`` reads, ``pack.flux[b, dir, var, k, j, i] = f``
        writes (the same form works in kernel code); without k, j, i a writable (nk, nj, ni) view (on a CUDA
        device a read-only host copy: write through ``pack.flux[b, dir, var, ...] = f``)."""
        return _FluxAccess(self)

    def _flux(self, b: int, direction: int, var: object, *kji):
        storage, index = self._flux_location(b, direction, var)
        return host_view(storage, index + _cells(kji))

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
            name = self._var_name(bi, flat)
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
        _cells(kji)
        storage, index = self.pack._flux_location(b, direction, var)
        _check_value(value, storage.dtype, "flux")
        storage[index + tuple(kji)] = value  # through the storage: on a device a view would be a copy


def _cells(kji) -> tuple:
    """The cell indices ``(k, j, i)`` of a host access, refusing a negative integer: numpy would count it from
    the far end (``i=-1`` the last ghost cell), where a kernel's ``pack(b, v, k, j, i)`` has no such cell."""
    kji = tuple(kji)
    for axis, index in zip("kji", kji):  # the first given is k
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool) and index < 0:
            raise IndexError(f"pack cell index {axis}={int(index)} is negative: cells count from 0 (ghost cells "
                             f"included) and a negative index is not counted from the end")
    return kji
