"""brickwork: typed, generic Python kernels compiled to native code, and block-structured meshes.

The kernel language follows NVIDIA Warp's spelling, so ``import brickwork as wp`` runs typical
Warp code on the CPU through the system C++ compiler and OpenMP.
"""

import typing as _typing

from . import comm as _comm
from . import config
from ._version import __version__
from .allocators import (
    Allocator,
    MemoryKind,
    ScopedAllocator,
    get_device_allocator,
    set_cuda_allocator,
    set_device_allocator,
)
from .builtins.addresses import address_of
from .builtins.bit_casts import cast
from .builtins.constants import CONSTANTS as _CONSTANTS
from .builtins.functions import FUNCTIONS as _BUILTIN_FUNCTIONS
from .builtins.static import static
from .builtins.tiles import TILE_FUNCTIONS as _TILE_FUNCTIONS
from .config import DeterministicMode, ScopedLogLevel
from .device import (
    Device,
    ScopedDevice,
    get_cuda_device,
    get_cuda_device_count,
    get_cuda_devices,
    get_cuda_driver_version,
    get_device,
    get_devices,
    get_preferred_device,
    is_cuda_available,
    is_device_available,
    map_cuda_device,
    set_device,
    synchronize,
    synchronize_device,
    unmap_cuda_device,
)
from .device_access import (
    ScopedMempool,
    ScopedMempoolAccess,
    ScopedPeerAccess,
    get_mempool_release_threshold,
    get_mempool_used_mem_current,
    get_mempool_used_mem_high,
    is_mempool_access_enabled,
    is_mempool_access_supported,
    is_mempool_enabled,
    is_mempool_supported,
    is_peer_access_enabled,
    is_peer_access_supported,
    set_mempool_access_enabled,
    set_mempool_enabled,
    set_mempool_release_threshold,
    set_peer_access_enabled,
)
from .errors import (
    BoundsError,
    BrickworkError,
    CaptureError,
    DeterminismError,
    DeviceUnavailableError,
    KernelAttributeError,
    KernelError,
    KernelIndexError,
    KernelNameError,
    KernelNotDifferentiableError,
    KernelSyntaxError,
    KernelTypeError,
    KernelUndefinedNameError,
    KernelUnsupportedTypeError,
    KernelValueError,
    LaunchArgumentError,
    LaunchError,
    SliceStepError,
    TargetUnsupportedError,
    ToolchainError,
)
from .lang import build_experimental
from .lang.build_options import ModuleBuildOptions
from .lang.function import Function, adjoint, func, func_grad, func_replay
from .lang.grad import grad
from .lang.kernel import Kernel, kernel, overload
from .lang.modules import Module, get_module, get_module_options, set_module_options
from .lang.native import func_native
from .memory_tracking import ScopedMemoryTracker, print_memory_report
from .runtime import device_link as _device_link  # noqa: F401 - hands Device what it asks of the runtime
from .runtime.capture import (
    CaptureMode,
    Graph,
    ScopedCapture,
    capture_begin,
    capture_end,
    capture_if,
    capture_launch,
    capture_while,
    is_capturing,
    is_conditional_graph_supported,
)
from .runtime.cuda_archs import clear_kernel_cache, clear_lto_cache, get_cuda_supported_archs, get_cuda_toolkit_version
from .runtime.host_builtins import install_host_builtins as _install_host_builtins
from .runtime.launch import Launch, launch, launch_tiled
from .runtime.loggers import Logger, ScopedLogger, get_logger, set_logger
from .runtime.map import map  # noqa: A004 - Warp's name: wp.map
from .runtime.parallel import par_for, par_for_outer
from .runtime.streams import (
    Event,
    ScopedStream,
    Stream,
    get_event_elapsed_time,
    get_stream,
    record_event,
    set_stream,
    synchronize_event,
    synchronize_stream,
    wait_event,
    wait_stream,
)
from .runtime.tape import Tape
from .runtime.timing import (
    TIMING_ALL,
    TIMING_GRAPH,
    TIMING_KERNEL,
    TIMING_KERNEL_BUILTIN,
    TIMING_MEMCPY,
    TIMING_MEMSET,
    TimingResult,
    timing_begin,
    timing_end,
    timing_print,
)
from .types.array_constructors import empty, empty_like, from_numpy, full, full_like, ones, ones_like, zeros, zeros_like
from .types.array_copy import clone, copy
from .types.arrays import ArrayType, array, array1d, array2d, array3d, array4d
from .types.composite import family_namespace as _family_namespace
from .types.composite import matrix, quaternion, transformation, vector
from .types.fabric_arrays import fabricarray, fabricarrayarray, indexedfabricarray, indexedfabricarrayarray
from .types.fixed_arrays import fixedarray
from .types.indexed_arrays import (
    can_access,
    indexedarray,
    indexedarray1d,
    indexedarray2d,
    indexedarray3d,
    indexedarray4d,
)
from .types.references import ref
from .types.scalars import (
    Float,
    Int,
    Scalar,
    bfloat16,
    bool_,
    dtype_from_numpy,
    dtype_to_numpy,
    float16,
    float32,
    float64,
    half,
    handle,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .types.structs import struct
from .utils import ScopedTimer, transform_expand

bool = bool_  # noqa: A001 - Warp's spelling: wp.bool
DeviceLike = Device | str | None  # Warp's annotation of a device argument
TypeError = KernelTypeError  # noqa: A001 - brickwork.TypeError, a subclass of the builtin TypeError
# Warp's names of the errors its code generator raises (one brickwork class each; messages differ).
WarpCodegenError = KernelError
WarpCodegenTypeError = KernelTypeError
WarpCodegenAttributeError = KernelAttributeError
WarpCodegenNameError = KernelNameError
WarpCodegenValueError = KernelValueError
WarpCodegenKeyError = KernelUndefinedNameError  # an undefined name in a kernel (a KeyError in Warp 1.19)
WarpCodegenIndexError = KernelIndexError  # v[3] of a vec3 (Warp 1.19 defines the name, and compiles v[3])
WarpDeterminismError = DeterminismError  # a deterministic kernel cannot run or be differentiated
Any = _typing.Any
X1DIR, X2DIR, X3DIR = 1, 2, 3
# Warp's names of the log levels (the logging module's numbers).
LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = 10, 20, 30, 40

globals().update(_family_namespace())
globals().update(_BUILTIN_FUNCTIONS)
globals().update(_TILE_FUNCTIONS)
globals().update(_CONSTANTS)
_install_host_builtins()  # wp.rand_init(42), wp.randf(state), ... from Python: the kernels' values


#: Subpackages imported on first access (``brickwork.la``, ``wp.mesh``), so that ``import brickwork``
#: loads the kernel language only.
_LAZY_SUBPACKAGES = ("mesh", "la", "io", "apps", "optim", "sparse", "geometry")
#: Names whose modules are imported on first access (ctypes set-up, struct types: start-up time).
_LAZY_FUNCTIONS = {"from_dlpack": "types.dlpack_import", "to_dlpack": "types.dlpack_export",
                   "from_ptr": "runtime.array_from_pointer",  # Warp's deprecated pointer-to-pointer arrays
                   # PyTorch interop: torch itself is imported by these functions only
                   **{name: "interop.torch" for name in ("from_torch", "to_torch", "device_from_torch",
                                                         "device_to_torch", "dtype_from_torch", "dtype_to_torch",
                                                         "stream_from_torch", "stream_to_torch")},
                   # JAX interop: jax itself is imported by these functions only
                   **{name: "interop.jax" for name in ("from_jax", "to_jax", "device_from_jax", "device_to_jax",
                                                       "dtype_from_jax", "dtype_to_jax")},
                   **{name: "interop.jax_ops" for name in ("jax_kernel", "jax_callable", "JaxCallableGraphMode",
                                                           "JaxModulePreloadMode", "clear_jax_callable_graph_cache")},
                   # geometry: its classes and query types load when a program names them (or a kernel's builtins)
                   "HashGrid": "runtime.hash_grid", "Bvh": "runtime.bvh", "is_cubql_available": "runtime.bvh",
                   "Mesh": "runtime.mesh", "HashGridQuery": "types.hash_grid_query", "Volume": "runtime.volume",
                   **{name: "runtime.texture" for name in ("Texture", "Texture1D", "Texture2D", "Texture3D",
                                                           "TextureFilterMode", "TextureAddressMode",
                                                           "TextureResourceFlags")},
                   **{name: "types.geometry_queries" for name in ("BvhQuery", "MeshQuery", "MeshQueryAABB",
                                                                  "MeshQueryPoint", "MeshQueryRay", "BvhQueryTiled",
                                                                  "MeshQueryAABBTiled")}}


def __getattr__(name: str):
    import importlib

    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_FUNCTIONS:  # bound here on first use: later lookups do not come back
        value = globals()[name] = getattr(importlib.import_module(f"{__name__}.{_LAZY_FUNCTIONS[name]}"), name)
        return value
    if name == "MarchingCubes":  # Warp's deprecated name: the class itself, a warning at each use (not bound)
        import warnings

        warnings.warn("wp.MarchingCubes is deprecated and will be removed in a future version of Warp. "
                      "Use wp.geometry.IsoSurfaceMarchingCubes instead.", DeprecationWarning, stacklevel=2)
        return importlib.import_module(f"{__name__}.geometry.marching_cubes").IsoSurfaceMarchingCubes
    if name in ("par_reduce", "par_for_reduce", "TaskList", "TaskCollection", "TaskRegion", "DevExecSpace"):
        # Parthenon's names: the error says what brickwork writes instead (loads brickwork.mesh, on this path only)
        from .mesh.parthenon_names import missing_module_attribute

        raise missing_module_attribute(__name__, name, __dir__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBPACKAGES) | set(_LAZY_FUNCTIONS))


