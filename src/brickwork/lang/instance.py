"""A concrete instance of a kernel: its key, its compiled code, its argument packer.

This is where the pipeline reads as a sentence (``_generate``): typed tree from the frontend,
C++ from codegen, a library from the JIT, a loaded function from the runtime.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import time

from .. import __version__, config
from ..frontend.fingerprint import function_fingerprint
from ..jit import cache
from ..jit.toolchain import generator_digest, identity
from ..types.arrays import ArrayType, type_name
from ..types.keys import type_key

# The symbol every instance library exports (codegen.cpu renders it; kept here so the warm path
# does not import codegen).
ENTRY_SYMBOL = "bw_entry"

log = logging.getLogger("brickwork")

#: Instances declared (explicit overloads) but not yet built; built together, in parallel.
_pending: list = []


class Instance:
    """One kernel for one tuple of concrete parameter types."""

    def __init__(self, kernel, arg_types: tuple):
        self.kernel = kernel
        self.arg_types = arg_types
        self.label = kernel.instance_label(arg_types)
        self.fn = None  # the loaded entry point
        self.tid_dims = 1
        self.error: Exception | None = None
        self._key: str | None = None
        self._packers: dict = {}
        self._lib = None

    @property
    def loaded(self) -> bool:
        return self.fn is not None

    def key(self) -> str:
        """Cache key: kernel fingerprint, concrete types, target, compiler, header, version."""
        if self._key is None:
            self.key_parts = {
                "brickwork version": __version__, "target": "cpu", "compiler and flags": identity(),
                "code generator and runtime header": generator_digest(),
                "kernel source and reached functions/constants": function_fingerprint(self.kernel.source),
                "argument types": ",".join(type_key(t) for t in self.arg_types),
                "kernel form": self.kernel.form,
            }
            self._key = hashlib.sha256("|".join(self.key_parts.values()).encode()).hexdigest()[:40]
        return self._key

    def ensure_loaded(self) -> None:
        """Load from the cache, or build this and every other pending instance (in parallel)."""
        if self.fn is not None:
            return
        if self.error is not None:
            raise self.error
        t0 = time.perf_counter()
        found = cache.lookup(self.key())
        if found is not None:
            self._load(*found)
            log.info("%s loaded from cache in %.1f ms", self.label, 1e3 * (time.perf_counter() - t0))
            return
        if config.explain_cache_misses:
            log.warning("%s: cache miss: %s", self.label, cache.explain_miss(self.label, self.key_parts))
        batch = [self] + [p for p in _pending if p is not self and p.fn is None and p.error is None]
        build_instances(batch)
        if self.error is not None:
            raise self.error

    def _load(self, lib_path: str, meta: dict) -> None:
        self._lib = ctypes.CDLL(lib_path, mode=ctypes.RTLD_LOCAL)
        fn = getattr(self._lib, ENTRY_SYMBOL)
        fn.argtypes = [ctypes.c_char_p]
        fn.restype = None
        self.tid_dims = int(meta.get("tid_dims", 1))
        self.fn = fn
        if self in _pending:
            _pending.remove(self)

    def _generate(self) -> tuple[str, dict]:
        """Frontend then codegen: the C++ text of this instance and its metadata."""
        from ..codegen.cpu import render_translation_unit
        from ..frontend.builder import Builder, InstantiationContext

        self.key()  # sets key_parts, recorded in the entry for explain_cache_misses
        context = InstantiationContext()
        params = dict(zip((n for n, _ in self.kernel.params), self.arg_types))
        kernel_ir = Builder(self.kernel.source, params, is_kernel=True, context=context,
                            c_name="kernel", label=self.label, **self.kernel.builder_options()).build()
        source = render_translation_unit(kernel_ir, context.order, context.structs, self.label)
        return source, {"tid_dims": kernel_ir.tid_dims, "key_parts": self.key_parts}


def build_instances(batch: list) -> None:
    """Generate code for each instance (errors kept per instance), compile all in parallel, load."""
    from ..jit import compile as jit

    jobs, owners = [], []
    for inst in batch:
        found = cache.lookup(inst.key())
        if found is not None:  # warm: no frontend, no codegen
            inst._load(*found)
            continue
        try:
            source, meta = inst._generate()
        except Exception as e:  # noqa: BLE001 - a user error belongs to its own instance only
            inst.error = e
            if inst in _pending:
                _pending.remove(inst)
            continue
        jobs.append((inst.key(), source, inst.label, meta))
        owners.append(inst)
    for inst, result in zip(owners, jit.compile_many(jobs)):
        if isinstance(result, Exception):
            inst.error = result
            continue
        inst._load(*result)
        log.info("%s compiled for cpu in %.0f ms", inst.label, 1e3 * result[1].get("compile_seconds", 0.0))


def describe_types(types) -> str:
    return ", ".join(type_name(t) for t in types)


__all__ = ["Instance", "build_instances", "ArrayType"]
