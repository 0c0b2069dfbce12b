"""One run at a time per output stem: ``OutputLock(stem)`` holds an advisory lock (``flock``) on the hidden
file ``DIR/.BASENAME.lock`` while a run writes ``DIR/BASENAME.*``, so that a second run of the same
``output.dir`` and ``output.basename`` is a ``ConfigError`` naming the directory and the other run's
process, before it truncates the history file or writes an output. (Two such runs used to write at once:
the history file ended as rows of both runs, its times going backwards, and the numbered outputs came from
either.) The lock goes with its process: a killed run leaves at most an unlocked file, which the next run
takes over. A file system without locks (``flock`` failing with ENOLCK or EOPNOTSUPP) runs unlocked."""

from __future__ import annotations

import errno
import fcntl
import os
import socket

from brickwork.io.files import reason

from .schema import ConfigError

#: flock's errors meaning "this file system keeps no locks", not "locked by another run"
_NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)


class OutputLock:
    """The lock of the outputs ``stem`` (``output.dir/output.basename``); ``release()`` removes it."""

    def __init__(self, stem: str):
        folder, name = os.path.split(stem)
        self.path = os.path.join(folder, f".{name}.lock")
        self._fd: int | None = None
        where = f"output.dir={folder or os.curdir!r}"
        for _ in range(8):  # the file may be removed by its holder between our open and our flock
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                holder = _holder(fd)
                os.close(fd)
                if e.errno in _NO_LOCKS:
                    return
                if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise ConfigError(
                        f"{where} is in use: another run{holder} is writing its "
                        f"{name}.* files (it holds {self.path!r}); wait for it to end, or choose another output.dir "
                        f"or output.basename") from None
                raise ConfigError(f"{where}: cannot lock {self.path!r}: {reason(e)}") from None
            if _same_file(fd, self.path):
                self._fd = fd
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
                return
            os.close(fd)  # locked a file its holder had removed: take the one now there
        raise ConfigError(f"{where}: cannot lock {self.path!r}: it keeps being replaced")

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            return os.open(self.path, flags | getattr(os, "O_NONBLOCK", 0), 0o644)
        except OSError as e:
            raise ConfigError(f"output.dir: cannot lock {self.path!r}: {reason(e)}"
                              + (" (a symbolic link: remove it)" if e.errno == errno.ELOOP else "")) from None

    def release(self) -> None:
        """Remove the lock file and let the lock go (removed first: a run waiting on it takes a new one)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.unlink(self.path)
        except OSError:  # removed by hand: nothing more to do
            pass
        os.close(fd)


def _same_file(fd: int, path: str) -> bool:
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _holder(fd: int) -> str:
    """`` (process 123 on host)`` as the lock file says, or nothing."""
    try:
        words = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
    except OSError:
        return ""
    if len(words) == 2 and words[0].isdigit():
        return f" (process {words[0]} on {words[1]})"
    return ""
