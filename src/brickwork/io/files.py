"""Writing files safely: ``OutputError`` for a file that cannot be written, and ``staged`` to write
through temporary names renamed only once every file of an output is complete.

Temporary files get new random names, created exclusively and without following symbolic links
(``temporary_name``): a link planted at a name a run might use cannot redirect a write elsewhere.

A failed write (a full disk, a vanished directory, no permission) raises ``OutputError`` whose
message names the file and the reason in words (``cannot write 'out/a.xdmf': no space left on
device``), and leaves none of its temporary files behind.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager

from ..errors import BrickworkError


class OutputError(BrickworkError, RuntimeError):
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
    """An ``OutputError`` for ``e`` raised while writing ``path``; a missing directory is named (the file's own
    name is what the system's 'no such file or directory' seems to be about)."""
    text = reason(e)
    folder = os.path.dirname(os.fspath(path))
    if getattr(e, "errno", None) == errno.ENOENT and folder and not os.path.isdir(folder):
        text += f" (the directory {folder!r} does not exist: outputs go into a directory that exists, create it first)"
    return OutputError(f"cannot write {path!r}: {text}", path, getattr(e, "errno", None))


def discard(*paths: str) -> None:
    """Remove the files that exist among ``paths``; errors are ignored (best-effort clean-up)."""
    for p in paths:
        try:
            os.remove(p)
        except OSError:
            pass


def temporary_name(path: str, suffix: str = ".tmp", made: list | None = None) -> str:
    """Create an empty file beside ``path`` under a new random name (``PATH.RANDOM.tmp``) and return
    that name. It is created with ``O_EXCL`` and ``O_NOFOLLOW``: a file or a symbolic link planted
    at a name the run might use is never opened, so no write ever goes through one to a file
    elsewhere. The mode is the usual one (0666 less the umask), as for any output. The name goes into
    ``made`` before the file is created: an interrupt (Ctrl-C, SIGTERM) between the creation and the
    caller's record of it left a file that the caller's clean-up did not know."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    made = [] if made is None else made
    for _ in range(100):
        name = f"{path}.{secrets.token_hex(4)}{suffix}"
        made.append(name)
        try:
            os.close(os.open(name, flags, 0o666))
        except FileExistsError:  # taken (by chance, or planted): not ours; draw another name
            made.pop()
            continue
        except OSError:  # nothing made
            made.pop()
            raise
        return name
    raise FileExistsError(errno.EEXIST, "no free temporary name", path)


@contextmanager
def writing(tmp: str):
    """``with writing(tmp): ...``: an ``OSError`` raised inside names ``tmp`` (when it names no file,
    as a failed ``write`` does), so ``staged`` reports the output being written."""
    try:
        yield
    except OSError as e:
        if getattr(e, "filename", None) is None:
            e.filename = tmp
        raise


@contextmanager
def staged(*paths: str, suffix: str = ".tmp"):
    """``with staged(a, b) as (ta, tb): ...`` writes ``ta`` then ``tb``; when the block ends they are
    renamed to ``a`` and ``b``. The temporary files are new files with random names in the target's
    directory (``temporary_name``). On any error every temporary file is removed, and an ``OSError``
    becomes an ``OutputError`` naming the output being written: the one whose temporary file the
    error names (see ``writing``), else the first. The renames are all or nothing: a name taken by a
    directory is refused before any file is renamed, and should a rename fail nonetheless, the
    previous files are put back under every name (``_rename_all``): a failed write leaves the
    previous output whole, never an XDMF file without its HDF5 file."""
    tmps: list[str] = []
    try:
        for p in paths:
            _check_replaceable(p, p)  # before anything is written
        for p in paths:
            try:
                temporary_name(p, suffix, made=tmps)
            except OSError as e:
                e.filename = p  # the directory vanished, or is not writable: this output cannot be made
                raise
        yield tmps
        _rename_all(tmps, paths)
    except OSError as e:
        named = getattr(e, "filename", None)
        path = paths[tmps.index(named)] if named in tmps else named if named in paths else paths[0]
        discard(*tmps)
        raise output_error(e, path) from None
    except BaseException:
        discard(*tmps)
        raise


def _check_replaceable(path: str, named: str) -> None:
    """An ``OSError`` naming ``named`` when ``path`` is a directory, an ``OutputError`` when it is a device,
    pipe or socket (an output replaces its file, which must not happen to /dev/null or a FIFO). A regular
    file or a symbolic link (replaced, not followed) may be there."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # nothing there (or not reachable: the write itself will say why)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), named)
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OutputError(f"cannot write {path!r}: it is not a regular file (a device, pipe or socket), and an "
                          f"output replaces its file", path)


def _rename_all(tmps: list[str], paths: tuple[str, ...]) -> None:
    """Rename each of ``tmps`` to its path in ``paths``, all or none: should one fail, an ``OSError`` naming
    its temporary file, after putting back the previous files under every name (the old output stays
    whole: an XDMF file never points to an HDF5 file that is gone or new)."""
    for tmp, path in zip(tmps, paths):
        _check_replaceable(path, tmp)  # os.replace would fail after the others, or replace a device
    kept: list[tuple[str, str | None, bool]] = []  # (path, its previous file's other name, moved away?)
    done: list[str] = []
    try:
        for tmp, path in zip(tmps, paths):
            try:
                kept.append((path, *_keep_previous(path)))
            except OSError as e:
                e.filename = tmp
                raise
        for tmp, path in zip(tmps, paths):
            try:
                os.replace(tmp, path)
            except OSError as e:
                e.filename = tmp
                raise
            done.append(path)
    except BaseException:
        for path, old, moved in kept:
            if old is not None and (moved or path in done):
                try:
                    os.replace(old, path)  # the previous file back under its name
                except OSError:
                    pass  # it stays under its other name rather than be removed
            elif old is not None:
                discard(old)  # a second link: the previous file never left its name
            elif path in done:
                discard(path)  # there was none: the new file goes
        raise
    for _, old, _ in kept:
        if old is not None:
            discard(old)


def _keep_previous(path: str) -> tuple[str | None, bool]:
    """Keep the file (or symbolic link) at ``path``, if any, under a second random name beside it, for the
    renames to put back: a hard link, which leaves the file under its name meanwhile, or, where the file
    system has none, the file moved there. Returns that name (None: nothing at ``path``) and whether the
    file was moved."""
    if not os.path.lexists(path):
        return None, False
    for _ in range(100):
        old = f"{path}.{secrets.token_hex(4)}.old"
        try:
            os.link(path, old, follow_symlinks=False)
            return old, False
        except FileExistsError:  # taken: draw another name
            continue
        except OSError:  # no hard links here (or not of this file): move it aside instead
            break
    old = temporary_name(path, ".old")
    try:
        os.replace(path, old)
    except OSError:
        discard(old)
        raise
    return old, True
