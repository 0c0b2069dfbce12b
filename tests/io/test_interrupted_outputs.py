"""An interrupt (SIGTERM raised as an exception, as ``brickwork run`` does) that arrives just after a temporary
output file is created leaves no file behind: ``files.temporary_name`` records the name for the clean-up
before it makes the file."""

from __future__ import annotations

import os
import signal

import pytest

from brickwork.io import files, history


class Stop(BaseException):
    pass


@pytest.fixture
def sigterm_raises():
    def stop(signum, frame):
        raise Stop

    before = signal.signal(signal.SIGTERM, stop)
    yield
    signal.signal(signal.SIGTERM, before)


def test_an_interrupt_just_after_a_temporary_file_is_made_leaves_none(tmp_path, monkeypatch, sigterm_raises):
    make = files.temporary_name

    def made_then_killed(*args, **kwargs):
        name = make(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # before staged has recorded the name
        return name

    monkeypatch.setattr(files, "temporary_name", made_then_killed)
    (tmp_path / "a.h5").write_bytes(b"old")
    with pytest.raises(Stop):
        with files.staged(str(tmp_path / "a.h5"), str(tmp_path / "a.xdmf")) as tmps:
            for t in tmps:
                open(t, "wb").write(b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.h5"]
    assert (tmp_path / "a.h5").read_bytes() == b"old"


def test_an_interrupt_just_after_the_history_s_temporary_file_leaves_none(tmp_path, monkeypatch, sigterm_raises):
    make = history.temporary_name

    def made_then_killed(*args, **kwargs):
        name = make(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)  # before _replace has opened it
        return name

    monkeypatch.setattr(history, "temporary_name", made_then_killed)
    path = tmp_path / "run.hst"
    path.write_bytes(b"# cycle time\n")
    with pytest.raises(Stop):
        history._replace(str(path), b"# cycle time\n0 0.0\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.hst"]
    assert path.read_bytes() == b"# cycle time\n"
