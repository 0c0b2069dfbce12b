"""``warp.examples`` under the alias package: where Warp's examples and their assets are.

compat/run_examples.py runs Warp's examples from the copy compat/fetch_tests.py extracted from the wheel and
names it in ``BRICKWORK_COMPAT_EXAMPLES``; the examples read their assets (volumes, images) from there. Warp's
test files import this module too, for USD meshes their tests read only where ``usd-core`` is installed (they
skip otherwise); without the variable, the directory named is where the assets would be.
"""

import os


def get_source_directory() -> str:
    return os.environ.get("BRICKWORK_COMPAT_EXAMPLES") or os.path.dirname(__file__)


def get_asset_directory() -> str:
    return os.path.join(get_source_directory(), "assets")
