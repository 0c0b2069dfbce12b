"""Devices: "cpu" always, "cuda:N" where a CUDA driver and GPU exist; the current device for
allocations and launches (the CPU unless changed with ``set_device`` or ``ScopedDevice``)."""

from __future__ import annotations

from . import cuda_driver
from .errors import DeviceUnavailableError


class Device:
    """A place where arrays live and kernels run (``ordinal``: the CUDA device number, -1 on the CPU, as Warp's)."""

    __slots__ = ("name", "alias", "ordinal")

    def __init__(self, name: str, ordinal: int = -1):
        self.name = name
        self.alias = name
        self.ordinal = ordinal

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
        """The bytes of shared memory a thread block of a CUDA device may use (without opting in to more); 0
        for the CPU."""
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

    def __str__(self):
        return self.name

    def __repr__(self):
        return f'Device("{self.name}")'

    def __eq__(self, other):
        if isinstance(other, str):
            return self.name == other
        return isinstance(other, Device) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


CPU = Device("cpu", -1)
_current = CPU
_cuda: dict = {}  # ordinal -> Device, for every CUDA device named so far


def get_device(device=None) -> Device:
    """The named device (``"cpu"``, ``"cuda"``, ``"cuda:N"``), or the current one when ``device`` is None.

    A CUDA device that does not exist here raises ``DeviceUnavailableError`` (a ``RuntimeError``)
    saying why: no driver, no GPU, or fewer devices than the number asked for."""
    if device is None:
        return _current
    if isinstance(device, Device):
        return device
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
        dev = _cuda[ordinal] = Device(f"cuda:{ordinal}", ordinal)
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


def unmap_cuda_device(alias: str) -> None:
    """Warp compatibility: remove a CUDA device mapped under an alias of its own. brickwork names its CUDA
    devices ``cuda:N`` after the driver's ordinals and maps none under other aliases (it has no
    ``map_cuda_device``), so every alias raises ``RuntimeError``, as Warp does for an alias it has not mapped."""
    if not isinstance(alias, str):
        raise TypeError(f"unmap_cuda_device: alias must be a str, got {type(alias).__name__}")
    raise RuntimeError(f"Invalid CUDA device alias {alias!r}: brickwork maps no CUDA devices under aliases "
                       "(its CUDA devices are 'cuda:N', fixed by the driver)")


def set_device(device) -> None:
    """Make ``device`` the current device."""
    global _current
    _current = get_device(device)


def get_preferred_device() -> Device:
    """The device launches use when none is named: the CPU (name ``"cuda:N"``, or make it current with
    ``set_device``/``ScopedDevice``, to run on a GPU)."""
    return CPU


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


def _known_device(device) -> Device:
    """The named device; a name of no device here is a ValueError (as Warp's device queries raise)."""
    try:
        return get_device(device)
    except DeviceUnavailableError as e:
        raise ValueError(f"Invalid device identifier: {device} ({e})") from None
    except ValueError:
        raise ValueError(f"Invalid device identifier: {device}") from None


def is_mempool_supported(device) -> bool:
    """Whether brickwork allocates on ``device`` from a CUDA stream-ordered memory pool: never (the CPU has none;
    on CUDA devices brickwork allocates with ``cuMemAlloc``)."""
    _known_device(device)
    return False


def is_mempool_enabled(device) -> bool:
    """Whether allocations on ``device`` use a CUDA memory pool: never in brickwork (see ``is_mempool_supported``)."""
    _known_device(device)
    return False


def is_mempool_access_supported(target_device, peer_device) -> bool:
    """Whether ``peer_device`` may access the memory pool of ``target_device``: no device has one in brickwork."""
    _known_device(target_device), _known_device(peer_device)
    return False


def is_mempool_access_enabled(target_device, peer_device) -> bool:
    """Whether ``peer_device`` has access to the memory pool of ``target_device``: never in brickwork."""
    _known_device(target_device), _known_device(peer_device)
    return False


def is_peer_access_supported(target_device, peer_device) -> bool:
    """Whether kernels on ``peer_device`` may read memory of ``target_device`` directly: brickwork enables no
    CUDA peer access, and the CPU has none."""
    _known_device(target_device), _known_device(peer_device)
    return False


def is_peer_access_enabled(target_device, peer_device) -> bool:
    """Whether CUDA peer access from ``peer_device`` to ``target_device`` is enabled: never in brickwork."""
    _known_device(target_device), _known_device(peer_device)
    return False


