"""A built CUDA instance as a launchable entry: the cubin, loaded into a device's context on first use."""

from __future__ import annotations

from ...errors import DeviceUnavailableError


class CudaEntry:
    """The entry point of one cubin; ``launch(buf, total, device)`` runs it (needs a GPU and its driver)."""

    def __init__(self, path: str, meta: dict):
        with open(path, "rb") as f:
            self.cubin = f.read()
        self.meta = meta
        self.label = meta.get("label", "kernel")

    def __call__(self, buf) -> None:
        raise DeviceUnavailableError(f"kernel '{self.label}' is a CUDA instance: launch it on a CUDA device")
