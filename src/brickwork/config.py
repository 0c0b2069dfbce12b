"""Settings, read from the environment in this one place (documented in docs/env.md).

Attributes can be changed at run time (``brickwork.config.verbose = True``) or temporarily with
``with brickwork.config.override(explain_cache_misses=True): ...``.

A variable with a value it does not accept leaves its attribute unset instead of failing the import:
reading the attribute, or ``check()`` (the first kernel load or compile calls it), raises
``SettingError``. So ``import brickwork`` and the ``brickwork`` command always start, and the command
reports the value as one line (``brickwork info`` lists it).
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import sys

from .errors import BrickworkError

_ENV_PREFIX = "BRICKWORK_"


class SettingError(BrickworkError, ValueError):
    """An environment variable of brickwork holds a value it does not accept; the message names the
    variable, the value and what is accepted."""


#: Settings whose variable holds an invalid value: attribute name -> the message of its ``SettingError``.
invalid: dict = {}
_INVALID = object()  # what a reader's failure leaves in place until the end of the module deletes it


def _setting(name: str, read, *args):
    """``read(*args)``, or (for an invalid value) ``_INVALID`` with the error kept in ``invalid[name]``."""
    try:
        return read(*args)
    except SettingError as e:
        invalid[name] = str(e)
        return _INVALID


def __getattr__(name: str):
    if name in invalid:  # only reached while the attribute is unset: the value was invalid and not set since
        raise SettingError(invalid[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def problems() -> list[str]:
    """The messages of the settings whose variable is invalid (and that were not assigned since)."""
    module = sys.modules[__name__].__dict__
    return [message for name, message in invalid.items() if name not in module]


def check() -> None:
    """Raise ``SettingError`` for the first setting whose environment variable is invalid."""
    found = problems()
    if found:
        raise SettingError(found[0])


class DeterministicMode(enum.IntEnum):
    """How reproducible the results of floating-point atomics must be (module option ``deterministic``)."""

    NOT_GUARANTEED = 0  #: any order (CPU launches go parallel)
    RUN_TO_RUN = 1  #: the same results on every run of the same program
    GPU_TO_GPU = 2  #: the same results on every device as well


def _shown(value: str) -> str:
    """A variable's value as an error message quotes it: a long one (5000 digits) cut to its ends."""
    return value if len(value) <= 60 else value[:40] + "..." + value[-12:]


def _env_int(name: str, default: int | None, minimum: int = 1, maximum: int = 2**31 - 1) -> int | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:  # also more digits than int() reads (sys.get_int_max_str_digits)
        raise SettingError(f"environment variable {name}={_shown(value)!r} is not an integer") from None
    if number < minimum:
        raise SettingError(f"environment variable {name}={_shown(value)!r} must be at least {minimum}")
    if number > maximum:  # counts reach the compiled code as 32-bit integers
        raise SettingError(f"environment variable {name}={_shown(value)!r} must be at most {maximum}")
    return number


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _env_bool(name: str, default: bool) -> bool:
    """On or off, in any case; anything else (``maybe``) is an error, never a silent off."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    word = value.strip().lower()
    if word not in _TRUE + _FALSE:
        raise SettingError(f"environment variable {name}={value!r} must be one of {', '.join(_TRUE)} (on) or "
                           f"{', '.join(_FALSE)} (off)")
    return word in _TRUE


def _env_choice(name: str, choices: tuple, default: str) -> str:
    """One of ``choices`` (in any case), ``default`` when unset or empty."""
    value = os.environ.get(name, "")
    word = value.strip().lower() or default
    if word not in choices:
        raise SettingError(f"environment variable {name}={value!r} must be one of {', '.join(choices)}")
    return word


#: The most threads a launch uses: four per core, at least 64. A larger count (``BRICKWORK_NUM_THREADS``,
#: ``OMP_NUM_THREADS`` or ``num_threads`` assigned at run time) is clamped to it: OpenMP runtimes crash or
#: stop the process when asked for tens of thousands of threads, and more threads than this only slow a
#: CPU-bound kernel down.
MAX_THREADS: int = max(4 * (os.cpu_count() or 1), 64)


def _env_threads(name: str) -> int | None:
    """``BRICKWORK_NUM_THREADS``: an integer setting (an error below 1 or above 2**31 - 1), clamped to
    ``MAX_THREADS``."""
    number = _env_int(name, None)
    return None if number is None else min(number, MAX_THREADS)


#: Environment variables in which MPI launchers give the number of ranks they started on this node.
_LOCAL_SIZE_VARIABLES = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE")


def _cores_per_local_rank() -> int:
    """The cores of this machine shared among the MPI ranks started on it (all of them outside MPI): each
    rank taking every core would run cores-times-ranks threads, which made a 2-rank run 60x slower on 2
    cores."""
    ranks = 1
    for name in _LOCAL_SIZE_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isascii() and value.isdigit() and 0 < int(value) < 2**31:
            ranks = int(value)
            break
    return max(1, min(os.cpu_count() or 1, MAX_THREADS) // ranks)


def _omp_num_threads() -> int | None:
    """Threads of the outermost level from ``OMP_NUM_THREADS`` as OpenMP reads it: a list of positive
    counts per nesting level ("4,2" -> 4), clamped to ``MAX_THREADS``; empty, 0 or anything else that
    is not a positive count is ignored, as OpenMP runtimes ignore it (never an error at import)."""
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if not first.isascii() or not first.isdigit():  # "²" is a digit to isdigit, not to int
        return None
    digits = first.lstrip("0")
    if not digits:  # 0: unset
        return None
    # more digits than int() parses (sys.get_int_max_str_digits) is a count far above the bound anyway
    return min(int(digits), MAX_THREADS) if len(digits) < 20 else MAX_THREADS


_DUMP_STAGES = ("ir", "passes", "source")


def _env_dump(name: str) -> frozenset:
    """Stages named in ``BRICKWORK_DUMP`` (comma-separated; ``all`` for every stage)."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return frozenset()
    stages = {s.strip() for s in value.split(",") if s.strip()}
    if "all" in stages:
        return frozenset(_DUMP_STAGES)
    unknown = stages - set(_DUMP_STAGES)
    if unknown:
        raise SettingError(f"environment variable {name}={value!r}: unknown stage(s) {', '.join(sorted(unknown))} "
                         f"(stages: {', '.join(_DUMP_STAGES)}, all)")
    return frozenset(stages)


