"""brickwork demo: a 2-D Kelvin-Helmholtz instability with the hydro application.

Run with ``make demo``, ``brickwork demo`` or ``python examples/demo.py [section.key=value ...]``
(e.g. ``mesh.nx=[128,128] time.tlim=1``). About a minute on two cores, kernels compiled on the
first run included; it ends by writing a PNG of the density into ``demo_output/``.
"""

import os
import sys

try:
    from brickwork.cli import main
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    from brickwork.cli import main

if __name__ == "__main__":
    sys.exit(main(["demo", *sys.argv[1:]]))
