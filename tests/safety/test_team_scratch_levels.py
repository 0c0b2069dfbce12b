"""par_for_outer's scratch level and a team member's team_scratch(level) are Kokkos's levels, 0 or 1: any other value
(or a range where the level belongs, when it was forgotten) is refused, where both were taken and ignored (attacker
probe: par_for_outer("o", 16, 5, (0, 9), body) and member.team_scratch(7) ran)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError, LaunchError

OUT = wp.zeros(10, dtype=wp.float32)


def _team(member, i):
    s = wp.ScratchPad1D(member.team_scratch(1), wp.float32, 4)
    s[0] = wp.float32(i) + 1.0
    OUT[i] = s[0]


def _level_seven(member, i):
    s = wp.ScratchPad1D(member.team_scratch(7), wp.float32, 4)
    s[0] = 1.0
    OUT[i] = s[0]


def _no_level(member, i):
    s = wp.ScratchPad1D(member.team_scratch(), wp.float32, 4)
    s[0] = 1.0
    OUT[i] = s[0]


@pytest.fixture
def out():
    OUT.fill_(-1.0)
    return OUT


@pytest.mark.parametrize("level", [0, 1, np.int64(1)])
def test_levels_0_and_1_run(out, level):
    wp.par_for_outer("team", 16, level, (0, 9), _team)
    assert out.numpy().tolist() == [float(i + 1) for i in range(10)]


@pytest.mark.parametrize("level", [2, -1, 5, True, 1.0, None, "0", (0, 9), np.array([0])])
def test_other_scratch_levels_are_refused(out, level):
    with pytest.raises(LaunchError, match=r"par_for_outer: scratch_level must be 0 or 1 \(Kokkos's two scratch "
                                          r"levels\), got .*: the arguments are \(\[name,\] scratch_bytes, "
                                          r"scratch_level, ranges\.\.\., body\)"):
        wp.par_for_outer("team", 16, level, (0, 9), _team)
    assert np.all(out.numpy() == -1.0)


def test_a_forgotten_scratch_level_is_named():
    # (0, 3) in the level's place: the team would have run over the second range only
    with pytest.raises(LaunchError, match=r"scratch_level must be 0 or 1 .*, got \(0, 3\)"):
        wp.par_for_outer("team", 16, (0, 3), (0, 9), lambda member, j, i: None)


@pytest.mark.parametrize("body, shown", [(_level_seven, "team_scratch(7)"), (_no_level, "team_scratch()")])
def test_team_scratch_of_another_level_is_refused_at_its_line(out, body, shown):
    with pytest.raises(KernelTypeError) as info:
        wp.par_for_outer("team", 16, 0, (0, 9), body)
    text = str(info.value)
    assert f"in {body.__name__}\n    s = wp.ScratchPad1D(member.{shown}, wp.float32, 4)" in text
    assert f"team_scratch(level) takes the scratch level, 0 or 1 (Kokkos's two levels), got {shown}" in text
    assert np.all(out.numpy() == -1.0)
