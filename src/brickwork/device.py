"""Devices: "cpu" always, "cuda:N" where a CUDA driver and GPU exist; the current device for
allocations and launches (the CPU unless changed with ``set_device`` or ``ScopedDevice``)."""

from __future__ import annotations

from . import cuda_driver, pending_checks
from .errors import DeviceUnavailableError


class Device:
    """A place where arrays live and kernels run, with Warp's attributes.

    ``alias`` is its identifier (``"cpu"``, ``"cuda:N"``: what ``str(device)`` gives and ``get_device`` takes);
    ``name`` is Warp's label (the processor's name for the CPU, else ``"CPU"``; the driver's name of a GPU);
    ``ordinal`` is the CUDA device number, -1 on the CPU. A CUDA device reads its properties from the driver;
    the CPU answers as Warp's CPU device does (False, 0 or None)."""

    __slots__ = ("alias", "ordinal", "_name")

    def __init__(self, alias: str, ordinal: int = -1):
        self.alias = alias
        self.ordinal = ordinal
        self._name = None

    @property
    def name(self) -> str:
        """Warp's label of the device: ``platform.processor()`` (``"CPU"`` where it is empty) for the CPU, the
        driver's name (``"NVIDIA H100 80GB HBM3"``) for a CUDA device. ``alias`` names it in calls."""
        if self._name is None:
            if self.is_cpu:
                import platform  # its processor() runs `uname -p` once: not at import

                self._name = platform.processor() or "CPU"
            else:
                self._name = cuda_driver.driver().name(self.ordinal)
        return self._name

    @property
    def arch(self) -> int:
        """The compute capability of a CUDA device as Warp gives it, ``10 * major + minor`` (90 for an H100); 0
        for the CPU. ``sm_arch`` is its NVRTC name."""
        if self.is_cpu:
            return 0
        major, minor = cuda_driver.driver().capability(self.ordinal)
        return 10 * major + minor

    @property
    def sm_arch(self) -> str | None:
        """The CUDA architecture's name (``"sm_90"``) of a CUDA device; None for the CPU."""
        return None if self.is_cpu else f"sm_{self.arch}"

    @property
    def sm_count(self) -> int:
        """The number of streaming multiprocessors of a CUDA device; 0 for the CPU."""
        if self.is_cpu:
            return 0
        return cuda_driver.driver().sm_count(self.ordinal)

    @property
    def max_shared_memory_per_block(self) -> int:
        """The most bytes of shared memory a thread block of a CUDA device may use once a kernel opts in
        (``CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN``, as Warp's); 0 for the CPU."""
        if self.is_cpu:
            return 0
        return cuda_driver.driver().max_shared_memory_per_block(self.ordinal)

    @property
    def is_cpu(self) -> bool:
        """Whether this is the CPU (its ordinal is -1)."""
        return self.ordinal < 0

    @property
    def is_cuda(self) -> bool:
        """Whether this is a CUDA device (its ordinal is the driver's device number)."""
        return self.ordinal >= 0

    def _flag(self, attribute: str) -> bool:
        return self.is_cuda and cuda_driver.driver().attribute(self.ordinal, attribute) > 0

    @property
    def is_uva(self) -> bool:
        """Whether a CUDA device shares one address space with the host (unified addressing); False for the CPU."""
        return self._flag("unified_addressing")

    @property
    def is_cpu_memory_access_from_gpu_supported(self) -> bool:
        """Whether the GPU may read pageable host memory directly (the driver's attribute; brickwork's launches
        still take only arrays of their own device); False for the CPU."""
        return self._flag("pageable_memory_access")

    @property
    def is_gpu_memory_access_from_cpu_supported(self) -> bool:
        """Whether the host may access managed memory on this GPU without migration (the driver's attribute;
        brickwork allocates no managed memory); False for the CPU."""
        return self._flag("direct_managed_mem_access_from_host")

    @property
    def is_cpu_gpu_atomic_supported(self) -> bool:
        """Whether the link between host and GPU has native atomics (the driver's attribute); False for the CPU."""
        return self._flag("host_native_atomic_supported")

    @property
    def is_managed_memory_supported(self) -> bool:
        """Whether the GPU can allocate managed memory (the driver's attribute); False for the CPU."""
        return self._flag("managed_memory")

    @property
    def is_concurrent_managed_access_supported(self) -> bool:
        """Whether the GPU accesses managed memory concurrently with the host (the driver's attribute); False for
        the CPU."""
        return self._flag("concurrent_managed_access")

    @property
    def is_mempool_supported(self) -> bool:
        """False: brickwork allocates with ``cuMemAlloc``, from no stream-ordered memory pool
        (``wp.is_mempool_supported(device)`` says the same)."""
        return False

    @property
    def is_mempool_enabled(self) -> bool:
        """False: no device allocates from a memory pool in brickwork."""
        return False

    @property
    def is_ipc_supported(self) -> bool:
        """False: brickwork shares no device memory between processes (no IPC handles)."""
        return False

    @property
    def is_cubin_supported(self) -> bool:
        """Whether the NVRTC brickwork loads compiles cubins for this CUDA device's architecture; False for the
        CPU and without NVRTC."""
        if self.is_cpu:
            return False
        return self.arch in _runtime.cubin_archs()

    @property
    def is_primary(self) -> bool:
        """Whether the device runs in its CUDA primary context: True for every CUDA device (brickwork uses no
        other context), False for the CPU."""
        return self.is_cuda

    @property
    def uuid(self) -> str | None:
        """The CUDA device's UUID as ``nvidia-smi -L`` writes it (``"GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"``);
        None for the CPU."""
        if self.is_cpu:
            return None
        h = cuda_driver.driver().uuid(self.ordinal).hex()
        return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    @property
    def pci_bus_id(self) -> str | None:
        """The CUDA device's PCI address as Warp writes it, ``"DOMAIN:BUS:DEVICE"`` in hexadecimal
        (``"00000000:3B:00"``); None for the CPU."""
        if self.is_cpu:
            return None
        drv = cuda_driver.driver()
        domain, bus, dev = (drv.attribute(self.ordinal, f"pci_{what}_id") for what in ("domain", "bus", "device"))
        return f"{domain:08X}:{bus:02X}:{dev:02X}"

    @property
    def total_memory(self) -> int:
        """Bytes of memory: the GPU's (``cuMemGetInfo``), or the host's physical memory for the CPU (what Warp
        reads with psutil; here from ``sysconf``)."""
        if self.is_cpu:
            return _host_pages("SC_PHYS_PAGES")
        return cuda_driver.driver().memory_info(self.ordinal)[1]

    @property
    def free_memory(self) -> int:
        """Bytes of memory free now: the GPU's (``cuMemGetInfo``), or the host's free physical memory for the
        CPU (``sysconf``, as psutil's ``free``)."""
        if self.is_cpu:
            return _host_pages("SC_AVPHYS_PAGES")
        return cuda_driver.driver().memory_info(self.ordinal)[0]

    @property
    def context(self) -> int | None:
        """The ``CUcontext`` handle (an int) of a CUDA device's primary context, retained on first use; None
        for the CPU."""
        return cuda_driver.driver().context(self.ordinal) if self.is_cuda else None

    @property
    def has_context(self) -> bool:
        """Whether a CUDA device's primary context has been retained yet; False for the CPU."""
        return self.is_cuda and cuda_driver.driver().has_context(self.ordinal)

    def make_current(self) -> None:
        """Make a CUDA device's primary context current on this thread (nothing for the CPU)."""
        if self.is_cuda:
            cuda_driver.driver().context(self.ordinal)

    @property
    def stream(self):
        """The current stream of a CUDA device (``wp.get_stream(device)``); assigning sets it, as
        ``set_stream``. The CPU has none: ``RuntimeError``."""
        return _runtime.current_stream(self._cuda_only("stream"))

    @stream.setter
    def stream(self, stream) -> None:
        self.set_stream(stream)

    def set_stream(self, stream, sync: bool = True) -> None:
        """Make ``stream`` (one of this CUDA device's) its current stream; ``sync``: after the work queued on
        the previous one (Warp's default here, unlike ``wp.set_stream``'s)."""
        _runtime.set_stream(stream, self._cuda_only("set_stream"), sync)

    @property
    def has_stream(self) -> bool:
        """Whether the device has a current stream: every CUDA device has (its default stream until one is
        set), the CPU has none."""
        return self.is_cuda

    @property
    def null_stream(self):
        """A CUDA device's default stream (the legacy default stream, handle 0); None for the CPU."""
        return _runtime.default_stream(self) if self.is_cuda else None

    @property
    def is_capturing(self) -> bool:
        """Whether launches are being recorded into a graph (``wp.capture_begin`` .. ``capture_end``): a capture
        in brickwork records the launches of every device, so every device answers the same."""
        return _runtime.capturing()

    def can_access(self, other) -> bool:
        """Whether kernels on this device may use arrays of ``other`` (a device or its name): only its own, in
        brickwork (launches refuse arrays of another device; no peer access is enabled)."""
        return get_device(other) == self

    def get_cuda_output_format(self, preferred_cuda_output: str | None = None) -> str | None:
        """What brickwork compiles kernels to for this device: ``"cubin"`` for a CUDA device, None for the CPU.
        ``preferred_cuda_output`` may be None or ``"cubin"``; brickwork does not load PTX (``"ptx"`` is a
        ``ValueError``)."""
        if preferred_cuda_output not in (None, "cubin"):
            raise ValueError(f"get_cuda_output_format: brickwork compiles CUDA kernels to cubins only, not to "
                             f"{preferred_cuda_output!r} (expected None or 'cubin')")
        return None if self.is_cpu else "cubin"

    def get_cuda_compile_arch(self) -> int | None:
        """The architecture CUDA kernels for this device are compiled for, as Warp's int (90: ``sm_90``):
        ``BRICKWORK_CUDA_ARCH`` where set, else the device's own; None for the CPU."""
        if self.is_cpu:
            return None
        from . import config

        forced = config.cuda_arch  # "sm_90a": the number, without the feature suffix
        return int(forced[3:].rstrip("abcdefghijklmnopqrstuvwxyz")) if forced else self.arch

    def get_allocator(self, pinned: bool = False):
        """The allocator this device's new arrays get their memory from (``wp.get_device_allocator``; ``pinned``
        changes nothing: brickwork's host memory is all of one kind)."""
        return _allocator_of(self)

    @property
    def default_allocator(self):
        """brickwork's own allocator of this device, whatever custom one is set (Warp's built-in, non-mempool
        allocator): host memory on the CPU, ``cuMemAlloc`` on a CUDA device; a custom allocator may wrap it."""
        return _builtin_allocator_of(self)

    def _cuda_only(self, what: str) -> "Device":
        if self.is_cpu:
            raise RuntimeError(f"Device {self} is not a CUDA device: it has no {what} (streams belong to 'cuda:N')")
        return self

    def __getattr__(self, attribute: str):
        reason = _NOT_IN_BRICKWORK.get(attribute)
        if reason is None:
            raise AttributeError(f"'Device' object has no attribute {attribute!r}")
        raise AttributeError(f"Device.{attribute} is Warp's and not brickwork's: {reason}")

    def __str__(self):
        return self.alias

    def __repr__(self):
        return f"'{self.alias}'"

    def __eq__(self, other):
        if isinstance(other, str):
            if other == "cuda":  # as Warp: the current CUDA device
                return self.is_cuda and get_cuda_device() is self
            return self.alias == other
        return isinstance(other, Device) and other.alias == self.alias

    def __hash__(self):
        return hash(self.alias)


