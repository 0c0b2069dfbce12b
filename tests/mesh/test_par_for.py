"""Nested parallelism in the kernel language: par_for, par_for_outer with scratch, par_for_inner,
captured arrays and packs inside loop bodies."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import IndexRange


def test_par_for_three_ranges_with_captured_array_and_offsets():
    a = wp.zeros((4, 5, 6), dtype=wp.float64)
    scale = wp.float64(0.5)

    def body(k, j, i):
        a[k, j, i] = scale * wp.float64(100 * k + 10 * j + i)

    wp.par_for("fill", IndexRange(1, 2), (1, 3), 6, body)
    expected = np.zeros((4, 5, 6))
    for k in (1, 2):
        for j in (1, 2, 3):
            expected[k, j, :] = 0.5 * (100 * k + 10 * j + np.arange(6))
    np.testing.assert_array_equal(a.numpy(), expected)

    b = wp.zeros((4, 5, 6), dtype=wp.float64)
    a = b  # the body sees the array the name holds at launch time
    wp.par_for((0, 0), (0, 0), (0, 1), body)
    np.testing.assert_array_equal(b.numpy()[0, 0, :2], [0.0, 0.5])


def test_par_for_one_and_four_ranges_and_lambda():
    x = wp.zeros(8, dtype=wp.int32)
    wp.par_for(8, lambda i: wp.atomic_add(x, i, i * 2))
    np.testing.assert_array_equal(x.numpy(), 2 * np.arange(8))
    y = wp.zeros((2, 2, 2, 3), dtype=wp.int32)

    def four(b, k, j, i):
        y[b, k, j, i] = b * 1000 + k * 100 + j * 10 + i

    wp.par_for(2, 2, 2, 3, four)
    b, k, j, i = np.meshgrid(*[np.arange(n) for n in (2, 2, 2, 3)], indexing="ij")
    np.testing.assert_array_equal(y.numpy(), b * 1000 + k * 100 + j * 10 + i)


def test_par_for_outer_scratch_and_inner_loops():
    n = 10
    u = wp.array(np.arange(3 * 4 * n, dtype=np.float64).reshape(3, 4, n) ** 2, dtype=wp.float64)
    out = wp.zeros((3, 4, n), dtype=wp.float64)

    def body(member, k, j):
        left = wp.ScratchPad1D(member.team_scratch(0), wp.float64, n)
        grid = wp.ScratchPad2D(member, wp.float64, 2, n)

        def produce(i):
            left[i] = u[k, j, i - 1]
            grid[0, i] = u[k, j, i]
            grid[1, i] = wp.float64(2.0) * u[k, j, i]

        wp.par_for_inner(member, 1, n - 1, produce)
        member.team_barrier()

        def consume(i):
            d = grid[0, i] - left[i]  # renamed: never clashes with the outer names
            if i == n - 1:
                return
            out[k, j, i] = d + grid[1, i]

        wp.par_for_inner(member, 1, n - 1, consume)

    wp.par_for_outer("diff", 2 * 8 * n, 0, 3, 4, body)
    ref = np.zeros((3, 4, n))
    un = u.numpy()
    ref[:, :, 1:n - 1] = (un[:, :, 1:n - 1] - un[:, :, 0:n - 2]) + 2.0 * un[:, :, 1:n - 1]
    np.testing.assert_array_equal(out.numpy(), ref)


def test_scratch_grows_past_the_requested_bytes():
    n = 5000
    out = wp.zeros((2, n), dtype=wp.float32)

    def body(member, j):
        big = wp.ScratchPad1D(member, wp.float32, n)
        wp.par_for_inner(member, 0, n - 1, lambda i: big.__setitem__(i, 0.0) if False else None)

        def fill(i):
            big[i] = float(i + j)

        wp.par_for_inner(member, 0, n - 1, fill)

        def copy(i):
            out[j, i] = big[i]

        wp.par_for_inner(member, 0, n - 1, copy)

    with pytest.raises(wp.KernelError):  # attribute calls on arrays are not kernel code
        wp.par_for_outer(16, 0, 2, body)

    def body_ok(member, j):
        big = wp.ScratchPad1D(member, wp.float32, n)

        def fill(i):
            big[i] = float(i + j)

        wp.par_for_inner(member, 0, n - 1, fill)

        def copy(i):
            out[j, i] = big[i]

        wp.par_for_inner(member, 0, n - 1, copy)

    wp.par_for_outer(16, 0, 2, body_ok)  # 16 bytes requested, 20000 used: the arena grows
    np.testing.assert_array_equal(out.numpy(), np.arange(n)[None, :] + np.arange(2)[:, None])


def test_loop_body_errors():
    a = wp.zeros(4, dtype=float)
    with pytest.raises(wp.KernelSyntaxError, match="must take 2 index parameter"):
        wp.par_for(4, 4, lambda i: None)
    with pytest.raises(wp.LaunchError, match="1 to 4 ranges"):
        wp.par_for(1, 1, 1, 1, 1, lambda a, b, c, d, e: None)
    with pytest.raises(wp.LaunchError, match="a range must be"):
        wp.par_for("name", [0, 3], lambda i: None)
    with pytest.raises(wp.LaunchError, match=r"par_for: a range's end must be an integer, got 2.5"):
        wp.par_for((0, 2.5), lambda i: None)  # int() would run 0..2
    with pytest.raises(wp.LaunchError, match="a range must be"):
        wp.par_for(True, lambda i: None)
    with pytest.raises(wp.LaunchError, match="par_for_outer: scratch_bytes must be an integer, got 8.5"):
        wp.par_for_outer(8.5, 0, 2, lambda member, j: None)
    with pytest.raises(MemoryError, match=r"par_for_outer: scratch_bytes=1099511627776000 is more than this "
                                          r"machine's memory \(\d+ bytes\)"):
        wp.par_for_outer(2**40 * 1000, 0, 2, lambda member, j: None)

    def wrong(i):
        a[i] = 1  # int32 into a float32 array

    with pytest.raises(wp.TypeError, match="int32 .*float32|float32.*int32"):
        wp.par_for(4, wrong)
    np.testing.assert_array_equal(a.numpy(), 0.0)

    def bad_inner(member, j):
        wp.par_for_inner(member, 0, 3, 5)

    with pytest.raises(wp.TypeError, match="nested def or lambda"):
        wp.par_for_outer(0, 0, 1, bad_inner)


_FLAT = wp.zeros((2, 4), dtype=wp.float64)


def _flat_body_2(j, i):
    _FLAT[j, i] = wp.float64(1.0)


@pytest.mark.parametrize("call, kind, message", [
    (lambda: wp.par_for("fill", 0, 1, 0, 1, 0, 3, lambda b, j, i: None), wp.LaunchError,
     "par_for: 1 to 4 ranges, got 6; the 6 integers are 6 counts here (a count n is the range 0..n-1): if they are "
     "Parthenon's inclusive bounds (b0, b1, jb.s, jb.e, ...), pass each pair as one range, (0, 1), (0, 1), (0, 3), "
     "or IndexRanges (nblocks, jb, ib)"),
    (lambda: wp.par_for("fill", 0, 1, 0, 3, _flat_body_2), wp.KernelSyntaxError,
     "loop body '_flat_body_2' must take 4 index parameter(s), it takes 2: (j, i); the 4 integers are 4 counts here "
     "(a count n is the range 0..n-1): if they are Parthenon's inclusive bounds (b0, b1, jb.s, jb.e, ...), pass each "
     "pair as one range, (0, 1), (0, 3), or IndexRanges (nblocks, jb, ib)"),
    (lambda: wp.par_for_outer("fill", 0, 0, 0, 1, 0, 1, 0, 3, lambda member, b, j, i: None), wp.LaunchError,
     "par_for_outer: 1 to 3 outer ranges, got 6; the 6 integers are 6 counts here"),
])
def test_parthenons_flat_integer_bounds_are_told_apart_from_counts(call, kind, message):
    """Parthenon's par_for(name, b0, b1, jb.s, jb.e, ib.s, ib.e, body) said only '1 to 4 ranges, got 6', and its
    2-D form an arity mismatch: each integer is a count here, and the message says how to pass the pairs."""
    with pytest.raises(kind) as caught:
        call()
    assert message in str(caught.value)
    assert not _FLAT.numpy().any()  # nothing ran
    wp.par_for("fill", (0, 1), (0, 3), _flat_body_2)  # the pairs it names run over the intended ranges
    assert _FLAT.numpy().sum() == 8.0
    _FLAT.zero_()


def _run_script(tmp_path, text):
    """Run the kernel script `text` in a child process (a team that cannot get its scratch stops the process)."""
    script = tmp_path / "scratch_script.py"
    script.write_text(textwrap.dedent(text))
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("sizes, message", [
    ("536870912, 536870912", "out of memory: a team's scratch of 2305843009213693952 bytes could not be allocated"),
    # 2**64 elements: the product of the sizes wrapped around to a pad of 0 bytes, which big[i, i] wrote past
    ("4294967296, 4294967296", "a team's scratch pad of sizes (4294967296, 4294967296) of 8-byte elements needs "
                               "more than 2**61 bytes"),
])
def test_a_team_scratch_that_cannot_be_allocated_stops_with_a_message(tmp_path, sizes, message):
    """A scratch pad sized at run time past what malloc gives (2**58 elements, 2**61 bytes), or past what an int64
    counts: the process stops with a message, as a zero slice step does, instead of writing through a null
    pointer or past a pad whose size wrapped around."""
    script_text = f"""
        import brickwork as wp

        def body(member, j):
            big = wp.ScratchPad2D(member, wp.float64, {sizes})

            def one(i):
                big[i, i] = wp.float64(1.0)

            wp.par_for_inner(member, 0, 3, one)

        wp.par_for_outer(0, 0, 1, body)
        print("not reached")
    """
    done = _run_script(tmp_path, script_text)
    assert done.returncode != 0 and "not reached" not in done.stdout
    assert f"brickwork: {message}" in done.stderr, done.stderr


def _overcommit_mode():
    try:
        with open("/proc/sys/vm/overcommit_memory") as f:
            return int(f.read())
    except OSError:
        return None


@pytest.mark.skipif(_overcommit_mode() not in (0, 1), reason="needs Linux's heuristic or unlimited overcommit")
def test_a_team_pad_of_most_of_the_memory_is_allocated_without_doubling(tmp_path):
    """A pad past the team's arena grows the arena to twice what it needs (room for the next pads); a pad of 60 % of
    the machine's memory asked for 120 %, which malloc refused, and the process stopped with 'out of memory' (attacker
    probe: a 14 GiB int8 pad on a 23 GiB machine: 'a team's scratch of 30064771072 bytes could not be allocated').
    The arena now takes the bytes the pad needs when twice as many cannot be had. Only two pages are touched; a
    child process, since the failure stops the process."""
    n = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.6)
    done = _run_script(tmp_path, f"""
        import brickwork as wp

        out = wp.zeros(1, dtype=wp.float64)

        def body(member, b):
            pad = wp.ScratchPad1D(member, wp.int8, {n})
            pad[0] = wp.int8(3)
            pad[wp.int64({n - 1})] = wp.int8(4)
            out[b] = wp.float64(pad[0]) * wp.float64(10.0) + wp.float64(pad[wp.int64({n - 1})])

        wp.par_for_outer(64, 0, 1, body)
        print(out.numpy()[0])
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["34.0"]
