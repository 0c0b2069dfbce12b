"""The Python examples of the user guides run as written (from files: bodies compile from source)."""

import re
import runpy
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDES = ["loop_abstraction.md", "kernel_language.md", "env.md", "mpi.md"]
BLOCKS = [(g, i, b) for g in GUIDES for i, b in enumerate(re.findall(r"```python\n(.*?)```", (DOCS / g).read_text(),
                                                                     flags=re.S))]


@pytest.mark.parametrize("guide, index, block", BLOCKS, ids=[f"{g}:{i}" for g, i, _ in BLOCKS])
def test_guide_example_runs(guide, index, block, tmp_path):
    if "loop_abstraction" in guide and not _standalone(block):
        pytest.skip("continues the previous example")
    script = tmp_path / f"{Path(guide).stem}_example{index}.py"
    script.write_text(block)
    runpy.run_path(str(script), run_name="__main__")


def _standalone(block: str) -> bool:
    return "import brickwork" in block or "from brickwork" in block
