"""Warp's memory-pool and peer-access queries and switches. brickwork allocates CUDA memory with ``cuMemAlloc``
and enables no peer access: the queries answer False for every device they know, turning either off is a no-op
(what already holds) and turning it on, or asking for a pool's figures, is a ``ValueError`` that says why."""

from __future__ import annotations

from .device import Device, get_device
from .errors import DeviceUnavailableError


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
