"""Helpers of the hydro application tests: build a checked config and run it into ``tmp_path``.

Kernels are shared between tests through the session's kernel cache (tests/conftest.py): the 2-D
tests use 16^2 blocks and the 1-D ones the default block, so each scheme compiles once. Every XDMF file a
test writes is checked the way a viewer reads it (``check_xdmf``, after the test).
"""

import copy

import pytest
from xdmf_check import check_xdmf

from brickwork.apps import hydro

QUIET = {"hdf5_dt": -1.0, "png_dt": -1.0, "restart_dt": -1.0, "history": False, "progress": False}


def merged(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for section, values in extra.items():
        out.setdefault(section, {}).update(values)
    return out


@pytest.fixture
def make_config(tmp_path):
    """``make_config(raw, overrides=())``: a checked Config writing into ``tmp_path`` (no outputs by
    default: the test's ``[output]`` keys switch them on)."""

    def make(raw: dict, overrides=()):
        raw = merged({"output": dict(QUIET, dir=str(tmp_path / "out"))}, raw)
        return hydro.build_config(raw, list(overrides), source="test")

    return make


@pytest.fixture
def run_hydro(make_config):
    """``run_hydro(raw, overrides=(), restart=None)``: build and run; returns the RunResult."""

    def run(raw: dict, overrides=(), restart=None):
        return hydro.run(make_config(raw, overrides), restart_file=restart)

    return run


@pytest.fixture(autouse=True)
def every_xdmf_is_readable(tmp_path):
    """After each test, every XDMF file it wrote under ``tmp_path`` must be readable by a viewer."""
    yield
    for path in sorted(tmp_path.rglob("*.xdmf")):
        check_xdmf(path)
