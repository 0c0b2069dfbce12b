"""warp._src under the alias package: only ``types`` is real; other submodules are placeholders."""

import importlib as _importlib


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _importlib.import_module(f"{__name__}.{name}")
