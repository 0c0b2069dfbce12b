"""What a ``Device`` asks of the layers above it, which it cannot import: its current and default streams, whether
launches are being captured, and the architectures NVRTC compiles cubins for. ``import brickwork`` loads this
module, which hands itself to ``brickwork.device``."""

from __future__ import annotations

import sys

from .. import device as _devices
from . import launch, streams
from .cuda_archs import get_cuda_supported_archs


def current_stream(device):
    """The current stream of a CUDA device (``Device.stream``)."""
    return streams.get_stream(device)


def set_stream(stream, device, sync: bool) -> None:
    """Make ``stream`` the current stream of ``device`` (``Device.set_stream``)."""
    streams.set_stream(stream, device, sync=sync)


def default_stream(device):
    """The default stream (the legacy default stream, handle 0) of a CUDA device (``Device.null_stream``)."""
    return streams.Stream._default_of(device)


def capturing() -> bool:
    """Whether launches are being recorded into a graph (``Device.is_capturing``)."""
    return launch._capture is not None


def cubin_archs() -> list[int]:
    """The architectures the NVRTC brickwork loads compiles for (``Device.is_cubin_supported``)."""
    return get_cuda_supported_archs()


_devices._runtime = sys.modules[__name__]
