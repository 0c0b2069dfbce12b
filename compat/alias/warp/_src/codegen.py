"""warp._src.codegen under the alias package: the code generator's error classes, which Warp also publishes as
``wp.WarpCodegenError``, ``wp.WarpCodegenTypeError``, ... (brickwork has them at those public names). Any other
name of Warp's implementation module is refused as an internal.
"""

import brickwork as _bw

from .._internal import Placeholder as _Placeholder

WarpCodegenError = _bw.WarpCodegenError
WarpCodegenTypeError = _bw.WarpCodegenTypeError
WarpCodegenAttributeError = _bw.WarpCodegenAttributeError
WarpCodegenNameError = _bw.WarpCodegenNameError
WarpCodegenValueError = _bw.WarpCodegenValueError


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder(f"{__name__}.{name}")