# Warp's Device attributes that belong to Warp's runtime, not to a device of brickwork's
_ALLOCATORS = "a device's allocator is Device.get_allocator() (wp.get_device_allocator)"
_NOT_IN_BRICKWORK = {
    "runtime": "brickwork keeps no Runtime object (its devices answer for themselves)",
    "pinned_allocator": _ALLOCATORS,
    "current_allocator": _ALLOCATORS, "mempool_allocator": _ALLOCATORS,
    "memset": "use array.fill_ or array.zero_", "memtile": "use array.fill_",
    "captures": "a brickwork capture records every device's launches (see Device.is_capturing)",
    "context_guard": "brickwork makes a device's primary context current itself on every driver call",
}

# brickwork.allocators.get_device_allocator, set when that module loads (it imports this one)
_allocator_of = None
_builtin_allocator_of = None  # brickwork.allocators.builtin_allocator, set with it

# brickwork.runtime.device_link: the streams, captures and NVRTC architectures Device reports. It sets this when it
# loads, with brickwork (the runtime imports this module, so this module cannot import it)
_runtime = None


def _host_pages(which: str) -> int:
    import os

    return os.sysconf(which) * os.sysconf("SC_PAGE_SIZE")


CPU = Device("cpu", -1)
_current = CPU
_cuda: dict = {}  # ordinal and name ("cuda:N") -> Device, for every CUDA device named so far


