"""Symbolic links that lead nowhere, named as such (attacker probe, round 14): a restart file or an output
directory given as a link in a loop (a -> b -> a) was 'restart file 'a' does not exist' and 'output.dir='a' is a
dangling symbolic link (to 'b', which does not exist)' though 'b' exists (a link back to 'a')."""

import os

import pytest

from brickwork import cli
from brickwork.io import restart

SOD = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sod.toml")


@pytest.fixture
def links(tmp_path):
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    os.symlink(tmp_path / "nothing", tmp_path / "dangling")
    return tmp_path


@pytest.mark.parametrize("name, reason", [("a", "too many levels of symbolic links"),
                                          ("dangling", "no such file or directory")])
def test_a_restart_link_to_no_file_says_why(links, name, reason):
    path = str(links / name)
    with pytest.raises(restart.RestartError) as e:
        restart.open_restart(path)
    assert str(e.value) == (f"restart file {path!r} is a symbolic link that leads to no file ({reason}: {path!r} -> "
                            f"{os.readlink(path)!r})")


@pytest.mark.parametrize("name, what", [("a", "a symbolic link in a loop (to {to!r}, which leads back to it)"),
                                        ("dangling", "a dangling symbolic link (to {to!r}, which does not exist)")])
def test_an_output_dir_link_to_no_directory_says_why(capsys, links, name, what):
    path = str(links / name)
    assert cli.main(["run", SOD, f"output.dir={path!r}".replace("'", '"'), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"brickwork: error: output.dir={path!r} is {what.format(to=os.readlink(path))}"
    assert sorted(os.listdir(links)) == ["a", "b", "dangling"]  # nothing made
