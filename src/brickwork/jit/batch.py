"""Several generated translation units compiled as one: fewer compiler runs for small instances.

A compiler run has a fixed cost (for g++ the driver, the compiler proper, the precompiled header,
the assembler and the linker: about 70 ms here; for NVRTC about 25 ms of its 90 ms for a small
kernel) that a small kernel's code generation does not exceed, so a batch of pending instances
compiles faster as a few combined units than one run each.

``combine`` puts each unit in its own namespace (``bw_batch_<n>``), hoists its ``#include`` lines,
and renames the C symbols it exports (``CPU_EXPORT``: ``extern "C" BW_EXPORT ... name(``;
``CUDA_EXPORT``: ``extern "C" __global__ ... name(``) with ``#define`` so that each unit keeps its
own entry points (``symbols``: the name a loader asks for -> the name in the combined artifact).
``groups`` decides which pending jobs share a run.
"""

from __future__ import annotations

import re

#: The entry points a C++ unit exports (looked up in the shared library by name).
CPU_EXPORT = re.compile(r'^extern "C" BW_EXPORT [\w:<>*& ]+?\b(\w+)\(', re.MULTILINE)
#: The kernels a CUDA unit exports (looked up in the module by name).
CUDA_EXPORT = re.compile(r'^extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(', re.MULTILINE)

#: A unit at least this long (characters) compiles alone: its code generation dominates the run,
#: and alone it can run next to the others.
LARGE_UNIT = 40_000


def exported_symbols(source: str, exports: re.Pattern = CPU_EXPORT) -> list[str]:
    """The C symbols a unit exports (its entry point, and any other function a loader looks up)."""
    return exports.findall(source)


def combine(sources: list[str], exports: re.Pattern = CPU_EXPORT) -> tuple[str, list[dict]]:
    """One translation unit holding every unit of ``sources``, and for each unit the map of its
    exported symbols (those ``exports`` finds) to their names in the combined unit."""
    includes: list[str] = []
    parts: list[str] = []
    symbols: list[dict] = []
    for n, source in enumerate(sources):
        body = []
        for line in source.splitlines():
            if line.startswith("#include"):
                if line not in includes:
                    includes.append(line)
            else:
                body.append(line)
        names = {name: f"{name}_b{n}" for name in exported_symbols(source, exports)}
        symbols.append(names)
        defines = [f"#define {name} {renamed}" for name, renamed in names.items()]
        undefs = [f"#undef {name}" for name in names]
        parts.append("\n".join([*defines, f"namespace bw_batch_{n} {{", *body, f"}}  // namespace bw_batch_{n}",
                                *undefs]))
    return "\n".join(includes) + "\n" + "\n\n".join(parts) + "\n", symbols


def groups(sizes: list[int], workers: int, most: int) -> list[list[int]]:
    """Indices of jobs (by the length of their source) in groups that each make one compiler run:
    a unit of ``LARGE_UNIT`` or more alone, the others spread over ``workers`` groups (longest
    first onto the lightest group) of at most ``most`` units, so the runs take similar times."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    alone = [[i] for i in order if sizes[i] >= LARGE_UNIT]
    small = [i for i in order if sizes[i] < LARGE_UNIT]
    if not small:
        return alone
    count = max(workers, -(-len(small) // max(most, 1)))
    bins: list[list[int]] = [[] for _ in range(min(count, len(small)))]
    load = [0] * len(bins)
    for i in small:
        b = min((b for b in range(len(bins)) if len(bins[b]) < most), key=lambda b: load[b])
        bins[b].append(i)
        load[b] += sizes[i] + 2_000  # a unit's own share of a run besides its code
    return alone + [sorted(b) for b in bins if b]
