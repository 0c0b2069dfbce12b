"""Alias package for `make compat`: ``import warp`` gives brickwork, so Warp's test files run against it.

Every name of ``brickwork`` is a name of this package, and ``warp.types``/``warp.config``/``warp.utils``/
``warp.autograd``/``warp.optim``/``warp.sparse``/``warp.geometry`` are brickwork's modules (``warp.optim.linear``
too: Warp's linear solvers). ``warp.tests`` holds the harness's own ``unittest_utils`` and, through ``__path__``,
the test files fetched from the warp-lang wheel. Names under ``warp._src`` and ``warp.fem`` (Warp's internals
and libraries, which brickwork does not mirror) import as placeholders: a test that uses one raises
``WarpInternalUsed`` and is counted as excluded, with the name, by the runner.
"""

import sys as _sys

import brickwork as _bw
from brickwork import *  # noqa: F403

globals().update({k: v for k, v in vars(_bw).items() if not k.startswith("__")})
__version__ = "1.19.0"  # the Warp version whose tests run here (brickwork's own is brickwork.__version__)
_sys.modules[__name__ + ".types"] = _bw.types
_sys.modules[__name__ + ".config"] = _bw.config
_sys.modules[__name__ + ".utils"] = _bw.utils
import brickwork.autograd as autograd  # noqa: E402 - Warp's gradient checks are brickwork's own

_sys.modules[__name__ + ".autograd"] = autograd
import brickwork.optim as optim  # noqa: E402 - warp.optim: brickwork's Adam and SGD

_sys.modules[__name__ + ".optim"] = optim
_sys.modules[__name__ + ".optim.linear"] = optim.linear  # Warp's linear solvers: brickwork's own
import brickwork.sparse as sparse  # noqa: E402 - warp.sparse: brickwork's BSR matrices

_sys.modules[__name__ + ".sparse"] = sparse
import brickwork.geometry as geometry  # noqa: E402 - warp.geometry: brickwork's isosurfaces, adjacency, swept volumes

_sys.modules[__name__ + ".geometry"] = geometry

from . import _internal  # noqa: E402

_internal.install(__name__)
from . import _src  # noqa: E402, F401


def __getattr__(name):  # brickwork's names loaded on first use (wp.from_dlpack, wp.HashGrid, wp.Mesh, ...)
    return getattr(_bw, name)
