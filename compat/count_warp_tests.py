"""Count the tests each module of compat/files.py registers under Warp itself on a CPU-only machine.

Run with an interpreter that has warp-lang 1.19 installed (a scratch venv, never brickwork's):
    /tmp/warpenv/bin/python compat/count_warp_tests.py compat/warp_test_counts.json
The counts are the denominators of the compat table for files that do not import under brickwork.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from files import MODULES  # noqa: E402

counts = {}
for module in MODULES:
    suite = unittest.defaultTestLoader.loadTestsFromName(f"warp.tests.{module}")
    counts[module] = suite.countTestCases()
with open(sys.argv[1], "w") as f:
    f.write(json.dumps(counts, indent=1, sort_keys=True) + "\n")