#: The longest cache root accepted: room for what brickwork names inside it (a staging folder, a shard, a
#: 40-digit key, an artifact) under Linux's 4096-byte path limit.
MAX_CACHE_PATH = 3800


def _default_cache_dir() -> str:
    name = _ENV_PREFIX + "CACHE_DIR"
    explicit = os.environ.get(name)
    if explicit:
        path = os.path.abspath(os.path.expanduser(explicit))
        if len(path.encode()) > MAX_CACHE_PATH or any(len(part.encode()) > 255 for part in path.split(os.sep)):
            raise SettingError(f"environment variable {name}={_shown(explicit)!r} is too long for a directory path "
                               f"(at most 255 bytes a name, {MAX_CACHE_PATH} in all)")
        return path
    if sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # unset, empty or relative: the XDG spec says to ignore a relative path (it
            base = os.path.expanduser("~/.cache")  # would move the cache with each working directory)
    from ._version import __version__

    return os.path.join(base, "brickwork", __version__)


#: Root of the kernel cache; a version subfolder is added unless BRICKWORK_CACHE_DIR is set.
cache_dir: str = _setting("cache_dir", _default_cache_dir)
#: Threads for CPU kernels (None: OpenMP's default, i.e. OMP_NUM_THREADS or all cores).
num_threads: int | None = _setting("num_threads", _env_threads, _ENV_PREFIX + "NUM_THREADS")
#: Threads used when num_threads is None: OMP_NUM_THREADS, else every core (at most MAX_THREADS).
default_threads: int = _omp_num_threads() or _cores_per_local_rank()
LOG_LEVELS = ("debug", "info", "warning")
#: Logging level name for the ``brickwork`` logger ("warning", "info", "debug").
log_level: str = _setting("log_level", _env_choice, _ENV_PREFIX + "LOG", LOG_LEVELS, "warning")
#: Log, for each cache miss, which part of the key differed from the nearest entry.
explain_cache_misses: bool = _setting("explain_cache_misses", _env_bool, _ENV_PREFIX + "EXPLAIN_CACHE_MISSES", False)
#: C++ compiler override (also $CXX); None means detect.
cxx: str | None = os.environ.get(_ENV_PREFIX + "CXX") or os.environ.get("CXX") or None
#: Extra compiler flags appended to the defaults (part of the cache key).
extra_cflags: str = os.environ.get(_ENV_PREFIX + "CFLAGS", "")
#: Parallel compile jobs for pending instances (None: number of cores).
compile_jobs: int | None = _setting("compile_jobs", _env_int, _ENV_PREFIX + "COMPILE_JOBS", None)
#: Most instances compiled by one compiler run when several are built together (1: one run each).
compile_batch: int = _setting("compile_batch", _env_int, _ENV_PREFIX + "COMPILE_BATCH", 8)
#: An instance that misses the cache is built with its module's other kernels (lang/companions.py), as Warp
#: builds a module at once.
compile_module: bool = _setting("compile_module", _env_bool, _ENV_PREFIX + "COMPILE_MODULE", True)
#: g++ reads a precompiled runtime header (jit.pch).
pch: bool = _setting("pch", _env_bool, _ENV_PREFIX + "PCH", True)
#: Minimum launch size before the outer loop is run by several OpenMP threads.
parallel_threshold: int = _setting("parallel_threshold", _env_int, _ENV_PREFIX + "PARALLEL_THRESHOLD", 16384)
#: Parallel launches run on one thread while the process's threads wait for a core more than a quarter of
#: the time they are ready to run (other programs busy on the cores; runtime/starvation.py).
adaptive_threads: bool = _setting("adaptive_threads", _env_bool, _ENV_PREFIX + "ADAPTIVE_THREADS", True)
#: Compiler stages printed to stderr for every instance compiled: "ir" (after typing), "passes"
#: (after each pass), "source" (the generated text).
dump: frozenset = _setting("dump", _env_dump, _ENV_PREFIX + "DUMP")
CACHE_LOCKS = ("auto", "flock", "claim")


