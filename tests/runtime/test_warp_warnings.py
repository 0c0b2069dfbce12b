"""``wp.config.verbose_warnings`` (Warp's flag): a warning written in Warp's form (``runtime/warp_warnings``)
names the caller's file and line, and shows the line, only while the flag is set. The text is Warp 1.19's
(its graph-coloring warning, compared under Warp)."""

import inspect
import warnings

import pytest

import brickwork as wp
from brickwork.runtime import warp_warnings

MESSAGE = "Graph coloring stopped because it reached the 1-iteration limit (achieved ratio 13, target 1)."


def library_function():
    warp_warnings.warn(MESSAGE)  # names the caller of library_function, as Warp's warnings do


def test_off_by_default_the_warning_is_one_line(capsys):
    assert wp.config.verbose_warnings is False
    library_function()
    assert capsys.readouterr().err == f"Warp UserWarning: {MESSAGE}\n"


def test_verbose_warnings_adds_the_callers_file_line_and_source(capsys):
    with wp.config.override(verbose_warnings=True):
        line = inspect.currentframe().f_lineno + 1
        library_function()
    assert capsys.readouterr().err == (f"Warp UserWarning: {MESSAGE} ({__file__}:{line})\n"
                                       "  library_function()\n")
    assert wp.config.verbose_warnings is False


def test_pythons_filters_still_apply():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="Graph coloring stopped"):
            library_function()
