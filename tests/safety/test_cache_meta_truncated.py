"""A truncated meta.json (a build killed while writing it, a full disk) is a damaged entry, rebuilt, in a fresh process
too (attacker round 16, lead 1): the warm path reads it with CPython's C JSON scanner, which raises its errors through
json.decoder, looked up in sys.modules and not imported; before anything imported json, every truncation but the empty
file failed the launch with "SystemError: <_json.Scanner object> returned NULL without setting an exception". The
in-process tests of damaged entries never saw it: pytest has imported json."""

from __future__ import annotations

import json
import subprocess
import sys

CHECK = r"""
import sys
from brickwork.jit import json_text, store
assert "json.decoder" not in sys.modules, "brickwork's import brought json in: the case is not tested"
text = sys.argv[1]
results = []
for n in range(len(text)):
    for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:  # as in a fresh process
        del sys.modules[name]
    try:
        json_text.loads(text[:n])
        results.append("parsed")
    except ValueError as e:
        results.append(type(e).__name__)
    except Exception as e:
        results.append("BUG " + type(e).__name__ + ": " + str(e))
for name in [m for m in sys.modules if m == "json" or m.startswith("json.")]:
    del sys.modules[name]
results.append(repr(store.parse_meta(text[:len(text) // 2].encode(), "k")))
print("\n".join(results))
"""


def test_every_truncation_of_a_meta_json_is_a_decode_error_in_a_fresh_process():
    meta = json.dumps({"tid_dims": 1, "writes": [0], "mode": "release", "key": "k", "entry": ["scale_k", 2.5]},
                      indent=1)
    lines = subprocess.run([sys.executable, "-c", CHECK, meta], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert lines[:-1] == ["JSONDecodeError"] * len(meta), [line for line in lines if line != "JSONDecodeError"]
    assert lines[-1] == "None"  # a damaged entry: the launch rebuilds it


def test_a_full_disk_while_meta_json_is_written_names_the_cache(monkeypatch, tmp_path):
    """The write of meta.json goes through a file descriptor, so its ENOSPC named no file: 'cannot compile scale_k:
    no space left on device; free some space, ...' (a 24 KiB tmpfs as the cache). It names the cache now."""
    import errno

    from brickwork import config
    from brickwork.jit import cache

    monkeypatch.setattr(config, "kernel_cache_dir", str(tmp_path))
    error = cache.environment_error(OSError(errno.ENOSPC, "No space left on device"), "compile scale_k")
    assert str(error) == (f"cannot compile scale_k: no space left on device (writing in the kernel cache {tmp_path}); "
                          f"free some space, or set BRICKWORK_CACHE_DIR (and TMPDIR) to another file system")
    named = cache.environment_error(OSError(errno.EROFS, "Read-only file system", "/x/y"), "compile k")
    assert str(named) == ("cannot compile k: read-only file system (/x/y); set BRICKWORK_CACHE_DIR (and TMPDIR) to a "
                          "directory you can write")
