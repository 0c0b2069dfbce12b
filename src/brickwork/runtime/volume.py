"""``wp.Volume``: a sparse volume stored as a NanoVDB grid, read and written by kernels, as in Warp.

A volume owns one grid buffer (a uint8 array) on its device; ``volume.id`` is the buffer's address, which
kernels take as a ``uint64`` and pass to the ``volume_*`` builtins (``include/brickwork_volume.h`` walks the
tree). Grids are built on the host with numpy (``runtime/nanovdb/build.py``) and copied to the device once;
a volume on a CUDA device keeps the host copy of its header and topology for the introspection methods
(kernels may change voxel values, never the topology).
"""

from __future__ import annotations

import math
import numbers
import warnings
import weakref
from typing import NamedTuple

import numpy as np

from ..device import get_device
from ..types.arrays import array, type_name
from ..types.composite import vector
from ..types.scalars import bool_, float16, float32, float64, int16, int32, int64, uint8, uint16, uint32
from ..types.type_sizes import type_size_in_bytes
from . import live_ids, volume_load, volume_rebuild
from .nanovdb import layout as L
from .nanovdb.read import parse_grid
from .volume_load import FeatureArrayInfo, VolumeError

#: id -> the live volume over that buffer (Warp refuses a second volume aliasing a grid)
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

_VEC = {(3, float32): vector(3, float32), (3, float64): vector(3, float64), (4, float32): vector(4, float32),
        (4, float64): vector(4, float64)}
_VEC3I = vector(3, int32)
#: NanoVDB type name -> the element type of a feature array of that type (Warp's table)
_NVDB_DTYPES = {"float": float32, "double": float64, "int16": int16, "int32": int32, "int64": int64,
                "Vec3f": _VEC[3, float32], "Vec3d": _VEC[3, float64], "Half": float16, "uint32": uint32,
                "Vec4f": _VEC[4, float32], "Vec4d": _VEC[4, float64], "Vec3u8": vector(3, uint8),
                "Vec3u16": vector(3, uint16), "uint8": uint8, "bool": bool_}
#: grid type code -> the kernel value type (index grids: None)
_KERNEL_TYPES = {L.GRID_TYPE_FLOAT: float32, L.GRID_TYPE_DOUBLE: float64, L.GRID_TYPE_INT32: int32,
                 L.GRID_TYPE_INT64: int64, L.GRID_TYPE_UINT32: uint32, L.GRID_TYPE_VEC3F: _VEC[3, float32],
                 L.GRID_TYPE_VEC3D: _VEC[3, float64], L.GRID_TYPE_VEC4F: _VEC[4, float32],
                 L.GRID_TYPE_VEC4D: _VEC[4, float64]}


class GridInfo(NamedTuple):
    """The grid header's fields, as Warp's ``Volume.GridInfo``."""

    name: str
    size_in_bytes: int
    grid_index: int
    grid_count: int
    type_str: str
    translation: np.ndarray
    transform_matrix: np.ndarray


