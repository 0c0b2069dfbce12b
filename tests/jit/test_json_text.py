"""jit/json_text.py: the warm path's JSON reader (the C scanner without the json package) and the seal
that ties meta.json's text to its digest."""

import hashlib
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brickwork.jit import json_text

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20)


@given(_VALUES, st.sampled_from([None, 1, 2]), st.booleans())
def test_loads_reads_what_json_writes(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert json_text.loads(text) == value
    assert json_text.loads(f" \n{text}\t\r\n".encode()) == value


def test_loads_reads_the_constants_json_writes():
    got = json_text.loads(json.dumps([math.inf, -math.inf, math.nan]))
    assert got[:2] == [math.inf, -math.inf] and math.isnan(got[2])


@pytest.mark.parametrize("text", ["", "   ", "{", '{"a": 1', '{"a": 1} x', "[1, 2] [3]", "nul", '"\x01"',
                                  b"\xff\xfe"])
def test_malformed_text_raises_value_error_as_json_does(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        json_text.loads(text)


def _unsealed(**fields):
    return json.dumps(dict(fields, digest=json_text.UNSEALED), indent=1)


def test_a_sealed_text_holds_the_digest_of_its_unsealed_bytes():
    text = _unsealed(key="k", writes=[0, 1])
    sealed = json_text.seal(text, "digest")
    digest = json.loads(sealed)["digest"]
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    assert json_text.sealed_digest(sealed.encode(), "digest", digest)


@pytest.mark.parametrize("change", [
    lambda s: s.replace('"k"', '"j"'),  # a field's value
    lambda s: s.replace("\n", "\n "),  # the layout alone
    lambda s: json.dumps(json.loads(s)),  # the same fields, written again
    lambda s: s + "\n",
])
def test_any_change_to_a_sealed_text_breaks_its_seal(change):
    sealed = json_text.seal(_unsealed(key="k", n=3), "digest")
    digest = json.loads(sealed)["digest"]
    assert not json_text.sealed_digest(change(sealed).encode(), "digest", digest)


def test_a_seal_needs_its_field_once_and_a_digest_of_64_digits():
    with pytest.raises(ValueError, match="exactly once"):
        json_text.seal(json.dumps({"key": "k"}), "digest")
    sealed = json_text.seal(_unsealed(key="k"), "digest")
    assert not json_text.sealed_digest(sealed.encode(), "digest", "abc")
    doubled = sealed.replace('"key"', f'"x": "{json.loads(sealed)["digest"]}", "key"').replace('"x"', '"digest"')
    assert not json_text.sealed_digest(doubled.encode(), "digest", json.loads(sealed)["digest"])
