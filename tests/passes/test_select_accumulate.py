"""select_branches' conditional accumulate: ``if c: s += x`` on a float local, in a sequential loop, becomes
``s = s + blend(c, x, -0.0)`` (``-=``: ``s - blend(c, x, +0.0)``), with no branch and no ``?:`` for g++ to
turn back into one; the sums equal a sequential float32/float64 evaluation in numpy bit for bit, special
values included (``x`` infinite or NaN where ``c`` is false adds nothing, an untouched -0.0 stays -0.0). A
branch that reads its own sum later, an accumulate in an else, nested ifs, ``x + s`` and integers are
covered, outside a loop the select stays, and a condition local the branch itself assigns is read before the
branch overwrites it.
"""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import pipeline


@wp.kernel
def accumulate(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), h: float,
               out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    s = -0.0
    t = 0.0
    u = 0.0
    twice = 0.0
    for j in range(x.shape[0]):
        d = x[j] - y[i]
        r2 = d * d
        if r2 < h:
            w = h - r2
            s += w * w * w
        if d > 0.0:
            pass
        else:
            t -= d  # an accumulate in the else
        if d > -1.0:
            if d < 1.0:  # nested: the inner if's blend is the outer if's accumulate
                u = d + u
        if r2 > 0.5:
            twice += d
            twice = twice * 0.5  # reads the branch's own sum: a select, not a blend
    out[4 * i] = s
    out[4 * i + 1] = t
    out[4 * i + 2] = u
    out[4 * i + 3] = twice


def expected(x, y, h, dtype):
    h = dtype(h)
    out = []
    for yi in y:
        s, t, u, twice = dtype(-0.0), dtype(0.0), dtype(0.0), dtype(0.0)
        for xj in x:
            d = dtype(xj - yi)
            r2 = dtype(d * d)
            if r2 < h:
                w = dtype(h - r2)
                s = dtype(s + dtype(dtype(w * w) * w))
            if not d > 0.0:
                t = dtype(t - d)
            if d > -1.0 and d < 1.0:
                u = dtype(d + u)
            if r2 > 0.5:
                twice = dtype(dtype(twice + d) * dtype(0.5))
        out += [s, t, u, twice]
    return np.array(out, dtype=dtype)


def test_the_accumulates_are_blends_without_a_branch():
    text, _ = pipeline.generate(accumulate, accumulate.concrete_types(), "t")
    body = text[text.index("void body("):]
    assert body.count("bw::blend(") == 4  # s, t, and u twice (inner and outer if); not twice
    assert "if (" not in body.split("for (")[1]  # the loop over j: no branch left
    assert "v_twice = (bw::truth(" in body and "v_s = bw::add(v_s, bw::blend(" in body


def test_sums_equal_numpy_bit_for_bit():
    rng = np.random.default_rng(7)
    x = rng.uniform(-2.0, 2.0, 300).astype(np.float32)
    y = np.concatenate([rng.uniform(-2.0, 2.0, 40), [0.0, -0.0, 5.0]]).astype(np.float32)
    out = wp.zeros(4 * len(y), dtype=wp.float32)
    wp.launch(accumulate, dim=len(y), inputs=[wp.array(x), wp.array(y), 0.8, out])
    assert out.numpy().tobytes() == expected(x, y, 0.8, np.float32).tobytes()


def test_special_values_where_the_condition_is_false_add_nothing():
    # far from every y: s and u never add; d = +-inf or nan makes r2 inf/nan (not < h) and t, twice see them
    x = np.array([np.inf, -np.inf, np.nan, 100.0], dtype=np.float32)
    y = np.array([0.0], dtype=np.float32)
    out = wp.zeros(4, dtype=wp.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        wp.launch(accumulate, dim=1, inputs=[wp.array(x), wp.array(y), 0.8, out])
        want = expected(x, y, 0.8, np.float32)
    got = out.numpy()
    assert np.signbit(got[0]) and got[0] == 0.0  # -0.0 untouched: the -0.0 added keeps the sign
    assert got.tobytes() == want.tobytes()


@wp.kernel
def accumulate_f64(x: wp.array(dtype=wp.float64), lo: wp.float64, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = wp.float64(0.0)
    n = 0
    for j in range(x.shape[0]):
        v = x[j] * wp.float64(i + 1)
        if v > lo:
            s = v + s
            n += 1  # an int: a select, as before
    out[2 * i] = s
    out[2 * i + 1] = wp.float64(n)


def test_float64_and_int_accumulates():
    text, _ = pipeline.generate(accumulate_f64, accumulate_f64.concrete_types(), "t")
    assert text.count("bw::blend(") == 1
    x = np.random.default_rng(3).standard_normal(500)
    out = wp.zeros(8, dtype=wp.float64)
    wp.launch(accumulate_f64, dim=4, inputs=[wp.array(x), 0.25, out])
    want = []
    for i in range(4):
        s, n = 0.0, 0
        for xj in x:
            v = xj * (i + 1)
            if v > 0.25:
                s, n = v + s, n + 1
        want += [s, n]
    assert out.numpy().tobytes() == np.array(want).tobytes()


@wp.kernel
def operand_reassigned(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    y = 0.5
    for j in range(x.shape[0]):
        v = x[j]
        if v > 0.0:
            y = v  # selected before s: the accumulate in the else reads y as it was
        else:
            s += y
            y = y * 3.0
    out[2 * i] = s
    out[2 * i + 1] = y


def test_the_accumulated_operand_is_read_before_the_selects():
    x = np.array([-1.0, 2.0, -1.0, -1.0, 0.25, -3.0, -1.0], dtype=np.float32)
    out = wp.zeros(2)
    wp.launch(operand_reassigned, dim=1, inputs=[wp.array(x), out])
    s, y = np.float32(0), np.float32(0.5)
    for v in x:
        if v > 0:
            y = v
        else:
            s, y = np.float32(s + y), np.float32(y * np.float32(3))
    assert out.numpy().tobytes() == np.array([s, y], dtype=np.float32).tobytes()


@wp.kernel
def condition_assigned(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    first = v > 0.0
    s = 0.0
    t = 1.0
    if first:
        first = False  # the condition's own local, assigned first: the selects after it read the old value
        s += v * 2.0
        t = v * 3.0
    out[3 * i] = s
    out[3 * i + 1] = t
    out[3 * i + 2] = wp.where(first, 1.0, 0.0)


def test_outside_a_sequential_loop_the_select_stays():
    # code per point: g++ vectorizes the loop over points, where a select is one masked add
    text, _ = pipeline.generate(condition_assigned, condition_assigned.concrete_types(), "t")
    assert "bw::blend(" not in text and "v_s = (bw::truth(" in text


@pytest.mark.parametrize("value", [3.0, -3.0])
def test_a_condition_the_branch_assigns_is_read_before(value):
    out = wp.zeros(3)
    wp.launch(condition_assigned, dim=1, inputs=[wp.array(np.array([value], np.float32)), out])
    np.testing.assert_array_equal(out.numpy(), [6.0, 9.0, 0.0] if value > 0 else [0.0, 1.0, 0.0])