class Volume:
    """A sparse grid of voxels holding values of one type (int32, int64, uint32, float32, float64, vec3f,
    vec3d, vec4f, vec4d), or an index grid numbering its active voxels for values kept in arrays.

    Pass ``volume.id`` to a ``wp.uint64`` kernel parameter and call ``wp.volume_sample_f(id, uvw,
    wp.Volume.LINEAR)`` and the other ``volume_*`` builtins there. Points are in index space (voxel
    coordinates); ``volume_world_to_index`` maps world positions through the grid's transform."""

    CLOSEST = 0  #: nearest voxel (rounding half away from zero)
    LINEAR = 1  #: trilinear interpolation of the 8 voxels around the point

    GridInfo = GridInfo
    FeatureArrayInfo = FeatureArrayInfo

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self.id = 0  # a volume whose __init__ failed has no buffer
        self._buffer = self._host = None
        self._grid_info = None
        self._rebuild_info = volume_rebuild.NOT_REBUILDABLE
        return self

    @property
    def _info(self):
        """The header of the grid as checked when the volume was made (RuntimeError for a volume without one)."""
        if self._grid_info is None:
            raise VolumeError("Invalid Volume: it holds no grid (its construction failed or it was never initialised)")
        return self._grid_info

    @staticmethod
    def _decode_nvdb_name(raw) -> str:
        """A fixed-size NanoVDB name field (its bytes, or a CPU address of its 256 bytes) up to its NUL."""
        if isinstance(raw, int):
            import ctypes

            raw = ctypes.string_at(raw, L.GRID_NAME_SIZE)
        end = bytes(raw).find(b"\0")
        if end < 0:
            raise VolumeError("Invalid NanoVDB name: no NUL terminator")
        return bytes(raw)[:end].decode("ascii")

    def __init__(self, data: array, copy: bool = True):
        """A volume over the grid in ``data`` (a uint8 array holding a NanoVDB grid, or a file's grids back to
        back, on any device); with ``copy`` the volume holds a copy of it, otherwise it uses ``data``'s memory.
        The grid is checked first (``RuntimeError`` naming the problem; nothing is kept)."""
        if not isinstance(data, array) or data.dtype is not uint8 or data.ndim != 1:
            raise VolumeError(f"Volume needs a one-dimensional uint8 array holding a NanoVDB grid, got "
                              f"{type_name(data) if isinstance(data, array) else type(data).__name__}")
        host = data.numpy() if data.device.is_cpu else data.numpy().copy()
        # the header as checked: later changes to an aliased buffer do not reach the metadata (as Warp)
        self._grid_info = volume_load.check_volume_buffer(host)
        self.device = data.device
        self._host = host.copy() if copy or not data.device.is_cpu else host
        if copy:
            data = array(self._host, dtype=uint8, device=self.device) if not data.device.is_cpu else \
                array(self._host, dtype=uint8, device=self.device, copy=False)
        self._hold(data)

    def _hold(self, data: array) -> None:
        self._buffer = data
        self.id = int(data.ptr)
        self._rebuild_info = volume_rebuild.NOT_REBUILDABLE
        _LIVE[self.id] = self
        live_ids.register("volume", self)  # launches passing the id to a volume builtin check it is live

    @classmethod
    def _from_built(cls, grid: np.ndarray, device) -> Volume:
        """A volume over a grid the builder just made: its header is read, its tree trusted (the builder's
        tests check it), and on the CPU its memory is the volume's (no copy)."""
        volume = cls.__new__(cls)
        volume._grid_info = parse_grid(grid)
        volume.device = device
        volume._host = grid
        volume._hold(array(grid, dtype=uint8, device=device, copy=False) if device.is_cpu else
                     array(grid, dtype=uint8, device=device))
        return volume

    def __del__(self):
        """Releases the grid buffer (kernels must not use the id afterwards)."""
        if getattr(self, "id", 0) and _LIVE.get(self.id) is self:
            del _LIVE[self.id]
        self._buffer = None

    # -- the buffer --------------------------------------------------------------------------------
    def array(self) -> array:
        """The grid buffer (uint8) on the volume's device."""
        return self._buffer

    @property
    def _type_code(self) -> int:
        return self._info.grid_type

    @property
    def dtype(self):
        """The type of the values (None for an index grid, or a NanoVDB type brickwork has no type for)."""
        code = self._type_code
        return _NVDB_DTYPES.get(volume_load.TYPE_NAMES[code] if 0 <= code < len(volume_load.TYPE_NAMES) else "?")

    @property
    def is_index(self) -> bool:
        """Whether the grid is an index grid (values kept in arrays, ``volume_sample_index``)."""
        return self._type_code in L.INDEX_GRID_TYPES

    def get_voxel_size(self) -> tuple[float, float, float]:
        """The voxel size stored in the grid header: the world vector of a voxel's diagonal, the index->world
        matrix times (1, 1, 1) (as Warp)."""
        return tuple(float(x) for x in np.frombuffer(self._host, "<f8", 3, L.GRID_OFF_VOXEL_SIZE))

    def get_grid_info(self) -> GridInfo:
        """The grid's name, size, position in its file, type name and index->world map."""
        info, h = self._info, self._host
        matrix = np.frombuffer(h, "<f4", 9, L.GRID_OFF_MAP + L.MAP_OFF_MATF).reshape(3, 3).copy()
        translation = np.frombuffer(h, "<f4", 3, L.GRID_OFF_MAP + L.MAP_OFF_VECF).copy()
        code = info.grid_type
        return GridInfo(info.name, info.grid_size, info.grid_index, info.grid_count,
                        volume_load.TYPE_NAMES[code] if 0 <= code < len(volume_load.TYPE_NAMES) else "?",
                        translation, matrix.reshape(9))

    # -- feature arrays (NanoVDB blind data) -------------------------------------------------------
    def get_feature_array_count(self) -> int:
        """The number of feature arrays (NanoVDB blind data) stored with the grid."""
        return len(self._info.blind_data)

    def get_feature_array_info(self, feature_index: int) -> FeatureArrayInfo:
        """Name, address, value size and count, and NanoVDB type name of feature array ``feature_index``
        (as the grid held them when the volume was made)."""
        if self._grid_info is None or self._buffer is None:
            raise VolumeError("Invalid feature array: the volume holds no grid")
        return volume_load.feature_info(self._info, int(self._buffer.ptr), feature_index)

    def feature_array(self, feature_index: int, dtype=None) -> array:
        """Feature array ``feature_index`` as an array on the volume's device, viewing the grid's memory (it
        keeps the volume alive). ``dtype``: the element type (by default from the array's NanoVDB type,
        bytes when unknown); a byte type views any array as bytes, and bytes can be viewed as any type
        whose size divides them."""
        info = self.get_feature_array_info(feature_index)
        dtype = _NVDB_DTYPES.get(info.type_str, uint8) if dtype is None else dtype
        count, size, want = info.value_count, info.value_size, type_size_in_bytes(dtype)
        if want == 1:
            count, size = count * size, 1
        elif size == 1 and count % want == 0:
            count, size = count // want, want
        if want != size:
            raise VolumeError(f"Cannot cast feature data of size {size} to array dtype {type_name(dtype)}")
        return volume_load.view(self._buffer, info.ptr - int(self._buffer.ptr), count, dtype, self)

    def get_voxel_count(self) -> int:
        """The number of voxels the grid indexes: an OnIndex grid's active voxels, otherwise 512 per leaf
        (as ``volume_voxel_count`` in kernels and Warp)."""
        if self._rebuild_info.kind is not None:  # a rebuildable volume: the capacity (arrays sized for it)
            return self._rebuild_info.max_voxel_count
        if self._type_code == L.GRID_TYPE_ONINDEX:
            return self._info.active_voxel_count
        return self._info.leaf_count * 512

    def get_tile_count(self) -> int:
        """The number of leaves (8^3 tiles) of the grid (a rebuildable volume's reserved count)."""
        if self._rebuild_info.kind is not None:
            return self._rebuild_info.max_leaf_node_count
        return self._info.leaf_count

    def _leaves(self) -> tuple[np.ndarray, np.ndarray]:
        """(origins (n, 3) int32, value masks (n, 8) uint64) of the grid's leaves, in the grid's order (none for
        a grid type kernels do not read)."""
        from .nanovdb.read import leaf_origins, leaf_starts

        info = self._info
        if self._type_code not in L.VALUE_TYPES or not info.leaf_count:
            return np.zeros((0, 3), np.int32), np.zeros((0, 8), np.uint64)
        starts = leaf_starts(self._host, info)[:info.leaf_count] + L.LEAF_OFF_VALUE_MASK
        masks = self._host[starts[:, None] + np.arange(64)].view("<u8").reshape(-1, 8)
        return leaf_origins(self._host, info).astype(np.int32), masks

    def get_tiles(self, out: array | None = None) -> array:
        """The origins (voxel coordinates, multiples of 8) of the grid's leaves, an (n, 3) int32 array on the
        volume's device (or written into ``out``)."""
        origins, _ = self._leaves()
        return _deliver(origins, out, self.device, "tile")

    def get_voxels(self, out: array | None = None) -> array:
        """The coordinates of the voxels the grid indexes (``get_voxel_count`` of them: an OnIndex grid's active
        voxels, every voxel of every leaf otherwise), an (n, 3) int32 array on the volume's device, leaf by
        leaf, x-major within a leaf, as Warp."""
        origins, masks = self._leaves()
        if self._type_code != L.GRID_TYPE_ONINDEX:
            masks = np.full_like(masks, np.uint64(2**64 - 1))
        bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 64), axis=1, bitorder="little").astype(bool)
        leaf, n = np.nonzero(bits)
        offsets = np.stack([(n >> 6) & 7, (n >> 3) & 7, n & 7], axis=1)
        return _deliver((origins[leaf] + offsets).astype(np.int32), out, self.device, "voxel")

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def load_from_nvdb(cls, file_or_buffer, device=None) -> Volume:
        """A volume over the grids of a NanoVDB file (an open binary stream, or its bytes; or raw grid buffers
        back to back) on ``device``: the first grid, whose buffer holds the others, which ``load_next_grid``
        gives. Every grid is checked first (``RuntimeError``: "Invalid NanoVDB grid structure" or
        "Unsupported NanoVDB tree layout", then the problem)."""
        grids = volume_load.read_grids(file_or_buffer)
        host = np.concatenate(grids) if len(grids) > 1 else np.ascontiguousarray(grids[0])
        return cls(array(host, dtype=uint8, device=get_device(device)))

    def save_to_nvdb(self, path, codec: str = "none"):
        """Write the volume's grids (this one and those after it in its buffer) to the .nvdb file ``path``;
        ``codec``: "none", "zip" or "blosc" (needs the ``blosc`` module). Returns ``path``."""
        volume_load.save(self._host if self.device.is_cpu else self._buffer.numpy(), self._info, path, codec)
        return path

    @classmethod
    def load_from_address(cls, grid_ptr: int, buffer_size: int = 0, device=None) -> Volume:
        """A volume aliasing the grid buffer at address ``grid_ptr`` on ``device`` (uncompressed, no file
        header), ``buffer_size`` bytes (0: the grid's own size). The memory must outlive the volume."""
        if not grid_ptr:
            raise VolumeError("Invalid grid buffer pointer")
        if int(grid_ptr) in _LIVE:
            raise VolumeError("A Warp Volume has already been created for this grid, aliasing it is not possible.")
        device = get_device(device)
        if not device.is_cpu:
            raise VolumeError(f"load_from_address on {device}: brickwork arrays view CUDA memory only through their "
                              f"own allocations; make the volume from the array holding the grid, Volume(array, "
                              f"copy=False)")
        size = int(buffer_size) or volume_load.header_size_at(int(grid_ptr), device)
        return cls(array(ptr=int(grid_ptr), dtype=uint8, shape=size, device=device), copy=False)

    def load_next_grid(self) -> Volume | None:
        """A volume over the next grid of this volume's buffer (aliasing it, and keeping this volume alive),
        or None after the last grid."""
        info, buf = self._info, self._buffer
        if info.grid_index + 1 >= info.grid_count or buf.shape[0] <= info.grid_size:
            return None
        ptr = int(buf.ptr) + info.grid_size
        if ptr in _LIVE:
            raise VolumeError("A Warp Volume has already been created for this grid, aliasing it is not possible.")
        volume = Volume(volume_load.view(buf, info.grid_size, buf.shape[0] - info.grid_size, uint8, self), copy=False)
        volume._previous_grid = self
        return volume

    @classmethod
    def load_from_numpy(cls, ndarray: np.ndarray, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=0.0,
                        device=None) -> Volume:
        """A volume holding the dense array ``ndarray`` (index (i, j, k) at world position ``min_world +
        (i, j, k) * voxel_size``), padded with ``bg_value`` to whole 8^3 tiles: a 4-D array with 3 values per
        voxel makes a vec3f volume, an int ``bg_value`` an int32 volume, otherwise float32."""
        vs = normalize_voxel_size(voxel_size)
        a = np.asarray(ndarray)
        vector_valued = hasattr(bg_value, "__len__")
        if vector_valued:
            code, dtype, tail = L.GRID_TYPE_VEC3F, np.float32, (3,)
        elif isinstance(bg_value, int):
            code, dtype, tail = L.GRID_TYPE_INT32, np.int32, ()
        else:
            code, dtype, tail = L.GRID_TYPE_FLOAT, np.float32, ()
        if a.ndim != 3 + len(tail) or a.shape[3:] != tail:
            raise ValueError(f"load_from_numpy needs a {'4-D (nx, ny, nz, 3)' if tail else '3-D'} array for "
                             f"this bg_value, got shape {a.shape}")
        if dtype is np.int32 and a.dtype.kind in "fc" and not np.array_equal(a, np.trunc(a)):
            warnings.warn(f"Volume.load_from_numpy: bg_value={bg_value!r} (an int) makes an int32 volume, so the "
                          f"array's {a.dtype} values are truncated to integers: pass bg_value={float(bg_value)!r} "
                          f"for a float32 volume", UserWarning, stacklevel=2)
        shape = tuple(int(math.ceil(n / 8) * 8) for n in a.shape[:3])
        padded = np.empty(shape + tail, dtype=dtype)
        padded[...] = np.asarray(bg_value, dtype=dtype)
        padded[:a.shape[0], :a.shape[1], :a.shape[2]] = a
        from .nanovdb.build import build_dense_grid

        grid = build_dense_grid(padded, grid_type=code, background=bg_value, transform=np.diag(vs),
                                translation=tuple(float(x) for x in min_world))
        return cls._from_built(grid, get_device(device))

    @classmethod
    def allocate(cls, min, max, voxel_size, bg_value=0.0, translation=(0.0, 0.0, 0.0), points_in_world_space=False,
                 device=None) -> Volume:
        """A volume of the 8^3 tiles covering the box ``min``..``max`` (inclusive; index space, or world space
        with ``points_in_world_space``), every voxel holding ``bg_value`` (which sets the value type; None: an
        index grid)."""
        vs = normalize_voxel_size(voxel_size)
        lo, hi = _corner(min, "min"), _corner(max, "max")
        shift = _corner(translation, "translation")
        if points_in_world_space:
            lo, hi = np.around((lo - shift) / vs), np.around((hi - shift) / vs)
        t0, t1 = _index_corner(lo, "min") // 8, _index_corner(hi, "max") // 8
        _check_grid_bytes(t0, t1, bg_value)
        axes = [np.arange(a, b + 1, dtype=np.int32) for a, b in zip(t0, t1)]
        tiles = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3) * 8
        return cls._build(tiles, None, bg_value, np.diag(vs), translation, device, tiles=True)

    @classmethod
    def allocate_by_tiles(cls, tile_points, voxel_size=None, bg_value=0.0, translation=(0.0, 0.0, 0.0), device=None,
                          transform=None, rebuildable: bool = False, max_tiles=None, max_lower_nodes=None,
                          max_upper_nodes=None, status=None, point_mask=None) -> Volume:
        """A volume of the 8^3 tiles holding ``tile_points`` (int32 (n, 3) or vec3i: index space; float32 or
        vec3f: world space), every voxel holding ``bg_value`` (None: an index grid of the tiles' voxels).
        ``point_mask``: int32 per point, zero skips it. ``rebuildable`` (or any ``max_*`` count, by default the
        points, then the level below) reserves room for ``rebuild`` with other tiles; ``status`` (one uint32)
        receives the ``REBUILD_*`` flags of the build."""
        m = _transform(voxel_size, transform)
        ijk = _index_points(tile_points, m, translation, "tile_points")
        ijk = volume_rebuild.apply_mask(ijk, point_mask, len(ijk))
        plan = None
        if rebuildable or any(x is not None for x in (max_tiles, max_lower_nodes, max_upper_nodes)):
            plan = volume_rebuild.tile_capacity(len(_rows(tile_points)), max_tiles, max_lower_nodes, max_upper_nodes)
        grid_type = None if bg_value is None else _grid_type_of(bg_value)
        return cls._allocate(ijk, True, grid_type, m, translation, device, plan, status)

    @classmethod
    def allocate_by_voxels(cls, voxel_points, voxel_size=None, translation=(0.0, 0.0, 0.0), device=None,
                           transform=None, rebuildable: bool = False, max_active_voxels=None, max_leaf_nodes=None,
                           max_lower_nodes=None, max_upper_nodes=None, status=None, point_mask=None) -> Volume:
        """An index grid (OnIndex) whose active voxels are ``voxel_points`` (index or world space, as
        ``allocate_by_tiles``): values live in arrays of ``get_voxel_count()`` elements. ``point_mask``,
        ``rebuildable``, the ``max_*`` counts and ``status`` as ``allocate_by_tiles``'s."""
        m = _transform(voxel_size, transform)
        ijk = _index_points(voxel_points, m, translation, "voxel_points")
        ijk = volume_rebuild.apply_mask(ijk, point_mask, len(ijk))
        plan = None
        if rebuildable or any(x is not None for x in (max_active_voxels, max_leaf_nodes, max_lower_nodes,
                                                      max_upper_nodes)):
            plan = volume_rebuild.voxel_capacity(len(_rows(voxel_points)), max_active_voxels, max_leaf_nodes,
                                                 max_lower_nodes, max_upper_nodes)
        return cls._allocate(ijk, False, None, m, translation, device, plan, status)

    @classmethod
    def _allocate(cls, ijk, tiles, grid_type, m, translation, device, plan, status) -> Volume:
        device = get_device(device)
        status = volume_rebuild.check_status(status, device)
        flags = 0
        if plan is not None:
            ijk, flags = volume_rebuild.fit(ijk, plan)
        grid = volume_rebuild.build(ijk, tiles, grid_type, m, translation, plan)
        volume = cls._from_built(grid, device)
        if plan is not None:
            volume._rebuild_info = plan
            volume._rebuild_spec = (tiles, grid_type, m, tuple(float(x) for x in translation))
            volume_rebuild.write_status(status, flags)
        return volume

    @classmethod
    def _build(cls, ijk, values, bg_value, m, translation, device, tiles) -> Volume:
        grid_type = None if bg_value is None else _grid_type_of(bg_value)
        return cls._allocate(ijk, tiles, grid_type, m, translation, device, None, None)

    # -- rebuildable volumes ---------------------------------------------------------------------------
    REBUILD_SUCCESS = volume_rebuild.SUCCESS  #: the topology fit in the reserved capacity
    REBUILD_LEAF_CAPACITY_EXCEEDED = volume_rebuild.LEAF_CAPACITY_EXCEEDED  #: more leaves than reserved
    REBUILD_LOWER_CAPACITY_EXCEEDED = volume_rebuild.LOWER_CAPACITY_EXCEEDED  #: more lower nodes than reserved
    REBUILD_UPPER_CAPACITY_EXCEEDED = volume_rebuild.UPPER_CAPACITY_EXCEEDED  #: more upper nodes than reserved
    REBUILD_VOXEL_CAPACITY_EXCEEDED = volume_rebuild.VOXEL_CAPACITY_EXCEEDED  #: more active voxels than reserved
    REBUILD_INVALID_INPUT = volume_rebuild.INVALID_INPUT  #: a rebuild with invalid arguments
    RebuildInfo = volume_rebuild.RebuildInfo
    ActiveStats = volume_rebuild.ActiveStats

    @property
    def is_rebuildable(self) -> bool:
        """Whether the volume was allocated with room for ``rebuild``."""
        return self._rebuild_info.kind is not None

    def get_rebuild_info(self) -> volume_rebuild.RebuildInfo:
        """The kind of points ``rebuild`` takes ("tiles", "voxels"; None: not rebuildable) and the reserved
        voxel and node counts (zeros when not rebuildable)."""
        return self._rebuild_info

    def get_active_stats(self) -> volume_rebuild.ActiveStats:
        """The voxels the grid indexes now and its leaf, lower and upper node counts (for a rebuildable
        volume the topology in use, not the capacity)."""
        info = self._info
        voxels = info.active_voxel_count if self._type_code == L.GRID_TYPE_ONINDEX else info.leaf_count * 512
        return volume_rebuild.ActiveStats(voxels, info.leaf_count, info.lower_count, info.upper_count)

    def rebuild(self, points, status=None, point_mask=None):
        """Replace the volume's topology in place with the tiles or voxels of ``points`` (the kind it was
        allocated with; integers: index space, floats: world space), keeping its transform, background,
        value type, capacity and id. Voxel values start at the background again. ``status`` (one uint32)
        receives the ``REBUILD_*`` flags: a topology larger than the capacity changes nothing. Returns
        ``status``."""
        info = self._rebuild_info
        if info.kind is None:
            raise VolumeError("Volume is not rebuildable")
        status = volume_rebuild.check_status(status, self.device)
        tiles, grid_type, m, translation = self._rebuild_spec
        ijk = _index_points(points, m, translation, "tile_points" if tiles else "voxel_points")
        ijk, flags = volume_rebuild.fit(volume_rebuild.apply_mask(ijk, point_mask, len(ijk)), info)
        if flags:  # past the capacity: the volume keeps its topology (as Warp's)
            volume_rebuild.write_status(status, flags)
            return status
        grid = volume_rebuild.build(ijk, tiles, grid_type, m, translation, info)
        if grid.size != self._buffer.shape[0]:  # the capacity layout keeps the size; never write past it
            raise VolumeError(f"rebuild made a grid of {grid.size} bytes for a buffer of {self._buffer.shape[0]}")
        new_info = volume_load.check_volume_buffer(grid)
        if self.device.is_cpu:
            self._host[:] = grid  # the buffer's memory: the id stays valid
        else:
            self._buffer.assign(array(grid, dtype=uint8, device="cpu"))
            self._host = grid.copy()
        self._grid_info = new_info
        volume_rebuild.write_status(status, flags)
        return status

    def __repr__(self) -> str:
        if self._grid_info is None:
            return "Volume(no grid)"
        t = self.dtype
        return f"Volume({'index' if self.is_index else type_name(t)}, {self.get_voxel_count()} voxels, {self.device})"


