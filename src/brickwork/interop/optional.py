"""The array libraries interop works with are optional: each function imports its library when called, never
``import brickwork``, and says which function needs it where it is missing."""

from __future__ import annotations

import importlib

_LIBRARIES = {"jax": "JAX", "torch": "PyTorch"}  # module -> the name users know it by


def import_library(module: str, what: str):
    """The module ``module`` (``"jax"`` or ``"torch"``), or an ``ImportError`` saying that ``what`` needs it (neither
    is a brickwork dependency)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{what} needs {_LIBRARIES[module]}, which is not installed (pip install {module}): "
                         f"{e}") from e
