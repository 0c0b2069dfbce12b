"""Sphinx configuration of brickwork's documentation site (``make docs``; output in docs/_build/html)."""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

# The figures' runs compile their kernels on a cold cache: no "brickwork: compiling ..." lines in the build's
# output (set before brickwork is imported: config reads the environment once; BRICKWORK_QUIET=0 shows them).
os.environ.setdefault("BRICKWORK_QUIET", "1")

import brickwork  # noqa: E402 - after the path set-up above

project = "brickwork"
author = "the brickwork developers"
copyright = "the brickwork developers, BSD-3-Clause"  # noqa: A001 - Sphinx's setting name
release = version = brickwork.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "brickwork_api",      # the API reference, from each package's public names
    "brickwork_cli",      # the command-line reference, from the argument parser
    "brickwork_figures",  # the hydro guide's figures, from real runs
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

# Markdown: `#` links to headings as GitHub renders them, so links work on both.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}

html_theme = "furo"
html_title = f"brickwork {release}"
html_static_path = []
pygments_style = "sphinx"
nitpicky = False
