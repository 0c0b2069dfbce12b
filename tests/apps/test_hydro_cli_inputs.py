"""``brickwork run`` on inputs no file system or parser can take: a NUL character in a path, TOML nested
deeper than the parser recurses. Each is one line on standard error and exit status 2, like any other
bad input, and leaves no directory behind."""

import os

import pytest

from brickwork import cli
from brickwork.apps.hydro import config

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SOD = os.path.join(ROOT, "examples", "sod.toml")


def brickwork(capsys, *args):
    """``(exit status, the one line on standard error)`` of ``brickwork ARGS`` run in this process."""
    code = cli.main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return code, err.strip()


def test_an_output_dir_with_a_nul_character_is_an_input_error(capsys, tmp_path, monkeypatch):
    """Before, ``ValueError: embedded null byte`` came twice (os.makedirs, then the clean-up), status 1."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nul.toml").write_text('[problem]\nname = "sod"\n[output]\ndir = "\\u0000x"\n')
    code, err = brickwork(capsys, "run", "nul.toml", "time.tlim=0.001", "--quiet")
    assert (code, err) == (2, r"brickwork: error: output.dir: '\x00x' contains a NUL character, which no "
                              r"directory name can hold")
    assert sorted(os.listdir(tmp_path)) == ["nul.toml"]


@pytest.mark.parametrize("nested", ["a = " + "[" * 2000 + "]" * 2000, "a = " + "{b = " * 2000 + "1" + "}" * 2000])
def test_deeply_nested_toml_is_an_input_error(capsys, tmp_path, nested):
    """Before, a RecursionError traceback with status 1."""
    path = tmp_path / "deep.toml"
    path.write_text(f'[problem]\nname = "sod"\n[mesh]\n{nested}\n')
    code, err = brickwork(capsys, "run", path, "--quiet")
    assert (code, err) == (2, f"brickwork: error: {path}: invalid input: arrays or tables nested too deeply to read "
                              f"(no setting holds more than a list of numbers)")
    assert sorted(os.listdir(tmp_path)) == ["deep.toml"]


def test_a_deeply_nested_override_is_an_input_error(capsys, tmp_path):
    code, err = brickwork(capsys, "run", SOD, "mesh.nx=" + "[" * 3000 + "]" * 3000, f"output.dir={tmp_path}/o")
    assert (code, err) == (2, "brickwork: error: mesh.nx: expected a list of integers, got lists nested too deeply "
                              "to read")
    assert os.listdir(tmp_path) == []


def test_deeply_nested_values_given_to_build_are_an_input_error():
    value = 1
    for _ in range(5000):
        value = [value]
    with pytest.raises(config.ConfigError, match=r"^<input>: values nested too deeply to read"):
        config.build({"problem": {"name": "sod"}, "mesh": {"nx": value}})


def test_an_input_file_path_with_a_nul_character_is_an_input_error():
    with pytest.raises(config.ConfigError, match=r"^input file 'a\\x00.toml' contains a NUL character"):
        config.load("a\0.toml")


def test_a_restart_file_path_with_a_nul_character_is_a_restart_error(capsys, tmp_path):
    code, err = brickwork(capsys, "run", SOD, "--restart", "r\0.npz", f"output.dir={tmp_path}/o", "--quiet")
    assert (code, err) == (2, r"brickwork: error: restart file 'r\x00.npz' contains a NUL character, which no file "
                              r"name can hold")
    assert os.listdir(tmp_path) == []
