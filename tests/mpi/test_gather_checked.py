"""``brickwork.comm.gather_checked`` and ``together`` on a stand-in communicator of 2 ranks (no MPI needed): the
rank that met an error raises its own, the other an ``OtherRankError`` naming it; no error: every payload."""

from __future__ import annotations

import pytest

from brickwork import comm


class TwoRanks:
    """Rank 0 of 2, whose rank 1 contributes ``theirs`` to every allgather."""

    def __init__(self, theirs, rank=0):
        self.theirs, self.sent, self.rank = theirs, [], rank

    def Get_rank(self) -> int:  # noqa: N802 - mpi4py's spelling
        return self.rank

    def Get_size(self) -> int:  # noqa: N802 - mpi4py's spelling
        return 2

    def allgather(self, value):
        self.sent.append(value)
        return [value, self.theirs]


def test_payloads_of_every_rank_when_none_failed():
    c = TwoRanks((None, "b"))
    assert comm.gather_checked(c, "the call", None, "a") == ["a", "b"]


def test_the_ranks_without_an_error_raise_one_naming_the_rank_that_met_it():
    c = TwoRanks(("ValueError: bad nx", None))
    with pytest.raises(comm.OtherRankError, match=r"^the call failed: ValueError: bad nx \(on rank 1 of 2\)$"):
        comm.gather_checked(c, "the call", None, "a")


def test_the_rank_that_met_the_error_gets_none_back_to_raise_its_own():
    c = TwoRanks((None, "b"))
    assert comm.gather_checked(c, "the call", KeyError("x"), "a") is None
    assert c.sent == [("KeyError: 'x'", "a")]


def test_together_raises_the_own_error_there_and_other_rank_error_elsewhere():
    mine = TwoRanks((None, None))
    with pytest.raises(ZeroDivisionError, match="^division by zero$"):
        with comm.together(mine, "building it"):
            1 / 0  # noqa: B018
    assert mine.sent == [("ZeroDivisionError: division by zero", None)]
    theirs = TwoRanks(("SystemExit: 3", None))
    with pytest.raises(comm.OtherRankError, match=r"^building it failed: SystemExit: 3 \(on rank 1 of 2\)$"):
        with comm.together(theirs, "building it"):
            pass
    both = TwoRanks(("ValueError: other", None))
    with pytest.raises(ValueError, match="^mine$"):  # different errors: each rank its own
        with comm.together(both, "building it"):
            raise ValueError("mine")


def test_together_on_one_rank_sends_nothing():
    with pytest.raises(ValueError, match="^alone$"):
        with comm.together(comm.SERIAL, "building it"):
            raise ValueError("alone")
    with comm.together(comm.SERIAL, "building it"):
        pass


def test_the_hydro_agreement_says_a_failure_once_not_again_for_the_ranks_that_echo_it():
    """A collective call inside a step of the hydro run's agreement: the failing rank's error, said by it, and
    not also the OtherRankError the other ranks raised for it."""
    from brickwork.apps.hydro.rank_errors import SimulationError, agree

    theirs = (SimulationError, "LaunchError: no launch"), False  # rank 1 met the error itself

    def echo():
        comm.gather_checked(TwoRanks(("LaunchError: no launch", None)), "la.outer_reduce", None)

    with pytest.raises(SimulationError, match=r"^LaunchError: no launch \(on rank 1 of 2\)$"):
        agree(TwoRanks(theirs), echo)
    alone = (None, False)  # the failing rank caught its own error: the echo is all there is to say
    with pytest.raises(SimulationError, match=r"^OtherRankError: la.outer_reduce failed: LaunchError: no launch "
                                              r"\(on rank 1 of 2\) \(on rank 0 of 2\)$"):
        agree(TwoRanks(alone), echo)


@pytest.mark.parametrize("rank", [0, 1])
def test_an_error_every_rank_raises_alike_is_printed_by_rank_0_alone(rank):
    """Uncaught, the abort hook prints an error that says ``said_elsewhere`` only if still alive 2 s later: an
    OtherRankError always (the failing rank prints its own), check_same's ValueError on the ranks but 0."""
    from brickwork.same_on_ranks import check_same

    with pytest.raises(ValueError, match="^the mesh differs between the MPI ranks: nx is 16 on rank 0 but 32 on rank 1$") \
            as info:
        check_same(TwoRanks({"nx": "32"}, rank), "the mesh", {"nx": 16})
    assert info.value.said_elsewhere is (rank != 0)
    with pytest.raises(comm.OtherRankError) as info:
        comm.gather_checked(TwoRanks(("ValueError: bad nx", None), rank), "the call", None)
    assert info.value.said_elsewhere is True
