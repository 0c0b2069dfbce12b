"""The Python examples in docs/mesh.md run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "mesh.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S) if DOC.exists() else []


def test_doc_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_example_runs(index, tmp_path):
    # Written to a file and run from there: loop bodies are compiled from their source file.
    script = tmp_path / f"mesh_doc_example{index}.py"
    script.write_text(BLOCKS[index])
    runpy.run_path(str(script), run_name="__main__")
