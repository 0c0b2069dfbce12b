"""The kernel cache's same-source index (``by-source/<digest>``) cannot make a kernel run another kernel's code: an
index that names an intact entry built from another source is a miss (attacker probe: with the index of kernel kmul's
source rewritten to name kadd's entry, and kmul's own entry gone, the next launch of kmul copied kadd's library and
multiplied nothing: 2.0 * 10 gave 3.0, and the poisoned entry stayed in the cache)."""

import hashlib

from brickwork.jit import cache, same_source
from brickwork.jit import compile as jit
from jit.conftest import new_process, quick_build, root  # noqa: F401 - fixtures

ANSWER_42 = 'extern "C" int bw_test_answer() { return 42; }\n'
ANSWER_7 = 'extern "C" int bw_test_answer() { return 7; }\n'


def _key(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:40]


def test_an_index_naming_an_entry_of_another_source_is_a_miss(quick_build, root):  # noqa: F811 - fixtures
    other = _key("the entry of another source")
    _, other_meta = quick_build(other, ANSWER_42)
    index = root / "by-source" / same_source.digest(jit.settings().identity(), ANSWER_7)
    index.write_text(other)  # planted: the source of ANSWER_7 "was built" as the entry of ANSWER_42
    new_process()
    key = _key("the entry being built")
    before = jit.compiler_calls
    path, meta = quick_build(key, ANSWER_7)
    assert jit.compiler_calls == before + 1 and "same_source_as" not in meta
    assert meta["sha256"] != other_meta["sha256"]  # a library of its own, compiled from its source
    assert (root / key[:2] / key / cache.SOURCE).read_text() == ANSWER_7
    assert index.read_text() == key  # the index now names the entry just built
    assert cache.lookup(other)[1] == other_meta  # the other entry is left as it was


def test_an_index_naming_an_entry_of_the_same_source_is_still_used(quick_build, root):  # noqa: F811 - fixtures
    first = _key("first")
    quick_build(first, ANSWER_7)
    new_process()
    before = jit.compiler_calls
    _, meta = quick_build(_key("second"), ANSWER_7)
    assert jit.compiler_calls == before and meta["same_source_as"] == first
