"""The kernel cache: warm re-runs never compile, corrupt entries rebuild, locking, permissions."""

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

PROGRAM = textwrap.dedent('''
    import sys
    from typing import Any
    import brickwork as wp
    from brickwork.jit import compile as jit

    order = sys.argv[1]

    @wp.kernel
    def scale(x: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        x[i] = s * x[i]

    def run(T):
        x = wp.array([1, 2, 3], dtype=T)
        wp.launch(scale, dim=3, inputs=[x, T(2)])
        assert x.numpy().tolist() == [2, 4, 6]

    types = [wp.float16, wp.float32, wp.float64]
    if order == "declared":
        for T in types:
            wp.overload(scale, [wp.array(dtype=T), T])
    for T in (types if order != "reversed" else types[::-1]):
        run(T)

    @wp.kernel
    def late(x: wp.array(dtype=float)):
        x[0] = 7.0

    a = wp.zeros(1, dtype=float)
    wp.launch(late, dim=1, inputs=[a])
    print("compiler_calls", jit.compiler_calls)
''')


def _run(tmp_path, order, cache_dir, extra_env=None, program=PROGRAM):
    """Run ``program`` (which asserts its results) in a new process; its compiler runs and its log."""
    script = tmp_path / "prog.py"
    script.write_text(program)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC, **(extra_env or {}))
    out = subprocess.run([sys.executable, str(script), order], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1]), out.stderr


def test_warm_rerun_calls_the_compiler_zero_times_whatever_the_order(tmp_path):
    cache_dir = tmp_path / "cache"
    calls, _ = _run(tmp_path, "forward", cache_dir)
    assert calls == 4
    for order in ("forward", "reversed", "declared"):
        calls, _ = _run(tmp_path, order, cache_dir)
        assert calls == 0, order
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700


@pytest.mark.parametrize(("batch", "runs"), [("8", 3), ("1", 4)])
def test_declared_instances_compile_in_one_parallel_batch(tmp_path, batch, runs):
    """Two compile jobs at a time: the three declared instances share two compiler runs (one with
    BRICKWORK_COMPILE_BATCH=1), the late kernel takes one more."""
    calls, log = _run(tmp_path, "declared", tmp_path / "c2", {"BRICKWORK_LOG": "info", "BRICKWORK_COMPILE_JOBS": "2",
                                                              "BRICKWORK_COMPILE_BATCH": batch})
    assert calls == runs
    compiled = [line for line in log.splitlines() if "compiled for cpu" in line]
    assert [line.split()[1] for line in compiled[:3]] == ["scale[float16]", "scale[float32]", "scale[float64]"]


def test_explain_cache_misses_names_the_changed_part(tmp_path):
    cache_dir = tmp_path / "c3"
    _run(tmp_path, "forward", cache_dir)
    _, log = _run(tmp_path, "forward", cache_dir, {"BRICKWORK_EXPLAIN_CACHE_MISSES": "1",
                                                  "BRICKWORK_CFLAGS": "-DBW_SOFT_HALF"})
    assert "cache miss: differs from the nearest cached entry in: compiler and flags" in log


def test_concurrent_processes_compile_each_key_once(tmp_path):
    cache_dir = tmp_path / "c4"
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC)
    procs = [subprocess.Popen([sys.executable, str(script), "forward"], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(3)]
    totals = [int(p.communicate()[0].split()[-1]) for p in procs]
    assert sum(totals) == 4  # four keys, each compiled by exactly one process


def test_claim_mode_compiles_each_key_once_without_flock(tmp_path):
    """BRICKWORK_CACHE_LOCK=claim (the default under an MPI launcher): the builder is whoever
    creates the claim file; the others wait for the published entry."""
    cache_dir = tmp_path / "c5"
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC, BRICKWORK_CACHE_LOCK="claim")
    procs = [subprocess.Popen([sys.executable, str(script), "forward"], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(3)]
    totals = [int(p.communicate()[0].split()[-1]) for p in procs]
    assert sum(totals) == 4
    assert os.listdir(cache_dir / "claims") == []  # every claim was released


def test_corrupt_entry_is_rebuilt(tmp_path):
    cache_dir = tmp_path / "c5"
    _run(tmp_path, "forward", cache_dir)
    libs = [os.path.join(d, f) for d, _, files in os.walk(cache_dir) for f in files if f == "kernel.so"]
    assert len(libs) == 4
    with open(libs[0], "r+b") as f:
        f.seek(100)
        f.write(b"garbage")
    calls, _ = _run(tmp_path, "forward", cache_dir)
    assert calls == 1


def test_refuses_a_cache_others_can_write(tmp_path):
    cache_dir = tmp_path / "open"
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o777)
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC)
    out = subprocess.run([sys.executable, str(script), "forward"], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    assert "refusing to use kernel cache" in out.stderr and "chmod 700" in out.stderr


def test_missing_compiler_is_a_clear_error(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(tmp_path / "c6"), PYTHONPATH=SRC, CXX="no-such-compiler++")
    env.pop("BRICKWORK_CXX", None)  # it would win over CXX
    out = subprocess.run([sys.executable, str(script), "forward"], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    assert "CompilerUnavailableError: no C++ compiler found (tried no-such-compiler++)" in out.stderr
    assert "apt install g++" in out.stderr


def test_cli_info_and_cache(tmp_path):
    cache_dir = tmp_path / "c7"
    _run(tmp_path, "forward", cache_dir)
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC)

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "brickwork.cli", *args], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert "openmp:" in cli("info") and str(cache_dir) in cli("info")
    assert cli("cache", "dir").strip() == str(cache_dir)
    listing = cli("cache", "list")
    assert "scale[float16]" in listing and "4 entries" in listing
    assert "removed 4 entries" in cli("cache", "clear")
    assert "0 entries" in cli("cache", "list")


