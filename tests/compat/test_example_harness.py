"""compat/run_examples.py: the digest of an example's final arrays and its comparison with Warp's."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as bw

COMPAT = Path(__file__).resolve().parents[2] / "compat"


def load(name):
    sys.path.insert(0, str(COMPAT))
    try:
        spec = importlib.util.spec_from_file_location(name, COMPAT / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(COMPAT))


run_example = load("run_example")
run_examples = load("run_examples")


def test_digest_is_norm_and_sum_of_the_finite_values():
    values = np.array([[3.0, -4.0], [np.inf, 12.0]], dtype=np.float32)
    entry = run_example.digest(bw.array(values, dtype=bw.float32))
    assert entry == {"shape": [2, 2], "norm": 13.0, "sum": 11.0, "nonfinite": 1}


def test_digest_of_vectors_keeps_their_components():
    entry = run_example.digest(bw.array([[1.0, 2.0, 2.0]], dtype=bw.vec3))
    assert entry["shape"] == [1, 3] and entry["norm"] == 3.0 and entry["sum"] == 5.0


def reference(norm, total, shape=(4,)):
    return {"arrays": {"x": {"shape": list(shape), "norm": norm, "sum": total, "nonfinite": 0}}}


def test_compare_scales_the_sum_by_the_largest_sum_the_norm_allows():
    # |sum| <= sqrt(4) * norm = 20: a difference of 1e-3 in the sum is 2.5e-5 of that
    agrees, detail = run_examples.compare(reference(10.0, 0.001), reference(10.0, 0.0), rtol=1e-4)
    assert agrees and "5.0e-05" in detail and "x.sum" in detail
    agrees, detail = run_examples.compare(reference(10.0, 0.01), reference(10.0, 0.0), rtol=1e-4)
    assert not agrees and "5.0e-04" in detail


@pytest.mark.parametrize(("got", "why"), [
    ({"arrays": {}}, "no array 'x'"),
    (reference(10.0, 0.0, shape=(2, 2)), "shape [2, 2], Warp's [4]"),
])
def test_compare_names_a_missing_or_reshaped_array(got, why):
    agrees, detail = run_examples.compare(got, reference(10.0, 0.0), rtol=1e-4)
    assert not agrees and why in detail


def test_compare_skips_ignored_arrays_and_reports_examples_without_arrays():
    agrees, _ = run_examples.compare(reference(99.0, 0.0), reference(10.0, 0.0), rtol=1e-4, ignore=("x",))
    assert agrees
    agrees, detail = run_examples.compare({"arrays": {}}, {"arrays": {}}, rtol=1e-4)
    assert agrees and "no final arrays" in detail


def test_every_example_is_run_or_left_out_with_a_reason():
    cases = load("example_cases")
    assert not set(cases.RUN) & set(cases.OUT_OF_SCOPE)
    assert all(isinstance(why, str) and why for why in cases.OUT_OF_SCOPE.values())
    assert all(math.isfinite(case.get("rtol", cases.DEFAULT_RTOL)) for case in cases.RUN.values())


def test_line_recorder_keeps_whole_matching_lines_and_passes_everything_through():
    import io

    sink = io.StringIO()
    recorder = run_example.LineRecorder(sink, "^envelope")
    for part in ("envelope: 6 ver", "tices\nother line\n", "envelope AABB: min 0\nenvelope tail"):
        recorder.write(part)
    assert recorder.lines == ["envelope: 6 vertices", "envelope AABB: min 0"]
    assert sink.getvalue() == "envelope: 6 vertices\nother line\nenvelope AABB: min 0\nenvelope tail"


def test_compare_requires_the_printed_lines_to_be_warps():
    warp_run = {"arrays": {}, "lines": ["envelope: 644 vertices"]}
    agrees, detail = run_examples.compare({"arrays": {}, "lines": ["envelope: 644 vertices"]}, warp_run, rtol=1e-4)
    assert agrees and "1 lines" in detail
    agrees, detail = run_examples.compare({"arrays": {}, "lines": ["envelope: 640 vertices"]}, warp_run, rtol=1e-4)
    assert not agrees and "640" in detail and "644" in detail


def test_an_example_whose_module_is_missing_is_skipped_with_the_package_named(monkeypatch):
    monkeypatch.setitem(run_examples.RUN, "core.example_probe", {"needs": "no_such_module_here"})
    monkeypatch.setitem(run_examples.NEEDS, "no_such_module_here", "the-package (why)")
    row = run_examples.check("core.example_probe", Path("."), {}, 1.0, None)
    assert row == {"example": "core.example_probe", "outcome": "skipped",
                   "detail": "needs no_such_module_here, from the-package (why)"}
