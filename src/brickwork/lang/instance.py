"""A concrete instance of a kernel: its key, its loaded entry point, its argument packers.

Everything between source and entry point is ``brickwork.pipeline``; an instance only knows its
key and whether it is loaded.
"""

from __future__ import annotations

import sys
import time

from .. import config
from ..types.arrays import ArrayType, type_name
from .modules import kernel_mode


def _log():
    import logging  # imported on the first load, not by `import brickwork`

    return logging.getLogger("brickwork")

#: Instances declared (explicit overloads) but not yet built; built together, in parallel.
_pending: list = []


class Instance:
    """One kernel for one tuple of concrete parameter types."""

    def __init__(self, kernel, arg_types: tuple, target=None, variant: str = ""):
        self.kernel = kernel
        self.arg_types = arg_types
        # a Target (CUDA's), or the name of the one config.target selects ("cpu", "cuda-emulation")
        self.target = target if target is not None else config.target
        self.variant = variant
        self.label = kernel.instance_label(arg_types) + (" (adjoint)" if "adjoint" in variant.split("+") else "")
        # "release" or "debug" (bounds checks: the module's mode option, else config.mode), then ":adjoint"
        # for a backward kernel and/or ":strided" (joined by "+") for the version that takes any innermost
        # stride: part of the key
        self.mode = kernel_mode(kernel) + (f":{variant}" if variant else "")
        self.config_mode = config.mode  # launches built under another config.mode look their instance up again
        self.fn = None  # the loaded entry point
        self.tid_dims = 1
        self.uses_tiles = False  # whether it computes with tiles (its blocks are one thread)
        self.writes: tuple = ()  # positions of the array parameters the kernel may write
        self.writes_fields: tuple = ()  # (position, field path) of arrays in struct parameters it may write
        # positions of the array parameters it reads, writes, and writes after reading ((position, "file:line"));
        # wp.config.verify_autograd_array_access checks them at taped launches (runtime/array_access.py)
        self.access: tuple = ((), (), ())
        # the launch's checks (runtime/packing.py): (param position, axis, tid component or -1, offset,
        # "file:line") of the accesses every launch point makes: the launch refuses a dim that would take one out
        # of bounds (ir/launch_bounds.py); then (param position, kind, builtin) of the uint64 parameters passed to
        # mesh/BVH/hash grid/volume queries: the launch refuses an id of no live object of the kind (ir/id_params.py)
        self.tid_bounds: tuple = ()
        # a loop body's (par_for, la.outer) accesses that its ranges bound (ir/range_bounds.py), tested the same way
        self.range_bounds: tuple = ()
        self.error: Exception | None = None
        self.requested = False  # whether ensure_loaded was called (a launch), not only built as a companion
        self._key: str | None = None
        self.reached_sources: list = []  # the kernel's source and those its key reached (set with the key)
        self._packers: dict = {}
        self._adjoint: Instance | None = None
        self._general: Instance | None = None
        self._ranked: dict = {}  # launch rank -> the instance that runs over it (ranked)

    def target_object(self):
        """The Target this instance compiles for."""
        from ..targets import target_named

        return target_named(self.target) if isinstance(self.target, str) else self.target

    def adjoint(self) -> "Instance":
        """The backward kernel of this instance (built the first time it is launched)."""
        if self._adjoint is None:
            self._adjoint = Instance(self.kernel, self.arg_types, self.target,
                                     variant="+".join(v for v in (self.variant, "adjoint") if v))
        return self._adjoint

    def ranked(self, rank: int) -> "Instance":
        """This instance for a launch of ``rank`` dimensions, more than its ``tid()`` gives indices: as in Warp,
        the trailing dimensions repeat each point of the first ones (variant ``rankN``, built the first time)."""
        found = self._ranked.get(rank)
        if found is None:
            found = self._ranked[rank] = Instance(self.kernel, self.arg_types, self.target,
                                                  variant="+".join(v for v in (self.variant, f"rank{rank}") if v))
        return found

    def run_with_general_strides(self, buf: bytes) -> None:
        """Run the packed launch ``buf`` with the version of this instance that takes arrays of any
        innermost stride (built, or loaded from the cache, the first time), which then serves every
        later launch of this instance.

        An instance is first compiled with only its unit-stride body, whose entry point declines
        (returns 1, runs nothing) a launch with a non-unit innermost stride: the launch then calls
        this. The general version holds both bodies."""
        self.general_entry()(buf)

    def general_entry(self):
        """The entry point of the version of this instance that takes arrays of any innermost stride (its
        ``strided`` variant, built or loaded the first time), which from now on serves every launch of this
        instance (``fn``). A CUDA launch asks for it where its packed header says an array has a non-unit
        innermost stride (runtime/cuda_launch.py): a CUDA entry cannot decline a launch."""
        if self._general is None:
            self._general = Instance(self.kernel, self.arg_types, self.target,
                                     variant="+".join(v for v in (self.variant, "strided") if v))
        self._general.ensure_loaded()
        self.fn = self._general.fn
        return self.fn

    @property
    def loaded(self) -> bool:
        return self.fn is not None

    def key(self) -> str:
        """Cache key: kernel fingerprint, concrete types, target, compiler, generator, version."""
        if self._key is None:
            from ..targets import keys  # the compiler (pipeline) is imported on a cache miss only

            reached: list = []  # the sources the fingerprint reached (code generation and _where read them)
            self.key_parts = keys.key_parts(self.kernel, self.arg_types, self.mode, self.target_object(), reached)
            self.reached_sources = reached
            self._key = keys.cache_key(self.key_parts)
        return self._key

    def ensure_loaded(self) -> None:
        """Load from the cache, or build this and every other pending instance (in parallel), with its
        module's kernels (``lang.companions``)."""
        self.requested = True  # asked for (at its first launch): its adjoint is a companion of another's
        if self.fn is not None:
            return
        if self.error is not None:
            raise self.error.with_traceback(self._error_traceback)
        from ..jit import store

        t0 = time.perf_counter()
        found = store.lookup(self.key())
        if found is not None:
            self.loaded_from(*found)
            if "logging" in sys.modules:  # no handler can show it otherwise: the warm path imports no logging
                _log().info("%s loaded from cache in %.1f ms", self.label, 1e3 * (time.perf_counter() - t0))
            return
        if config.explain_cache_misses:
            from ..jit import cache

            _log().warning("%s: cache miss: %s", self.label, cache.explain_miss(self.label, self.key_parts))
        from .companions import companions

        batch = [self] + [p for p in _pending if p is not self and p.fn is None and p.error is None]
        build_instances(batch, [c for c in companions(self) if c not in batch])
        if self.error is not None:
            raise self.error

    def loaded_from(self, path: str, meta: dict) -> None:
        # the metadata first: should it be damaged, the instance stays unloaded (a loaded one would run
        # without its write list, and so without the read-only checks that rely on it)
        tid_dims = int(meta.get("tid_dims", 1))
        writes = tuple(meta.get("writes", ()))
        writes_fields = tuple((int(i), tuple(p)) for i, p in meta.get("writes_fields", ()))
        access = (tuple(meta.get("reads", ())), writes,
                  tuple((p, self._where(w)) for p, w in meta.get("read_then_written", ())))
        # the entry is named after this instance: an entry of the (content-keyed) cache records the label it
        # was built under, which another kernel with the same code, or a tool's build, may have given it
        self.fn = self.target_object().load(path, dict(meta, label=self.label, where=self._where))
        self.tid_dims, self.writes, self.writes_fields, self.access = tid_dims, writes, writes_fields, access
        self.uses_tiles = bool(meta.get("tiles"))
        # the packer's checks: the extents dim must respect, then the id parameters (param, kind, builtin)
        self.tid_bounds = tuple((*b[:4], self._where(b[4]), *b[5:]) for b in meta.get("tid_bounds", ())) + \
            tuple(tuple(b) for b in meta.get("id_params", ()))
        self.range_bounds = tuple((*b[:4], self._where(b[4]), *b[5:]) for b in meta.get("range_bounds", ()))
        # built or loaded: the key's walk has served code generation. Its sources hold the functions they were
        # read from, and with them a loop body's closure (its captured arrays): an error's line walks again
        self.reached_sources = []
        if self in _pending:
            _pending.remove(self)

    def _where(self, where: str) -> str:
        """A ``"+N"`` or ``"+N#k"`` line of ``meta.json`` (the entry may have been built from the same text in
        another file, or higher up in this one) as ``file:line`` of this instance's kernel or of the k-th function
        it reaches (``targets/locations.py``)."""
        source = getattr(self.kernel, "source", None)
        if not where.startswith("+") or source is None:
            return where
        from ..targets.keys import reached_sources
        from ..targets.locations import absolute

        return absolute(where, source, lambda: self.reached_sources or reached_sources(self.kernel))

    def fail(self, error: Exception) -> None:
        self.error = error
        # the build's traceback: a raise of the stored exception again starts from it. Raised as it is, each
        # raise appended the frames it passed through, so a launch repeated after the error (a loop, a notebook
        # cell run again) showed every earlier launch's frames too, and kept them alive with their locals.
        self._error_traceback = error.__traceback__
        self.reached_sources = []  # as after a load: the sources would keep a loop body's captured arrays alive
        if self in _pending:
            _pending.remove(self)


def build_instances(batch: list, tentative: list = ()) -> None:
    """Build every instance of ``batch`` not yet loaded (see ``pipeline.build``), and those of ``tentative``
    that build without an error or a warning (``lang.companions``)."""
    from .. import pipeline

    on_trial = {id(inst) for inst in tentative}
    for inst in batch:
        inst.key()
    groups: dict = {}
    for inst in [*batch, *tentative]:  # one build per target (the CPU's alone, usually), in order
        groups.setdefault(id(inst.target) if not isinstance(inst.target, str) else inst.target, []).append(inst)
    for group in groups.values():
        pipeline.build(group, group[0].target_object(), [inst for inst in group if id(inst) in on_trial])


def describe_types(types) -> str:
    return ", ".join(type_name(t) for t in types)


__all__ = ["Instance", "build_instances", "ArrayType"]