def normalize_voxel_size(voxel_size) -> tuple[float, float, float]:
    """``voxel_size`` as three positive finite floats (a number or three of them), with Warp's errors."""
    if isinstance(voxel_size, (numbers.Real, np.floating, np.integer)) and not isinstance(voxel_size, bool):
        values = (float(voxel_size),) * 3
    elif isinstance(voxel_size, (list, tuple, np.ndarray)) or (hasattr(voxel_size, "__len__")
                                                                and not isinstance(voxel_size, (str, bytes))):
        if len(voxel_size) != 3:
            raise ValueError(f"voxel_size must be a scalar or a 3-element sequence, got length {len(voxel_size)}")
        values = tuple(float(v) for v in voxel_size)
    else:
        raise TypeError(f"voxel_size must be a scalar or a 3-element sequence, got {type(voxel_size).__name__}")
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"All voxel_size components must be finite and positive, got {voxel_size}")
    return values


def _transform(voxel_size, transform) -> np.ndarray:
    if transform is None:
        if voxel_size is None:
            raise ValueError("Either 'voxel_size' or 'transform' must be provided")
        return np.diag(normalize_voxel_size(voxel_size))
    if voxel_size is not None:
        raise ValueError("Only one of 'voxel_size' or 'transform' must be provided")
    m = np.asarray(transform, dtype=np.float64).reshape(3, 3)
    if not np.isfinite(m).all() or not np.isfinite(np.linalg.cond(m)) or np.linalg.det(m) == 0:
        raise ValueError(f"transform must be a finite, invertible 3x3 matrix, got {m.tolist()}")
    return m


