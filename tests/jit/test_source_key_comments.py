"""A function's source text, and so its cache key, ends with its body: the comments and blank lines between it
and the next definition are not part of it (editing a comment below a ``@wp.func`` recompiled every kernel that
calls it). Comments inside the body still are."""

import importlib.util
import os

from brickwork.frontend.source import FunctionSource

MODULE = '''import math


def scaled(x):
    # the factor
    return x * FACTOR
BELOW

def offset(x):
    return x + 1.0
'''


def _load(path, text):
    path.write_text(text)
    stat = path.stat()  # a new modification time even on a coarse clock: linecache compares size and time
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    spec = importlib.util.spec_from_file_location("bw_source_key_comments", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_comments_after_a_body_are_not_part_of_its_text(tmp_path):
    path = tmp_path / "bw_source_key_comments.py"
    text = MODULE.replace("FACTOR", "2.0")
    first = FunctionSource(_load(path, text.replace("BELOW", "# about offset: adds one\n")).scaled)
    assert first.text == "def scaled(x):\n    # the factor\n    return x * 2.0\n"
    edited = FunctionSource(_load(path, text.replace("BELOW", "    # indented, edited\n\n# and more\n")).scaled)
    assert edited.text == first.text and edited.digest == first.digest
    assert FunctionSource(_load(path, text.replace("BELOW", "")).offset).text == "def offset(x):\n    return x + 1.0\n"
    # the body's own comment and its code stay in the key
    inside = FunctionSource(_load(path, text.replace("the factor", "a factor").replace("BELOW", "")).scaled)
    changed = FunctionSource(_load(path, MODULE.replace("FACTOR", "3.0").replace("BELOW", "")).scaled)
    assert len({first.digest, inside.digest, changed.digest}) == 3
