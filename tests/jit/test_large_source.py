"""A translation unit of ``jit.compile.LARGE_SOURCE`` characters or more is announced before g++ runs on it."""

from __future__ import annotations

import hashlib
import logging
import os

from brickwork.jit import compile as jit

from .conftest import TRIVIAL


def _key(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:40]


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "brickwork" and r.levelno == logging.WARNING]


def test_a_long_unit_is_announced_with_its_label_size_and_the_compiler(root, caplog, monkeypatch):
    source = TRIVIAL + "// padding\n" * 200  # 2 247 characters, 201 lines
    monkeypatch.setattr(jit, "LARGE_SOURCE", 2_000)
    with caplog.at_level(logging.WARNING, logger="brickwork"):
        path, meta = jit.build(_key("long unit"), source, "huge_kernel[float32]", {})
    compiler = os.path.basename(jit.settings().cxx)
    assert _warnings(caplog) == [
        f"compiling huge_kernel[float32]: its generated C++ is 2 kB (201 lines); {compiler} may take a minute or "
        "more. A kernel of thousands of parameters, locals or statements compiles slowly: split it into several "
        "kernels"]
    assert os.path.isfile(path) and meta["label"] == "huge_kernel[float32]"


def test_a_unit_below_the_limit_compiles_without_a_word(root, caplog, monkeypatch):
    monkeypatch.setattr(jit, "LARGE_SOURCE", len(TRIVIAL) + 1)
    with caplog.at_level(logging.WARNING, logger="brickwork"):
        path, _ = jit.build(_key("short unit"), TRIVIAL, "small_kernel", {})
    assert _warnings(caplog) == [] and os.path.isfile(path)
