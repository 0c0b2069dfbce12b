"""What the assembler (ptxas, inside NVRTC) reports of each kernel it compiles: registers, spills, stack, memory.

NVRTC compiles every CUDA instance with ``--ptxas-options=-v`` (``REPORT_OPTIONS``), which changes nothing in
the cubin and makes the log of a successful compile list, per function::

    ptxas info    : Compiling entry function 'bw_entry' for 'sm_90'
    ptxas info    : Function properties for bw_entry
    ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 40 registers, used 1 barriers, 16 bytes cumulative stack size, 512 bytes smem

``parse_report`` turns that into a ``KernelResources`` per entry point; the build keeps them in the cache
entry's ``meta.json`` (``"resources"``, keyed by the entry's name in the cubin) and ``CudaEntry.resources`` and
``Kernel.cuda_resources`` give them back. No GPU is needed for any of it.
"""

from __future__ import annotations

import dataclasses
import re

#: Options that make ptxas report each kernel's resources in NVRTC's log (the cubin is the same: not in the key).
REPORT_OPTIONS = ("--ptxas-options=-v",)

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_FIELDS = {"barriers": re.compile(r"used (\d+) barriers"),
           "cumulative_stack": re.compile(r"(\d+) bytes cumulative stack size"),
           "shared": re.compile(r"(\d+) bytes smem")}
_CONSTANT = re.compile(r"(\d+) bytes cmem\[\d+\]")


@dataclasses.dataclass(frozen=True)
class KernelResources:
    """One entry point's resources as ptxas reports them: ``registers`` per thread; ``spill_stores`` and
    ``spill_loads``, bytes per thread moved between registers and local memory; ``stack_frame``, its own
    local-memory frame per thread (spills and local arrays), ``cumulative_stack`` with that of the functions it
    calls (``@wp.func(inline=False)``); ``shared``, static shared bytes per block (the dynamic arena not
    counted); ``constant``, bytes of constant banks where ptxas lists them; ``barriers``, named barriers used."""

    registers: int
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    cumulative_stack: int = 0
    shared: int = 0
    constant: int = 0
    barriers: int = 0

    @property
    def spills(self) -> bool:
        """Whether ptxas spilled registers to local memory."""
        return self.spill_stores > 0 or self.spill_loads > 0

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "KernelResources":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: int(v) for k, v in d.items() if k in names})


def parse_report(log: str) -> dict[str, KernelResources]:
    """Entry name -> ``KernelResources`` of every entry point a ptxas ``-v`` log lists (functions that are not
    entries, out-of-line device functions, are left out: their frames are in their callers' cumulative
    stack). An entry without a "Used N registers" line (a log cut short) is left out too."""
    frames: dict[str, tuple[int, int, int]] = {}
    used: dict[str, str] = {}
    entry = properties = None
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            entry = m.group(1)
        elif m := _PROPERTIES.search(line):
            properties = m.group(1)
        elif (m := _FRAME.search(line)) and properties is not None:
            frames[properties] = tuple(int(g) for g in m.groups())
        elif _USED.search(line) and entry is not None:
            used[entry] = line
    out = {}
    for name, line in used.items():
        frame, stores, loads = frames.get(name, (0, 0, 0))
        fields = {k: int(m.group(1)) for k, rx in _FIELDS.items() if (m := rx.search(line))}
        fields.setdefault("cumulative_stack", frame)
        out[name] = KernelResources(int(_USED.search(line).group(1)), stores, loads, frame,
                                    constant=sum(int(c) for c in _CONSTANT.findall(line)), **fields)
    return out


def report_meta(log: str, names=None) -> dict:
    """The ``"resources"`` value of an entry's metadata: entry name -> fields, for the entries of ``log`` (only
    those of ``names``, the entries of one unit of a batch-built cubin, where given)."""
    report = parse_report(log)
    return {name: r.as_dict() for name, r in report.items() if names is None or name in names}


def from_meta(meta: dict, names: dict) -> dict[str, KernelResources]:
    """``{entry: KernelResources}`` of an entry's metadata; ``names``: the unit's entry name -> its name in the
    cubin (renamed in a batch). Empty for an entry built without a report."""
    report = meta.get("resources") or {}
    return {entry: KernelResources.from_dict(report[built]) for entry, built in names.items() if built in report}