def constant(x):
    """Mark a value as a compile-time constant of kernels (its value is part of the cache key): a number,
    a typed scalar, a vector, matrix, quaternion or transform, or a struct value (Warp's TypeError otherwise)."""
    from .types import introspection

    if not (introspection.is_value(x) or introspection.is_struct(x) or isinstance(x, float)):  # np.float64 too
        import numpy as np

        hint = ""
        if isinstance(x, np.generic):  # a kernel refused it later, as any numpy scalar but float64 (a float)
            hint = f" (kernels take Python numbers and brickwork scalars: wp.constant(x.item()), or wp.{x.dtype}(x))"
        raise TypeError(f"Invalid constant type: {type(x)}{hint}")
    return x


def init():
    """Do the process's one-time set-up now instead of at the first launch (optional, as in Warp):
    identify the C++ compiler and stamp the code generator, both part of every cache key. A missing
    compiler or an unusable kernel cache is reported by the first launch that needs them, not here."""
    from .jit.store import UnsafeCacheError
    from .targets import current_target, keys

    if config.track_memory:  # Warp's global allocation tracking, from here on (print_memory_report)
        from .memory_tracking import start_global

        start_global()
    try:
        keys.prepare(current_target())
    except (ToolchainError, UnsafeCacheError, OSError):
        pass


