"""warp._src under the alias package: ``types`` and ``autograd.FunctionMetadata`` are real, the rest placeholders."""

import importlib as _importlib


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _importlib.import_module(f"{__name__}.{name}")