def _corner(value, what: str) -> np.ndarray:
    """``value`` as 3 finite float64 coordinates (a ``ValueError`` naming ``what`` otherwise)."""
    v = np.asarray(value, dtype=np.float64)
    if v.shape != (3,) or not np.isfinite(v).all():
        raise ValueError(f"{what} must be 3 finite numbers, got {value!r}")
    return v


def _check_grid_bytes(t0: np.ndarray, t1: np.ndarray, bg_value) -> None:
    """``VolumeError`` before anything is built when the tiles ``t0``..``t1`` make a grid larger than one array
    holds (2**31 - 1 bytes): a box of 1024^3 float voxels was built for 44 s and several GiB, then refused by
    the array's shape check ('Array shapes must not exceed ...'), which named no volume (attacker probe). A leaf
    takes 512 values and a header of an index leaf's size (measured: 2144 bytes a float tile)."""
    tiles = math.prod(max(int(b) - int(a) + 1, 0) for a, b in zip(t0, t1))
    value_bytes = 0 if bg_value is None else L.VALUE_TYPES[_grid_type_of(bg_value)[0]].value_bytes
    need = tiles * (L.INDEX_LEAF_SIZE + 512 * value_bytes)
    if need > 2**31 - 1:
        raise VolumeError(f"Volume.allocate: the box covers {tiles} tiles of 8^3 voxels, a grid of at least {need} "
                          f"bytes, more than the 2**31 - 1 bytes of one array; allocate a smaller box, or the tiles "
                          f"you need with Volume.allocate_by_tiles")


