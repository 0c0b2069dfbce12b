"""The GPU mapping's division by a slice-invariant divisor (``GpuTeams.divmod_by``): a multiply by the
divisor's reciprocal and one correction, exact for every 0 <= n < 2^31 and 1 <= d < 2^31. The IR
it builds is evaluated here with Python integers (the C++ operators' meaning for these types)."""

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from brickwork import ir
from brickwork.passes.build import Locals
from brickwork.passes.gpu_teams import GpuTeams
from brickwork.types.scalars import int32, uint32, uint64

_WIDTH = {int32: 32, uint32: 32, uint64: 64}


def _wrap(value: int, t) -> int:
    bits = _WIDTH[t]
    value &= (1 << bits) - 1
    return value - (1 << bits) if t is int32 and value >= 1 << 31 else value


def _eval(e, env: dict) -> int:
    if isinstance(e, ir.IRConst):
        return e.value
    if isinstance(e, ir.IRLocal):
        return env[e.name]
    if isinstance(e, ir.IRCast):
        return _wrap(_eval(e.arg, env), e.type)
    if isinstance(e, ir.IRSelect):
        return _eval(e.if_true if _eval(e.cond, env) else e.if_false, env)
    a, b = (_eval(x, env) for x in e.args)
    if e.op == "ge":
        return a >= b
    if e.op == "max":
        return max(a, b)
    if e.op == "div":
        return a // b  # both operands non-negative here
    value = {"add": a + b, "sub": a - b, "mul": a * b, "rshift": a >> b}[e.op]
    assert _wrap(value, e.type) == value, f"{e.op} overflows {e.type.__name__}"  # no wrap-around relied on
    return value


def _divmod(n: int, d: int) -> tuple[int, int]:
    fn = ir.IRFunction("k", [("n", int32), ("d", int32)], {}, [], is_kernel=True)
    teams = GpuTeams.__new__(GpuTeams)  # only its locals are used
    teams.locals = Locals(fn)
    stmts: list = []
    nl, dl = ir.IRLocal("n", int32), ir.IRLocal("d", int32)
    q, r = teams.divmod_by(nl, dl, teams.reciprocal(dl, stmts), stmts)
    env = {"n": n, "d": d}
    for s in stmts:
        env[s.target.name] = _eval(s.value, env)
    return env[q.name], env[r.name]


@given(st.integers(0, 2**31 - 1), st.integers(1, 2**31 - 1))
@example(2**31 - 1, 1)
@example(2**31 - 1, 2**31 - 1)
@example(2**31 - 2, 2**31 - 1)
@example(2**31 - 1, 3)
@example(0, 7)
@example(46340 * 46341, 46341)
def test_division_by_reciprocal_is_exact(n, d):
    assert _divmod(n, d) == divmod(n, d)


def test_division_by_reciprocal_at_the_boxes_of_a_mesh():
    """Every flat index of boxes up to 40 cells wide: the quotient and remainder numpy gives."""
    for d in range(1, 41 * 41, 37):
        n = np.arange(0, 41 * 41 * 41, 97)
        got = np.array([_divmod(int(x), d) for x in n])
        np.testing.assert_array_equal(got[:, 0], n // d)
        np.testing.assert_array_equal(got[:, 1], n % d)
