"""Test-session setup: one kernel cache shared by every test (and every xdist worker), IR verified."""

import os
import sys
import tempfile

# Set before brickwork is imported anywhere: config reads the environment once.
if "BRICKWORK_CACHE_DIR" not in os.environ:
    os.environ["BRICKWORK_CACHE_DIR"] = tempfile.mkdtemp(prefix="brickwork-test-cache-")
# Every instance the suite compiles has its IR verified after typing and after every pass.
os.environ.setdefault("BRICKWORK_VERIFY_IR", "1")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
