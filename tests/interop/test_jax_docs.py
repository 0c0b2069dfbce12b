"""The JAX example of docs/interop.md, run where jax is installed: it is a ``{code-block} python`` there, which
tests/docs/test_docs_examples.py leaves out, since CI has no jax."""

import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("jax")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
BLOCKS = [block for block in re.findall(r"^```\{code-block\} python\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)
          if "import jax" in block]


def test_the_page_has_its_example():
    assert len(BLOCKS) == 1 and "wp.jax_kernel" in BLOCKS[0] and "wp.from_jax" in BLOCKS[0]


def test_example_runs(tmp_path):
    script = tmp_path / "interop_jax_example.py"  # a file: kernels compile from their source lines
    script.write_text(BLOCKS[0])
    runpy.run_path(str(script), run_name="__main__")
