"""``python -m brickwork``: the ``brickwork`` command (``brickwork.cli``), for an environment whose scripts
directory is not on ``PATH``."""

import sys

from .cli import main

if __name__ == "__main__":  # not when a tool imports every module of the package
    sys.exit(main())
