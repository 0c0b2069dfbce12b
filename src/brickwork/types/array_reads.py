"""Read flags of arrays for ``wp.config.verify_autograd_array_access`` (docs/autodiff.md).

An array is flagged when a launch recorded by a ``Tape`` reads it (a view flags the arrays it views
too); writing a flagged array warns, since the backward pass would replay the launch on the new
values. ``Tape.backward`` and ``Tape.reset`` clear the flags of the arrays they recorded.

The flags live in a weak set rather than on the array, so that arrays of every kind carry them
without a field that each way of making an array must set.
"""

from __future__ import annotations

import warnings
import weakref

_read: weakref.WeakSet = weakref.WeakSet()

OVERWRITE_HINT = "This may corrupt gradient computation in the backward pass."

# Every overwrite is reported, as Warp does, not once per line of code (Python's default for a repeated
# warning): a loop that overwrites a read array again and again is corrupting each backward pass. Appended,
# so that the user's own filters ("ignore", "error") still come first.
warnings.filterwarnings("always", message=".*has already been read from in a previous launch", category=UserWarning,
                        append=True)


def is_read(a) -> bool:
    return a in _read


def mark_read(a) -> None:
    """Flag ``a`` and every array it is a view of."""
    while a is not None:
        _read.add(a)
        a = getattr(a, "_owner", None)
        a = a if hasattr(a, "_owner") else None  # a view of numpy memory ends the chain


def mark_init(a) -> None:
    """Clear the flag of ``a`` (not of the arrays it views)."""
    _read.discard(a)


def clear(a) -> None:
    """Clear the flags of ``a`` and of every array it is a view of (what a backward pass consumed)."""
    while a is not None:
        _read.discard(a)
        a = getattr(a, "_owner", None)
        a = a if hasattr(a, "_owner") else None


def mark_write(a, arg_name=None, kernel_name=None, filename=None, lineno=None, copy_site=None,
               stacklevel: int = 3) -> bool:
    """Warn if ``a`` is flagged as read: a write now corrupts the backward pass of the launch that read
    it. Names the kernel argument (``arg_name`` of ``kernel_name`` defined at ``filename:lineno``) or
    the ``copy_site`` ("file:line") when given. Returns whether it warned."""
    if a not in _read:
        return False
    if copy_site is not None:
        what = f"Array {a} is being written to by an array copy at {copy_site}"
    elif arg_name is not None:
        what = (f"Array {a} passed to argument {arg_name} in kernel {kernel_name} at {filename}:{lineno} is being "
                f"written to")
    else:
        what = f"Array {a} is being written to"
    warnings.warn(f"{what} but has already been read from in a previous launch. {OVERWRITE_HINT}", UserWarning,
                  stacklevel=stacklevel)
    return True
