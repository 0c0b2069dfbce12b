"""``wp.config.verify_autograd_array_access``: warn when a taped launch or copy overwrites an array
that an earlier taped launch read (docs/autodiff.md). Reverse mode replays each launch on the arrays
it was given, so such a write makes the gradients wrong.

While a ``Tape`` records and the setting is on, each launch checks its written arrays (warning for
those flagged as read), then flags the arrays it reads (``types/array_reads.py``); a kernel that
writes an array after reading it warns once per instance. Copies (``wp.copy``, ``assign``) do the
same with the destination and source, naming the user's line of the copy.
"""

from __future__ import annotations

import os
import sys
import warnings

from ..types import array_reads
from ..types.arrays import array

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def after_launch(kernel, inst, args) -> None:
    """Check and flag the arrays of a recorded launch of ``kernel`` (instance ``inst``) with ``args``."""
    reads, writes, read_then_written = inst.access
    names = [name for name, _ in getattr(inst, "kernel", kernel).params]
    if read_then_written and not getattr(inst, "_warned_read_then_written", False):
        inst._warned_read_then_written = True
        for position, where in read_then_written:
            warnings.warn(f"Array passed to argument {names[position]} in kernel {kernel.key} at {where} is being "
                          f"written to after it has been read from within the same kernel. "
                          f"{array_reads.OVERWRITE_HINT}", UserWarning, stacklevel=_user_depth() + 1)
    filename, lineno = _definition(kernel)
    for i in writes:
        if i < len(args) and isinstance(args[i], array):
            array_reads.mark_write(args[i], arg_name=names[i], kernel_name=kernel.key, filename=filename,
                                   lineno=lineno, stacklevel=_user_depth() + 2)
    for i in reads:
        if i < len(args) and isinstance(args[i], array):
            array_reads.mark_read(args[i])


def after_copy(dest, src) -> None:
    """Check the destination and flag the source of a recorded copy."""
    array_reads.mark_write(dest, copy_site=_user_site(), stacklevel=_user_depth() + 2)
    array_reads.mark_read(src)


def _definition(kernel) -> tuple:
    code = getattr(getattr(kernel, "func", None), "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else ("<unknown>", 0)


def _user_depth() -> int:
    """How many frames above the caller of ``_user_depth`` the first frame outside brickwork is (a
    warning's ``stacklevel`` from there: the user's line of the launch or copy)."""
    frame, depth = sys._getframe(2), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame, depth = frame.f_back, depth + 1
    return depth


def _user_site() -> str:
    """"file:line" of the first frame outside brickwork (the user's call of ``wp.copy`` or ``assign``)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else "<unknown>"
