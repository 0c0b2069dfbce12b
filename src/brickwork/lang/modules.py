"""Warp's module objects and module options, for code that calls ``wp.get_module`` or
``wp.set_module_options``.

brickwork compiles and caches each kernel instance on its own, so a module is only a name with a
dictionary of options: they are stored and returned as Warp returns them, and most do not change
generated code (there is no fast math to choose). Three act: ``mode`` ("release" or "debug"; None, the
default, follows ``brickwork.config.mode``) chooses how the module's kernels are built (``kernel_mode``),
``max_unroll`` (default ``config.max_unroll`` when the module is made, 16) is the longest loop with constant
bounds the CPU target unrolls (in the code run per point, short bodies of longer loops too; 0: none), and
``deterministic`` acts at launch (brickwork.lang.determinism). ``extra_build_options`` (a ``wp.ModuleBuildOptions``:
brickwork.lang.build_options) adds a preamble and include directories to the module's builds.
"""

from __future__ import annotations

import sys

from .. import config
from ..errors import KernelError
from .build_options import resolve as resolve_build_options
from .determinism import check_config, check_deterministic, check_max_records

#: Warp 1.19's defaults for the options Warp code sets most often.
DEFAULT_OPTIONS = {"max_unroll": 16, "enable_backward": True, "fast_math": False, "fuse_fp": True,
                   "lineinfo": False, "mode": None, "block_dim": 256, "optimization_level": None,
                   "extra_build_options": None}

#: Every option name Warp 1.19's modules know; ``module_options`` naming another is a ``ValueError``.
#: Most steer Warp's own build (compiler flags, cache keys, math libraries): stored, with no effect here.
#: ``deterministic`` (see brickwork.lang.determinism) takes effect.
OPTION_NAMES = frozenset(DEFAULT_OPTIONS) | {
    "enable_mathdx_gemm", "enable_mathdx_solver", "enable_mathdx_fft", "cuda_output", "cpu_compiler_flags",
    "compile_time_trace", "strip_hash", "deterministic", "deterministic_max_records",
    "default_grid_stride"}


class Module:
    """The kernels and functions of one Python module, as Warp names them (``.name``, ``.options``)."""

    def __init__(self, name: str):
        self.name = name
        # config.deterministic(_max_records) as when the module is made (later changes leave it alone)
        check_config(config.deterministic, config.deterministic_max_records)
        self.options = dict(DEFAULT_OPTIONS, deterministic=config.deterministic,
                            deterministic_max_records=config.deterministic_max_records, max_unroll=config.max_unroll)
        self._kernels: dict = {}
        self._build_inputs = None  # what options["extra_build_options"] gave when it was set (build_options.resolve)
        self._build_source = None  # the ModuleBuildOptions it was resolved from

    #: The globals of the Python module its kernels come from (set by the first kernel; a module loaded
    #: from a file without an entry in sys.modules is found this way).
    namespace = None

    def _python_module(self) -> tuple[dict, str]:
        namespace = self.namespace
        if namespace is None:
            found = sys.modules.get(self.name)
            namespace = vars(found) if found is not None else {}
        return namespace, namespace.get("__name__", self.name)

    @property
    def structs(self) -> dict:
        """The structs its Python module defines, by name."""
        namespace, name = self._python_module()
        return {k: v for k, v in namespace.items()
                if isinstance(v, type) and getattr(v, "_bw_struct", False) and v.__module__ == name}

    @property
    def functions(self) -> dict:
        """The ``@func`` functions its Python module defines, by name (a redefinition replaces)."""
        from .function import Function

        namespace, name = self._python_module()
        return {v.name: v for v in namespace.values() if isinstance(v, Function) and v.module == name}

    @property
    def kernels(self) -> dict:
        """Its kernels, by key (a redefinition replaces)."""
        return dict(self._kernels)

    def load(self, device=None, block_dim=None) -> None:
        """Compile now every kernel of the module that has concrete parameter types (from the cache when
        it can) for ``device`` (a CUDA device: for its architecture; default: the current device),
        raising the first kernel's error; ``block_dim`` chooses nothing."""
        target = device_target(device)
        for kernel in self.kernels.values():
            if not kernel.is_generic:
                kernel.get_instance(kernel.concrete_types(), target).ensure_loaded()

    @property
    def build_inputs(self):
        """What ``options["extra_build_options"]`` gave when it was set (``build_options.resolve``; None: nothing),
        resolved again where the option was replaced in the dict itself (Warp reads that dict at the build). The
        cache keys (targets/keys.py) and the translation units (targets/preambles.py) take it."""
        chosen = self.options.get("extra_build_options")
        if chosen is not self._build_source:
            self._build_inputs = resolve_build_options(chosen, f"module '{self.name}'")
            self._build_source = chosen
        return self._build_inputs

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


