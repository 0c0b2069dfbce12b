"""Comparing the backward pass's Jacobians with finite differences, and the summary table of a check."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GREEN, RED, RESET = "\x1b[92m", "\x1b[91m", "\x1b[0m"
HEADER = ("Input", "Output", "Max Abs Error", "AD at MAE", "FD at MAE", "Max Rel Error", "Pass")


@dataclass
class Comparison:
    """How one Jacobian block (one input, one output) by autodiff compares with finite differences."""

    input: int
    output: int
    max_abs: float
    index: tuple
    ad_value: float
    fd_value: float
    max_rel: float
    status: str  # "PASS", "FAIL" or "NaN"
    abs_error: np.ndarray
    rel_error: np.ndarray

    @property
    def passed(self) -> bool:
        return self.status == "PASS"


def compare(key: tuple, ad: np.ndarray, fd: np.ndarray, rows: int, columns: int, atol: float,
            rtol: float) -> Comparison:
    """Compare over the first ``rows`` rows and ``columns`` scalar columns (the part both methods computed):
    an entry passes when ``|AD - FD| <= atol + rtol * |FD|``; a NaN in that part fails the check."""
    shape = ad.shape
    ad2, fd2 = ad.reshape(shape[0], -1).astype(np.float64), fd.reshape(shape[0], -1).astype(np.float64)
    computed = np.zeros(ad2.shape, dtype=bool)
    computed[:rows, :columns] = True
    with np.errstate(invalid="ignore"):
        abs_error = np.where(computed, np.abs(ad2 - fd2), 0.0)
        scale = np.where(np.abs(fd2) > 0, np.abs(fd2), 1.0)
        rel_error = np.where(computed, abs_error / scale, 0.0)
        within = abs_error <= atol + rtol * np.abs(fd2)
    has_nan = bool(np.isnan(abs_error).any())
    status = "NaN" if has_nan else "PASS" if bool(within[computed].all()) else "FAIL"
    if not abs_error.size:  # an empty input or output: nothing to compare
        return Comparison(key[0], key[1], 0.0, (), 0.0, 0.0, 0.0, status, abs_error, rel_error)
    flat = int(np.argmax(abs_error))  # the first NaN, if there is one
    pick = np.unravel_index(flat, abs_error.shape)
    index = tuple(int(v) for v in np.unravel_index(flat, shape))
    return Comparison(key[0], key[1], float(abs_error[pick]), index, float(ad2[pick]), float(fd2[pick]),
                      float(np.max(rel_error)), status, abs_error.reshape(shape), rel_error.reshape(shape))


def summary_lines(comparisons: list, input_labels: list, output_labels: list) -> list:
    """The rows of the summary table (header, rule, one row per Jacobian block), as text."""
    rows = [[str(input_labels[c.input]), str(output_labels[c.output]), f"{c.max_abs:.3e} at {c.index}",
             f"{c.ad_value:.3e}", f"{c.fd_value:.3e}", f"{c.max_rel:.3e}", c.status] for c in comparisons]
    widths = [max(len(r[k]) for r in [list(HEADER), *rows]) for k in range(len(HEADER))]

    def line(cells, status=None):
        text = "".join(f"{cell:<{w}} | " for cell, w in zip(cells[:-1], widths))
        last = cells[-1] if status is None else f"{GREEN if status == 'PASS' else RED}{status}{RESET}"
        return text + (f"{last:<{widths[-1]}} | " if status is None else f"{last} | ")

    header = line(list(HEADER))
    return [header, "-" * (len(header) - 1)] + [line(r, r[-1]) for r in rows]


def verdict(key, passed: bool) -> str:
    """The coloured last line of a check's summary."""
    return (f"{GREEN}Gradient check for kernel {key} passed{RESET}" if passed
            else f"{RED}Gradient check for kernel {key} failed{RESET}")


def mismatch_message(key, comparison: Comparison) -> str:
    return (f"Gradient check failed for kernel {key}, input {comparison.input}, output {comparison.output}: "
            f"finite difference and autodiff gradients do not match")
