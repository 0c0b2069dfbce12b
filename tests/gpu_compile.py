"""Every GPU-mapped instance a test marked ``compiles_for_cuda`` builds is also compiled for CUDA.

The emulation target (``cuda-emulation``) runs the GPU-mapped IR on the CPU, so those tests check the
block/thread mapping against numpy; this plugin takes each such instance the test creates, generates
it for the CUDA target and compiles it with NVRTC to an sm_90 cubin: an NVRTC error fails the test.
Each distinct source is compiled once per process (the session's kernel cache shares them between
xdist workers).

``@pytest.mark.compiles_for_cuda(check=f)``: ``f(texts)`` also asserts something of the CUDA sources
of the instances the test created (where ``__syncthreads()`` or shared memory must appear).
"""

from __future__ import annotations

import contextlib
import struct
import weakref

import pytest

_sources: dict = {}  # cache key -> CUDA source, of every instance compiled in this process


def available() -> bool:
    from brickwork.jit import nvrtc

    return nvrtc.is_available()


_emulated: "weakref.WeakSet" = weakref.WeakSet()  # every cuda-emulation instance of this process
_recorders: list = []  # the lists of the recordings open now


def track() -> None:
    """Note every cuda-emulation instance from now on (called once, when the session starts, so that
    ``recording`` knows the instances earlier tests built and the tests it records may reuse)."""
    from brickwork.lang.instance import Instance

    init = Instance.__init__
    if getattr(init, "tracking", False):
        return

    def tracking_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.target == "cuda-emulation":
            _emulated.add(self)
            for created in _recorders:
                created.append(self)

    tracking_init.tracking = True
    Instance.__init__ = tracking_init


@contextlib.contextmanager
def recording():
    """The cuda-emulation instances the block uses (a list filled as it runs): those it creates, and
    those that earlier tests of this process built and it launches or loads again.

    Which instances a test creates depends on what ran before it in its worker (an instance is built
    once per process): so each instance that exists when the block starts has its entry point wrapped
    for the block's length, to note a launch."""
    track()
    used: list = []
    seen: set = set()

    def note(inst):
        if id(inst) not in seen:
            seen.add(id(inst))
            used.append(inst)

    originals, unloaded = {}, []  # id(wrapper) -> (wrapper, entry point); the instances not loaded yet
    for inst in list(_emulated):
        fn = inst.fn
        if fn is None:
            unloaded.append(inst)
            continue

        def launched(*args, _inst=inst, _fn=fn):
            note(_inst)
            return _fn(*args)

        inst.fn = launched
        originals[id(launched)] = (launched, fn)
    created: list = []
    _recorders.append(created)
    try:
        yield used
    finally:
        _recorders.remove(created)
        # every wrapper goes, also one an instance took from another (its general-strides version's)
        for inst in list(_emulated):
            wrapper, fn = originals.get(id(inst.fn), (None, None))
            if wrapper is not None and wrapper is inst.fn:
                inst.fn = fn
        for inst in created:
            note(inst)
        for inst in unloaded:  # loaded in the block
            if inst.fn is not None:
                note(inst)


def cubin_arch(data: bytes) -> int:
    """The SM number a CUDA ELF file (cubin) is for (90 for sm_90): e_flags' low byte in the ELF ABI
    of CUDA 12 and before (e_ident ABI version 7), its second byte from CUDA 13 on (version 8)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not a 64-bit ELF file"
    assert struct.unpack_from("<H", data, 18)[0] == 190, "not a CUDA ELF file (e_machine 190)"
    flags = struct.unpack_from("<I", data, 48)[0]
    return (flags >> 8) & 0xFF if data[8] >= 8 else flags & 0xFF


def compile_for_cuda(instances: list) -> list[str]:
    """Compile for CUDA sm_90 those of ``instances`` the emulation built (not those it refused, which
    the test expects to fail), each once per process; their CUDA sources."""
    from brickwork import pipeline
    from brickwork.targets.cuda import CudaTarget

    target = CudaTarget("sm_90")
    texts, jobs = [], []
    for inst in instances:
        if inst.fn is None:  # never built, or refused (la.raw on a device target): nothing to compile
            continue
        key = pipeline.cache_key(pipeline.key_parts(inst.kernel, inst.arg_types, inst.mode, target))
        if key not in _sources:
            text, meta = pipeline.generate(inst.kernel, inst.arg_types, inst.label, target, inst.mode)
            jobs.append((key, text, inst.label, meta))
            _sources[key] = text
        texts.append(_sources[key])
    for (key, _, label, _), result in zip(jobs, target.compile_many(jobs)):
        if isinstance(result, Exception):
            del _sources[key]
            pytest.fail(f"{label}: {result}", pytrace=False)
        path, meta = result
        with open(path, "rb") as f:
            assert cubin_arch(f.read()) == 90, label
        assert meta["arch"] == "sm_90" and meta["gpu_launch"]["block"] in (32, 64, 128, 256), label  # teams: gpu_lowering.team_block
    return texts


def checked(params: list, ids: list, applies, check) -> list:
    """``params`` (tuples) for ``pytest.mark.parametrize``; those for which ``applies(*param)`` marked
    ``compiles_for_cuda(check=check)``."""
    return [pytest.param(*p, id=i, marks=[pytest.mark.compiles_for_cuda(check=check)] if applies(*p) else [])
            for p, i in zip(params, ids)]


def contains(*needles: str):
    """A ``check``: each of ``needles`` appears in the CUDA source of some instance the test built."""

    def check(texts: list[str]) -> None:
        for needle in needles:
            assert any(needle in t for t in texts), f"no CUDA source of the {len(texts)} instances has {needle!r}"

    return check


def where(needle: str, *also: str):
    """A ``check``: some source has ``needle``, and every source that has it has each of ``also`` too."""

    def check(texts: list[str]) -> None:
        having = [t for t in texts if needle in t]
        assert having, f"no CUDA source of the {len(texts)} instances has {needle!r}"
        for other in also:
            assert all(other in t for t in having), f"a CUDA source with {needle!r} lacks {other!r}"

    return check
