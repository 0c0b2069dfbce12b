"""``rank_errors.said_once``: the one line that says what the MPI ranks of a run failed with."""

from hypothesis import given
from hypothesis import strategies as st

from brickwork.apps.hydro.rank_errors import on_ranks, said_once


def test_one_error_on_every_rank_needs_no_ranks():
    assert said_once(["bad key", "bad key", "bad key"]) == "bad key"


def test_an_error_on_some_ranks_names_them():
    assert said_once([None, "bad key", None, "bad key"]) == "bad key (on ranks 1, 3 of 4)"
    assert said_once([None, "bad key"]) == "bad key (on rank 1 of 2)"


def test_different_errors_are_each_said_once_in_the_order_of_their_first_rank():
    assert said_once(["b", "a", None, "b"]) == "b (on ranks 0, 3 of 4); a (on rank 1 of 4)"
    assert said_once(["b", "a"]) == "b (on rank 0 of 2); a (on rank 1 of 2)"


def test_without_ranks_the_first_error_alone():
    assert said_once([None, "b", "a"], name_ranks=False) == "b"


@given(st.lists(st.one_of(st.none(), st.sampled_from(["x", "y", "z"])), min_size=1, max_size=8))
def test_every_error_is_said_exactly_once(messages):
    line = said_once(messages)
    met = [m for m in messages if m is not None]
    if not met:
        assert line is None
        return
    parts = line.split("; ")
    assert [p.split(" (on ")[0] for p in parts] == list(dict.fromkeys(met))  # each once, first rank's order
    if len(set(met)) > 1 or len(met) < len(messages):
        for part in parts:
            message = part.split(" (on ")[0]
            ranks = [r for r, m in enumerate(messages) if m == message]
            assert part == f"{message} ({on_ranks(ranks, len(messages))})"
