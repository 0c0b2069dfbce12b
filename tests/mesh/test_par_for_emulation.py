"""Nested parallelism on the emulation target ("cuda-emulation"): a par_for_outer team is a thread
block, par_for_inner loops are shared out among its threads, team barriers are block barriers, team
scratch lives in the block's arena; par_for is one thread per launch point."""

import numpy as np
import pytest
import test_par_for as cpu_tests

import brickwork as wp
import gpu_compile
from brickwork import config

EMULATION = dict(target="cuda-emulation")
# every GPU-mapped instance these tests build also compiles for CUDA (tests/gpu_compile.py)
pytestmark = pytest.mark.compiles_for_cuda


@pytest.mark.parametrize("name", ["test_par_for_three_ranges_with_captured_array_and_offsets",
                                  "test_par_for_one_and_four_ranges_and_lambda"])
@pytest.mark.compiles_for_cuda(check=gpu_compile.contains("__launch_bounds__(256)"))  # one thread per point
def test_cpu_tests_on_emulation(name):
    """(test_par_for_outer_scratch_and_inner_loops requests fewer scratch bytes than it allocates, which
    only the CPU's growing arena allows: see test_team_scratch_beyond_the_request_is_an_error.)"""
    with config.override(**EMULATION):
        getattr(cpu_tests, name)()


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_team_scratch_barrier_and_team_level_statements(limit):
    """Each team: a producer loop into scratch, a barrier, a consumer reading neighbours other threads
    wrote, and a statement outside the inner loops that writes memory (made once per team, not per
    thread: the counter shows it)."""
    n = 300  # more cells than threads per block: each thread takes several
    u = wp.array(np.random.default_rng(0).random((6, n)), dtype=wp.float64)
    out = wp.zeros((6, n), dtype=wp.float64)
    count = wp.zeros(6, dtype=wp.int32)

    def body(member, j):
        pad = wp.ScratchPad1D(member, wp.float64, n)

        def produce(i):
            pad[i] = u[j, i] * wp.float64(2.0)

        wp.par_for_inner(member, 0, n - 1, produce)
        member.team_barrier()

        def consume(i):
            out[j, i] = pad[(i + 1) % n] - pad[i]

        wp.par_for_inner(member, 0, n - 1, consume)
        wp.atomic_add(count, j, 1)

    with config.override(target="cuda-emulation", gpu_shared_limit=limit):
        wp.par_for_outer(8 * n, 0, 6, body)  # 6 teams, j = 0..5
    un = 2.0 * u.numpy()
    np.testing.assert_array_equal(out.numpy(), np.roll(un, -1, axis=1) - un)
    np.testing.assert_array_equal(count.numpy(), np.ones(6))


def test_team_scratch_beyond_the_request_is_an_error():
    """On the CPU the arena grows on demand; on a GPU a team has only the bytes par_for_outer requests."""
    n = 500
    out = wp.zeros((2, n), dtype=wp.float32)

    def body(member, j):
        big = wp.ScratchPad1D(member, wp.float32, n)

        def fill(i):
            big[i] = float(i + j)

        wp.par_for_inner(member, 0, n - 1, fill)

        def copy(i):
            out[j, i] = big[i]

        wp.par_for_inner(member, 0, n - 1, copy)

    with config.override(**EMULATION):
        with pytest.raises(wp.LaunchError, match=r"allocated 2000 bytes of scratch, beyond its arena of 16 bytes"):
            wp.par_for_outer(16, 0, 2, body)
        wp.par_for_outer(4 * n, 0, 2, body)  # enough requested: the same body runs
    np.testing.assert_array_equal(out.numpy(), np.arange(n)[None, :] + np.arange(2)[:, None])


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_pads_fill_exactly_the_bytes_of_their_sizes(limit):
    """Pads are placed at their element's alignment: a team that requests the sum of its pads' bytes (two
    pads of 3 float64 and one of 5 int32: 68 bytes) has room for them all, as on the CPU."""
    out = wp.zeros((2, 3), dtype=wp.float64)

    def body(member, b):
        p = wp.ScratchPad1D(member, wp.float64, 3)
        q = wp.ScratchPad1D(member, wp.float64, 3)
        r = wp.ScratchPad1D(member, wp.int32, 5)

        def fill(i):
            p[i] = wp.float64(i)
            q[i] = wp.float64(10 * i)
            r[i] = 100 * (b + 1)

        wp.par_for_inner(member, 0, 2, fill)
        member.team_barrier()

        def read(i):
            out[b, i] = p[i] + q[i] + wp.float64(r[i])

        wp.par_for_inner(member, 0, 2, read)

    for target in ("cpu", "cuda-emulation"):
        out.zero_()
        with config.override(target=target, gpu_shared_limit=limit):
            wp.par_for_outer(2 * 3 * 8 + 5 * 4, 0, 2, body)  # two teams, b = 0, 1
        np.testing.assert_array_equal(out.numpy(), [[100, 111, 122], [200, 211, 222]])
