"""Test-session setup: one kernel cache shared by every test (and every xdist worker), IR verified, and
one temporary folder for the session (``BRICKWORK_TEST_TMP``: tests may make folders in it) that
is removed when the session ends."""

import gc
import os
import shutil
import sys
import tempfile

import pytest

# Set before brickwork is imported anywhere: config reads the environment once. xdist's workers inherit
# the controller's environment, so they share its folder and cache.
_OWNED = None  # the session folder this process made (the controller's, or the only process's)
if "BRICKWORK_TEST_TMP" not in os.environ:
    _OWNED = os.environ["BRICKWORK_TEST_TMP"] = tempfile.mkdtemp(prefix="brickwork-tests-")
if "BRICKWORK_CACHE_DIR" not in os.environ:
    os.environ["BRICKWORK_CACHE_DIR"] = os.path.join(os.environ["BRICKWORK_TEST_TMP"], "cache")
# Every instance the suite compiles has its IR verified after typing and after its passes.
os.environ.setdefault("BRICKWORK_VERIFY_IR", "1")
# Launches run on the threads they ask for whatever the machine's load (runtime/starvation.py would run them on
# one thread on a busy machine), so that the parallel paths are tested there too; tests/runtime/test_starvation.py
# turns the guard on where it tests it.
os.environ.setdefault("BRICKWORK_ADAPTIVE_THREADS", "0")
# No "brickwork: compiling ..." lines (jit/notice.py) on a loaded machine's slow compiles: tests read stderr, and the
# subprocesses they start inherit this; tests/jit/test_compile_notice.py turns them on where it tests them.
os.environ.setdefault("BRICKWORK_QUIET", "1")
# The MPI tests start up to 4 ranks beside the other xdist worker on a 2-core machine: MPICH's ranks waiting for a
# message poll and call sched_yield, so a waiting rank kept its core busy while the rank it waited for queued for
# one. With heavy yield (nanosleep) a waiting rank gives its core away: tests/mpi took 171-174 s of CPU instead of
# 192-209 s (user+sys with the ranks, warm cache, load 17-19), the Poisson solve on 4 ranks 4.5-6.7 s instead of
# 10-17 s. Messages and results are the same; subprocesses inherit the setting.
os.environ.setdefault("MPIR_CVAR_ENABLE_HEAVY_YIELD", "1")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))


def pytest_unconfigure(config):
    # the controller ends after its workers: nothing of the session is left in the temporary directory
    if _OWNED is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(_OWNED, ignore_errors=True)


def pytest_collection_finish(session):
    # The collected suite (every test module, its kernels and parameters: about 600k objects) lives until the
    # end; frozen, it is no longer traversed by each full collection, which cost a worker about a second per
    # gc.collect() of a test (and per automatic full collection) on a quiet machine, and more as its heap grew.
    # Objects made by the tests themselves are collected as before.
    gc.collect()
    gc.freeze()


def pytest_sessionstart(session):
    # every cuda-emulation instance is noted from the start: a test marked compiles_for_cuda may launch one
    # that an earlier test of its worker built (gpu_compile.recording)
    import gpu_compile

    gpu_compile.track()
    _forward_cpu_companions_only()


def _forward_cpu_companions_only():
    # A first launch builds its module's other kernels (lang/companions.py). The suite keeps that for forward
    # instances on the CPU, where a test file launches most of its kernels, but not for the emulation target
    # (a test runs one or two of its file's kernels there) nor for adjoints (a forward launch is rarely
    # differentiated): in tests/frontend, types and lang, 29 of 42 emulation companions and all 39 adjoint
    # companions were never launched, a fifth of those directories' CPU time (g++). The ``every_companion``
    # fixture gives a test brickwork's own rule (tests/jit/test_module_build.py covers both forms).
    from brickwork.lang import companions as module

    everything = module.companions

    def companions(inst) -> list:
        if inst.target == "cuda-emulation" or inst.variant == "adjoint":
            return []
        return everything(inst)

    companions.everything = everything
    module.companions = companions


@pytest.fixture
def every_companion(monkeypatch):
    """brickwork's own companion rule (also the emulation target's and adjoints' companions) for one test."""
    from brickwork.lang import companions as module

    monkeypatch.setattr(module, "companions", getattr(module.companions, "everything", module.companions))


@pytest.fixture(autouse=True)
def _own_loop_bodies():
    """Each test starts with an empty table of loop-body kernels by code: a closure of the same code as one an
    earlier test made would share that kernel's instances (``BodyKernel.twin``), already built, expected or shaped
    by that test's settings (a cache directory, ``gpu_shared_limit``), and tests that look at what their own launch
    builds would see the earlier test's. Sharing within a test is covered by tests/lang/test_loop_body_closures.py."""
    from brickwork.lang import body  # here, not at the top: brickwork is imported after the environment is set

    body._BODIES.clear()
    yield


@pytest.fixture(autouse=True)
def _compiles_for_cuda(request):
    """Tests marked ``compiles_for_cuda``: their GPU-mapped instances also compile for CUDA (gpu_compile.py)."""
    marker = request.node.get_closest_marker("compiles_for_cuda")
    if marker is None:
        yield
        return
    import gpu_compile  # here, not at the top: brickwork must not be imported before the environment is set

    if not gpu_compile.available():
        yield
        return
    with gpu_compile.recording() as used:
        yield
    texts = gpu_compile.compile_for_cuda(used)
    check = marker.kwargs.get("check")
    if check is not None:
        check(texts)
