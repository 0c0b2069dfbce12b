"""warp._src.autograd under the alias package: ``FunctionMetadata``, the metadata ``jacobian_plot`` accepts.

Warp's tests build it by hand to describe a kernel; brickwork's ``brickwork.autograd.FunctionMetadata`` has the
same fields. Any other name of Warp's implementation module is refused as an internal.
"""

from brickwork.autograd import FunctionMetadata  # noqa: F401

from .._internal import Placeholder as _Placeholder


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(f"{__name__}.{name}")
