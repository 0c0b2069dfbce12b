"""The example of docs/interop.md, run where torch is installed: it is a ``{code-block} python`` there, which
tests/docs/test_docs_examples.py leaves out, since CI has no torch."""

import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("torch")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "interop.md"
BLOCKS = [block for block in re.findall(r"^```\{code-block\} python\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)
          if "import torch" in block]  # the JAX section's example: tests/interop/test_jax_docs.py


def test_the_page_has_its_example():
    assert len(BLOCKS) == 1 and "torch.autograd.Function" in BLOCKS[0]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index, tmp_path):
    script = tmp_path / f"interop_example{index}.py"  # a file: kernels compile from their source lines
    script.write_text(BLOCKS[index])
    runpy.run_path(str(script), run_name="__main__")
