"""Warp's module objects and module options, for code that calls ``wp.get_module`` or
``wp.set_module_options``.

brickwork compiles and caches each kernel instance on its own, so a module is only a name with a
dictionary of options: they are stored and returned as Warp returns them, and they do not change
generated code (``mode`` is ``brickwork.config.mode``, per process; there is no unrolling limit or
fast math to choose).
"""

from __future__ import annotations

import sys

#: Warp 1.19's defaults for the options Warp code sets most often.
DEFAULT_OPTIONS = {"max_unroll": 16, "enable_backward": True, "fast_math": False, "fuse_fp": True,
                   "lineinfo": False, "mode": None, "block_dim": 256, "optimization_level": None}


class Module:
    """The kernels and functions of one Python module, as Warp names them (``.name``, ``.options``)."""

    def __init__(self, name: str):
        self.name = name
        self.options = dict(DEFAULT_OPTIONS)

    def __repr__(self):
        return f"<brickwork module {self.name}>"


_MODULES: dict = {}


def get_module(name: str) -> Module:
    """The module object of ``name`` (created on first use)."""
    found = _MODULES.get(name)
    if found is None:
        found = _MODULES[name] = Module(name)
    return found


def _caller_module(module, depth: int = 2) -> str:
    if module is None:
        return sys._getframe(depth).f_globals.get("__name__", "__main__")
    return module if isinstance(module, str) else getattr(module, "__name__", getattr(module, "name", str(module)))


def set_module_options(options: dict, module=None) -> None:
    """Set options of ``module`` (default: the caller's module); stored, see the module docstring."""
    if not isinstance(options, dict):
        raise TypeError(f"set_module_options takes a dict, got {type(options).__name__}")
    get_module(_caller_module(module)).options.update(options)


def get_module_options(module=None) -> dict:
    """The options of ``module`` (default: the caller's module)."""
    return dict(get_module(_caller_module(module)).options)


def _has_kernel_content(namespace) -> bool:
    """Whether a Python module defines a kernel, a function or a struct (what Warp calls its content)."""
    from .function import Function
    from .kernel import Kernel

    name = namespace.__name__
    for value in vars(namespace).values():
        if isinstance(value, Kernel) and value.func.__module__ == name:
            return True
        if isinstance(value, Function) and value.module == name:
            return True
        if isinstance(value, type) and getattr(value, "_bw_struct", False) and value.__module__ == name:
            return True
    return False


def load_module(module=None, device=None, recursive: bool = False, block_dim=None, max_workers=None) -> None:
    """Build now the declared (pending) kernel instances of ``module``: a Python module, its name, or by
    default the caller's module; ``recursive=True`` includes its submodules.

    As Warp's, a module that defines no kernel, function or struct (or does not exist) is a
    ``RuntimeError``. Kernels are compiled per instance, so ``device``, ``block_dim`` and ``max_workers``
    choose nothing here (instances build for their own target, in parallel).
    """
    from .instance import _pending, build_instances

    name = _caller_module(module)
    names = [m for m in list(sys.modules) if m == name or (recursive and m.startswith(name + "."))]
    if not any(_has_kernel_content(sys.modules[m]) for m in names if sys.modules[m] is not None):
        raise RuntimeError(f"Module '{name}' does not contain any Warp kernels, functions, or structs")
    chosen = set(names)
    batch = [p for p in _pending if p.kernel.func.__module__ in chosen]
    if batch:
        build_instances(batch)