def get_device(device=None) -> Device:
    """The named device (``"cpu"``, ``"cuda"``, ``"cuda:N"``), or the current one when ``device`` is None.

    A CUDA device that does not exist here raises ``DeviceUnavailableError`` (a ``RuntimeError``)
    saying why: no driver, no GPU, or fewer devices than the number asked for."""
    if device is None:
        return _current
    if isinstance(device, Device):
        return device
    if type(device) is str:  # a launch naming a device used before: one lookup
        found = _cuda.get(device)
        if found is not None:
            return found
    if device == "cpu":
        return CPU
    if isinstance(device, str) and device.startswith("cuda"):
        return _cuda_device(device)
    raise ValueError(f"unknown device {device!r} (expected 'cpu' or 'cuda:N')")


def _cuda_device(name: str) -> Device:
    number = name[5:]
    if name[:5] == "cuda:" and number.isdigit() and number.isascii():  # every launch names one: no regex
        ordinal = int(number)
    elif name == "cuda":  # the current CUDA device, else the first
        return _current if _current.is_cuda else _cuda_device("cuda:0")
    else:
        raise ValueError(f"unknown device {name!r} (expected 'cpu' or 'cuda:N')")
    dev = _cuda.get(ordinal)
    if dev is None:
        count = cuda_driver.driver().device_count()  # raises: no driver or no GPU
        if ordinal >= count:
            raise DeviceUnavailableError(f"no CUDA device {name!r}: this machine has {count} CUDA device(s)")
        dev = _cuda[ordinal] = _cuda[f"cuda:{ordinal}"] = Device(f"cuda:{ordinal}", ordinal)
    return dev


