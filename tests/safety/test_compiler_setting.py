"""A compiler setting that names no executable is reported with the setting that named it: the message said
'tried junk' and advised pointing $CXX at a compiler, no help when $BRICKWORK_CXX (which wins) is the wrong one
(attacker probe: BRICKWORK_CXX=junk)."""

import pytest

from brickwork import config
from brickwork.jit import toolchain


@pytest.mark.parametrize("variables, source", [
    ({"BRICKWORK_CXX": "junk-cxx", "CXX": "g++"}, "$BRICKWORK_CXX"),
    ({"CXX": "junk-cxx"}, "$CXX"),
    ({}, "brickwork.config.cxx"),
])
def test_a_compiler_setting_naming_no_executable_names_its_source(monkeypatch, variables, source):
    for name in ("BRICKWORK_CXX", "CXX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(config, "cxx", "junk-cxx")
    with pytest.raises(toolchain.CompilerUnavailableError) as info:
        toolchain._find_compiler()
    assert str(info.value).startswith(
        f"no C++ compiler found (tried junk-cxx). {source} is 'junk-cxx', which is neither a command on PATH nor "
        f"the path of an executable (a command with arguments, such as 'ccache g++', is not split): correct or "
        f"unset it. brickwork compiles kernels")
    assert str(info.value).endswith("or point $BRICKWORK_CXX (or $CXX) at it.")
    assert config.cxx == "junk-cxx"


def test_a_command_with_arguments_is_not_split(monkeypatch):
    monkeypatch.setenv("BRICKWORK_CXX", "ccache g++")
    monkeypatch.setattr(config, "cxx", "ccache g++")
    with pytest.raises(toolchain.CompilerUnavailableError, match=r"\$BRICKWORK_CXX is 'ccache g\+\+', which is"):
        toolchain._find_compiler()


def test_without_a_setting_the_message_names_the_candidates_only(monkeypatch):
    monkeypatch.setattr(config, "cxx", None)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(toolchain.CompilerUnavailableError) as info:
        toolchain._find_compiler()
    assert str(info.value).startswith("no C++ compiler found (tried g++, clang++, c++). brickwork compiles")
