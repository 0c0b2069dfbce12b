"""Under mpiexec one rank compiles a new kernel and the others wait for its entry (jit/cache.claimed_build). Each
rank's compile notice says what that rank did: the builder that it compiled the kernel, a rank that waited that it
waited for a kernel another process compiled (every rank said 'compiled 1 kernel for cpu in 3.2 s' before, as if each
had compiled it)."""

from __future__ import annotations

import re
import time

from test_mpi import python  # importing it skips this module without mpiexec


def test_a_rank_that_waited_for_another_ranks_compile_says_so(tmp_path):
    scale = 2.0 + round(time.time() % 1000, 3)  # a kernel no cache has seen
    done = python(2, "compile_wait.py", repr(scale), env={"BRICKWORK_CACHE_DIR": str(tmp_path / "cache"),
                                                          "BRICKWORK_LOG": "info"})
    value = repr(7 * scale)
    assert sorted(re.findall(r"rank (\d): compiler runs (\d+), a\[7\] = np.float64\((\S+)\)", done.stdout)) == [
        ("0", "1", value), ("1", "0", value)], done.stdout  # rank 0 compiled, rank 1 only loaded
    lines = [line for line in done.stderr.splitlines() if line.startswith("brickwork: ")]
    assert lines.count("brickwork: compiling scale for cpu (kept in the cache: later runs load them)...") == 2, lines
    closing = [line for line in lines if re.fullmatch(r"brickwork: (compiled|waited) .* s\b.*", line)]
    assert len(closing) == 2, lines
    assert any(re.fullmatch(r"brickwork: compiled 1 kernel for cpu in \d+\.\d s", line) for line in closing), lines
    assert any(re.fullmatch(r"brickwork: waited \d+\.\d s for 1 kernel for cpu that another process compiled \(loaded "
                            r"from the cache\)", line) for line in closing), lines
    # the per-instance report of BRICKWORK_LOG=info: one compile, one load of the other rank's entry
    assert sum(bool(re.fullmatch(r"brickwork: scale compiled for cpu in \d+ ms", line)) for line in lines) == 1, lines
    assert lines.count("brickwork: scale for cpu: compiled by another process sharing the kernel cache, loaded from "
                       "it") == 1, lines
