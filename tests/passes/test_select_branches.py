"""select_branches: an ``if`` that only computes scalar values becomes fresh values and selects.

The generated C++ of a nested-``if`` limiter has no ``if`` left and gives, bit for bit, what the
same limiter written with ``wp.where`` gives, for ordinary, zero, infinite and NaN slopes; a
branch that reads an array, divides integers or writes memory keeps its ``if``, and so does one
over the operation limit; a branch's later assignments read its earlier ones, and a local only
one branch assigns keeps its value on the other path.
"""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import ir, pipeline
from brickwork.passes import SelectBranches, run_passes


@wp.func
def limiter_if(dl: float, dr: float):
    slope = 0.0
    if dl * dr > 0.0:
        c = 0.5 * (dl + dr)
        slope = wp.min(wp.min(2.0 * wp.abs(dl), 2.0 * wp.abs(dr)), wp.abs(c))
        if c < 0.0:
            slope = -slope
    return slope


@wp.func
def limiter_where(dl: float, dr: float):
    c = 0.5 * (dl + dr)
    mag = wp.min(wp.min(2.0 * wp.abs(dl), 2.0 * wp.abs(dr)), wp.abs(c))
    return wp.where(dl * dr > 0.0, wp.where(c < 0.0, -mag, mag), 0.0)


@wp.kernel
def limiters(dl: wp.array(dtype=float), dr: wp.array(dtype=float), a: wp.array(dtype=float),
             b: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = limiter_if(dl[i], dr[i])
    b[i] = limiter_where(dl[i], dr[i])


def generated(kernel) -> str:
    text, _ = pipeline.generate(kernel, kernel.concrete_types(), "t")
    return text


def function_text(text: str, name: str) -> str:
    start = text.index(f"// {name}[")
    return text[start:text.index("\n}\n", start)]


def test_nested_ifs_become_selects_with_the_same_bits():
    text = function_text(generated(limiters), "limiter_if")
    assert "if (" not in text and " ? " in text
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, 3e38, np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(4)
    dl = np.concatenate([np.repeat(special, len(special)), rng.standard_normal(2000)]).astype(np.float32)
    dr = np.concatenate([np.tile(special, len(special)), rng.standard_normal(2000)]).astype(np.float32)
    a, b = wp.zeros(dl.size), wp.zeros(dl.size)
    wp.launch(limiters, dim=dl.size, inputs=[wp.array(dl), wp.array(dr), a, b])
    assert a.numpy().tobytes() == b.numpy().tobytes()
    with np.errstate(invalid="ignore", over="ignore"):
        c = np.float32(0.5) * (dl + dr)
        mag = np.fmin(np.fmin(np.float32(2) * np.abs(dl), np.float32(2) * np.abs(dr)), np.abs(c))
        want = np.where(dl * dr > 0, np.where(c < 0, -mag, mag), np.float32(0)).astype(np.float32)
    np.testing.assert_array_equal(a.numpy(), want)


@wp.kernel
def keeps_ifs(x: wp.array(dtype=float), k: wp.array(dtype=int), out: wp.array(dtype=float),
              kout: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    if i > 0:
        v = x[i - 1]  # an array read: may be out of bounds where the test fails
    q = k[i]
    if q != 0:
        q = 100 // q  # integer division: traps where q == 0
    if v > 0.0:
        out[i] = v  # a store
    kout[i] = q


def test_reads_integer_division_and_stores_keep_their_if():
    fn = _lowered(keeps_ifs)  # split_interior copies the body: inside, `if i > 0` is gone
    assert sum(isinstance(n, ir.IRIf) for n in ir.walk(fn.body)) == 5
    assert not any(isinstance(n, ir.IRSelect) for n in ir.walk(fn.body))
    x = np.array([1.5, -2.0, 3.0, 0.0], dtype=np.float32)
    k = np.array([0, 7, -3, 100], dtype=np.int32)
    out, kout = wp.zeros(4), wp.zeros(4, dtype=int)
    wp.launch(keeps_ifs, dim=4, inputs=[wp.array(x), wp.array(k), out, kout])
    np.testing.assert_array_equal(out.numpy(), [1.5, 1.5, 0.0, 3.0])
    np.testing.assert_array_equal(kout.numpy(), [0, 14, -34, 1])


@wp.kernel
def sequential(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = 1.0
    only_else = 5.0
    if a > 0.0:
        b = a + 1.0
        a = b * 2.0  # reads this branch's b
        b = b - a
    else:
        only_else = a * 3.0
    out[4 * i] = a
    out[4 * i + 1] = b
    out[4 * i + 2] = only_else
    big = a
    if big > 1.0:  # more operations than the limit: stays an if
        big = big * 1.5 + big * 2.5 - big * 3.5 + big * 4.5 - big * 5.5 + big * 6.5 - big * 7.5 + big * 8.5
        big = big * 1.5 + big * 2.5 - big * 3.5 + big * 4.5 - big * 5.5 + big * 6.5 - big * 7.5 + big * 8.5
        big = big * 1.5 + big * 2.5 - big * 3.5 + big * 4.5 - big * 5.5 + big * 6.5 - big * 7.5 + big * 8.5
    out[4 * i + 3] = big


def test_a_branch_reads_its_own_assignments_and_big_branches_stay():
    fn = _lowered(sequential)
    assert sum(isinstance(n, ir.IRIf) for n in ir.walk(fn.body)) == 1
    x = np.array([2.0, -1.0, 0.25], dtype=np.float32)
    out = wp.zeros(12)
    wp.launch(sequential, dim=3, inputs=[wp.array(x), out])
    want = []
    for a in x.astype(np.float64):
        b, only_else = 1.0, 5.0
        if a > 0:
            b = a + 1.0
            a = b * 2.0
            b = b - a
        else:
            only_else = a * 3.0
        big = a
        if big > 1.0:
            for _ in range(3):
                big = (big * 1.5 + big * 2.5 - big * 3.5 + big * 4.5 - big * 5.5 + big * 6.5 - big * 7.5
                       + big * 8.5)
        want += [a, b, only_else, big]
    np.testing.assert_allclose(out.numpy(), np.float32(want), rtol=1e-6)


@pytest.mark.parametrize("limit, ifs", [(0, 2), (32, 1), (45, 0)])
def test_the_operation_limit(limit, ifs):
    fn = _lowered(sequential, SelectBranches(max_ops=limit))
    assert sum(isinstance(n, ir.IRIf) for n in ir.walk(fn.body)) == ifs


def _lowered(kernel, select=None):
    """The kernel after the CPU target's passes (``select`` in place of the default pass)."""
    from brickwork.targets.cpu import CPU

    passes = CPU.passes()
    if select is not None:
        passes = tuple(select if isinstance(p, SelectBranches) else p for p in passes)
    typed, callees = pipeline.type_instance(kernel, kernel.concrete_types(), "t")
    return run_passes(typed, passes)