def _module_object(module) -> Module:
    """The module ``set_module_options``/``get_module_options`` mean: a kernel's own module object
    (``kernel.module``, a unique module's included) as it is, else by name (default: their caller's)."""
    return module if isinstance(module, Module) else get_module(_caller_module(module, depth=3))


def kernel_mode(kernel) -> str:
    """How ``kernel`` is built: its module's ``mode`` option when set, else ``config.mode``."""
    module = getattr(kernel, "module", None)
    mode = module.options.get("mode") if module is not None else None
    if mode is None and config.mode not in config.MODES:  # assigned at run time (the variable is checked at import)
        raise config.SettingError(f"brickwork.config.mode must be 'release' or 'debug', got {config.mode!r}")
    return config.mode if mode is None else mode


def backward_enabled(kernel) -> bool:
    """Whether ``kernel`` has a backward pass: its enable_backward option, else its module's (default True)."""
    flag = getattr(kernel, "options", {}).get("enable_backward")
    if flag is None:
        module = getattr(kernel, "module", None)
        flag = module.options.get("enable_backward", True) if module is not None else True
    return bool(flag)


def max_unroll(kernel) -> int:
    """The longest constant-trip loop the CPU target unrolls in ``kernel``: its module's ``max_unroll`` option."""
    module = getattr(kernel, "module", None)
    limit = module.options.get("max_unroll", config.max_unroll) if module is not None else config.max_unroll
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise TypeError(f"kernel '{getattr(kernel, 'key', kernel)}': the module option 'max_unroll' must be an int "
                        f"(the longest loop with constant bounds to unroll), got {limit!r}")
    return limit


def check_mode(mode, where: str) -> None:
    if mode is not None and mode not in config.MODES:
        raise ValueError(f"{where}: the 'mode' option must be None, 'release' or 'debug', got {mode!r}")


def set_module_options(options: dict, module=None) -> None:
    """Set options of ``module`` (default: the caller's module); see the module docstring."""
    if not isinstance(options, dict):
        raise TypeError(f"set_module_options takes a dict, got {type(options).__name__}")
    found = _module_object(module)
    check_mode(options.get("mode"), "set_module_options")
    if options.get("mode", found.options.get("mode")) != found.options.get("mode"):
        for kernel in found._kernels.values():  # launches look up the instance of the new mode
            kernel.launch_table.clear()
            for declared in getattr(kernel, "overloads", {}).values():  # wp.overload's instances too
                declared.launch_table.clear()
    update_options(found, options, "set_module_options")


def update_options(found: Module, options: dict, where: str) -> None:
    """Set ``options`` on the module ``found``; its kernels are built again where an option changes their code."""
    inputs = resolve_build_options(options["extra_build_options"], where) if "extra_build_options" in options \
        else found._build_inputs  # checked before anything changes
    unroll_changed = options.get("max_unroll", found.options.get("max_unroll")) != found.options.get("max_unroll")
    if unroll_changed or "extra_build_options" in options:
        for kernel in found._kernels.values():  # built again at the next launch, with the new code (as Warp's)
            kernel.instances = {}
            kernel.launch_table.clear()
    found._build_inputs = inputs
    found._build_source = options.get("extra_build_options", found._build_source)
    found.options.update(options)


def get_module_options(module=None) -> dict:
    """The options of ``module`` (default: the caller's module)."""
    return dict(_module_object(module).options)