def _index_corner(v: np.ndarray, what: str) -> np.ndarray:
    """Index-space coordinates ``v`` as int32, refused (naming ``what``) outside int32's range (the cast wrapped)."""
    if not ((v >= -2.0 ** 31) & (v < 2.0 ** 31)).all():
        raise ValueError(f"{what} {v.tolist()} is outside the index space a volume can hold (int32 coordinates)")
    return v.astype(np.int32)


def _rows(points) -> np.ndarray:
    p = points.numpy() if isinstance(points, array) else np.asarray(points)
    return p.reshape(-1, 3)


def _index_points(points, m, translation, what: str) -> np.ndarray:
    """Index-space integer coordinates of ``points`` (integers: index space; floats: world space)."""
    p = _rows(points)
    if np.issubdtype(p.dtype, np.integer):
        return p.astype(np.int64)
    if not np.issubdtype(p.dtype, np.floating):
        raise TypeError(f"{what} must hold int32 (index space) or float32 (world space) coordinates, got {p.dtype}")
    local = (p.astype(np.float64) - _corner(translation, "translation")) @ np.linalg.inv(m).T
    bad = ~np.isfinite(local).all(axis=1)
    if bad.any():  # NaN or infinite points (or ones the transform takes there) have no voxel
        k = int(np.argmax(bad))
        raise ValueError(f"{what}[{k}] = {p[k].tolist()} is not a finite point in the volume's index space")
    return np.floor(local + 0.5).astype(np.int64)


