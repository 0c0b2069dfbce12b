"""The mesh, the loop abstraction and the hydro application on 1, 2 and 4 MPI ranks.

Each test starts ``mpiexec`` (the one installed with the ``mpi`` extra, next to this Python) on a
script of ``scripts/`` or on ``brickwork run``, with a timeout, and compares what the ranks wrote
with the one-process result: equal values, bit for bit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py")
h5py = pytest.importorskip("h5py")

SCRIPTS = Path(__file__).parent / "scripts"
EXAMPLES = Path(__file__).parents[2] / "examples"
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
BRICKWORK = shutil.which("brickwork", path=os.path.dirname(sys.executable)) or "brickwork"
if MPIEXEC is None:
    pytest.skip("no mpiexec (install the mpi extra: pip install 'brickwork[mpi]')", allow_module_level=True)


def rank_env(**extra: str) -> dict:
    """The ranks' environment: this one, one thread per rank, and Python's output buffered. PYTHONUNBUFFERED (set in
    this machine's shells, which the suite inherits) makes print() write its text and its newline in two calls, and
    another rank's line came through mpiexec between them: 'rank 0: ...rank 1: ...' and an empty line (4 of 65 runs
    of two ranks printing 50 lines of 1.5 kB, load 9-24; 0 of 65 without it). A print() with flush=True is one write."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return dict(env, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1", **extra)


