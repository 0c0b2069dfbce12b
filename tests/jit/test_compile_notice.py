"""The ``brickwork: compiling ...`` lines of a build that takes more than ``notice.AFTER`` seconds (jit/notice.py):
written to stderr once per build, with the closing line, unless ``config.quiet`` or a logger above warnings."""

import logging
import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import notice
from brickwork.jit.notice import CompileNotice


@pytest.fixture
def shown(monkeypatch):
    """Notices on (the suite runs quiet), written at a build's first miss."""
    monkeypatch.setattr(config, "quiet", False)
    monkeypatch.setattr(notice, "AFTER", 0)


def test_a_slow_build_says_what_it_compiles_and_when_it_is_done(shown, capsys):
    n = CompileNotice("cpu")
    n.begin("fluxes[float64]")
    n.begin("cfl[float64]")
    n.count = 2
    n.end()
    first, last = capsys.readouterr().err.splitlines()
    assert first == "brickwork: compiling fluxes[float64] for cpu (kept in the cache: later runs load them)..."
    assert last.startswith("brickwork: compiled 2 kernels for cpu in ") and last.endswith(" s")
    n.end()  # once only
    assert capsys.readouterr().err == ""


def test_the_waiting_line_counts_the_kernels_begun_before_it(shown, capsys):
    n = CompileNotice("cuda")
    n.labels = ["a[int32]", "b[int32]"]  # generated before the clock ran out
    n._announce()
    assert capsys.readouterr().err == ("brickwork: compiling a[int32] and more kernels for cuda (kept in the cache: "
                                       "later runs load them)...\n")


def test_a_build_that_waited_for_another_process_says_so(shown, capsys):
    """An instance another process compiled (an MPI rank; pipeline counts it by jit.cache.published_here) is not
    this process's compile: all waited for, or some of each."""
    n = CompileNotice("cpu")
    n.begin("fluxes[float64]")
    n.waited = 1
    n.end()
    last = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(r"brickwork: waited \d+\.\d s for 1 kernel for cpu that another process compiled \(loaded "
                        r"from the cache\)", last), last
    n = CompileNotice("cuda")
    n.begin("a[int32]")
    n.count, n.waited = 2, 3
    n.end()
    last = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(r"brickwork: compiled 2 kernels for cuda in \d+\.\d s \(3 more compiled by another process, "
                        r"loaded from the cache\)", last), last


def test_a_build_done_in_time_prints_nothing(monkeypatch, capsys):
    monkeypatch.setattr(config, "quiet", False)
    monkeypatch.setattr(notice, "AFTER", 3600.0)
    n = CompileNotice("cpu")
    n.begin("k[float32]")
    n.count = 1
    n.end()
    assert capsys.readouterr().err == "" and n.timer is None


def test_quiet_and_a_logger_above_warnings_silence_it(shown, monkeypatch, capsys):
    monkeypatch.setattr(config, "quiet", True)
    n = CompileNotice("cpu")
    n.begin("k[float32]")
    n.end()
    monkeypatch.setattr(config, "quiet", False)
    logger = logging.getLogger("brickwork")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        n = CompileNotice("cpu")
        n.begin("k[float32]")
        n.end()
    finally:
        logger.setLevel(level)
    assert capsys.readouterr().err == "" and n.started is None


def test_a_build_that_compiled_nothing_says_so(shown, capsys):
    n = CompileNotice("cpu")
    n.begin("k[float32]")  # its generation raised: no job
    n.end()
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("brickwork: nothing compiled for cpu in ")


@wp.kernel
def _noticed(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] * 3.0 + 1.0


def test_a_first_launch_that_compiles_writes_both_lines(shown, capsys):
    a = wp.array(np.arange(4, dtype=np.float32), dtype=wp.float32)
    wp.launch(_noticed, dim=4, inputs=[a])
    np.testing.assert_array_equal(a.numpy(), np.arange(4, dtype=np.float32) * 3 + 1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("brickwork: compiling _noticed")
    assert lines[1].startswith("brickwork: compiled 1 kernel for cpu in ")
    wp.launch(_noticed, dim=4, inputs=[a])  # loaded: nothing more
    assert capsys.readouterr().err == ""