def _grid_type_of(bg_value) -> tuple[int, object]:
    """The grid type a background value makes (Warp's rules) and the background as numbers."""
    for code, kt in _KERNEL_TYPES.items():  # a brickwork scalar or vector value: its own type
        if type(bg_value) is kt:
            return code, [float(x) for x in bg_value] if hasattr(bg_value, "__len__") else bg_value.value \
                if hasattr(bg_value, "value") else float(bg_value)
    if isinstance(bg_value, (bool, np.bool_)):
        raise TypeError(f"unsupported volume background {bg_value!r}")
    if isinstance(bg_value, (int, np.integer)):
        return L.GRID_TYPE_INT32, int(bg_value)
    if isinstance(bg_value, (float, np.floating)):
        return L.GRID_TYPE_FLOAT, float(bg_value)
    if hasattr(bg_value, "__len__") and len(bg_value) in (3, 4):
        vals = [float(x) for x in bg_value]
        return (L.GRID_TYPE_VEC3F if len(vals) == 3 else L.GRID_TYPE_VEC4F), vals
    raise TypeError(f"unsupported volume background {bg_value!r}: a number, 3 or 4 numbers, a brickwork scalar or "
                    f"vector, or None (an index grid)")


def _deliver(rows: np.ndarray, out, device, what: str) -> array:
    """``rows`` ((n, 3) coordinates) as a new (n, 3) int32 array on ``device``, or written into the first n rows
    of ``out`` (an (m, 3) int32 or (m,) vec3i array on ``device``, m >= n; the other rows left as they are)."""
    rows = np.ascontiguousarray(rows.reshape(-1, 3), dtype=np.int32)
    if out is None:
        return array(rows, dtype=int32, device=device)
    n = rows.shape[0]
    if not isinstance(out, array) or out.device != device or out.shape[0] < n:
        raise VolumeError(f"'out' array must an array with at least {n} rows on device {device}")  # Warp's words
    if not ((out.ndim == 2 and out.dtype is int32 and out.shape[1] == 3) or (out.ndim == 1 and out.dtype is _VEC3I)) \
            or not out.is_contiguous:
        raise VolumeError(f"'out' must be a contiguous 1D array with type vec3i or a 2D array of type int32 with shape "
                          f"(N, 3), got {type_name(out.dtype)} of shape {out.shape}")
    host = out.numpy().reshape(-1, 3).copy()
    host[:n] = rows
    out.assign(array(host.reshape(out.numpy().shape), dtype=out.dtype, device="cpu"))
    return out
