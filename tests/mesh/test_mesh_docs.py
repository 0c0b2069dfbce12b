"""The Python examples in docs/mesh.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "mesh.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S) if DOC.exists() else []


def test_doc_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_example_runs(index):
    exec(compile(BLOCKS[index], f"{DOC}:example{index}", "exec"), {})
