"""The compiler's vectorizer report on generated source: which source lines became vector loops."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from brickwork.jit.toolchain import include_dir, settings


def vectorized_lines(text: str) -> dict[int, str]:
    """Line number -> source line of every loop of ``text`` g++ reports vectorized (a loop whose
    first statement was inlined from the runtime header is reported at the header's line)."""
    lines = text.splitlines()
    return {line: lines[line - 1].strip() for where, line, _ in vectorized_loops(text) if where == "kernel.cpp"}


def vectorized_loops(text: str) -> list[tuple[str, int, int]]:
    """``(file name, line, vector bytes)`` of every loop g++ reports vectorized
    (``-fopt-info-vec-optimized``), epilogues included. Skips the calling test when the compiler is
    not GCC (the report's format is GCC's)."""
    s = settings()
    if "g++" not in Path(s.cxx).name and "gcc" not in s.version.lower():
        pytest.skip(f"the vectorizer report needs GCC, the compiler is {s.cxx}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.cpp"
        src.write_text(text)
        cmd = s.command(str(src), str(Path(tmp) / "kernel.so"), include_dir()) + ["-fopt-info-vec-optimized"]
        report = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    return [(Path(m.group(1)).name, int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"([^\s:]+):(\d+):\d+: optimized: loop vectorized using (\d+) byte vectors", report)]


def capture_cpu_sources(monkeypatch, cache_dir) -> list[str]:
    """From now on in the calling test, the C++ of every CPU instance generated is appended to the
    returned list; the kernel cache is ``cache_dir`` (empty: every instance is generated)."""
    from brickwork import config
    from brickwork.targets.cpu import CpuTarget

    sources: list[str] = []
    render = CpuTarget.render

    def capture(self, kernel, callees, label, general_strides=False):
        text = render(self, kernel, callees, label, general_strides)
        sources.append(text)
        return text

    monkeypatch.setattr(config, "cache_dir", str(cache_dir))
    monkeypatch.setattr(CpuTarget, "render", capture)
    return sources