def _env_cache_lock(name: str) -> str:
    return _env_choice(name, CACHE_LOCKS, "auto")


#: How processes agree on who compiles a kernel: "flock" (a lock file, for local file systems),
#: "claim" (an exclusively created claim file; the others wait for the published entry: for
#: parallel file systems where flock is unreliable), or "auto": claim under an MPI launcher.
cache_lock: str = _setting("cache_lock", _env_cache_lock, _ENV_PREFIX + "CACHE_LOCK")
#: Verify the IR after typing and after every pass (a check of the compiler itself).
verify_ir: bool = _setting("verify_ir", _env_bool, _ENV_PREFIX + "VERIFY_IR", False)
MODES = ("release", "debug")


def _env_mode(name: str) -> str:
    return _env_choice(name, MODES, "release")


#: "release", or "debug": every array, pack and scratch access is bounds-checked, and an
#: out-of-bounds access raises ``BoundsError`` after the launch (instances of each mode have
#: their own cache keys). Read at each launch, so it can change at run time.
mode: str = _setting("mode", _env_mode, _ENV_PREFIX + "MODE")


def _env_cuda_arch(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    if value and not re.fullmatch(r"sm_\d{2,3}[a-z]?", value):
        raise SettingError(f"environment variable {name}={value!r} must name a CUDA architecture like sm_90")
    return value or None


#: The sm_XX the CUDA target compiles for (None: the device's own, else sm_90). Part of CUDA cache keys.
cuda_arch: str | None = _setting("cuda_arch", _env_cuda_arch, _ENV_PREFIX + "CUDA_ARCH")
TARGETS = ("cpu", "cuda-emulation")


def _env_target(name: str) -> str:
    return _env_choice(name, TARGETS, "cpu")


#: The target kernels compile for: "cpu", or "cuda-emulation" (the GPU mapping run on the CPU, block
#: by block: a check of the GPU mapping without a GPU). Part of every cache key; read at each launch.
target: str = _setting("target", _env_target, _ENV_PREFIX + "TARGET")
#: Bytes of a thread block's scratch arena that may live in shared memory (GPU mapping); a larger
#: arena lives in global memory.
gpu_shared_limit: int = _setting("gpu_shared_limit", _env_int, _ENV_PREFIX + "GPU_SHARED_LIMIT", 48 * 1024, 0)
#: While a Tape records, warn when a launch or copy writes an array that an earlier recorded launch read
#: (the backward pass would replay that launch on the new values; docs/autodiff.md).
verify_autograd_array_access: bool = _setting("verify_autograd_array_access", _env_bool,
                                              _ENV_PREFIX + "VERIFY_AUTOGRAD_ARRAY_ACCESS", False)
#: At Tape.backward, warn once when an array without requires_grad, written by one recorded launch and read by a
#: later one, cuts the gradient flow between them (runtime/gradient_flow.py; docs/autodiff.md).
verify_gradient_flow: bool = _setting("verify_gradient_flow", _env_bool, _ENV_PREFIX + "VERIFY_GRADIENT_FLOW", True)
#: After each launch, print the arrays the kernel writes that hold a NaN or an infinity (runtime/verify_fp.py).
verify_fp: bool = _setting("verify_fp", _env_bool, _ENV_PREFIX + "VERIFY_FP", False)
#: After each CUDA launch, wait for the kernel and raise the CUDA error it caused there, naming the kernel
#: (launches are otherwise asynchronous: an error would surface at a later call). Off by default: it costs
#: the launch's overlap with the host.
verify_cuda: bool = _setting("verify_cuda", _env_bool, _ENV_PREFIX + "VERIFY_CUDA", False)
#: Print one line to stdout for each launch, before it runs: the kernel (file:line), its grid, its arguments (arrays
#: as dtype, shape and device) and the device, as Warp's ``print_launches`` (runtime/launch_printing.py).
print_launches: bool = _setting("print_launches", _env_bool, _ENV_PREFIX + "PRINT_LAUNCHES", False)
#: Warp's name for the kernel cache directory (``wp.config.kernel_cache_dir = path``, set before the first
#: launch): when set, it is used in place of ``cache_dir``, as given after ``~`` expansion (no version folder is
#: added); None, the default: ``cache_dir``.
kernel_cache_dir: str | None = None
#: Warp compatibility: Warp's switch to ignore its kernel cache. brickwork's cache key covers everything
#: the generated code depends on (source, types, mode, compiler and flags, brickwork's own code), so a
#: cached kernel is the one a fresh compile would make: the setting is accepted and changes nothing.
cache_kernels: bool = True
#: The ``deterministic`` option of modules created from now on (see brickwork.lang.determinism): with
#: ``DeterministicMode.RUN_TO_RUN`` their kernels run on one thread and float atomics add in a fixed order.
deterministic: DeterministicMode = DeterministicMode.NOT_GUARANTEED
#: The ``deterministic_max_records`` option of modules created from now on (a non-negative int; Warp's
#: bound on the records a deterministic atomic keeps per thread, 0: estimated). brickwork's one-thread
#: order keeps no records, so the value is checked and kept, and limits nothing.
deterministic_max_records: int = 0
#: The ``max_unroll`` option of modules created from now on, as Warp's: the CPU target unrolls a ``for`` loop over a
#: ``range`` with constant bounds of at most this many iterations, and in the code run per point short bodies of
#: more (passes/unroll_constant_loops.py); 0 unrolls none.
max_unroll: int = 16
#: Scalar builtins called from Python return float32 results as Python floats, int32 results as Python
#: ints and others as scalars of their type (``wp.sin(wp.float64(1.0))`` is a ``wp.float64``), as Warp
#: does; True: every result is a Python number (Warp's behaviour before 1.x made results typed).
legacy_scalar_return_types: bool = False
#: Warp's opt-in CPU blocks (``block_dim`` lanes per block of a tiled launch on the CPU). A block on brickwork's
#: CPU is one thread, as in Warp by default: ``launch_tiled`` refuses a launch while this is True.
enable_cpu_blocks: bool = False
#: Warp's flag: warnings that brickwork writes in Warp's form (``Warp UserWarning: message`` on stderr,
#: runtime/warp_warnings.py) also name the file and line that caused them, and show that line. Warnings given
#: through Python's ``warnings`` with their default display (deprecations, ...) name them always.
verbose_warnings: bool = False
#: No status lines on stderr: the ``brickwork: compiling ...`` notice of a build that takes more than a second
#: (jit/notice.py). Warp's setting of the same name (default False there too) silences its module-load lines.
quiet: bool = _setting("quiet", _env_bool, _ENV_PREFIX + "QUIET", False)
# after the last setting read from the environment (BRICKWORK_QUIET=maybe, read after this loop, left its sentinel
# object in place: a true value, so quiet was on and no error was raised)
for _name in invalid:  # unset: reading it raises its SettingError (``__getattr__``)
    del globals()[_name]
#: Warp compatibility: accepted and ignored.
verbose: bool = False

#: Warp's allocation tracking: set before ``wp.init()``, every array allocation after it is recorded for
#: ``wp.print_memory_report()`` (memory_tracking.py)
track_memory: bool = False


#: Names of ``log_level`` and the ``logging`` numbers they stand for (Warp's ``wp.LOG_DEBUG`` ... ``LOG_ERROR``).
_LOG_NUMBERS = {"debug": 10, "info": 20, "warning": 30, "error": 40}


def apply_log_level(value) -> None:
    """Set the ``brickwork`` logger to ``value``'s level: a name of ``_LOG_NUMBERS`` in any case, or a ``logging``
    number (``SettingError`` for anything else). Below warnings, messages go to stderr with a ``brickwork:``
    prefix (a handler is added once); at warnings and above, a level brickwork lowered is raised again, and
    ``logging`` is not imported for nothing (start-up stays cheap)."""
    if isinstance(value, str) and value.strip().lower() in _LOG_NUMBERS:
        number = _LOG_NUMBERS[value.strip().lower()]
    elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        number = value
    else:
        raise SettingError(f"brickwork.config.log_level must be one of {', '.join(_LOG_NUMBERS)} or a logging level "
                           f"number (wp.LOG_INFO), got {value!r}")
    if number >= _LOG_NUMBERS["warning"] and "logging" not in sys.modules:
        return
    import logging

    logger = logging.getLogger("brickwork")
    if number >= _LOG_NUMBERS["warning"] and logger.level == logging.NOTSET:
        return  # never lowered by brickwork: the program's own logging configuration stands
    logger.setLevel(number)
    if number < _LOG_NUMBERS["warning"] and not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("brickwork: %(message)s"))
        logger.addHandler(handler)


