"""warp.tests under the alias package: the harness's unittest_utils, then the fetched Warp test files.

The directory of the fetched files is named by ``BRICKWORK_COMPAT_TESTS`` (set by compat/run_compat.py).
"""

import os as _os

if _os.environ.get("BRICKWORK_COMPAT_TESTS"):
    __path__.append(_os.environ["BRICKWORK_COMPAT_TESTS"])  # noqa: F821 - a package's own __path__