def get_cuda_device_count() -> int:
    """The number of CUDA devices (0 without a driver or GPU)."""
    try:
        return cuda_driver.driver().device_count()
    except DeviceUnavailableError:
        return 0


def get_cuda_devices() -> list:
    """Every CUDA device of this machine."""
    return [get_device(f"cuda:{i}") for i in range(get_cuda_device_count())]


def get_cuda_device(ordinal: int | None = None) -> Device:
    """The CUDA device ``cuda:<ordinal>``; with no ordinal the current device when it is a CUDA device,
    else ``cuda:0``. Without a CUDA device: ``RuntimeError`` (``DeviceUnavailableError``) with the reason."""
    if ordinal is None:
        current = get_device()
        return current if current.is_cuda else get_device("cuda:0")
    if isinstance(ordinal, bool) or not isinstance(ordinal, int):
        raise TypeError(f"get_cuda_device: ordinal must be an int or None, got {type(ordinal).__name__}")
    return get_device(f"cuda:{ordinal}")


def get_cuda_driver_version() -> tuple[int, int] | None:
    """The CUDA driver's version ``(major, minor)``, e.g. ``(12, 4)``; None without a driver."""
    try:
        v = cuda_driver.driver().version()
    except DeviceUnavailableError:
        return None
    return v // 1000, v % 1000 // 10