# Memory pools and peer access, as Warp spells their switches. brickwork allocates CUDA memory with
# cuMemAlloc and enables no peer access: turning either off is what already holds (Warp code that does it
# runs unchanged); turning it on, or asking for a pool's figures, is an error that says so.
def _no_pool(device, doing: str) -> None:
    dev = _known_device(device)
    if dev.is_cpu:
        raise ValueError(f"Memory pools are only supported on CUDA devices (cannot {doing} on {dev})")
    raise ValueError(f"cannot {doing} on {dev}: brickwork allocates CUDA memory with cuMemAlloc and keeps no "
                     f"memory pool (wp.is_mempool_supported({str(dev)!r}) is False)")


def _no_peer_access(target_device, peer_device, what: str, enable) -> None:
    devs = (_known_device(target_device), _known_device(peer_device))
    if not enable:
        return
    if any(d.is_cpu for d in devs):
        raise ValueError(f"{what} is only supported between CUDA devices (got {devs[0]} and {devs[1]})")
    raise ValueError(f"cannot enable {what.lower()} from {devs[1]} to {devs[0]}: brickwork does not enable CUDA "
                     f"peer access (copies between devices go through the host)")


def set_mempool_enabled(device, enable: bool) -> None:
    """Turn the CUDA memory pool of ``device`` on or off: off is what brickwork always does (a no-op);
    on is a ``ValueError`` (no device has a pool in brickwork, see ``is_mempool_supported``)."""
    if enable:
        _no_pool(device, "enable a memory pool")
    _known_device(device)


def get_mempool_release_threshold(device) -> int:
    """The release threshold of ``device``'s memory pool: a ``ValueError``, since no device has one."""
    _no_pool(device, "read a memory pool's release threshold")


def set_mempool_release_threshold(device, threshold) -> None:
    """Set the release threshold of ``device``'s memory pool: a ``ValueError``, since no device has one."""
    _no_pool(device, "set a memory pool's release threshold")


def get_mempool_used_mem_current(device) -> int:
    """Bytes in use in ``device``'s memory pool: a ``ValueError``, since no device has one."""
    _no_pool(device, "read a memory pool's use")


def get_mempool_used_mem_high(device) -> int:
    """The most bytes ever in use in ``device``'s memory pool: a ``ValueError``, since no device has one."""
    _no_pool(device, "read a memory pool's use")


def set_mempool_access_enabled(target_device, peer_device, enable: bool) -> None:
    """Let ``peer_device`` allocate from ``target_device``'s memory pool: off is a no-op, on a ``ValueError``."""
    _no_peer_access(target_device, peer_device, "Memory pool access", enable)


def set_peer_access_enabled(target_device, peer_device, enable: bool) -> None:
    """Let kernels on ``peer_device`` read ``target_device``'s memory: off is a no-op, on a ``ValueError``."""
    _no_peer_access(target_device, peer_device, "Peer access", enable)


class _ScopedSwitch:
    """A ``with`` block around one of the switches above; only off is possible, so nothing is restored."""

    _set = None  # the switch: a staticmethod of the subclass

    def __init__(self, *args):
        self._args = args

    def __enter__(self):
        self._set(*self._args)
        return self

    def __exit__(self, *exc):
        return None


class ScopedMempool(_ScopedSwitch):
    """``with wp.ScopedMempool(device, enable):`` the pool setting inside the block (only off is possible)."""

    _set = staticmethod(set_mempool_enabled)

    def __init__(self, device, enable: bool):
        super().__init__(device, enable)


class ScopedMempoolAccess(_ScopedSwitch):
    """``with wp.ScopedMempoolAccess(target, peer, enable):`` pool access inside the block (only off is possible)."""

    _set = staticmethod(set_mempool_access_enabled)

    def __init__(self, target_device, peer_device, enable: bool):
        super().__init__(target_device, peer_device, enable)


class ScopedPeerAccess(_ScopedSwitch):
    """``with wp.ScopedPeerAccess(target, peer, enable):`` peer access inside the block (only off is possible)."""

    _set = staticmethod(set_peer_access_enabled)

    def __init__(self, target_device, peer_device, enable: bool):
        super().__init__(target_device, peer_device, enable)


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
    for dev in list(_cuda.values()):
        cuda_driver.driver().synchronize(dev.ordinal)


def synchronize_device(device=None) -> None:
    """Wait for outstanding work on one device (the current one when ``device`` is None)."""
    dev = get_device(device)
    if dev.is_cuda:
        cuda_driver.driver().synchronize(dev.ordinal)
