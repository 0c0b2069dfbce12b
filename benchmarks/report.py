"""Markdown rendering of a benchmark run: context, the kernel table and the JIT-cost table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from timing import Timing, fmt


@dataclass
class Cell:
    """One peer on one case: a timing, or why there is none."""

    timing: Timing | None = None
    error: str = ""  # set when the peer failed or gave wrong results
    absent: str = ""  # set when the peer is unavailable or has no implementation of the case

    def text(self) -> str:
        if self.timing is not None:
            return self.timing.ms()
        if self.error:
            return "**failed**"
        return "—"


@dataclass
class CaseRow:
    """One case: its name, size label, bytes per call, target and one cell per peer."""

    name: str
    size: str
    bytes_moved: int
    target: float
    cells: dict[str, Cell] = field(default_factory=dict)

    def ratio(self, peer: str, reference: str = "C") -> float | None:
        """``reference`` time / ``peer`` time (> 1: the peer is faster), or None."""
        ref, cell = self.cells.get(reference), self.cells.get(peer)
        if not ref or not cell or ref.timing is None or cell.timing is None:
            return None
        return ref.timing.median / cell.timing.median


def _fmt_ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def _status(passed: bool | None) -> str:
    return "n/a" if passed is None else ("pass" if passed else "**FAIL**")


def kernel_table(rows: list[CaseRow], peers: list[str], primary: str) -> list[str]:
    """The side-by-side table: times (median [min–max]) per peer, ratios to C, target status."""
    others = [p for p in peers if p != "C"]
    head = ["case", "size"] + [f"{p} ms" for p in peers] + [f"{p} vs C" for p in others]
    head += ["C GB/s", "target", "status"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.name, row.size] + [row.cells[p].text() if p in row.cells else "—" for p in peers]
        cells += [_fmt_ratio(row.ratio(p)) for p in others]
        c = row.cells.get("C")
        gbs = f"{row.bytes_moved / c.timing.median / 1e9:.1f}" if c and c.timing else "—"
        ratio = row.ratio(primary)
        passed = None if ratio is None else ratio >= row.target
        cells += [gbs, f"{primary} ≥ {row.target:g}× C", _status(passed)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def jit_table(metrics_by_peer: dict[str, list], primary: str) -> list[str]:
    """Rows = metrics, columns = target, the primary's value and status, then the other peers."""
    if not metrics_by_peer:
        return ["(not measured)"]
    peers = sorted(metrics_by_peer, key=lambda p: p != primary)  # the primary first, if measured
    first = metrics_by_peer[peers[0]]
    head = ["metric", "target"] + [f"{peers[0]}", "status"] + [f"{p}" for p in peers[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, metric in enumerate(first):
        values = []
        for p in peers:
            m = metrics_by_peer[p][i]
            values.append(
                "**failed**"
                if m.value is None or math.isnan(m.value)
                else f"{fmt(m.value)} {m.unit} [{m.spread}]"
            )
        status = _status(first[i].passed) if peers[0] == primary else "n/a"
        cells = [metric.name, f"≤ {metric.target:g} {metric.unit}", values[0], status] + values[1:]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def document(
    context: list[str], notes: list[str], kernels: list[str], jit: list[str], errors: list[str]
) -> str:
    """The whole RESULTS.md text."""
    parts = ["# brickwork benchmarks", "", *[f"- {line}" for line in context], ""]
    if notes:
        parts += ["Notes:", "", *[f"- {n}" for n in notes], ""]
    parts += [
        "## Kernels",
        "",
        "Times are the median [min–max] of warm repetitions; peers are timed in interleaved blocks of 4 calls, each block after one untimed call. "
        "Ratios are C time / peer time: above 1 the peer is faster than the hand-written C. "
        "C GB/s is the nominal traffic (reads + writes, no write-allocate) over the C time; "
        "above the DRAM bandwidth it means the working set stayed in cache (see L3 above).",
        "",
        *kernels,
        "",
        "## JIT costs",
        "",
        *jit,
        "",
    ]
    if errors:
        parts += ["## Errors", "", *[f"- {e}" for e in errors], ""]
    return "\n".join(parts)
