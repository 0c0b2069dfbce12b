"""Placeholders for Warp's internal modules (warp._src.*, warp.render, ...) under the alias package."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types


class WarpInternalUsed(Exception):
    """A test used a Warp internal or library module that brickwork does not mirror."""


class Placeholder:
    """Stands for one name of a Warp-internal module; any use raises WarpInternalUsed naming it."""

    def __init__(self, qualname: str):
        object.__setattr__(self, "_qualname", qualname)

    def __setattr__(self, name, value):  # patching a Warp internal (mock.patch.object) is using it
        raise WarpInternalUsed(f"{self._qualname}.{name}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(f"{self._qualname}.{name}")

    def _refuse(self, *args, **kwargs):
        raise WarpInternalUsed(self._qualname)

    __call__ = __iter__ = __len__ = __getitem__ = __setitem__ = __delitem__ = __enter__ = _refuse
    # numpy.asarray() of an internal table, int() or float() of an internal constant
    __array__ = __int__ = __float__ = __index__ = _refuse
    # isinstance(x, LoggerBasic) of an internal class
    __instancecheck__ = __subclasscheck__ = _refuse

    @property
    def __signature__(self):  # inspect.signature() of a Warp library function uses Warp's implementation
        raise WarpInternalUsed(self._qualname)

    def __repr__(self):
        return f"<Warp internal {self._qualname}>"


class PlaceholderModule(types.ModuleType):
    def __setattr__(self, name, value):  # patching a name of a Warp-internal module (mock.patch) is using it
        if name.startswith("__") or isinstance(value, types.ModuleType):  # the import system's, submodules
            super().__setattr__(name, value)
            return
        raise WarpInternalUsed(f"{self.__name__}.{name}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(f"{self.__name__}.{name}")


# Modules that exist for real in the alias package (they carry data tests iterate over at import).
_REAL = {"_src", "_src.types", "_src.autograd", "_src.codegen"}
_PLACEHOLDER_ROOTS = ("_src", "render", "sim", "jax_experimental")
# Placeholder submodules of modules that are brickwork's own (none now: warp.optim.linear is
# brickwork.optim.linear).
_PLACEHOLDER_MODULES: set = set()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, package: str):
        self.package = package

    def find_spec(self, fullname, path=None, target=None):
        prefix = self.package + "."
        if not fullname.startswith(prefix):
            return None
        rest = fullname[len(prefix):]
        if rest in _REAL or (rest.split(".")[0] not in _PLACEHOLDER_ROOTS and
                             not any(rest == m or rest.startswith(m + ".") for m in _PLACEHOLDER_MODULES)):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = PlaceholderModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install(package: str) -> None:
    sys.meta_path.insert(0, _Finder(package))
