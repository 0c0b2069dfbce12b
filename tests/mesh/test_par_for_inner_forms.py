"""``par_for_inner`` takes one range: Parthenon's 2-D and 3-D forms are refused with the loop to write instead."""

import numpy as np
import pytest

import brickwork as wp

NJ, NI = 3, 5
U = np.arange(2 * NJ * NI, dtype=np.float64).reshape(2, NJ, NI)


def tile_2d(member, b):
    """Parthenon's ``par_for_inner(member, jl, ju, il, iu, fn)``: not brickwork's."""
    def copy(j, i):
        out[b, j, i] = u[b, j, i]

    wp.par_for_inner(member, 0, NJ - 1, 0, NI - 1, copy)


def tile_3d(member, b):
    def copy(k, j, i):
        out[b, j, i] = u[b, j, i]

    wp.par_for_inner(member, 0, 0, 0, NJ - 1, 0, NI - 1, copy)


def tile_rows(member, b):
    """What the message says to write: the rows in a loop, a par_for_inner over each row's cells."""
    tile = wp.ScratchPad2D(member.team_scratch(0), wp.float64, NJ, NI)
    for j in range(NJ):
        def load(i):
            tile[j, i] = wp.float64(2.0) * u[b, j, i]

        wp.par_for_inner(member, 0, NI - 1, load)
    member.team_barrier()
    for j in range(NJ):
        def store(i):
            out[b, j, i] = tile[NJ - 1 - j, i]

        wp.par_for_inner(member, 0, NI - 1, store)


u = wp.array(U, dtype=wp.float64)
out = wp.zeros(U.shape, dtype=wp.float64)


@pytest.mark.parametrize("body, nranges", [(tile_2d, 2), (tile_3d, 3)])
def test_the_parthenon_forms_with_several_ranges_name_the_loop_to_write(body, nranges):
    out.zero_()
    with pytest.raises(wp.KernelTypeError) as info:
        wp.par_for_outer("tile", 0, 0, 2, body)
    message = str(info.value)
    assert f"par_for_inner takes one range, (member, lo, hi, fn), not {nranges}" in message
    assert "for j in range(jl, ju + 1):" in message and "test_par_for_inner_forms.py" in message
    assert not out.numpy().any()


def test_the_rows_loop_the_message_names_runs_on_the_tile():
    out.zero_()
    wp.par_for_outer("tile", 8 * NJ * NI, 0, 2, tile_rows)
    np.testing.assert_array_equal(out.numpy(), 2.0 * U[:, ::-1, :])