def mpirun(nranks: int, *args: str, cwd=None, env=None, timeout: float = 180) -> subprocess.CompletedProcess:
    """``mpiexec -n nranks args...`` with one thread per rank; the output is captured."""
    full_env = rank_env(**(env or {}))
    with subprocess.Popen([MPIEXEC, "-n", str(nranks), *args], cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as run:
        try:
            out, err = run.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM, which mpiexec passes on to the ranks: killed, it left them running (each in a session of
            # its own) and a hung rank spun on through the rest of the suite
            run.terminate()
            try:
                run.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                run.kill()
                run.communicate()
            raise
    return subprocess.CompletedProcess(run.args, run.returncode, out, err)


def python(nranks: int, script: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    done = mpirun(nranks, sys.executable, str(SCRIPTS / script), *args, **kwargs)
    assert done.returncode == 0, f"{script} on {nranks} ranks failed:\n{done.stdout}\n{done.stderr[-4000:]}"
    return done


@pytest.mark.parametrize("nranks", [2, 4])
def test_ghost_exchange_equals_one_process(nranks):
    """Every boundary kind (periodic, outflow, reflecting, a user function) and field kind (cell,
    vector, face, edge, node, cell-aligned face, sparse allocated on some blocks or none) in 1-D, 2-D
    and 3-D: the distributed ghosts equal the one-process ghosts."""
    done = python(nranks, "ghosts.py")
    assert done.stdout.count("block fields equal") == nranks  # one line per rank (lines may interleave)


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_sparse_ghosts_relayed_by_a_rank_without_the_instance(nranks):
    """A sparse instance allocated on some blocks: a rank holding none of them (no array) still relays the
    edge and corner ghosts across its blocks, as one process does (values written into the blocks without it
    are read as zeros), user boundary functions and the adjoint included; ``mesh.data`` there says that the
    rank stores no array. 1, 2 and 4 ranks against one process and np.pad, bit for bit."""
    done = python(nranks, "sparse_ghosts.py")
    assert done.stdout.count("sparse blocks equal") == nranks


@pytest.mark.parametrize("nranks", [2, 4])
def test_ghost_exchange_adjoint_equals_one_process(nranks):
    """Under a tape the exchange's adjoint (transposed copies and messages) gives each rank's blocks the
    one-process gradients, for every boundary and field kind; the one-process adjoint is the transpose."""
    done = python(nranks, "ghost_adjoints.py")
    assert done.stdout.count("block gradients equal") == nranks


def test_a_device_mesh_over_several_ranks_under_a_tape_is_refused():
    """The transposed ghost messages are host-only: every rank says so (stand-in CUDA drivers), nothing filled."""
    done = python(2, "device_adjoint_refused.py")
    assert done.stdout.count("refused") == 2


def test_gradients_through_stages_and_exchanges_equal_one_process(tmp_path):
    """A tape over a 2-D scheme's stages and ghost exchanges (three losses: weighted final state, la.Sum,
    la.Max) and over the 1-D hydro application: the gradient of the initial state on 2 and 4 ranks (and
    on 2 ranks on the GPU emulation) equals the one-rank gradient, which equals central differences
    (checked by the one-rank run)."""
    one = python(1, "gradients.py", str(tmp_path / "g1.npz"), timeout=600)
    assert one.stdout.count("gradient equals central differences") == 4
    with np.load(tmp_path / "g1.npz") as z:
        want = {k: z[k] for k in z.files}
    assert sorted(want) == ["hydro_density", "hydro_energy", "hydro_momentum", "scheme_max", "scheme_sum",
                            "scheme_weighted"]
    assert all(np.abs(v).max() > 0 for v in want.values())
    for nranks, target in ((2, "cpu"), (4, "cpu"), (2, "cuda-emulation")):
        out = tmp_path / f"g{nranks}-{target}.npz"
        done = python(nranks, "gradients.py", str(out), env={"BRICKWORK_TARGET": target}, timeout=600)
        assert done.stdout.count(f"gradients done on {target}") == nranks
        with np.load(out) as z:
            for name, value in want.items():
                np.testing.assert_allclose(z[name], value, rtol=1e-12, atol=1e-14, err_msg=f"{name}, {nranks} {target}")


def test_reductions_are_identical_on_every_rank_count():
    outputs = [python(n, "reduce.py").stdout for n in (1, 2, 4)]
    assert outputs[0].count("\n") == 5 and "la.Sum(float64)" in outputs[0]
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_reduction_gradients_are_identical_on_every_rank_count():
    """Sum, Prod (with one zero), Min and MaxLoc into arrays under a tape: the rank holding the winning
    (or zero) cell gets its gradient, the others nothing, so 1, 2 and 4 ranks give the same gradients."""
    outputs = [python(n, "reduce_gradient.py").stdout for n in (1, 2, 4)]
    lines = outputs[0].splitlines()
    assert [line.split(" ")[0] for line in lines] == ["la.Sum(float64)", "la.Prod(float64)", "la.Min(float64)",
                                                      "la.MaxLoc(float64)"]
    assert [int(line.split(" ")[2]) for line in lines[1:3]] == [1, 1]  # the zero cell alone
    assert "((3, 0, 0, 2, 3), 2.0)" in lines[2]
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_an_exception_on_one_rank_ends_every_rank():
    start = time.monotonic()
    done = mpirun(4, sys.executable, str(SCRIPTS / "fail.py"), timeout=60)
    assert done.returncode != 0
    assert time.monotonic() - start < 30
    assert "deliberate failure on rank 1" in done.stderr and "[rank 1]" in done.stderr
    assert "unreachable" not in done.stdout


@pytest.mark.parametrize("how, message", [
    ("early", "FileNotFoundError: an input file that only rank 1 cannot read"),  # before MPI is initialised
    ("interrupt", "KeyboardInterrupt"),
    ("mesh", "ValueError: the mesh differs between the MPI ranks: nx is (16,) on rank 0 but (32,) on rank 1; "
             "every rank must build the same Mesh (building one is collective)"),
])
def test_a_failure_on_one_rank_alone_ends_every_rank(how, message):
    start = time.monotonic()
    done = mpirun(2, sys.executable, str(SCRIPTS / "fail_alone.py"), how, timeout=60)
    assert done.returncode != 0
    assert time.monotonic() - start < 30
    who = "[rank 0] " if how == "mesh" else "[rank 1] "  # both raise the mesh's error: rank 0 alone prints it
    assert who + message + "\n" in done.stderr
    assert how != "mesh" or "[rank 1]" not in done.stderr, done.stderr
    assert "unreachable" not in done.stdout


@pytest.mark.parametrize("nranks", [2, 4])
def test_outputs_written_on_several_ranks_equal_one_process(tmp_path, nranks):
    """Mesh.write_output is collective: rank 0 receives the blocks variable by variable and writes; every rank
    gets the paths."""
    python(1, "write_output.py", str(tmp_path / "one"))
    done = python(nranks, "write_output.py", str(tmp_path / "four"))
    assert done.stdout.count(f"wrote ('{tmp_path / 'four'}.h5', '{tmp_path / 'four'}.xdmf') and "
                             f"{tmp_path / 'four'}_vtk.vtm") == nranks
    with h5py.File(tmp_path / "one.h5") as one, h5py.File(tmp_path / "four.h5") as four:
        assert sorted(one["cells"]) == sorted(four["cells"]) == ["q", "sp_2", "v_1", "v_2", "v_3"]
        names = []
        one.visit(lambda name: names.append(name) if isinstance(one[name], h5py.Dataset) else None)
        assert sorted(names) == ["blocks/dx", "blocks/xmin", "cells/q", "cells/sp_2", "cells/v_1", "cells/v_2",
                                 "cells/v_3"]
        for name in names:  # every dataset: the same dtype, shape and values
            assert four[name].dtype == one[name].dtype
            np.testing.assert_array_equal(four[name][:], one[name][:])
        assert four.attrs["time"] == 1.5 and four.attrs["cycle"] == 12
        sp = four["cells/sp_2"][:]
        assert (sp[0::2] == -np.arange(1, 9, 2)[:, None, None, None]).all() and not sp[1::2].any()
    assert (tmp_path / "four.xdmf").read_text() == (tmp_path / "one.xdmf").read_text().replace("one.h5", "four.h5")
    whole = np.load(tmp_path / "four.v.npy")
    np.testing.assert_array_equal(whole, np.load(tmp_path / "one.v.npy"))
    assert whole.shape == (3, 8, 16) and sorted(np.unique(whole[2])) == [2.0 + gid for gid in range(8)]
    # Mesh.write_vtk: the same files, byte for byte, as one process's (rank 0 writes every block's file)
    one_vtk, four_vtk = tmp_path / "one_vtk", tmp_path / "four_vtk"
    assert sorted(os.listdir(four_vtk)) == sorted(os.listdir(one_vtk)) == [f"block_{g:06d}.vti" for g in range(8)]
    for name in os.listdir(one_vtk):
        assert (four_vtk / name).read_bytes() == (one_vtk / name).read_bytes()
    assert (tmp_path / "four_vtk.vtm").read_text() == (tmp_path / "one_vtk.vtm").read_text().replace("one_", "four_")
    assert "four_vtk.vtm" in (tmp_path / "four.pvd").read_text()


def test_a_mesh_restart_saved_on_4_ranks_loads_on_1_and_2(tmp_path):
    python(4, "mesh_restart.py", "save", str(tmp_path / "m.npz"))
    for nranks in (1, 2):
        done = python(nranks, "mesh_restart.py", "load", str(tmp_path / "m.npz"))
        counts = re.findall(r"restored (\d+) blocks", done.stdout)  # the ranks' lines may interleave
        assert len(counts) == nranks and sum(map(int, counts)) == 8, done.stdout + done.stderr[-3000:]


def test_a_new_kernel_is_compiled_once_for_all_ranks(tmp_path):
    cache = tmp_path / "cache"
    scale = f"{1.0 + time.time() % 1000:.6f}"  # a kernel no cache has seen
    done = python(4, "compile_once.py", scale, env={"BRICKWORK_CACHE_DIR": str(cache)})
    assert f"compiler runs: 1 values: [{7 * float(scale)!r}]" in done.stdout
    again = python(4, "compile_once.py", scale, env={"BRICKWORK_CACHE_DIR": str(cache)})
    assert "compiler runs: 0" in again.stdout


# -- the hydro application ------------------------------------------------------------------------
CASES = {
    "sod": ("sod.toml", ["mesh.nx=[128]", "mesh.block_nx=[16]", "time.tlim=0.05"]),
    # 3 x 3 blocks: dx = 1/48 is inexact, and each block's own (xmax - xmin) / nx rounds its own way (the
    # solver once took dx from the rank's first block, which made 2 and 4 ranks differ in the last bits).
    # 2-D blocks of 16^2, as in tests/apps: a block's size is compiled into the hydro kernels, so these runs
    # reuse the session cache's kernels instead of compiling their own (about 40 s of g++ per 8^2 scheme)
    "kh": ("kelvin_helmholtz.toml", ["mesh.nx=[48,48]", "mesh.block_nx=[16,16]", "time.nlim=12"]),
    "blast": ("blast2d.toml", ["mesh.nx=[64,64]", "mesh.block_nx=[16,16]", "time.nlim=12", "bc_x1=\"reflecting\""]),
    # passive scalars: exchanged with the gas, written as scalar_0.. (HDF5), history columns, restart arrays
    "kh_scalars": ("kelvin_helmholtz.toml", ["mesh.nx=[48,48]", "mesh.block_nx=[16,16]", "time.nlim=12",
                                             "hydro.nscalars=2"]),
}


def run_case(tmp_path, name: str, nranks: int, *extra: str, tag: str = "") -> Path:
    toml, overrides = CASES[name]
    out = tmp_path / f"{name}{tag}-{nranks}"
    overrides = [o if not o.startswith("bc_") else "mesh." + o for o in overrides]
    done = mpirun(nranks, BRICKWORK, "run", str(EXAMPLES / toml), *overrides,
                  f"output.dir={str(out)!r}".replace("'", '"'), "output.hdf5_dt=0", "output.png_dt=-1",
                  "output.restart_dt=0", *extra, "--quiet")
    assert done.returncode == 0, f"{name} on {nranks} ranks:\n{done.stdout}\n{done.stderr[-4000:]}"
    return out


def outputs_of(folder: Path) -> dict:
    """Every dataset and attribute of the HDF5 outputs, the history text and the restart arrays."""
    found = {}
    for path in sorted(folder.glob("*.h5")):
        with h5py.File(path) as f:
            found[path.name] = {k: f[k][...] for k in ("blocks/xmin", "blocks/dx")}
            found[path.name].update({f"cells/{k}": f["cells"][k][...] for k in f["cells"]})
            found[path.name].update({f"@{k}": v for k, v in f.attrs.items()})
    for path in sorted(folder.glob("*.hst")):
        found[path.name] = path.read_text()
    for path in sorted(folder.glob("*.npz")):
        with np.load(path) as z:
            found[path.name] = {k: z[k] for k in z.files if k != "__meta__"}
    return found


def assert_same(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for name, value in a.items():
        if isinstance(value, dict):
            assert sorted(value) == sorted(b[name]), name
            for key, array in value.items():
                assert np.array_equal(array, b[name][key]), f"{name}:{key} differs"
        else:
            assert value == b[name], f"{name} differs"


@pytest.mark.parametrize("name", sorted(CASES))
def test_hydro_runs_are_bitwise_identical_on_1_2_4_ranks(tmp_path, name):
    one = outputs_of(run_case(tmp_path, name, 1))
    assert any(k.endswith(".h5") for k in one) and any(k.endswith(".hst") for k in one)
    for nranks in (2, 4):
        assert_same(one, outputs_of(run_case(tmp_path, name, nranks)))


def test_restart_written_on_4_ranks_continues_on_2(tmp_path):
    whole = outputs_of(run_case(tmp_path, "kh", 1, "time.nlim=12"))
    first = run_case(tmp_path, "kh", 4, "time.nlim=6", tag="-first")
    (restart,) = sorted(first.glob("*.rst.*.npz"))
    toml, overrides = CASES["kh"]
    out = tmp_path / "kh-second"
    done = mpirun(2, BRICKWORK, "run", str(EXAMPLES / toml), *overrides,
                  f'output.dir="{out}"', "output.hdf5_dt=0", "output.png_dt=-1", "output.restart_dt=0",
                  "--restart", str(restart), "--quiet")
    assert done.returncode == 0, done.stderr[-4000:]
    rest = outputs_of(out)
    final = max(k for k in whole if k.endswith(".h5"))
    continued = max(k for k in rest if k.endswith(".h5"))  # numbered on from the restart's outputs
    assert rest[continued]["@cycle"] == whole[final]["@cycle"] == 12
    assert_same({final: whole[final]}, {final: rest[continued]})
    # the history of the continued run repeats the uninterrupted one from the restart cycle on
    tail = rest["kelvin_helmholtz.hst"].splitlines()[1:]
    assert tail and all(line in whole["kelvin_helmholtz.hst"].splitlines() for line in tail)


def test_info_names_the_mpi_library_and_ranks():
    done = mpirun(2, BRICKWORK, "info")
    assert done.returncode == 0
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("mpi:")]  # rank 0 alone prints
    assert "MPICH" in line and "2 ranks" in line


def test_an_input_error_is_said_once_and_every_rank_exits_2(tmp_path):
    done = mpirun(2, BRICKWORK, "run", str(EXAMPLES / "sod.toml"), "hydro.cfl=-1", f'output.dir="{tmp_path}/o"')
    assert done.returncode == 2
    assert done.stderr.count("brickwork: error:") == 1 and "hydro.cfl" in done.stderr
    assert not (tmp_path / "o").exists()


def test_more_ranks_than_blocks_is_an_input_error(tmp_path):
    done = mpirun(3, BRICKWORK, "run", str(EXAMPLES / "sod.toml"), "mesh.nx=[64]", "mesh.block_nx=[32]",
                  f'output.dir="{tmp_path}/o"')
    assert done.returncode == 2
    assert done.stderr.count("makes 2 blocks, fewer than the 3 MPI ranks") == 1


def mpmd(*programs: list, timeout: float = 60) -> subprocess.CompletedProcess:
    """``mpiexec -n 1 A : -n 1 B ...``: one rank per program, each its own arguments (``-wdir DIR``
    first for a working directory of its own), to give one rank what the others do not see."""
    command = [MPIEXEC]
    for i, program in enumerate(programs):
        command += [":"] * (i > 0) + ["-n", "1", *program]
    return subprocess.run(command, env=rank_env(), capture_output=True, text=True, timeout=timeout)


SOD = [BRICKWORK, "run", str(EXAMPLES / "sod.toml"), "mesh.nx=[64]", "mesh.block_nx=[16]", "time.tlim=0.01",
       "output.png_dt=-1", "--quiet"]


@pytest.mark.parametrize("rank1, message", [
    (["output.dir=\"o\"", "hydro.cfl=0.2"], "the input differs between the MPI ranks: hydro.cfl is 0.4 on rank 0 "
     "but 0.2 on rank 1; every rank must run the same input file and overrides"),
    (["output.dir=\"o\"", "hydro.cfl=-1"], "hydro.cfl: must be > 0, got -1.0 (on rank 1 of 2)"),
    (["output.dir=\"o\""], "output.dir='o' is a file, not a directory (on rank 1 of 2)"),  # in rank 1's folder
])
def test_an_input_mistake_on_one_rank_alone_is_said_once_and_every_rank_exits_2(tmp_path, rank1, message):
    """Before, the rank that met the mistake exited and the others waited for it for ever."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "o").write_text("")
    done = mpmd(["-wdir", str(tmp_path / "a"), *SOD, "output.dir=\"o\""], ["-wdir", str(tmp_path / "b"), *SOD, *rank1])
    assert done.returncode == 2, done.stderr[-4000:]
    assert done.stderr == f"brickwork: error: {message}\n"
    assert not (tmp_path / "a" / "o").exists()


def test_ranks_restarting_from_different_files_is_a_restart_error(tmp_path):
    first = mpirun(1, *SOD, f'output.dir="{tmp_path}"', "output.restart_dt=0.005", "output.hdf5_dt=-1")
    assert first.returncode == 0, first.stderr
    a, b = sorted(str(p) for p in tmp_path.glob("sod.rst.*.npz"))[:2]
    done = mpmd([*SOD, f'output.dir="{tmp_path}/c"', "--restart", a], [*SOD, f'output.dir="{tmp_path}/c"', "--restart", b])
    assert done.returncode == 2
    assert done.stderr.startswith("brickwork: error: the restarted state differs between the MPI ranks: time is ")
    assert f"on rank 1; every rank must read the same restart file (rank 0 read {a!r})\n" in done.stderr


def test_ranks_restarting_from_files_of_one_time_and_cycle_but_other_states_is_a_restart_error(tmp_path):
    """Node-local disks, simulated by a folder per rank: the same path names Sod restarts of the same time and
    cycle but different initial conditions. Before, the ranks compared time and cycle only and ran on from a mix
    of the two states (status 0)."""
    for folder, x0 in (("a", 0.5), ("b", 0.3)):
        (tmp_path / folder).mkdir()
        done = mpirun(1, *SOD, "output.dir=\"o\"", f"problem.x0={x0}", "output.restart_dt=0", "output.hdf5_dt=-1",
                      "time.nlim=3", cwd=tmp_path / folder)
        assert done.returncode == 0, done.stderr
    restart = ["--restart", "o/sod.rst.00000.npz", "output.dir=\"o2\"", "output.restart_dt=-1", "output.hdf5_dt=-1"]
    done = mpmd(["-wdir", str(tmp_path / "a"), *SOD, *restart], ["-wdir", str(tmp_path / "b"), *SOD, *restart])
    assert done.returncode == 2, done.stderr[-4000:]
    assert done.stderr.count("\n") == 1  # one line, said by rank 0
    assert done.stderr.startswith("brickwork: error: the restarted state differs between the MPI ranks: file content "
                                  "is '")
    assert done.stderr.endswith("on rank 1; every rank must read the same restart file (rank 0 read "
                                "'o/sod.rst.00000.npz')\n")
    assert not (tmp_path / "a" / "o2").exists()
    # the same file copied to both folders runs
    (tmp_path / "b" / "o" / "sod.rst.00000.npz").write_bytes((tmp_path / "a" / "o" / "sod.rst.00000.npz").read_bytes())
    done = mpmd(["-wdir", str(tmp_path / "a"), *SOD, *restart], ["-wdir", str(tmp_path / "b"), *SOD, *restart])
    assert done.returncode == 0, done.stderr[-4000:]


def _restart_folders(tmp_path, values: dict) -> list:
    """A folder per name, holding ``r.npz`` saved with q = the value (none for None); the ``-wdir`` programs."""
    programs = []
    for name, value in values.items():
        (tmp_path / name).mkdir()
        if value is not None:
            python(1, "restart_ranks.py", "save", str(value), cwd=tmp_path / name)
        programs.append(["-wdir", str(tmp_path / name), sys.executable, str(SCRIPTS / "restart_ranks.py"), "load"])
    return programs


@pytest.mark.parametrize("values, message", [
    ({"a": 5.0, "b": None}, "restart file 'r.npz' does not exist (on rank 1 of 2)"),
    ({"a": None, "b": 5.0}, "restart file 'r.npz' does not exist (on rank 0 of 2)"),
    ({"a": 5.0, "b": 7.0}, "restart file 'r.npz' differs between the MPI ranks: rank 1 read other content"),
])
def test_load_restart_that_fails_or_differs_on_one_rank_raises_on_every_rank_and_loads_nothing(tmp_path, values,
                                                                                               message):
    """Before, only the rank that met the failure raised (the other loaded: half the mesh restored for a program
    that catches RestartError), and different files under one path were loaded, ghosts mixing two states."""
    done = mpmd(*_restart_folders(tmp_path, values))
    assert done.returncode == 0, done.stderr[-4000:]
    lines = sorted(done.stdout.splitlines())
    assert [line.split(":")[0] for line in lines] == [f"rank {r} unchanged after RestartError" for r in (0, 1)]
    assert all(message in line for line in lines), lines


def test_load_restart_of_the_same_content_in_two_folders_loads_on_every_rank(tmp_path):
    done = mpmd(*_restart_folders(tmp_path, {"a": 5.0, "b": 5.0}))
    assert done.returncode == 0, done.stderr[-4000:]
    assert sorted(done.stdout.splitlines()) == [f"rank {r} loaded {{'q': 5.0}} q=[5.0]" for r in (0, 1)]


def test_hydro_to_global_gives_the_whole_mesh_on_every_rank_count():
    """Before, ``result.hydro.to_global(result.hydro.primitive("density"))`` (docs/hydro.md, getting_started.md)
    raised ValueError on several ranks: it took arrays of every block only. Now every rank gets the one-process
    array, bit for bit (``root=r``: rank r alone), and a wrong first axis is a ValueError on every rank."""
    (one,) = python(1, "hydro_to_global.py").stdout.splitlines()
    density, pressure = one.split(" ")[3], one.split(" ")[5]
    assert one.endswith("| to_global: the first axis has 0 entries; give one per block of the mesh (9, in global "
                        "id order)")
    for nranks in (2, 4):
        lines = sorted(python(nranks, "hydro_to_global.py").stdout.splitlines())
        assert [line.split(" ")[:4] for line in lines] == [["rank", f"{r}:", "density", density] for r in
                                                           range(nranks)]
        assert [line.split(" ")[5] for line in lines] == ["none"] * (nranks - 1) + [pressure]
        assert all(" | to_global: the first axis has 0 entries; give one per block of this rank (" in line and
                   line.endswith(", in mesh.blocks order, as primitive() returns) or one per block of the mesh (9, "
                                 "in global id order)") for line in lines)


DOCS = Path(__file__).parents[2] / "docs"


def doc_block(page: str, marker: str) -> str:
    """The Python block of ``docs/page`` that holds ``marker``."""
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S) if marker in b]
    return block


@pytest.mark.parametrize("page, marker, nranks", [
    ("getting_started.md", "sim.to_global(", 2),  # to_global raised ValueError on several ranks
    *[("mesh.md", "mesh.nblocks_global == 8", n) for n in (2, 4, 8)],  # up to one block per rank
])
def test_documented_examples_run_unchanged_on_several_ranks(tmp_path, page, marker, nranks):
    """docs/mpi.md: the same program runs on one process or many. getting_started.md's hydro run gives every rank
    the whole density (and writes no file); mesh.md's worked example asserted ``mesh.nblocks == 8``, which counts
    this rank's blocks only (4 under mpiexec -n 2), and used pack blocks of one process's layout."""
    (tmp_path / "example.py").write_text(doc_block(page, marker))
    (tmp_path / "examples").symlink_to(EXAMPLES)  # the docs name examples/sod.toml from the repository root
    done = mpirun(nranks, sys.executable, "example.py", cwd=tmp_path)
    assert done.returncode == 0, f"{page} on {nranks} ranks:\n{done.stdout}\n{done.stderr[-4000:]}"
    assert sorted(os.listdir(tmp_path)) == ["example.py", "examples"]


@pytest.mark.parametrize("nranks", [1, 2])
def test_gather_blocks_gives_a_copy_on_one_rank_as_on_several(nranks):
    """Before, one rank got the field's own array back, so a gathered snapshot changed with the run."""
    assert python(nranks, "gather_copy.py").stdout == "gathered [1.0]\n"


def test_gather_blocks_called_differently_on_the_ranks_is_an_error_on_every_rank():
    out = python(2, "gather_mismatch.py", timeout=60).stdout
    hint = ("; every rank calls mesh.gather_blocks with the same root and blocks of one shape and dtype (gathering is "
            "collective)")
    expected = {
        "root": "gather_blocks differs between the MPI ranks: root is 0 on rank 0 but 1 on rank 1" + hint,
        "range": "gather_blocks: root must be a rank of the mesh (0 to 1), got 2",
        "range on rank 1": "gather_blocks differs between the MPI ranks: root is 0 on rank 0 but 2 on rank 1" + hint,
        "shape": "gather_blocks differs between the MPI ranks: block shape is (1, 1, 1, 4) on rank 0 but (1, 1, 1, 5) "
                 "on rank 1" + hint,
        "dtype": "gather_blocks differs between the MPI ranks: dtype is 'float64' on rank 0 but 'float32' on rank 1"
                 + hint,
        "length": "gather_blocks differs between the MPI ranks: first axis is 'one entry per local block' on rank 0 "
                  "but '0 entries for 1 local blocks' on rank 1" + hint,
    }
    for rank in (0, 1):
        for case, message in expected.items():
            assert f"rank {rank} {case}: {message}\n" in out, out
    assert "gathered [1.0, 2.0]\n" in out  # a right call after them


def test_a_reduction_with_another_reducer_on_each_rank_is_an_error_on_every_rank():
    out = python(2, "reduce_mismatch.py", timeout=120).stdout
    for rank in (0, 1):
        for mine, theirs in (("Sum", "Max"), ("Min", "MinLoc")):
            assert (f"rank {rank}: la.outer_reduce differs between the MPI ranks: reducer is la.{mine}(float64) on "
                    f"rank 0 but la.{theirs}(float64) on rank 1; every rank runs the same reduction over the mesh (it "
                    f"is collective)\n") in out, out
        assert f"rank {rank} sum 512.0\n" in out  # 32 x 16 cells of 1.0, after the refusals


def test_the_demo_under_mpiexec_prints_once(tmp_path):
    """Before, every rank printed the demo's banner and last line."""
    done = mpirun(3, BRICKWORK, "demo", "mesh.nx=[32,32]", "mesh.block_nx=[16,16]", "time.tlim=0.02",
                  f'output.dir="{tmp_path}/o"', "output.progress=false")
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    assert len(lines) == 3, lines  # the banner, the run's summary, the snapshot
    assert lines[0].startswith("brickwork demo: Kelvin-Helmholtz instability, 32x32 cells in 16x16 blocks")
    assert lines[2].startswith(f"density snapshot: {tmp_path}/o/kelvin_helmholtz.00001.png")


def test_reductions_over_subsets_and_reordered_blocks_are_identical_on_every_rank_count():
    """Mesh data of the odd blocks, of the blocks in reverse order, and a pack over fewer blocks than the
    space: one process folds in global block order and names the global block, as several ranks do
    (before, one process gave the position in the list, and folded the reversed blocks backwards)."""
    outputs = [python(n, "reduce_block_order.py").stdout for n in (1, 2, 4)]
    lines = outputs[0].splitlines()
    assert len(lines) == 9
    assert "odd la.MinLoc(float64) (-5.0, (1, 0, 1, 1))" in lines  # gid 1, the first odd block
    assert "reversed la.MinLoc(float64) (-5.0, (0, 0, 1, 1))" in lines  # gid 0: the tie goes to the first
    assert "fewer la.MinLoc(float64) (-5.0, (1, 0, 1, 1))" in lines
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_any_error_of_rank_0s_writer_reaches_every_rank(tmp_path):
    """Before, only an OutputError was passed on: a UnicodeEncodeError from h5py on rank 0 left rank 1 waiting
    in a broadcast for ever (write_output and save_restart alike). Rank 0 raises its own error, the others an
    OutputError with its message."""
    done = python(2, "rank0_raises.py", str(tmp_path), timeout=120)
    reason = "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 3: surrogates not allowed"
    assert sorted(done.stdout.splitlines()) == sorted([
        f"rank 0: {reason}", f"rank 0: {reason}",
        f"rank 1: OutputError: rank 0 could not write the output: {reason}",
        f"rank 1: OutputError: rank 0 could not write the restart file: {reason}"])
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(("nranks", "failing"), [(2, 0), (2, 1), (3, 2)])
def test_a_rank_that_cannot_make_its_blocks_is_an_error_on_every_rank_not_a_hang(tmp_path, nranks, failing):
    """A field's host copy raising on one rank (the second field: the first was sent) in save_restart and
    write_output: every rank learns it before that field's blocks are sent. Before, the other ranks waited in a
    send or a receive for ever. Every rank raises an OutputError (rank 0's names the failing rank, the others
    are rank 0's report), the failing rank's caused by its own error; nothing is written."""
    done = python(nranks, "part_raises.py", str(tmp_path), str(failing), timeout=120)
    cause = f"rank {failing} could not make its blocks: MemoryError: no memory for the host copy"
    expected = []
    for rank in range(nranks):
        by = " (caused by MemoryError)" if rank == failing else ""
        for what in ("restart file", "output"):
            told = cause if rank == 0 else f"rank 0 could not write the {what}: {cause}"
            expected.append(f"rank {rank}: OutputError: {told}{by}")
    assert sorted(done.stdout.splitlines()) == sorted(expected)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(("nranks", "failing", "kind"), [(2, 1, "memory"), (3, 0, "memory"), (2, 1, "config")])
def test_the_hydro_drivers_agreement_passes_on_any_exception(nranks, failing, kind):
    """The hydro driver's ``agree`` (around its start, restart load included, and its outputs): a MemoryError on
    one rank is a SimulationError naming it on every rank (that rank's caused by its MemoryError); before, only
    brickwork's errors were passed on and the other ranks waited for ever. A brickwork error keeps its type."""
    done = python(nranks, "agree_raises.py", str(failing), kind, timeout=120)
    if kind == "memory":
        told = f"SimulationError: MemoryError: no memory for the restart's blocks (on rank {failing} of {nranks})"
        expected = [f"rank {r}: {told}" + (" (caused by MemoryError)" if r == failing else "") for r in range(nranks)]
    else:
        expected = [f"rank {r}: ConfigError: bad key (on rank {failing} of {nranks})" for r in range(nranks)]
    assert done.stdout.splitlines() == expected


@pytest.mark.parametrize("when", ["io", "memory", "fill"])
def test_a_rank_that_cannot_read_its_blocks_is_an_error_on_every_rank(tmp_path, when):
    """load_restart on 2 ranks, reading a block failing on rank 1: an I/O error or a MemoryError while the blocks
    are checked (before, rank 0 waited for rank 1 in the ranks' agreement for ever: only a RestartError was
    passed on), or a RestartError while they are read into the fields (the file changed in place; before, rank 0
    returned, loaded, and went on alone). Every rank raises a RestartError naming rank 1 (there caused by its own
    error); nothing changes while checking, and a failed fill says the fields are partly loaded."""
    done = python(2, "load_raises.py", str(tmp_path / "r.npz"), "1", when, timeout=120)
    path = str(tmp_path / "r.npz")
    if when == "io":
        cause = f"RestartError: restart file {path!r} cannot be read: input/output error"
        expected = [f"rank {r}: {cause} (on rank 1 of 2) (fields unchanged: True)" for r in (0, 1)]
    elif when == "memory":
        cause = "RestartError: MemoryError: no memory for the block (on rank 1 of 2)"
        expected = [f"rank 0: {cause} (fields unchanged: True)",
                    f"rank 1: {cause} (caused by MemoryError) (fields unchanged: True)"]
    else:
        cause = (f"RestartError: restart file {path!r} is corrupt: block 2 of its array 'q' does not match its "
                 f"checksum (on rank 1 of 2, while reading the blocks into the fields: the mesh's fields are partly "
                 f"loaded)")
        expected = [f"rank 0: {cause} (fields unchanged: False)", f"rank 1: {cause} (fields unchanged: True)"]
    assert done.stdout.splitlines() == expected


def test_debug_mode_refuses_ranks_filling_the_ghosts_of_other_fields():
    """In release mode rank 0's fill_ghosts("a") and rank 1's fill_ghosts("b") (fields of one shape) swapped
    the fields' data silently; debug mode compares the fields first: a ValueError on both ranks, no ghost
    changed."""
    out = python(2, "fill_mismatch.py").stdout
    for rank in (0, 1):
        assert f"rank {rank}: fill_ghosts differs between the MPI ranks: fields is ['a'] on rank 0 but ['b'] on " \
               f"rank 1" in out and out.count("unchanged True") == 2
    # a name only rank 1 refuses: its KeyError, an error on rank 0 too
    assert "rank 1: KeyError: \"unknown field 'c' (mesh fields: a, b)\"\n" in out, out
    assert "rank 0: OtherRankError: fill_ghosts failed: KeyError: \"unknown field 'c' (mesh fields: a, b)\" (on rank 1 of " \
           "2)\n" in out, out


# -- restart files read a block at a time -----------------------------------------------------------------------------
def _own_reads(done) -> dict:
    """``{rank: (own blocks, bytes read, bytes of its blocks, bytes of every block)}`` from restart_blocks.py load."""
    found = re.findall(r"rank (\d+) read own blocks \[([\d, ]+)\] \((\S+)\): (\d+) bytes; blocks of (\d+) bytes of (\d+)",
                       done.stdout)
    return {int(r): ([int(g) for g in gids.split(", ")], fmt, int(read), int(own), int(whole))
            for r, gids, fmt, read, own, whole in found}


@pytest.mark.parametrize("saved", [1, 2, 4])
def test_a_restart_round_trip_is_bit_for_bit_on_every_rank_count(tmp_path, saved):
    """Saved on 1, 2 or 4 ranks (rank 0 receiving the blocks a run at a time), loaded on 1, 2 and 4: every
    block of every field (ghosts, a face field, a node field, a sparse instance and its allocation) comes back
    bit for bit (checked by the script), each rank reading its own blocks and nothing else of them; the
    file's content does not depend on the number of ranks that wrote it."""
    path = tmp_path / f"s{saved}.npz"
    python(saved, "restart_blocks.py", "save", str(path))
    for nranks in (1, 2, 4):
        reads = _own_reads(python(nranks, "restart_blocks.py", "load", str(path)))
        assert sorted(reads) == list(range(nranks))
        assert sorted(g for own, *_ in reads.values() for g in own) == list(range(16))
        assert {fmt for _, fmt, *_ in reads.values()} == {"brickwork-restart-3"}
    one = tmp_path / "s1.npz"
    if saved != 1:
        python(1, "restart_blocks.py", "save", str(one))
    with np.load(path) as a, np.load(one) as b:
        assert sorted(a.files) == sorted(b.files) == ["__digests__", "__meta__", "allocated:sp_3", "f", "n", "q",
                                                      "sp_3"]
        for name in a.files:
            np.testing.assert_array_equal(a[name], b[name])


def test_each_rank_reads_only_its_own_blocks(tmp_path):
    """On 4 ranks each reads the metadata, the table of digests and its own 4 blocks of the 16 (twice: once to
    check them before anything changes, once into the fields): counted by the process's read calls
    (/proc/self/io), not by what the code says it did."""
    path = tmp_path / "s.npz"
    python(2, "restart_blocks.py", "save", str(path))
    reads = _own_reads(python(4, "restart_blocks.py", "load", str(path)))
    size = path.stat().st_size
    for rank, (own, fmt, read, own_bytes, whole) in reads.items():
        assert len(own) == 4 and own_bytes * 4 == whole
        assert 2 * own_bytes <= read <= 2 * own_bytes + 64 * 1024, (rank, read, own_bytes)
        assert read < 0.6 * size


def test_a_restart_of_the_second_format_loads_on_any_rank_count(tmp_path):
    """A file as save_restart wrote it before (one checksum over the whole file): each rank streams through the
    whole file to check it, then reads its own blocks."""
    path = tmp_path / "old.npz"
    python(1, "restart_blocks.py", "old", str(path))
    for nranks in (1, 2, 4):
        reads = _own_reads(python(nranks, "restart_blocks.py", "load", str(path)))
        assert sorted(reads) == list(range(nranks))
        assert {fmt for _, fmt, *_ in reads.values()} == {"brickwork-restart-2"}


def _owner_of_each_block(nranks: int) -> list:
    """The rank of each of restart_blocks.py's 16 blocks (4 x 4) on ``nranks`` ranks, as the mesh assigns them."""
    from brickwork.mesh.decomposition import assign_ranks

    return assign_ranks([(lx1, lx2, 0) for lx2 in range(4) for lx1 in range(4)], nranks)


def _refusals(done) -> list:
    lines = sorted(done.stdout.splitlines())
    assert [line.split(":")[0] for line in lines] == [f"rank {r} unchanged after RestartError" for r in range(4)], lines
    return [line.split(": ", 1)[1] for line in lines]


def test_a_block_corrupted_on_one_rank_is_a_restart_error_on_every_rank_and_nothing_changes(tmp_path):
    """A byte flipped in a block that rank 2 alone reads: rank 2 finds its digest wrong, and every rank raises
    (naming rank 2) before anything changes."""
    from brickwork.io import block_restart, restart

    path = tmp_path / "s.npz"
    python(4, "restart_blocks.py", "save", str(path))
    gid = _owner_of_each_block(4).index(2) + 1  # the second block of rank 2
    with block_restart.BlockFile(str(path)) as source:
        dtype, shape = source.arrays["n"]
        at = restart.members(source._f, str(path))["n"].offset + gid * dtype.itemsize * int(np.prod(shape[1:])) + 17
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0x10
    path.write_bytes(bytes(raw))
    messages = _refusals(python(4, "restart_blocks.py", "refuse", str(path)))
    want = f"restart file {str(path)!r} is corrupt: block {gid} of its array 'n' does not match its checksum (on rank 2 " \
           f"of 4)"
    assert messages == [want] * 4


@pytest.mark.parametrize("keep", [0.5, 0.999])
def test_a_truncated_restart_is_a_restart_error_on_every_rank_and_nothing_changes(tmp_path, keep):
    path = tmp_path / "s.npz"
    python(4, "restart_blocks.py", "save", str(path))
    raw = path.read_bytes()
    path.write_bytes(raw[:int(len(raw) * keep)])
    messages = _refusals(python(4, "restart_blocks.py", "refuse", str(path)))
    assert len(set(messages)) == 1
    assert messages[0].startswith(f"restart file {str(path)!r} is corrupt or not a brickwork restart file: ")
    assert "(on rank" not in messages[0]  # every rank found it


def test_no_rank_holds_the_whole_mesh_to_save_write_or_load(tmp_path):
    """The peak of what Python and numpy allocate during save_restart, write_output and load_restart on 4 ranks,
    against the bytes of the whole mesh's fields: before, rank 0 gathered every field (more than the whole mesh
    to save and to write), and every rank read the whole file to load."""
    done = python(4, "restart_blocks.py", "memory", str(tmp_path / "m.npz"))
    found = re.findall(r"rank (\d) peaks save (\d+) write_output (\d+) load (\d+) of fields of (\d+) bytes", done.stdout)
    assert sorted(int(r) for r, *_ in found) == [0, 1, 2, 3]
    for rank, *peaks, whole in found:
        assert all(int(p) < 0.35 * int(whole) for p in peaks), (rank, peaks, whole)
