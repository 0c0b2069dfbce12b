"""``wp.Bvh``: a bounding volume hierarchy over boxes for queries in kernels, as in Warp.

Every node with more than ``leaf_size`` items is split in two: for ``constructor="sah"`` (Warp's CPU default)
where the surface-area heuristic puts it (binned within a depth budget: ``bvh_binned`` along the longest axis,
a grouped tree's ``bvh_sah`` over all three axes),
for "median" at the median of its items' centres along the longest axis of their extent. "lbvh" (the default
on a CUDA device) builds a linear BVH: Karras's radix tree over the items' sorted Morton codes (``bvh_lbvh``),
by kernels launched on the tree's device (a CUDA tree's build copies only its 65 level ends to the host); a
grouped "lbvh" tree is the median tree. Nodes are numbered level by level, root 0. The item order (which items
each node holds) is computed by compiled kernels on the CPU (``bvh_binned``; ``bvh_build``, ``bvh_sah``) or on
the device (``bvh_lbvh``), deterministically: a SAH tree without groups in one launch on one thread, partitioned in
place; for the others ties go by item index,
and a median tree takes one launch on one thread (``bvh_whole``) unless it is large and several threads share
each level's nodes. Node bounds are computed bottom-up (``refit``: the leaves', then each
level's from its children; compiled, in place, on the tree's device: ``bvh_refit``; a device "sah"/"median"
tree's build runs on the host and uploads its tables). Kernels receive the tree as its ``id`` (a ``uint64``:
the address of the 96-byte descriptor on the tree's device, ``bw::bvh_data`` in ``include/brickwork_bvh.h``),
and traverse it with an explicit stack.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from ..device import get_device
from ..errors import BrickworkError
from ..types import device_import, recording
from ..types.array_address import data_address
from ..types.array_constructors import empty, wrap_numpy
from ..types.arrays import array, type_name
from ..types.composite import vector
from ..types.scalars import float32, int32, uint8
from . import bvh_binned, bvh_build, bvh_lbvh, bvh_linear, bvh_refit, bvh_whole, live_ids
from .bvh_tree import Tree
from .launch import launch_on_cpu, launcher, split_threads

#: The descriptor the kernels read (``bw::bvh_data``); the first fields have the order of Warp's host header, then
#: the groups' sorted ids and subtree roots (``bvh_get_group_root``).
DESCRIPTOR = np.dtype([("node_lowers", "<u8"), ("node_uppers", "<u8"), ("node_parents", "<u8"),
                       ("node_counts", "<u8"), ("primitive_indices", "<u8"), ("max_depth", "<i4"),
                       ("max_nodes", "<i4"), ("num_nodes", "<i4"), ("num_items", "<i4"), ("item_lowers", "<u8"),
                       ("item_uppers", "<u8"), ("group_ids", "<u8"), ("group_roots", "<u8"), ("num_groups", "<i4"),
                       ("unused", "<i4")])
assert DESCRIPTOR.itemsize == 96
CONSTRUCTORS = ("sah", "median", "lbvh")
MAX_ITEMS = 2**31 - 1
#: An lbvh tree of at most this many items is built on the CPU in one launch on one thread (``bvh_linear``): every
#: one (a 262144 / 1048576-triangle mesh's in 72 / 370 ms against 343-365 / 1167-1292 ms by ``bvh_lbvh``'s launches
#: on two threads, load 15)
LINEAR_MAX = bvh_lbvh.MAX_ITEMS - 1


class BvhError(BrickworkError, RuntimeError, ValueError):
    """Bounds of different lengths or types, on another device, or a bad ``leaf_size`` / ``constructor``
    (the message says which). A ``RuntimeError`` and a ``ValueError``, as Warp raises either."""


def _check_bounds(lowers, uppers, where: str = "") -> None:
    """``BvhError`` unless ``lowers`` and ``uppers`` are contiguous vec3f arrays of one length on one device."""
    vec3 = vector(3, float32)
    for name, value in (("lowers", lowers), ("uppers", uppers)):
        if not isinstance(value, array) or value.dtype is not vec3 or not value.is_contiguous:
            got = type_name(value.dtype) if isinstance(value, array) else type(value).__name__
            raise BvhError(f"{where}{name} should be a contiguous array of type wp.vec3, got {got}")
    if lowers.size != uppers.size:
        raise BvhError(f"{where}The same number of lower and upper bounds must be provided, got {lowers.size} and "
                       f"{uppers.size}")
    if lowers.device != uppers.device:
        raise BvhError(f"{where}Lower and upper bounds must live on the same device, got {lowers.device} and "
                       f"{uppers.device}")


def _halves(bounds: np.ndarray, ints: np.ndarray) -> np.ndarray:
    """Nodes as ``bw::bvh_node_half``: three floats and an int32, 16 bytes each."""
    out = np.zeros((len(ints), 4), np.float32)
    out[:, :3] = bounds
    out.view(np.int32)[:, 3] = ints
    return out


def check_leaf_size(leaf_size, where: str) -> int:
    try:
        value = operator.index(leaf_size)
    except TypeError:
        raise BvhError(f"{where} must be an integer, got {type(leaf_size).__name__}") from None
    if value < 1:
        raise BvhError(f"{where} must be greater than or equal to 1, current value: {value}")
    return value


def check_groups(groups, constructor, items: int, device, what: str, error=BvhError):
    """``groups`` (an int32 array, one per item of a tree over ``items`` items), or None; Warp's errors (of
    class ``error``) for a wrong array or a cuBQL tree."""
    if groups is None:
        return None
    if getattr(constructor, "value", constructor) == "cubql":
        raise error(f"Grouped {'meshes' if error is not BvhError else 'BVHs'} are not supported by the cuBQL "
                    f"constructor")
    if not isinstance(groups, array) or groups.dtype is not int32 or not groups.is_contiguous or groups.ndim != 1:
        raise error("groups should be a contiguous array of type wp.int32")
    if groups.device != device:
        raise error(f"groups must live on the same device as {what}")
    if groups.size != items:
        raise error(f"groups must have the same length as {what}, got {groups.size} for {items}")
    return groups


def check_constructor(constructor, device=None) -> str | None:
    """The constructor's name (``constructor`` a name, a ``BvhConstructor`` or None); with ``device``, None
    is Warp's default for that device: "sah" on the CPU, "lbvh" on a CUDA device."""
    name = getattr(constructor, "value", constructor)
    if name is not None and name not in CONSTRUCTORS:
        raise BvhError(f"Unknown BVH constructor {constructor!r}: use one of {', '.join(map(repr, CONSTRUCTORS))} "
                       f"or None")
    if name is None and device is not None:
        return "sah" if device.is_cpu else "lbvh"
    return name