def _is_library(namespace) -> bool:
    """Whether a Python module is part of brickwork itself."""
    return getattr(namespace, "__name__", "").split(".")[0] == "brickwork"


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
    default the caller's module; ``recursive=True`` includes its submodules. A ``Module`` of its own
    (``kernel.module`` of a ``module="unique"`` kernel) compiles its concrete kernels (``Module.load``).

    For a CUDA ``device`` (default: the current device), every kernel of the module with concrete
    parameter types and every declared instance of its generic kernels is built for that device's
    architecture, small ones sharing NVRTC runs, so their first launches compile nothing.

    As Warp's, a module that defines no kernel, function or struct (or does not exist) is a
    ``RuntimeError``. Instances build in parallel; ``block_dim`` and ``max_workers`` choose nothing.
    An instance that fails to build raises its error at its launch.
    """
    from .instance import build_instances

    if isinstance(module, Module) and module.name not in sys.modules:  # a unique kernel's (kernel.module)
        module.load(device, block_dim)
        return
    name = _caller_module(module)
    names = [m for m in list(sys.modules) if m == name or (recursive and m.startswith(name + "."))]
    found = [sys.modules[m] for m in names if sys.modules[m] is not None]
    # brickwork's own library modules (wp.utils, wp.optim) stand for Warp's: loading them builds what they
    # hold, which may be nothing (their algorithms run without kernels), as Warp code may ask
    if not any(_has_kernel_content(m) or _is_library(m) for m in found):
        raise RuntimeError(f"Module '{name}' does not contain any Warp kernels, functions, or structs")
    batch = instances_to_build(set(names), device_target(device))
    if batch:
        build_instances(batch)


def instances_to_build(names: set | None, target) -> list:
    """The instances not yet built of the Python modules ``names`` (None: every module): the declared
    (pending) ones, or for a CUDA ``target`` those of ``device_instances``."""
    from .instance import _pending
    from .kernel import _KERNELS  # kernel.py imports this module

    if target is None:
        found = [p for p in _pending if names is None or p.kernel.func.__module__ in names]
    else:
        found = device_instances([k for (m, _), group in _KERNELS.items() if names is None or m in names
                                  for k in group], target)
    return [inst for inst in found if not inst.loaded and inst.error is None]


def device_target(device):
    """The CUDA target of ``device`` (a name or Device; None: the current device), or None for the CPU."""
    from ..device import get_device

    found = get_device(device)
    if not found.is_cuda:
        return None
    from ..targets.cuda import device_target as cuda_device_target

    return cuda_device_target(found)


def device_instances(kernels: list, target) -> list:
    """The instances on ``target`` of ``kernels``: each concrete kernel's, and each declared instance
    of a generic one (kernels whose annotations fail are left to fail at their launch)."""
    found = []
    for k in kernels:
        types = list(k.overloads) if k.is_generic else [k.concrete_types()]
        for arg_types in types:
            try:
                found.append(k.get_instance(arg_types, target))
            except KernelError:  # a bad return annotation: its launch raises it, with its context
                continue
    return found


def check_kernel_module_options(key: str, module, module_options) -> dict:
    """The options of ``@kernel(module="unique", module_options=...)``, checked as Warp checks them."""
    if module != "unique":
        raise ValueError(f'@kernel for {key!r}: module_options requires module="unique"; use '
                         f"set_module_options() to set the options of a shared module")
    if not isinstance(module_options, dict):
        raise TypeError(f"@kernel for {key!r}: module_options must be a dict, got {type(module_options).__name__}")
    unknown = sorted(set(module_options) - OPTION_NAMES)
    if unknown:
        raise ValueError(f"@kernel for {key!r}: unknown module_options: {', '.join(map(repr, unknown))}. Valid "
                         f"options are: {', '.join(map(repr, sorted(OPTION_NAMES)))}")
    check_mode(module_options.get("mode"), f"@kernel for {key!r}")
    if "deterministic" in module_options:
        check_deterministic(module_options["deterministic"])
    if "deterministic_max_records" in module_options:
        check_max_records(module_options["deterministic_max_records"])
    if "extra_build_options" in module_options:
        resolve_build_options(module_options["extra_build_options"], f"@kernel for {key!r}")
    return dict(module_options)