def _check_alias(function: str, alias) -> None:
    if not isinstance(alias, str):
        raise TypeError(f"{function}: alias must be a str, got {type(alias).__name__}")


def map_cuda_device(alias: str, context=None) -> Device:
    """Warp compatibility: give a CUDA context a device alias. brickwork runs each CUDA device in its primary
    context under the name ``cuda:N`` (fixed by the driver's ordinal): ``map_cuda_device("cuda:N")`` with
    ``context`` None or that device's primary context (``Device.context``) returns the device; any other alias
    or context is a ``RuntimeError`` that says so, and changes nothing."""
    _check_alias("map_cuda_device", alias)
    dev = get_device(alias) if alias.startswith("cuda:") and is_device_available(alias) else None
    if dev is not None and (context is None or _context_handle(context) == dev.context):
        return dev
    raise RuntimeError(f"map_cuda_device({alias!r}): brickwork maps no CUDA contexts under aliases of their own "
                       "(each CUDA device runs in its primary context, named 'cuda:N' by the driver's ordinal)")


def _context_handle(context) -> int | None:
    return getattr(context, "value", context)  # a ctypes.c_void_p, or the int Device.context gives


def unmap_cuda_device(alias: str) -> None:
    """Warp compatibility: remove a CUDA device mapped under an alias of its own. brickwork maps none (see
    ``map_cuda_device``), so every alias raises ``RuntimeError``, as Warp does for an alias it has not mapped."""
    _check_alias("unmap_cuda_device", alias)
    raise RuntimeError(f"Invalid CUDA device alias {alias!r}: brickwork maps no CUDA devices under aliases "
                       "(its CUDA devices are 'cuda:N', fixed by the driver)")


def set_device(device) -> None:
    """Make ``device`` the current device."""
    global _current
    _current = get_device(device)


def get_preferred_device() -> Device:
    """The preferred compute device, as Warp's: ``cuda:0`` where a CUDA device exists, else the CPU. (The
    current device, which launches use when none is named, stays the CPU until ``set_device`` changes it.)"""
    return get_device("cuda:0") if is_cuda_available() else CPU


def is_cuda_available() -> bool:
    """Whether a CUDA device can be used (a driver and at least one GPU)."""
    return cuda_driver.available()


def get_devices() -> list:
    """Every device of this machine: the CPU, then each CUDA device."""
    return [CPU, *get_cuda_devices()]


def is_device_available(device) -> bool:
    """Whether ``device`` (a ``Device`` or a name such as ``"cpu"`` or ``"cuda:1"``) exists here and can be used;
    False for names of no device."""
    try:
        get_device(device)
    except (ValueError, DeviceUnavailableError):
        return False
    return True


class ScopedDevice:
    """Context manager that makes a device current inside a ``with`` block."""

    def __init__(self, device):
        self.device = get_device(device)

    def __enter__(self):
        global _current
        self._saved = _current
        _current = self.device
        return self.device

    def __exit__(self, *exc):
        global _current
        _current = self._saved


def synchronize(device=None) -> None:
    """Wait for outstanding work on every CUDA device used so far (CPU launches are synchronous)."""
    for dev in [d for key, d in _cuda.items() if type(key) is int]:
        cuda_driver.driver().synchronize(dev.ordinal)
        pending_checks.synchronized(dev.ordinal)  # a struct field check's BoundsError is raised here


def synchronize_device(device=None) -> None:
    """Wait for outstanding work on one device (the current one when ``device`` is None)."""
    dev = get_device(device)
    if dev.is_cuda:
        cuda_driver.driver().synchronize(dev.ordinal)
        pending_checks.synchronized(dev.ordinal)
