"""Small CUDA instances built together share NVRTC runs, as the CPU's share g++ runs (jit/batch.py):
one cubin holds each unit's kernel under its own name, which the entry's metadata records."""

import sys
import uuid
from pathlib import Path

import pytest

from brickwork import config, pipeline
from brickwork.errors import ToolchainError
from brickwork.jit import nvrtc
from brickwork.lang.body import body_kernel
from brickwork.targets.cuda import CudaTarget, build
from brickwork.targets.cuda.loader import CudaEntry
from brickwork.targets.cuda.resources import parse_report
from brickwork.types.generic import type_of_value

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent, HERE.parent / "passes"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
import cuda_corpus  # noqa: E402
import test_gpu_mapping_golden as mapping  # noqa: E402

from gpu_compile import cubin_arch  # noqa: E402
from runtime.cuda_fake import FakeDriver  # noqa: E402

TARGET = CudaTarget("sm_90")
NAMES = ("arithmetic[float32]", "integer_ops[int32]", "launch_2d", "launch_3d", "structs", "control_flow")


def _fresh_jobs() -> list:
    """Jobs of corpus instances under new keys, each source made unique (nothing in the cache yet)."""
    run = uuid.uuid4().hex
    jobs = []
    for name, k, types in cuda_corpus.entries():
        if name in NAMES:
            text, meta = pipeline.generate(k, types, name, target=TARGET)
            key = uuid.uuid4().hex[:32] + "0" * 8
            jobs.append((key, f"{text}// batch test {run} {name}\n", name, meta))
    assert len(jobs) == len(NAMES)
    return jobs


def test_small_instances_share_nvrtc_runs_and_keep_their_own_entry_points(monkeypatch):
    monkeypatch.setattr(config, "compile_jobs", 2)  # fewer workers than jobs, as on 2 cores (16 gave a run each)
    jobs = _fresh_jobs()
    before = build.nvrtc_calls
    results = TARGET.compile_many(jobs)
    runs = build.nvrtc_calls - before
    assert 1 <= runs < len(jobs)  # at most config.compile_batch units per run
    assert runs >= -(-len(jobs) // config.compile_batch)
    entries = set()
    for (_, _, label, _), result in zip(jobs, results):
        assert not isinstance(result, Exception), f"{label}: {result}"
        path, meta = result
        symbol = meta["symbols"]["bw_entry"]
        assert symbol.startswith("bw_entry_b") and meta["batch"] > 1 and meta["arch"] == "sm_90"
        with open(path, "rb") as f:
            cubin = f.read()
        assert cubin_arch(cubin) == 90 and symbol.encode() in cubin
        entries.add((cubin, symbol))
        assert set(meta["resources"]) == {symbol}  # ptxas's report of its own kernel only
    assert len(entries) == len(jobs)  # each instance names its own kernel in its cubin
    # the report of a unit built in a batch is the one it gets alone
    key, text, label, _ = jobs[0]
    _, log = nvrtc.compile_program(text, "alone.cu", "sm_90", build.include_dirs(), build.options())
    assert CudaEntry(*results[0]).resources == {"bw_entry": parse_report(log)["bw_entry"]}
    # a launch looks up the renamed kernel
    path, meta = results[0]
    drv = FakeDriver()
    CudaEntry(path, meta)._function(drv, 0)
    assert drv.function_names == [meta["symbols"]["bw_entry"]]


def test_a_batch_renames_both_entries_of_a_kernel_with_an_arena(monkeypatch):
    """A par_for_outer team's kernel has an entry per arena memory (shared, global): in a batch each is
    renamed, and the entry's launch looks up the renamed global one where the arena does not fit."""
    monkeypatch.setattr(config, "compile_jobs", 1)  # one group: every job in one NVRTC run
    kernel = body_kernel(mapping.teams_body, "outer", 1)
    text, meta = pipeline.generate(kernel, [type_of_value(v) for v in kernel.arguments([0], 0)], "teams",
                                   target=TARGET)
    jobs = _fresh_jobs()[:2]
    jobs.append((uuid.uuid4().hex[:32] + "0" * 8, f"{text}// batch test {uuid.uuid4().hex} teams\n", "teams", meta))
    path, meta = TARGET.compile_many(jobs)[2]
    shared_entry, global_entry = meta["symbols"]["bw_entry"], meta["symbols"]["bw_entry_global"]
    assert meta["batch"] == 3 and shared_entry.startswith("bw_entry_b") and global_entry.startswith("bw_entry_global_b")
    with open(path, "rb") as f:
        cubin = f.read()
    assert shared_entry.encode() in cubin and global_entry.encode() in cubin
    drv = FakeDriver()
    entry = CudaEntry(path, meta)
    module, _ = entry._function(drv, 0)
    entry._global_entry(drv, 0, module)
    assert drv.function_names == [shared_entry, global_entry]


def test_a_unit_nvrtc_rejects_fails_alone_and_the_others_of_its_batch_build():
    jobs = _fresh_jobs()
    key, text, label, meta = jobs[2]
    jobs[2] = (key, text.replace("bw_entry(", "bw_entry(undefined_type u, "), label, meta)
    results = TARGET.compile_many(jobs)
    assert isinstance(results[2], ToolchainError)
    assert f"NVRTC rejected the CUDA code generated for {label}" in str(results[2])
    assert "undefined_type" in str(results[2])
    others = [r for i, r in enumerate(results) if i != 2]
    for (_, _, other, _), result in zip(jobs[:2] + jobs[3:], others):
        assert not isinstance(result, Exception), f"{other}: {result}"
    assert any("symbols" not in meta for _, meta in others)  # its batch's others: built alone after the failure


def test_a_lone_instance_keeps_the_plain_entry_point():
    (job,) = _fresh_jobs()[:1]
    (result,) = TARGET.compile_many([job])
    path, meta = result
    drv = FakeDriver()
    CudaEntry(path, meta)._function(drv, 0)
    assert "symbols" not in meta and drv.function_names == ["bw_entry"]


def test_without_the_cuda_headers_each_job_fails_with_what_to_install(monkeypatch):
    monkeypatch.setattr(nvrtc, "cuda_include_dir", lambda: None)
    results = TARGET.compile_many(_fresh_jobs()[:2])
    assert len(results) == 2
    for result in results:
        assert isinstance(result, nvrtc.NvrtcUnavailable) and f"'{nvrtc.runtime_wheel()}' wheel" in str(result)