#: Warp's settings (``warp.config``, 1.19 and earlier) that brickwork has no use for: Warp code may assign them
#: (``wp.config.lineinfo = True``), and they are kept without a word.
WARP_ONLY_SETTINGS = frozenset((
    "compile_time_trace", "cpu_compiler_flags", "cuda_arch_suffix", "cuda_output", "default_grid_stride",
    "deterministic_debug", "enable_backward", "enable_graph_capture_module_load_by_default", "enable_mathdx_fft",
    "enable_mathdx_gemm", "enable_mathdx_solver", "enable_mempool_access_on_graphs", "enable_mempools_at_init",
    "enable_tiles_in_stack_memory", "enable_vector_component_overwrites", "launch_array_access_mode",
    "legacy_cpu_linker", "line_directives", "lineinfo", "llvm_cuda", "load_module_max_workers", "optimization_level",
    "ptx_target_arch", "use_precompiled_headers", "version"))


_settled = (_INVALID, 0)  # (the log_level applied, how many names the module held) at the last settle()


def settle() -> None:
    """Apply what was assigned since the last kernel load: ``log_level`` (Warp code raises it at run time,
    ``wp.config.log_level = wp.LOG_INFO``; a value that is no level is a ``SettingError`` here, at every load,
    until it is corrected) and one warning for each assigned name that is no setting of brickwork's or Warp's
    (a typo: ``config.mdoe = "debug"``), naming the closest setting. Every kernel load calls it
    (``jit/store.lookup``); assignments are not hooked, since a module class that hooks them makes every read
    of a setting several times slower, the launch path's reads too."""
    global _settled
    names = vars(sys.modules[__name__])
    level = names.get("log_level", _INVALID)
    if (level, len(names)) == _settled:
        return
    if level is not _INVALID and level != _settled[0]:
        apply_log_level(level)
    for name in [n for n in names if n not in _KNOWN and n not in _warned and n not in WARP_ONLY_SETTINGS]:
        import difflib
        import warnings

        _warned.add(name)
        close = difflib.get_close_matches(name, sorted(n for n in _KNOWN if not n.startswith("_")), n=1)
        warnings.warn(f"brickwork.config has no setting {name!r}{f' (did you mean {close[0]!r}?)' if close else ''}"
                      f"; the value is kept and changes nothing", stacklevel=2)
    _settled = (level, len(names))