#: Two kernels with one argument layout (a float32 array) and one of two arrays, each checking its result;
#: each built at its own launch, into a library of its own.
THREE_KERNELS = textwrap.dedent('''
    import brickwork as wp
    from brickwork.jit import compile as jit

    wp.config.compile_module = False

    @wp.kernel
    def add_one(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    @wp.kernel
    def times_ten(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] * 10.0

    @wp.kernel
    def add_to(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
        i = wp.tid()
        y[i] = y[i] + x[i]

    x = wp.array([1.0, 2.0], dtype=wp.float32)
    wp.launch(add_one, dim=2, inputs=[x])
    assert x.numpy().tolist() == [2.0, 3.0], ("add_one", x.numpy())
    wp.launch(times_ten, dim=2, inputs=[x])
    assert x.numpy().tolist() == [20.0, 30.0], ("times_ten", x.numpy())
    y = wp.array([1.0, 1.0], dtype=wp.float32)
    wp.launch(add_to, dim=2, inputs=[x, y])
    assert y.numpy().tolist() == [21.0, 31.0], ("add_to", y.numpy())
    print("compiler_calls", jit.compiler_calls)
''')


@pytest.fixture(scope="module")
def three_built(tmp_path_factory):
    """A cache holding the entries of THREE_KERNELS (built once; each test takes a copy)."""
    work = tmp_path_factory.mktemp("three")
    calls, _ = _run(work, "", work / "cache", program=THREE_KERNELS)
    assert calls == 3
    return work / "cache"


def _entries_by_kernel(cache_dir) -> dict:
    """The entry directory of each kernel of the cache (from the label in its meta.json)."""
    found = {}
    for meta in cache_dir.glob("*/*/meta.json"):
        found[json.loads(meta.read_text())["label"].partition("[")[0]] = meta.parent
    return found


@pytest.mark.parametrize("other", ["times_ten", "add_to"])
def test_entries_swapped_between_keys_are_rebuilt(tmp_path, three_built, other):
    """Swapped with an entry of the same argument layout, add_one's entry ran times_ten (x10) and
    times_ten's ran +1, silently; swapped with add_to's (two arrays), the launch raised IndexError."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(three_built, cache_dir)
    entries = _entries_by_kernel(cache_dir)
    a, b = entries["add_one"], entries[other]
    a.rename(tmp_path / "aside")
    b.rename(a)
    (tmp_path / "aside").rename(b)
    calls, _ = _run(tmp_path, "", cache_dir, program=THREE_KERNELS)
    assert calls == 2  # both moved entries, rebuilt under their own keys
    assert _entries_by_kernel(cache_dir) == entries
    assert _run(tmp_path, "", cache_dir, program=THREE_KERNELS)[0] == 0


@pytest.mark.parametrize("change", [{"writes": [5]}, {"symbols": []}, {"reads": None}, {"tid_dims": -1}])
def test_an_edited_meta_json_is_rebuilt(tmp_path, three_built, change):
    """Well-formed but damaged values were used: IndexError in the launch (writes), AttributeError
    (symbols), TypeError (reads), a LaunchError about -1 indices (tid_dims)."""
    cache_dir = tmp_path / "cache"
    shutil.copytree(three_built, cache_dir)
    path = _entries_by_kernel(cache_dir)["add_one"] / "meta.json"
    original = json.loads(path.read_text())
    path.write_text(json.dumps(dict(original, **change)))
    calls, _ = _run(tmp_path, "", cache_dir, program=THREE_KERNELS)
    assert calls == 1
    rebuilt = json.loads(path.read_text())
    assert {name: rebuilt.get(name) for name in change} == {name: original.get(name) for name in change}