@functools.cache
def _field_slots(dtype: np.dtype) -> dict:
    """Each field of a descriptor's record (8-byte addresses, 4-byte counts): its size and index in a view of that
    size."""
    return {name: (field.itemsize, offset // field.itemsize) for name, (field, offset, *_) in dtype.fields.items()}


class TreeStorage:
    """The tables a tree's descriptor points to, on the host (CPU) or uploaded to the device."""

    def __init__(self, device, descriptor: np.ndarray):
        self.device = device
        self.descriptor = descriptor  # a structured array whose first record is a bvh_data
        self.tables: dict = {}
        # the descriptor's fields as elements of int views (``set_fields``: a structured field's write costs 0.7 us,
        # an element's 0.1; a mesh's build writes some twenty)
        self._slots = _field_slots(descriptor.dtype)
        self._words = {8: descriptor.view(np.uint64), 4: descriptor.view(np.int32)}
        self.device_descriptor = None
        if not device.is_cpu:
            self.device_descriptor = array(descriptor.view(np.uint8), dtype=uint8, device=device)

    @property
    def address(self) -> int:
        if self.device_descriptor is None:  # read through a plain view: a structured array's costs 20 us
            return data_address(self._words[8])
        return int(self.device_descriptor.ptr)

    def put(self, name: str, host: np.ndarray, field: str | None = None) -> None:
        """Store ``host`` (its bytes) as table ``name`` and point descriptor ``field`` at it."""
        host = np.ascontiguousarray(host)
        if self.device.is_cpu:
            table = host
            address = data_address(table) if table.size else 0  # .ctypes costs microseconds
        else:
            raw = host.reshape(-1).view(np.uint8)
            old = self.tables.get(name)
            if old is not None and old.shape[0] == max(raw.size, 1):
                old.assign(raw if raw.size else np.zeros(1, np.uint8))
                table = old
            else:
                table = array(raw if raw.size else np.zeros(1, np.uint8), dtype=uint8, device=self.device)
            address = int(table.ptr) if raw.size else 0
        self.tables[name] = table
        self.set_fields(**{field or name: address})

    def put_views(self, words: np.ndarray, tables: dict) -> None:
        """On the CPU: store ``tables`` (name: (array, byte offset in ``words``)), views of the one allocation
        ``words``, and point the descriptor's field of each name at it (one address read for all)."""
        base = data_address(words)
        slots, words_of = self._slots, self._words
        for name, (table, offset) in tables.items():
            self.tables[name] = table
            size, at = slots[name]
            words_of[size][at] = base + offset if table.size else 0

    def reserve(self, name: str, nbytes: int, field: str | None = None) -> None:
        """Table ``name`` of ``nbytes`` bytes on the device (the last one if of that size: no copy, contents
        left as they are), descriptor ``field`` pointing at it; a table built there (``build_on_device``)."""
        old = self.tables.get(name)
        if old is None or old.shape[0] != max(nbytes, 1):
            old = empty((max(nbytes, 1),), dtype=uint8, device=self.device)
        self.tables[name] = old
        self.set_fields(**{field or name: int(old.ptr) if nbytes else 0})

    def set_fields(self, **values: int) -> None:
        """Write descriptor fields (addresses and counts) by name."""
        slots, words = self._slots, self._words
        for name, value in values.items():
            size, at = slots[name]
            words[size][at] = value

    def view(self, name: str, shape: tuple, dtype=float32) -> array:
        """Table ``name`` as an array of ``shape`` (its first extent -1: as many rows as the table holds) of
        ``dtype`` (float32 or int32) on the storage's device: a view, no copy."""
        table = self.tables[name]
        comp = np.dtype(np.float32 if dtype is float32 else np.int32)
        if self.device.is_cpu:
            return wrap_numpy(table.view(comp).reshape(shape), dtype)
        if shape[0] == -1:  # a device table is bytes
            shape = (table.shape[0] // (comp.itemsize * math.prod(shape[1:])), *shape[1:])
        return device_import.view(table.ptr, shape, comp, dtype, self.device.ordinal, table, f"the tree's {name}")

    def upload(self) -> None:
        if self.device_descriptor is not None:
            self.device_descriptor.assign(self.descriptor.view(np.uint8))


def build_tree(storage: TreeStorage, lowers: np.ndarray, uppers: np.ndarray, leaf_size: int, groups,
               constructor: str = "median") -> Tree:
    """A new tree over the boxes ``lowers``/``uppers`` ((n, 3) float32), with ``groups`` (an int32 array or
    None), written to ``storage``: a SAH tree for ``constructor`` "sah", else the median split ("median", and
    "lbvh" with groups or no items), or for "lbvh" the linear BVH (``linear_tree``)."""
    one_launch = one_launch_build(storage.device, constructor, groups, len(lowers), leaf_size)
    if one_launch is not None:  # the tree, its tables and bounds in a launch
        return write_built(storage, one_launch(len(lowers), leaf_size, lowers, uppers))
    if constructor == "lbvh" and groups is None and 1 <= len(lowers) < bvh_lbvh.MAX_ITEMS:
        tree = linear_tree(lowers, uppers, leaf_size)
        write_tree(storage, tree, lowers, uppers, structure=True)
        return tree
    with np.errstate(invalid="ignore", over="ignore"):  # -inf + inf: a NaN centre
        centers = (lowers.astype(np.float64) + uppers) * 0.5
    tree = shape_tree(centers, leaf_size, None if groups is None else groups.numpy(),
                      (lowers, uppers) if constructor == "sah" else None)
    write_tree(storage, tree, lowers, uppers, structure=True)
    return tree


def binned_tree(lowers: np.ndarray, uppers: np.ndarray, leaf_size: int) -> Tree:
    """The SAH tree without groups over the boxes ``lowers``/``uppers`` ((n, 3) float32, more than ``leaf_size``):
    ``bvh_binned``'s."""
    return _binned(bvh_binned.build(len(lowers), leaf_size, lowers, uppers))


def _binned(built) -> Tree:
    return Tree.from_levels(built.first, built.last, built.parents, built.order, len(built.ranges) - 1, built.ranges)


def one_launch_build(device, constructor: str, groups, n: int, leaf_size: int):
    """The build in one launch of the tree over ``n`` items, if it has one: on the CPU without groups,
    ``bvh_binned.build`` for a SAH tree of more than ``leaf_size`` items, ``bvh_linear.build`` for an lbvh tree of
    1 to ``LINEAR_MAX`` items; else None."""
    if not device.is_cpu or groups is not None:
        return None
    if constructor == "sah" and n > leaf_size:
        return bvh_binned.build
    if constructor == "lbvh" and 1 <= n <= LINEAR_MAX:
        return bvh_linear.build
    return None


def write_built(storage: TreeStorage, built) -> Tree:
    """The tree of a one-launch build (``one_launch_build``; ``built``: its tables, bounds and all), written to
    ``storage``."""
    tree = _binned(built)
    storage.put_views(built.words, built.tables)  # the tables, parents and item order
    _write_structure(storage, tree, len(built.order), stored=True)
    return tree


def shape_tree(centers: np.ndarray, leaf_size: int, groups: np.ndarray | None, bounds: tuple | None) -> Tree:
    """A SAH tree (``bounds`` given) without groups: ``bvh_binned``'s. Otherwise ``Tree(centers, leaf_size,
    groups, bounds)``; a median tree of one group is shaped in one launch on one thread (``bvh_whole``, the same
    tree), unless it has more than ``bvh_build.PARALLEL_MIN`` items and several threads to build it level by
    level (``split_threads``: not while the process is starved of CPU time, when each level's launch would
    run on one thread)."""
    n = len(centers)
    if groups is None and n > leaf_size and bounds is not None:  # SAH: binned, partitioned in place
        return binned_tree(*bounds, leaf_size)
    if groups is not None or n <= leaf_size or n > bvh_build.PARALLEL_MIN and split_threads(n, n) > 1:
        return Tree(centers, leaf_size, groups, bounds)
    first, last, parents, order, ranges = bvh_whole.shape(bvh_build.ItemLists(centers), leaf_size)
    return Tree.from_levels(first, last, parents, order, len(ranges) - 1, ranges)


def write_tree(storage: TreeStorage, tree: Tree, lowers: np.ndarray, uppers: np.ndarray, *,
               structure: bool) -> None:
    """Point the descriptor's ``bvh_data`` (its first record field, or the record itself) at the tree's
    tables: all of them after a build (``structure``), the bounds only after a refit."""
    compiled = storage.device.is_cpu and len(lowers) > 0  # bounds in place, with compiled kernels
    if structure or not compiled:
        if compiled:
            node_lo = node_hi = np.zeros((tree.num_nodes, 3), np.float32)  # the refit below fills them
        else:
            node_lo, node_hi = tree.bounds(lowers, uppers)
        storage.put("node_lowers", _halves(node_lo, tree.lo_i))
        storage.put("node_uppers", _halves(node_hi, tree.hi_i))
        storage.put("item_lowers", lowers.astype(np.float32))
        storage.put("item_uppers", uppers.astype(np.float32))
    else:
        np.copyto(storage.tables["item_lowers"], lowers)
        np.copyto(storage.tables["item_uppers"], uppers)
    if compiled:
        bvh_refit.refit(tree, *(wrap_numpy(storage.tables[name], float32)
                                for name in ("item_lowers", "item_uppers", "node_lowers", "node_uppers")))
    if structure:
        _write_structure(storage, tree, len(lowers))
    else:
        storage.upload()


def refit_on_host(storage: TreeStorage, tree: Tree, lowers: array, uppers: array) -> None:
    """New bounds of a CPU tree's nodes over ``lowers``/``uppers`` (vec3f CPU arrays, a box per item, at least
    one), copied into its item tables in the same launch (``bvh_refit.refit``)."""
    plan = storage.__dict__.get("host_refit")
    if plan is None or plan[0] is not tree:  # the tables wrapped once per tree (microseconds each)
        plan = storage.host_refit = (tree, [wrap_numpy(storage.tables[name], float32) for name in
                                            ("item_lowers", "item_uppers", "node_lowers", "node_uppers")])
    bvh_refit.refit(tree, *plan[1], boxes=(lowers, uppers))


def _write_structure(storage: TreeStorage, tree: Tree, n: int, stored: bool = False) -> None:
    """The tree's parents and item order (unless ``stored`` already), its groups, and the descriptor's counts
    (then uploaded)."""
    if not stored:
        storage.put("node_parents", tree.parents)
        storage.put("primitive_indices", np.asarray(tree.order, np.int32))
    storage.put("group_ids", tree.group_ids)
    storage.put("group_roots", tree.group_roots)
    storage.set_fields(num_groups=len(tree.group_ids), node_counts=0, max_depth=tree.max_depth,
                       max_nodes=tree.num_nodes, num_nodes=tree.num_nodes, num_items=n)
    storage.upload()


def linear_tree(lowers: np.ndarray, uppers: np.ndarray, leaf_size: int) -> Tree:
    """The lbvh tree over the boxes ``lowers``/``uppers`` ((n, 3) float32, n >= 1), by ``bvh_lbvh``'s kernels on
    the CPU."""
    n = len(lowers)
    scratch = bvh_lbvh.Scratch("cpu")
    order = empty((n,), dtype=int32, device="cpu")
    items = (array(np.ascontiguousarray(b, np.float32), dtype=float32, copy=False) for b in (lowers, uppers))
    ends = bvh_lbvh.structure(*items, n, leaf_size, order, scratch, launch_on_cpu, bvh_lbvh.CPU_SORT)
    num_nodes, max_depth, ranges = bvh_lbvh.levels(ends)
    first, last, parents = (empty((num_nodes,), dtype=int32, device="cpu") for _ in range(3))
    none = empty((0, 4), dtype=int32, device="cpu")
    bvh_lbvh.nodes(scratch, num_nodes, leaf_size, first, last, parents, none, none, launch_on_cpu)
    return Tree.from_levels(first.numpy(), last.numpy(), parents.numpy(), order.numpy(), max_depth, ranges)


class DeviceTree:
    """An lbvh tree built on its (CUDA) device: its tables stay there (``tables_on``, for the refit)."""

    group_ids = group_roots = np.zeros(0, np.int32)

    def __init__(self, tables: dict, num_nodes: int, max_depth: int):
        self.tables, self.num_nodes, self.max_depth = tables, num_nodes, max_depth

    def tables_on(self, device) -> dict:
        """``first``, ``last``, ``order`` (int32 device arrays), ``num_nodes`` and ``ranges`` (each level's ids
        with inner nodes, deepest first; also as ``levels``: one refit launch each) for
        ``bvh_refit.refit_by_ranges``."""
        return self.tables


def build_on_device(storage: TreeStorage, n: int, write_items, leaf_size: int) -> DeviceTree:
    """An lbvh tree over ``n`` >= 1 items built on the storage's device (``bvh_lbvh``), into its tables (those of
    the last build reused where their sizes allow): ``write_items(lowers, uppers)`` writes the items' boxes
    into the (n, 3) float32 item tables there, then the tree is built and refit there. Only the level ends come
    to the host (``bvh_lbvh.structure``); the descriptor goes up."""
    device = storage.device
    on = launcher(device)
    scratch = storage.__dict__.setdefault("scratch", bvh_lbvh.Scratch(device))
    for name in ("item_lowers", "item_uppers"):
        storage.reserve(name, 12 * n)
    items = storage.view("item_lowers", (n, 3)), storage.view("item_uppers", (n, 3))
    write_items(*items)
    storage.reserve("primitive_indices", 4 * n)
    order = storage.view("primitive_indices", (n,), int32)
    num_nodes, max_depth, ranges = bvh_lbvh.levels(bvh_lbvh.structure(*items, n, leaf_size, order, scratch, on))
    for name, size in (("node_lowers", 16), ("node_uppers", 16), ("node_parents", 4)):
        storage.reserve(name, size * num_nodes)
    first, last = scratch.get("first", (num_nodes,)), scratch.get("last", (num_nodes,))
    words = [storage.view(name, (num_nodes, 4), int32) for name in ("node_lowers", "node_uppers")]
    bvh_lbvh.nodes(scratch, num_nodes, leaf_size, first, last, storage.view("node_parents", (num_nodes,), int32),
                   *words, on)
    inner = ranges[-2::-1]  # the deepest level holds only leaves
    tree = DeviceTree({"first": first, "last": last, "order": order, "num_nodes": num_nodes, "ranges": inner,
                       "levels": inner}, num_nodes, max_depth)
    bvh_refit.refit_by_ranges(tree.tables, *items, *(storage.view(name, (num_nodes, 4)) for name in
                                                     ("node_lowers", "node_uppers")), device)
    d = storage.descriptor
    d["group_ids"] = d["group_roots"] = d["num_groups"] = d["node_counts"] = 0
    d["max_depth"], d["max_nodes"], d["num_nodes"], d["num_items"] = max_depth, num_nodes, num_nodes, n
    storage.upload()
    return tree


def on_device(device, constructor: str, groups, n: int) -> bool:
    """Whether a tree builds on its device (``build_on_device``): an lbvh tree without groups over some items on
    a CUDA device."""
    return not device.is_cpu and constructor == "lbvh" and groups is None and 1 <= n < bvh_lbvh.MAX_ITEMS


def refit_on_device(storage: TreeStorage, tree: Tree, write_items) -> None:
    """New bounds of a device tree's nodes, computed on its device: ``write_items(lowers, uppers)`` writes the
    items' boxes into the (n, 3) float32 item tables (launches on the device), then ``bvh_refit`` the nodes'."""
    items = storage.view("item_lowers", (-1, 3)), storage.view("item_uppers", (-1, 3))
    nodes = storage.view("node_lowers", (-1, 4)), storage.view("node_uppers", (-1, 4))
    write_items(*items)
    tables = tree.tables_on(storage.device)
    by = bvh_refit.refit_by_ranges if "ranges" in tables else bvh_refit.refit_by_levels
    by(tables, *items, *nodes, storage.device)


class Bvh:
    """A bounding volume hierarchy over the boxes ``lowers[i]`` to ``uppers[i]`` (arrays of vec3f on one
    device) for queries in kernels: pass ``bvh.id`` to a ``uint64`` parameter and call
    ``wp.bvh_query_aabb(id, lower, upper)``, ``wp.bvh_query_ray(id, start, dir)`` or
    ``wp.bvh_query_sphere(id, center, radius)`` there. Keeps ``lowers`` and ``uppers``: after they change,
    ``refit()`` updates the bounds (same tree) and ``rebuild()`` builds a new tree."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self.id = 0  # a tree whose __init__ failed has none
        return self

    def __init__(self, lowers, uppers, constructor=None, groups=None, leaf_size: int = 1):
        _check_bounds(lowers, uppers)
        self.groups = check_groups(groups, constructor, lowers.size, lowers.device, "lowers/uppers")
        if lowers.size > MAX_ITEMS:
            raise BvhError(f"Bvh: at most {MAX_ITEMS} boxes, got {lowers.size}")
        self.leaf_size = check_leaf_size(leaf_size, "leaf_size")
        self.device = get_device(lowers.device)
        self.constructor = check_constructor(constructor, self.device)
        self.lowers = lowers
        self.uppers = uppers
        self._storage = TreeStorage(self.device, np.zeros(1, DESCRIPTOR))
        self._tree = None
        self._build()
        self.id = self._storage.address
        live_ids.register("bvh", self)  # launches passing the id to a BVH query check it is live

    def _check_current(self, what: str) -> None:
        """``BvhError`` unless ``lowers`` and ``uppers`` (attributes a program may have replaced) are bounds on the
        tree's device, as many as the tree's items for a refit (a device refit writes one item per box into the
        tree's tables: more would write past them)."""
        _check_bounds(self.lowers, self.uppers, f"Bvh.{what}: ")
        if self.lowers.device != self.device:
            raise BvhError(f"Bvh.{what}: lowers and uppers must live on the tree's device ({self.device}), got "
                           f"{self.lowers.device}")
        if self.groups is not None and self.groups.size != self.lowers.size:
            raise BvhError(f"Bvh.{what}: lowers and uppers hold {self.lowers.size} boxes, but groups has "
                           f"{self.groups.size} entries (the groups given when the tree was made)")
        built = int(self._storage.descriptor["num_items"][0])
        if what == "refit" and self.lowers.size != built:
            raise BvhError(f"Bvh.refit: lowers and uppers hold {self.lowers.size} boxes, but the tree was built over "
                           f"{built}; call rebuild() after changing the number of boxes")

    def _read(self) -> tuple:
        lo = np.asarray(self.lowers.numpy(), np.float32).reshape(-1, 3)
        hi = np.asarray(self.uppers.numpy(), np.float32).reshape(-1, 3)
        return lo, hi

    def _build(self) -> None:
        if on_device(self.device, self.constructor, self.groups, self.lowers.size):  # no copy through the host
            self._tree = build_on_device(self._storage, self.lowers.size, lambda lo, hi: bvh_refit.box_items(
                self.lowers, self.uppers, lo, hi, self.device), self.leaf_size)
            return
        lo, hi = self._read()
        self._tree = build_tree(self._storage, lo, hi, self.leaf_size, self.groups, self.constructor)

    def _refit(self) -> None:
        self._check_current("refit")  # again at a graph's replay: the arrays may have been replaced since
        if not self.device.is_cpu and self.lowers.size:  # on the device: no copy through the host
            refit_on_device(self._storage, self._tree,
                            lambda lo, hi: bvh_refit.box_items(self.lowers, self.uppers, lo, hi, self.device))
            return
        if self.lowers.size:  # the boxes read by the refit's launch
            refit_on_host(self._storage, self._tree, self.lowers, self.uppers)
            return
        lo, hi = self._read()
        write_tree(self._storage, self._tree, lo, hi, structure=False)

    def refit(self) -> None:
        """Recompute the node bounds from the current ``lowers`` and ``uppers`` (the tree is kept: quick, but
        queries slow down if the boxes moved far). In a graph capture it runs at each replay."""
        self._check_current("refit")
        recording.run_or_record(self._refit)

    def rebuild(self, constructor=None) -> None:
        """Build a new tree from the current ``lowers`` and ``uppers`` (``id`` stays the same), by
        ``constructor``, or by the tree's constructor if None."""
        self._check_current("rebuild")
        name = check_constructor(constructor)
        if name is not None:
            self.constructor = name
        recording.run_or_record(self._build)

    def __del__(self):
        self.__dict__.pop("_storage", None)


def is_cubql_available() -> bool:
    """Whether Warp's experimental cuBQL constructor is available: never in brickwork (``constructor="cubql"``
    is refused)."""
    return False