_warned: set = set()  # names settle() has warned about


@contextlib.contextmanager
def override(**settings):
    """Temporarily change settings: ``with config.override(num_threads=1): ...``."""
    module = sys.modules[__name__]
    old = {}
    for name, value in settings.items():
        if name.startswith("_") or (name not in vars(module) and name not in invalid):
            raise AttributeError(f"brickwork.config has no setting {name!r}")
        old[name] = vars(module).get(name, _INVALID)
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is _INVALID:  # back to unset: its variable's value is invalid
                delattr(module, name)
            else:
                setattr(module, name, value)


class ScopedLogLevel:
    """Warp's ``wp.ScopedLogLevel(level)``: ``log_level`` is ``level`` inside the block (applied on entry, not at
    the next kernel load) and what it was after it; a value that is no level is a ``SettingError`` on entry."""

    def __init__(self, log_level):
        self.log_level = log_level

    def __enter__(self):
        module = sys.modules[__name__]
        apply_log_level(self.log_level)  # refuses a value that is no level before anything changed
        self._old = vars(module).get("log_level", _INVALID)
        module.log_level = self.log_level
        return self

    def __exit__(self, *exc) -> None:
        module = sys.modules[__name__]
        if self._old is _INVALID:  # unset (an invalid BRICKWORK_LOG): the next kernel load reports it again
            del module.log_level
        else:
            module.log_level = self._old
            apply_log_level(self._old)


#: The module's own names and settings (``settle`` warns about others that are assigned).
_KNOWN = frozenset(vars(sys.modules[__name__])) | frozenset(invalid) | {"_KNOWN"}
