"""Test-session setup: one kernel cache shared by every test (and every xdist worker)."""

import os
import sys
import tempfile

# Set before brickwork is imported anywhere: config reads the environment once.
if "BRICKWORK_CACHE_DIR" not in os.environ:
    os.environ["BRICKWORK_CACHE_DIR"] = tempfile.mkdtemp(prefix="brickwork-test-cache-")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
