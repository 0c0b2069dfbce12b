"""``wp.ScopedLogLevel``: Warp's context manager over ``wp.config.log_level``, applied on entry and undone on exit."""

import logging

import pytest

import brickwork as wp


def _level() -> int:
    return logging.getLogger("brickwork").getEffectiveLevel()


def _number(level) -> int:
    return level if isinstance(level, int) else logging.getLevelName(level.upper())


def test_the_level_holds_inside_the_block_only():
    before = wp.config.log_level
    with wp.ScopedLogLevel(wp.LOG_INFO) as scope:
        assert wp.config.log_level == wp.LOG_INFO and _level() == logging.INFO  # at once, before any kernel load
        assert scope.log_level == wp.LOG_INFO
        with wp.ScopedLogLevel("debug"):
            assert wp.config.log_level == "debug" and _level() == logging.DEBUG
        assert wp.config.log_level == wp.LOG_INFO and _level() == logging.INFO
    assert wp.config.log_level == before and _level() == _number(before)


def test_a_value_that_is_no_level_is_refused_on_entry_and_changes_nothing():
    before, before_level = wp.config.log_level, _level()
    with pytest.raises(wp.config.SettingError, match=r"log_level must be one of debug, info, warning, error .*got 'loud'"):
        with wp.ScopedLogLevel("loud"):
            raise AssertionError("the block ran")
    assert wp.config.log_level == before and _level() == before_level
