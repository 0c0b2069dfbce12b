"""Devices: "cpu" always; the current device for allocations and launches."""

from __future__ import annotations


class Device:
    """A place where arrays live and kernels run."""

    __slots__ = ("name", "alias")

    def __init__(self, name: str):
        self.name = name
        self.alias = name

    @property
    def is_cpu(self) -> bool:
        return self.name == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.name.startswith("cuda")

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


CPU = Device("cpu")
_current = CPU


def get_device(device=None) -> Device:
    """The named device (``"cpu"``), or the current one when ``device`` is None."""
    if device is None:
        return _current
    if isinstance(device, Device):
        return device
    if device == "cpu":
        return CPU
    if isinstance(device, str) and device.startswith("cuda"):
        raise RuntimeError(f"no CUDA device: {device!r} is not available on this machine")
    raise ValueError(f"unknown device {device!r} (expected 'cpu' or 'cuda:N')")


def set_device(device) -> None:
    """Make ``device`` the current device."""
    global _current
    _current = get_device(device)


def get_preferred_device() -> Device:
    """The device launches use when none is named: the CPU (brickwork has no CUDA target yet)."""
    return CPU


def is_cuda_available() -> bool:
    """Whether a CUDA device can be used: always False for now, brickwork runs on the CPU only."""
    return False


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
    """Wait for outstanding work; CPU launches are synchronous, so this returns at once."""


def synchronize_device(device=None) -> None:
    """Wait for outstanding work on one device."""
