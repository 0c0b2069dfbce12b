"""Warp 1.19's logger objects: ``wp.Logger`` (the protocol), ``wp.get_logger``, ``wp.set_logger`` and
``wp.ScopedLogger``. A program (or a framework embedding it) installs any object with ``debug``, ``info``,
``warning`` and ``error`` methods, and brickwork's own messages go to it instead of stdout, stderr and Python's
``logging``: the ``brickwork`` logger's records (compile notes, ...), the Warp-form warnings of
``runtime/warp_warnings.py``, ``config.print_launches``'s lines and the compile notices of ``jit/notice.py``.

The default logger keeps brickwork's usual routes: ``debug``/``info`` to the ``brickwork`` logger of Python's
``logging`` (shown from ``config.log_level`` down), ``warning`` in Warp's form (``Warp UserWarning: ...`` on
stderr, Python's warning filters deciding), ``error`` to the ``brickwork`` logger.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .. import log_target
from . import warp_warnings

_METHODS = ("debug", "info", "warning", "error")


@runtime_checkable
class Logger(Protocol):
    """What ``wp.set_logger`` takes: an object with these four methods (a protocol: it is not instantiated)."""

    def debug(self, message: str) -> None:
        """A diagnostic message (shown at ``config.log_level = wp.LOG_DEBUG``)."""

    def info(self, message: str) -> None:
        """An informational message (``print_launches`` lines, build notes)."""

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None:
        """A warning; ``stacklevel`` is counted from this method, ready for ``warnings.warn``."""

    def error(self, message: str) -> None:
        """An error message."""


def _brickwork_log():
    import logging  # on first use: `import brickwork` loads no logging (tests/test_import_light.py)
    return logging.getLogger("brickwork")


class DefaultLogger:
    """brickwork's own routes for its messages (the logger ``wp.set_logger(None)`` restores)."""

    def debug(self, message: str) -> None:
        _brickwork_log().debug(message)

    def info(self, message: str) -> None:
        _brickwork_log().info(message)

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None:
        warp_warnings.show(message, category or UserWarning, stacklevel)  # both count from this frame

    def error(self, message: str) -> None:
        _brickwork_log().error(message)


class _ToCustomLogger:
    """Hands each record of the ``brickwork`` logger to the installed logger, and drops it from ``logging``'s
    handlers (the program asked for brickwork's messages to go there only). ``logging`` has already applied
    the logger's level, so ``config.log_level`` still decides what is passed on."""

    def filter(self, record) -> bool:  # any object with this method is a logging filter
        message = record.getMessage()
        if record.levelno >= _ERROR:
            _active.error(message)
        elif record.levelno >= _WARNING:
            _active.warning(message, UserWarning, 1)
        elif record.levelno >= _INFO:
            _active.info(message)
        else:
            _active.debug(message)
        return False


_INFO, _WARNING, _ERROR = 20, 30, 40  # logging's levels (fixed by its documentation), without importing it
_default = DefaultLogger()
_active = _default
_forwarder = _ToCustomLogger()


def _check(logger) -> None:
    missing = [name for name in _METHODS if not callable(getattr(logger, name, None))]
    if missing:
        raise TypeError(f"set_logger: a logger needs the methods debug(message), info(message), warning(message, "
                        f"category, stacklevel) and error(message); {type(logger).__name__} has no callable "
                        f"{', '.join(missing)} (the active logger was not changed)")


def _install(logger) -> None:
    """Make ``logger`` the active one, unchecked (``ScopedLogger`` restores a saved logger this way)."""
    global _active
    _active = logger
    custom = logger is not _default
    log_target.custom = logger if custom else None
    brickwork_log = _brickwork_log()
    if custom:
        if _forwarder not in brickwork_log.filters:
            brickwork_log.addFilter(_forwarder)
    else:
        brickwork_log.removeFilter(_forwarder)


def get_logger():
    """The active logger: the one ``wp.set_logger`` installed, or brickwork's default one."""
    return _active


def set_logger(logger) -> None:
    """Send brickwork's messages to ``logger`` (any object with ``debug``, ``info``, ``warning`` and ``error``
    methods: ``wp.Logger``), or back to brickwork's default routes with ``None``. Anything else is a
    ``TypeError`` naming the missing methods."""
    if logger is None:
        logger = _default
    else:
        _check(logger)
    _install(logger)


def is_custom() -> bool:
    """Whether a program installed a logger of its own (brickwork's messages go there)."""
    return _active is not _default


def info(message: str) -> None:
    """Give ``message`` to the installed logger's ``info``."""
    _active.info(message)


class ScopedLogger:
    """``with wp.ScopedLogger(logger):`` installs ``logger`` (``None``: the default one) for the block and puts
    back the one active before it on the way out, exceptions included (without checking it again)."""

    def __init__(self, logger):
        if logger is not None:
            _check(logger)
        self.logger = _default if logger is None else logger
        self._saved = None

    def __enter__(self):
        self._saved = _active
        _install(self.logger)
        return self

    def __exit__(self, *exc) -> None:
        _install(self._saved)
