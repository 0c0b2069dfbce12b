"""benchmarks/report.py: the "Where brickwork loses" notes state what the table states."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from report import LOSS_REASONS, CaseRow, Cell, kernel_table, losses  # noqa: E402
from timing import Timing  # noqa: E402


def _row(name, brickwork_ms, c_ms, numba_ms=None):
    cells = {"brickwork": Cell(Timing((brickwork_ms / 1e3,))), "C": Cell(Timing((c_ms / 1e3,)))}
    if numba_ms is not None:
        cells["numba"] = Cell(Timing((numba_ms / 1e3,)))
    return CaseRow(name, "n", 0, 0.9, cells)


def test_a_loss_shows_the_ratio_the_table_shows():
    rows = [_row("laplacian3d_f32", 10.1, 9.32), _row("la_laplacian3d_f32_bovi_logical_flat", 8.68, 9.06),
            _row("la_laplacian3d_f32_bvoi_memory", 8.97, 10.2)]
    table = "\n".join(kernel_table(rows, ["brickwork", "C"], "brickwork"))
    (line,) = losses(rows, ["brickwork", "C"], "brickwork")
    assert "| 0.92× |" in table
    assert line.startswith("laplacian3d_f32 vs C: brickwork runs at 0.92× of C (C time / brickwork time).")
    # the other cases it names are quoted from this run, not from an earlier one
    assert "1.04× of C (bovi + logical_flat)" in line and "1.14× of C (bvoi + memory)" in line
    assert "quieter run" not in line


def test_a_case_a_reason_names_that_did_not_run_says_so():
    rows = [_row("la_recon_flux_f64_bvoi_memory", 5.17, 4.47)]
    (line,) = losses(rows, ["brickwork", "C"], "brickwork")
    assert "0.86× of C" in line
    assert "not run (bovi + logical_flat)" in line


def test_no_loss_within_three_percent_and_unknown_reasons_are_marked():
    rows = [_row("la_recon_flux_f64_bvoi_memory", 4.5, 4.47), _row("mystery", 2.0, 1.0, numba_ms=1.0)]
    lines = losses(rows, ["brickwork", "C", "numba"], "brickwork")
    assert lines == ["mystery vs C: brickwork runs at 0.50× of C (C time / brickwork time). reason not analysed",
                     "mystery vs numba: brickwork runs at 0.50× of numba (numba time / brickwork time). "
                     "reason not analysed"]
    assert losses(rows[:1], ["brickwork", "C"], "brickwork")[0].startswith("none:")


def test_reasons_quote_no_numbers_of_other_runs():
    """A reason's numbers would be of some other run: only {case} references (this run's) are allowed,
    and each names a benchmark case."""
    from cases import CASES

    names = {c.name for c in CASES}
    for text in LOSS_REASONS.values():
        assert not re.search(r"\d\.\d+×", text), text
        for name in re.findall(r"\{(\w+)\}", text):
            assert name in names, name
