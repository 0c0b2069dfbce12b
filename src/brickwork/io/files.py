"""Writing files safely: ``OutputError`` for a file that cannot be written, and ``staged`` to write
through temporary names renamed only once every file of an output is complete.

A failed write (a full disk, a vanished directory, no permission) raises ``OutputError`` whose
message names the file and the reason in words (``cannot write 'out/a.xdmf': no space left on
device``), and leaves none of its temporary files behind.
"""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager


class OutputError(RuntimeError):
    """An output file could not be written (the message names the file and why)."""

    def __init__(self, message: str, path: str | None = None, errno_: int | None = None):
        super().__init__(message)
        self.path = path
        self.errno = errno_


def reason(e: BaseException) -> str:
    """The cause of an ``OSError`` in a few lower-case words (``no space left on device``)."""
    code = getattr(e, "errno", None)
    if code == errno.ENOSPC:
        return "no space left on device"
    if isinstance(code, int) and code > 0:
        return os.strerror(code)[:1].lower() + os.strerror(code)[1:]
    text = str(e).strip() or type(e).__name__
    # libraries such as h5py report a full disk without setting errno
    return "no space left on device" if "no space left on device" in text.lower() else text


def output_error(e: OSError, path: str) -> OutputError:
    """An ``OutputError`` for ``e`` raised while writing ``path``."""
    return OutputError(f"cannot write {path!r}: {reason(e)}", path, getattr(e, "errno", None))


def discard(*paths: str) -> None:
    """Remove the files that exist among ``paths``; errors are ignored (best-effort clean-up)."""
    for p in paths:
        try:
            os.remove(p)
        except OSError:
            pass


@contextmanager
def staged(*paths: str, suffix: str = ".tmp"):
    """``with staged(a, b) as (ta, tb): ...`` writes ``ta`` then ``tb``; when the block ends they are
    renamed to ``a`` and ``b``. On any error both temporary files are removed, and an ``OSError``
    becomes an ``OutputError`` naming the file being written (the files are written in order, so
    that is the last temporary file that exists, unless the error names its file)."""
    tmps = [p + suffix for p in paths]
    try:
        yield tmps
        for tmp, path in zip(tmps, paths):
            os.replace(tmp, path)
    except OSError as e:
        named = getattr(e, "filename", None)
        if named in tmps:
            path = paths[tmps.index(named)]
        elif named in paths:
            path = named
        else:
            path = next((p for t, p in reversed(list(zip(tmps, paths))) if os.path.exists(t)), paths[0])
        discard(*tmps)
        raise output_error(e, path) from None
    except BaseException:
        discard(*tmps)
        raise
