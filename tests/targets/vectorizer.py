"""The compiler's vectorizer report on generated source: which source lines became vector loops."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from brickwork.jit.toolchain import include_dir, settings


def vectorized_lines(text: str) -> dict[int, str]:
    """Line number -> source line of every loop g++ reports vectorized (``-fopt-info-vec-optimized``).

    Skips the calling test when the compiler is not GCC (the report's format is GCC's).
    """
    s = settings()
    if "g++" not in Path(s.cxx).name and "gcc" not in s.version.lower():
        pytest.skip(f"the vectorizer report needs GCC, the compiler is {s.cxx}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.cpp"
        src.write_text(text)
        cmd = s.command(str(src), str(Path(tmp) / "kernel.so"), include_dir()) + ["-fopt-info-vec-optimized"]
        report = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    lines = text.splitlines()
    found = {}
    for m in re.finditer(r"kernel\.cpp:(\d+):\d+: optimized: loop vectorized", report):
        number = int(m.group(1))
        found[number] = lines[number - 1].strip()
    return found
