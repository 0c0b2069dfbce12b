"""Warnings written as Warp writes its own: ``Warp UserWarning: message`` on stderr, and under
``config.verbose_warnings`` (Warp's flag) the file and line of the call that caused it, and that line.

Python's ``warnings`` still decides whether one is shown (its filters, ``-W error``); only the text differs
from Python's ``file:line: UserWarning: message``.
"""

from __future__ import annotations

import linecache
import sys
import warnings

from .. import config, log_target


def location(filename: str, lineno: int, line: str | None = None) -> str:
    """`` (file:line)`` and, on the next line, the source line, under ``config.verbose_warnings``; else ``""``."""
    if not config.verbose_warnings:
        return ""
    line = linecache.getline(filename, lineno) if line is None else line
    return f" ({filename}:{lineno})" + (f"\n  {line.strip()}" if line and line.strip() else "")


def show(message: str, category: type[Warning], stacklevel: int = 1) -> None:
    """Warn in Warp's form on stderr; ``stacklevel`` 1 names the caller of this function."""
    def display(text, category, filename, lineno, file=None, line=None):
        sys.stderr.write(f"Warp {category.__name__}: {text}{location(filename, lineno, line)}\n")

    with warnings.catch_warnings():
        warnings.showwarning = display
        warnings.warn(message, category, stacklevel=stacklevel + 1)


def warn(message: str, category: type[Warning] = UserWarning, stacklevel: int = 2) -> None:
    """Warn in Warp's form, or through the installed logger; ``stacklevel`` as ``warnings.warn``'s (2: the caller
    of the function calling this)."""
    logger = log_target.custom  # a logger installed with wp.set_logger takes it instead of stderr
    if logger is not None:  # its stacklevel counts from its warning method, a frame below this one
        logger.warning(message, category, stacklevel + 2)
    else:
        show(message, category, stacklevel + 1)
