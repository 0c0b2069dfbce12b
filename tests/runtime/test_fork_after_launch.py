"""A process forked after a parallel launch (its OpenMP pool running) runs its launches on one thread: the
pool's threads do not exist in the child, and GNU OpenMP's first parallel region there waited for them for
ever (the child hung). A child forked before any thread started keeps its thread count."""

import json
import os
import subprocess
import sys

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

SCRIPT = """
import json, os, sys
import numpy as np
import brickwork as wp
from brickwork import config

@wp.kernel
def twice(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(2.0)

def run(n):
    a = wp.array(np.arange(n, dtype=np.float64))
    wp.launch(twice, dim=n, inputs=[a])
    return bool((a.numpy() == np.arange(n) * 2.0).all())

before = config.MAX_THREADS
if sys.argv[1] == "after":
    run(1 << 20)  # parallel: the pool's threads start
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    os.write(write, json.dumps({"ok": run(1 << 20), "max": config.MAX_THREADS}).encode())
    os._exit(0)
os.close(write)
child = json.loads(os.read(read, 1000))
os.waitpid(pid, 0)
print(json.dumps(dict(child, parent_max=config.MAX_THREADS, before=before, parent_ok=run(1 << 20))))
"""


def _forked(tmp_path, when: str) -> dict:
    script = tmp_path / "fork_probe.py"  # a file: kernels need their source
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=SRC, OMP_NUM_THREADS="2")
    out = subprocess.run([sys.executable, str(script), when], capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_a_child_forked_after_a_parallel_launch_runs_its_launches_on_one_thread(tmp_path):
    found = _forked(tmp_path, "after")
    assert found["ok"] and found["max"] == 1
    assert found["parent_ok"] and found["parent_max"] == found["before"] > 1  # the parent keeps its threads


def test_a_child_forked_before_any_thread_started_keeps_its_threads(tmp_path):
    found = _forked(tmp_path, "before")
    assert found["ok"] and found["max"] == found["before"] > 1