def is_cpu_available() -> bool:
    """Whether the CPU device can be used: always True."""
    return True


def force_load(device=None, modules=None, block_dim=None, max_workers=None):
    """Build every declared (pending) kernel instance now, in parallel; with a CUDA ``device``, every
    kernel with concrete types and every declared instance, for that device. ``modules``: only those
    (Python modules or their names)."""
    from .lang.instance import build_instances
    from .lang.modules import device_target, instances_to_build

    names = None if modules is None else {m if isinstance(m, str) else m.__name__ for m in modules}
    batch = instances_to_build(names, None if device is None else device_target(device))
    if batch:
        build_instances(batch)


def load_module(module=None, device=None, recursive=False, block_dim=None, max_workers=None):
    """Build the declared instances of ``module`` (default: the caller's) now; see ``lang.modules.load_module``."""
    from .lang.modules import _caller_module
    from .lang.modules import load_module as _load

    _load(module if isinstance(module, Module) else _caller_module(module), device, recursive, block_dim, max_workers)


def _configure_logging():
    # BRICKWORK_LOG's level (a log_level assigned later applies at the next kernel load: config.settle). An invalid
    # BRICKWORK_LOG leaves log_level unset: the first kernel load raises its SettingError (config.check).
    if "log_level" not in config.invalid:
        config.apply_log_level(config.log_level)


_configure_logging()
_comm.install_hook_under_launcher()  # an uncaught exception on one rank ends them all (docs/mpi.md)
