"""Warp 1.19's logger objects (``wp.Logger``, ``wp.get_logger``, ``wp.set_logger``, ``wp.ScopedLogger``): an
installed logger receives brickwork's messages (``print_launches`` lines, Warp-form warnings, the ``brickwork``
logger's records) instead of stdout, stderr and ``logging``; ``None`` restores brickwork's default routes."""

from __future__ import annotations

import inspect
import logging
import warnings

import numpy as np
import pytest

import brickwork as wp
from brickwork.runtime import warp_warnings


@wp.kernel
def doubled(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


class Recorder:
    """A logger of the program's own: keeps what it is given, and warns through Python as a framework would."""

    def __init__(self):
        self.got = []

    def debug(self, message):
        self.got.append(("debug", message))

    def info(self, message):
        self.got.append(("info", message))

    def warning(self, message, category=None, stacklevel=1):
        self.got.append(("warning", message, category))
        warnings.warn(message, category, stacklevel=stacklevel)

    def error(self, message):
        self.got.append(("error", message))


def library_function():
    warp_warnings.warn("the mesh has no triangles")  # names its caller, as Warp's warnings do


@pytest.fixture(autouse=True)
def default_logger_after():
    yield
    wp.set_logger(None)


def test_the_protocol_and_the_default_logger():
    with pytest.raises(TypeError):
        wp.Logger()
    default = wp.get_logger()
    assert isinstance(default, wp.Logger)
    assert not isinstance(object(), wp.Logger)
    wp.set_logger(None)
    assert wp.get_logger() is default


def test_an_installed_logger_takes_launch_lines_warnings_and_log_records(capsys):
    recorder = Recorder()
    wp.set_logger(recorder)
    assert wp.get_logger() is recorder
    x = wp.array(np.arange(3, dtype=np.float32))
    y = wp.zeros(3, dtype=wp.float32)
    with wp.config.override(print_launches=True):
        wp.launch(doubled, 3, inputs=[x, y])
    line = doubled.func.__code__.co_firstlineno
    assert recorder.got == [("info", f"kernel: {doubled.key} ({__file__}:{line}) dim: 3 inputs: "
                                     "[array(float32, shape=(3,), device=cpu), array(float32, shape=(3,), device=cpu)] "
                                     "outputs: [] device: cpu")]
    assert np.array_equal(y.numpy(), [0.0, 2.0, 4.0])
    recorder.got.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call_line = inspect.currentframe().f_lineno + 1
        library_function()
    assert recorder.got == [("warning", "the mesh has no triangles", UserWarning)]
    # the stacklevel handed to the logger names the library function's caller, as warnings.warn expects it
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, call_line)]
    recorder.got.clear()
    with wp.ScopedLogLevel(wp.LOG_DEBUG):
        logging.getLogger("brickwork").debug("built in 1.2 s")
        logging.getLogger("brickwork").error("the compiler failed")
    logging.getLogger("brickwork").debug("below the level")  # config.log_level still decides
    assert recorder.got == [("debug", "built in 1.2 s"), ("error", "the compiler failed")]
    assert capsys.readouterr() == ("", "")  # nothing went to stdout or stderr


def test_set_logger_none_restores_the_default_routes(capsys):
    wp.set_logger(Recorder())
    wp.set_logger(None)
    library_function()
    assert capsys.readouterr().err == "Warp UserWarning: the mesh has no triangles\n"
    x = wp.zeros(2, dtype=wp.float32)
    with wp.config.override(print_launches=True):
        wp.launch(doubled, 2, inputs=[x, x])
    assert capsys.readouterr().out.startswith(f"kernel: {doubled.key} (")


def test_the_default_logger_writes_as_brickwork_does(capsys, caplog):
    default = wp.get_logger()
    default.warning("check the grid")
    assert capsys.readouterr().err == "Warp UserWarning: check the grid\n"
    with caplog.at_level(logging.INFO, logger="brickwork"):
        default.info("loaded")
        default.error("failed")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("INFO", "loaded"), ("ERROR", "failed")]


class NoInfo:
    def debug(self, message):
        pass

    info = None

    def warning(self, message, category=None, stacklevel=1):
        pass


@pytest.mark.parametrize("bad, missing", [("not a logger", "debug, info, warning, error"), (NoInfo(), "info, error")])
def test_an_object_without_the_four_methods_is_refused_and_nothing_changes(bad, missing):
    recorder = Recorder()
    wp.set_logger(recorder)
    with pytest.raises(TypeError, match=f"has no callable {missing} \\(the active logger was not changed\\)"):
        wp.set_logger(bad)
    with pytest.raises(TypeError, match=f"has no callable {missing}"):
        wp.ScopedLogger(bad)
    assert wp.get_logger() is recorder


def test_scoped_logger_installs_for_the_block_and_restores_after_an_exception():
    outer, inner = Recorder(), Recorder()
    wp.set_logger(outer)
    with wp.ScopedLogger(inner) as scope:
        assert scope.logger is inner and wp.get_logger() is inner
        library_function_quietly()
    assert wp.get_logger() is outer
    assert inner.got == [("warning", "the mesh has no triangles", UserWarning)] and outer.got == []
    with pytest.raises(RuntimeError, match="boom"):
        with wp.ScopedLogger(None):
            assert not isinstance(wp.get_logger(), Recorder)
            raise RuntimeError("boom")
    assert wp.get_logger() is outer
    with wp.ScopedLogger(Recorder()):
        outer.debug = None  # the saved logger is put back as it is, not checked again
    assert wp.get_logger() is outer


def library_function_quietly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library_function()


def test_an_installed_logger_takes_the_compile_notices(monkeypatch, capsys):
    from brickwork.jit import notice

    monkeypatch.setattr(wp.config, "quiet", False)
    monkeypatch.setattr(notice, "AFTER", 0)  # announced at the build's first miss
    recorder = Recorder()
    with wp.ScopedLogger(recorder):
        build = notice.CompileNotice("cpu")
        build.begin("fluxes[float64]")
        build.count = 1
        build.end()
    (kind, first), (kind2, last) = recorder.got
    assert (kind, kind2) == ("info", "info")
    assert first == "brickwork: compiling fluxes[float64] for cpu (kept in the cache: later runs load them)..."
    assert last.startswith("brickwork: compiled 1 kernel for cpu in ") and last.endswith(" s")
    assert capsys.readouterr().err == ""
