"""Locals that fill a thread's whole stack (large tiles, their copies, the frames of the functions a kernel calls) are
refused where they are declared: a tile of 2**20 float32 values and the copy tile_load makes of it took 8 MiB and the
launch died of a segmentation fault (attacker probe; Warp 1.19 dies the same way at 2**22)."""

import threading

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError
from brickwork.frontend import stack_frame

MIB = 2**20
BIG = MIB // 4  # float32 values of a 1 MiB tile
HALF = BIG // 2


@pytest.fixture
def stack_of(monkeypatch):
    """Make the thread stack the typer weighs locals against ``n`` bytes (None: unlimited)."""
    def set_limit(n):
        monkeypatch.setattr(stack_frame, "_stack_limit", [(n, "ulimit -s")])
    return set_limit


@wp.kernel
def tile_sum_big(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=BIG)  # refused here
    wp.tile_store(out, wp.tile_sum(t))


@wp.kernel
def tile_sum_big_omp(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=BIG)  # refused here too
    wp.tile_store(out, wp.tile_sum(t))


@wp.kernel
def tile_sum_big_unlimited(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=BIG)
    wp.tile_store(out, wp.tile_sum(t))


@wp.kernel
def tile_sum_half(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=HALF)
    wp.tile_store(out, wp.tile_sum(t))


@wp.func
def half_sum(a: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=HALF)
    return wp.tile_sum(t)


