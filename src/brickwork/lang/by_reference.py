"""Pickling kernels and kernel functions by reference, as Python pickles a function: by its module and
qualified name, which another process (a ``multiprocessing`` worker, a ``concurrent.futures`` pool) imports to find
the same object. A copy (``copy.copy``, ``copy.deepcopy``) is the object itself: its compiled instances are shared."""

from __future__ import annotations

import importlib
import sys


def find_by_reference(module_name: str, qualname: str):
    """The object named ``qualname`` in module ``module_name``, imported if it is not yet (unpickling)."""
    found = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def reduce_by_reference(obj, what: str, module_name: str, qualname: str, where: str) -> tuple:
    """``obj.__reduce__``'s result, which finds it again by ``module_name`` and ``qualname``, or a ``TypeError``
    naming ``obj`` and ``where`` it is defined when that name does not lead back to it."""
    name = getattr(obj, "key", None) or getattr(obj, "__name__", qualname)
    if "<locals>" in qualname:
        why = f"it is defined inside a function ({qualname})"
    else:
        found = sys.modules.get(module_name)
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is obj:
            return find_by_reference, (module_name, qualname)
        why = (f"module {module_name!r} is not imported" if module_name not in sys.modules
               else f"{module_name}.{qualname} is not this {what} (defined again, or replaced)")
    raise TypeError(f"cannot pickle {what} '{name}' ({where}): a {what} pickles by reference, as a Python function "
                    f"does, and {why}; define it at the top level of a module, which the other process imports "
                    f"to find it")
