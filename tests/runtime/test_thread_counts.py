"""Thread counts far above the machine's (``BRICKWORK_NUM_THREADS``, ``OMP_NUM_THREADS``, ``config.num_threads``)
are clamped to ``config.MAX_THREADS``: OpenMP runtimes crash or stop the process when asked for tens of
thousands of threads, and a count beyond 2**31 does not fit the launch's packed 32-bit field."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

#: A script: the counts config settled on, then a launch large enough to run on several threads.
PROBE = """
import json
import numpy as np
import brickwork as wp
from brickwork import config
@wp.kernel
def k(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(2.0) + wp.float64(1.0)
a = np.arange(100000, dtype=np.float64)
wp.launch(k, dim=100000, inputs=[a])
print(json.dumps({"num": config.num_threads, "default": config.default_threads, "max": config.MAX_THREADS,
                  "ok": bool((a == np.arange(100000) * 2.0 + 1.0).all())}))
"""


def _probe(tmp_path, **env):
    script = tmp_path / "probe.py"  # a file: kernels need their source
    script.write_text(PROBE)
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "BRICKWORK_NUM_THREADS")}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=dict(clean, PYTHONPATH=SRC, **env), timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_bound_is_four_threads_per_core_and_at_least_64():
    assert config.MAX_THREADS == max(4 * (os.cpu_count() or 1), 64)


@pytest.mark.parametrize("value", ["100000", "2147483647"])
def test_a_huge_brickwork_num_threads_is_clamped(tmp_path, value):
    result = _probe(tmp_path, BRICKWORK_NUM_THREADS=value)
    assert result["num"] == result["max"] == config.MAX_THREADS
    assert result["ok"]


@pytest.mark.parametrize("value", ["100000", "2147483648", "99999999999999999999", "9" * 5000 + ",2"])
def test_a_huge_omp_num_threads_is_clamped(tmp_path, value):
    result = _probe(tmp_path, OMP_NUM_THREADS=value)
    assert result["num"] is None
    assert result["default"] == config.MAX_THREADS
    assert result["ok"]


@pytest.mark.parametrize(("value", "count"), [("3", 3), ("4,2", 4), (" 5 ", 5), ("007", 7), ("0", None),
                                               ("²", None), ("-4", None), ("x", None), ("", None),
                                               ("0" * 200 + "6", 6), ("100000", config.MAX_THREADS)])
def test_omp_num_threads_is_read_as_openmp_reads_it(monkeypatch, value, count):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert config._omp_num_threads() == count


def test_info_shows_the_clamped_count(tmp_path):
    clean = {k: v for k, v in os.environ.items() if k != "BRICKWORK_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", "from brickwork.cli import main; raise SystemExit(main(['info']))"],
                         capture_output=True, text=True, timeout=300,
                         env=dict(clean, PYTHONPATH=SRC, OMP_NUM_THREADS="2147483648"))
    assert out.returncode == 0, out.stderr
    assert f"threads:    {config.MAX_THREADS}" in out.stdout.splitlines()


@wp.kernel
def _twice_plus_one(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(2.0) + wp.float64(1.0)


@pytest.mark.parametrize("count", [100000, 2**31, 2**40])
@pytest.mark.parametrize("threshold", [1, 10**9])  # parallel launches, and serial ones (whose count is unused)
def test_a_huge_count_assigned_at_run_time_is_clamped_at_the_launch(count, threshold):
    a = np.arange(1000, dtype=np.float64)
    with config.override(num_threads=count, parallel_threshold=threshold):
        wp.launch(_twice_plus_one, dim=1000, inputs=[a])
    np.testing.assert_array_equal(a, np.arange(1000) * 2.0 + 1.0)


@pytest.mark.parametrize("count", [2.5, "4", True, -2, np.int64(-1)])
def test_a_thread_count_assigned_at_run_time_that_is_no_integer_is_a_setting_error(count):
    """Before, 2.5 reached the packed launch (a raw struct.error), "4" a comparison (a raw TypeError), and -2
    ran serially without a word."""
    a = np.zeros(100000, dtype=np.float64)
    with config.override(num_threads=count, parallel_threshold=1):
        with pytest.raises(config.SettingError, match="num_threads must be a positive integer"):
            wp.launch(_twice_plus_one, dim=a.size, inputs=[a])
    assert not a.any()
    with config.override(num_threads=np.int64(2), parallel_threshold=1):  # a numpy integer is a whole number
        wp.launch(_twice_plus_one, dim=a.size, inputs=[a])
    assert (a == 1.0).all()