@wp.kernel
def tile_sum_and_call(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    t = wp.tile_load(a, shape=HALF)
    s = wp.tile_sum(t) + half_sum(a)
    wp.tile_store(out, s)


@wp.kernel
def local_matrices(out: wp.array(dtype=wp.float32)):
    m = wp.zeros(shape=(512, 512), dtype=wp.float64)
    n = wp.zeros(shape=(512, 512), dtype=wp.float64)
    out[0] = wp.float32(m[0, 0] + n[1, 1])


BIG_MATRIX = wp.types.matrix(shape=(512, 512), dtype=wp.float32)  # 1 MiB, copied 3 times by a launch


@wp.kernel
def matrix_argument(m: BIG_MATRIX, out: wp.array(dtype=wp.float32)):  # refused here
    out[0] = m[1, 1]


def _line_of(statement: str) -> int:
    with open(__file__) as f:
        found = [n for n, text in enumerate(f, 1) if text.strip() == statement]
    assert len(found) == 1
    return found[0]


def _launch_refused(kernel, n_in, fragments, line):
    a = wp.array(np.arange(n_in, dtype=np.float32) % 7)
    out = wp.full(1, 5.0, dtype=wp.float32)
    with pytest.raises(KernelTypeError) as info:
        wp.launch_tiled(kernel, dim=1, inputs=[a, out], block_dim=64)
    text = str(info.value)
    assert f'{__file__}", line {line}' in text
    for fragment in fragments:
        assert fragment in text
    assert out.numpy().tolist() == [5.0]  # nothing ran


def test_a_tile_and_its_copy_filling_the_stack_are_refused_at_the_load(stack_of):
    stack_of(2 * MIB)
    _launch_refused(tile_sum_big, BIG, ["the locals of kernel 'tile_sum_big' take 2.0 MiB up to here: 2097", "bytes",
                                        "the whole stack of the thread that runs a point (2.0 MiB, ulimit -s)",
                                        "'t' (tile(dtype=float32, shape=(262144,)), 1.0 MiB)", "smaller tiles"],
                    _line_of("t = wp.tile_load(a, shape=BIG)  # refused here"))


def test_the_frame_of_a_called_function_counts_on_top_of_the_callers(stack_of):
    stack_of(2 * MIB)  # 1 MiB of the kernel's own and 1 MiB of half_sum's: refused at the call
    _launch_refused(tile_sum_and_call, HALF, ["the locals of kernel 'tile_sum_and_call' take 1.0 MiB up to here and "
                                              "function 'half_sum' it calls takes 1.0 MiB on top of them"],
                    _line_of("s = wp.tile_sum(t) + half_sum(a)"))


def test_fixed_size_local_arrays_count_as_tiles(stack_of):
    stack_of(3 * MIB)  # two 2 MiB arrays: the second one is refused
    out = wp.full(1, 5.0, dtype=wp.float32)
    with pytest.raises(KernelTypeError, match=r"line \d+, in local_matrices\n +n = wp.zeros.*\n.*'local_matrices' take "
                       r"4.0 MiB .*'m' \(fixedarray\(dtype=float64, shape=\(512, 512\)\), 2.0 MiB\)"):
        wp.launch(local_matrices, dim=1, inputs=[out])
    assert out.numpy().tolist() == [5.0]


@pytest.mark.parametrize("kernel, n, limit", [(tile_sum_half, HALF, 2 * MIB), (tile_sum_big_unlimited, BIG, None)])
def test_locals_within_the_stack_run(stack_of, kernel, n, limit):
    stack_of(limit)  # 1 MiB of 2 MiB; 2 MiB of an unlimited stack (the real one has 8 MiB)
    values = np.arange(n, dtype=np.float32) % 7
    out = wp.zeros(1, dtype=wp.float32)
    wp.launch_tiled(kernel, dim=1, inputs=[wp.array(values), out], block_dim=64)
    assert out.numpy()[0] == values.sum(dtype=np.float64)


def test_the_stack_limit_is_the_smallest_of_the_main_threads_and_a_new_threads(monkeypatch):
    import resource

    monkeypatch.delenv("OMP_STACKSIZE", raising=False)
    monkeypatch.delenv("GOMP_STACKSIZE", raising=False)
    monkeypatch.setattr(stack_frame, "_stack_limit", [])
    soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    default = stack_frame._default_thread_stack()[0]
    assert default is not None and default >= 2**16  # glibc's: the soft ulimit -s, or a few MiB if it is unlimited
    expected = default if soft == resource.RLIM_INFINITY else min(soft, default)
    assert stack_frame.thread_stack_bytes() == expected


def test_an_unlimited_ulimit_leaves_the_stack_of_new_threads_checked(monkeypatch):
    """``ulimit -s unlimited`` (common on clusters) checked nothing, and OpenMP's workers still had glibc's default of
    2 MiB: a kernel of 4 MiB of tiles passed and died of a segmentation fault when its launch ran in parallel."""
    monkeypatch.delenv("OMP_STACKSIZE", raising=False)
    monkeypatch.delenv("GOMP_STACKSIZE", raising=False)
    monkeypatch.setattr(stack_frame, "_stack_limit", [])
    monkeypatch.setattr(stack_frame, "_main_stack", lambda: (None, "ulimit -s"))
    monkeypatch.setattr(stack_frame, "_default_thread_stack", lambda: (2 * MIB, "the default stack of new threads"))
    assert stack_frame.stack_limit() == (2 * MIB, "the default stack of new threads")


@pytest.mark.parametrize("variables, expected", [
    ({"OMP_STACKSIZE": "1M"}, (MIB, "OMP_STACKSIZE")),
    ({"OMP_STACKSIZE": " 512 k "}, (512 * 2**10, "OMP_STACKSIZE")),
    ({"OMP_STACKSIZE": "3000"}, (3000 * 2**10, "OMP_STACKSIZE")),  # kilobytes without a unit, as libgomp reads it
    ({"OMP_STACKSIZE": "65536B"}, (65536, "OMP_STACKSIZE")),
    ({"OMP_STACKSIZE": "2G"}, (4 * MIB, "ulimit -s")),  # larger than the main thread's
    ({"GOMP_STACKSIZE": "100"}, (100 * 2**10, "GOMP_STACKSIZE")),
    ({"OMP_STACKSIZE": "junk", "GOMP_STACKSIZE": "1m"}, (MIB, "GOMP_STACKSIZE")),
    ({"OMP_STACKSIZE": "junk"}, (3 * MIB, "the default stack of new threads")),  # libgomp ignores it
    ({"OMP_STACKSIZE": "0"}, (3 * MIB, "the default stack of new threads")),
])
def test_openmps_stack_is_read_from_its_variables(monkeypatch, variables, expected):
    monkeypatch.delenv("OMP_STACKSIZE", raising=False)
    monkeypatch.delenv("GOMP_STACKSIZE", raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(stack_frame, "_stack_limit", [])
    monkeypatch.setattr(stack_frame, "_main_stack", lambda: (4 * MIB, "ulimit -s"))
    monkeypatch.setattr(stack_frame, "_default_thread_stack", lambda: (3 * MIB, "the default stack of new threads"))
    assert stack_frame.stack_limit() == expected


def test_the_stack_of_python_threads_started_from_here_on_counts(monkeypatch):
    """A launch from a thread of threading.stack_size(1 MiB) ran a kernel of 2 MiB of tiles on it: SIGSEGV."""
    monkeypatch.setattr(stack_frame, "_stack_limit", [(4 * MIB, "ulimit -s")])
    old = threading.stack_size(MIB)
    try:
        assert stack_frame.stack_limit() == (MIB, "threading.stack_size()")
    finally:
        threading.stack_size(old)
    assert stack_frame.stack_limit() == (4 * MIB, "ulimit -s")


def test_a_tile_past_openmps_stack_is_refused_naming_it(monkeypatch):
    monkeypatch.setattr(stack_frame, "_stack_limit", [(2 * MIB, "OMP_STACKSIZE")])
    _launch_refused(tile_sum_big_omp, BIG, ["at least the whole stack of the thread that runs a point (2.0 MiB, "
                                            "OMP_STACKSIZE)"], _line_of("t = wp.tile_load(a, shape=BIG)  # refused here too"))


def test_a_kernel_argument_copied_past_the_stack_is_refused_at_the_def(stack_of):
    stack_of(2 * MIB)  # a 3 MiB matrix argument crashed the 8 MiB stack (3 copies), 2 MiB ran
    out = wp.full(1, 5.0, dtype=wp.float32)
    with pytest.raises(KernelTypeError) as info:
        wp.launch(matrix_argument, dim=1, inputs=[BIG_MATRIX(), out])
    text = str(info.value)
    line = _line_of("def matrix_argument(m: BIG_MATRIX, out: wp.array(dtype=wp.float32)):  # refused here")
    assert f'{__file__}", line {line}' in text
    assert "the locals of kernel 'matrix_argument' take 3.0 MiB up to here: 3145728 bytes" in text
    assert "the largest are argument 'm' (3 copies) (mat512512f, 3.0 MiB)" in text
    assert "pass large values in arrays" in text
    assert out.numpy().tolist() == [5.0]
