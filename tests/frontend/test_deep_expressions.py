"""Expressions hundreds of levels deep (generated code: long sums, polynomials in Horner form) compile
and give the value of their evaluation in Python's order (``frontend/shallow.py`` splits them into
statements); what cannot be split without changing that order, or parsed at all, is a clear error.

The kernels are written to files of their own: a kernel's source is read from its file.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelSyntaxError, KernelUnsupportedSyntaxError
from brickwork.frontend.shallow import MAX_DEPTH, bound_depth, depths
from kernel_files import kernel_module

f32 = np.float32


def _module(tmp_path, text: str):
    return kernel_module(tmp_path, text, "deep_kernels")


def _chain(n: int, term=lambda i: f"a[{i % 7}]") -> str:
    return " + ".join(term(i) for i in range(n))


def _horner(n: int, x: str = "x") -> str:
    text = "0.5"
    for i in range(n):
        text = f"(0.001 * {i % 5}.0 + {x} * {text})"
    return text


def _sequential_sum(a, n):
    total = f32(0)
    for i in range(n):
        total = f32(total + a[i % 7]) if i else f32(a[0])
    return total


def test_a_sum_of_a_thousand_terms_compiles_and_adds_left_to_right(tmp_path):
    n = 1000
    m, _ = _module(tmp_path, f"""
@wp.kernel
def long_sum(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = {_chain(n)}
    out[1] += {_chain(n)}
""")
    a = np.linspace(0.1, 0.7, 7, dtype=f32)
    out = wp.array(np.array([0.0, 2.0], dtype=f32))
    wp.launch(m.long_sum, dim=1, inputs=[wp.array(a), out])
    want = _sequential_sum(a, n)
    assert out.numpy()[0] == want  # float32 additions in Python's order, bit for bit
    assert out.numpy()[1] == f32(2.0 + want)


def test_horner_polynomials_nested_to_the_right_in_kernels_and_functions(tmp_path):
    n = 120  # Python's parser allows 200 nested parentheses
    m, _ = _module(tmp_path, f"""
@wp.func
def poly(x: float):
    return {_horner(n)}

@wp.kernel
def horner(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    x = a[0]
    out[0] = {_horner(n)}
    out[1] = poly(x)
""")
    out = wp.zeros(2, dtype=float)
    wp.launch(m.horner, dim=1, inputs=[wp.array(np.array([0.3], dtype=f32)), out])
    x, want = f32(0.3), f32(0.5)
    for i in range(n):
        want = f32(f32(f32(0.001) * f32(i % 5)) + f32(x * want))
    assert out.numpy().tolist() == [want, want]


def test_a_call_evaluated_first_still_runs_first_and_one_evaluated_last_still_runs_last(tmp_path):
    """A left-deep sum starting with an atomic: its reads see the increment. A right-deep sum whose
    innermost term is an atomic: every read runs before it (split there, the atomic would move
    ahead of the reads, so that expression is not split)."""
    n = 150
    m, _ = _module(tmp_path, f"""
@wp.kernel
def first(c: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = wp.atomic_add(c, 0, 1.0) + {_chain(n, lambda i: "c[0]")}

@wp.kernel
def last(c: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = {" + (".join(["c[0]"] * n)} + wp.atomic_add(c, 0, 1.0){")" * (n - 1)}
""")
    for kernel, want in ((m.first, float(n)), (m.last, 0.0)):
        c, out = wp.zeros(1, dtype=float), wp.zeros(1, dtype=float)
        wp.launch(kernel, dim=1, inputs=[c, out])
        assert out.numpy()[0] == want
        assert c.numpy()[0] == 1.0


def test_a_deep_expression_in_a_branch_is_a_clear_error_naming_the_line(tmp_path):
    m, path = _module(tmp_path, f"""
@wp.kernel
def branchy(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    x = a[0]
    out[0] = x if a[1] > 0.0 else {_chain(1500)}
""")
    a, out = wp.array(np.arange(7, dtype=f32)), wp.full(1, 5.0, dtype=float)
    with pytest.raises(KernelUnsupportedSyntaxError) as info:
        wp.launch(m.branchy, dim=1, inputs=[a, out])
    text = str(info.value)
    assert f'File "{path}", line 7, in branchy' in text
    assert "nested too deeply to compile" in text and "x if c else y" in text
    assert out.numpy()[0] == 5.0  # nothing ran


def test_an_expression_too_deep_for_pythons_parser_is_named_at_declaration(tmp_path, monkeypatch):
    """Python compiled the file, but the decorator's parse runs deeper in the stack and gives up
    (simulated: the parse raises as it does then)."""
    from brickwork.frontend import source

    m, path = _module(tmp_path, """
def too_deep(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = a[0]
""")

    class ExhaustedAst:  # the module as source.py sees it, whose parse gives up
        def __getattr__(self, name):
            return getattr(ast, name)

        @staticmethod
        def parse(*args, **kwargs):
            raise RecursionError("maximum recursion depth exceeded during ast construction")

    monkeypatch.setattr(source, "ast", ExhaustedAst())
    with pytest.raises(KernelSyntaxError, match=r"cannot parse too_deep \(.*:4\): an expression is nested too "
                                                 r"deeply for Python's parser; split it"):
        wp.kernel(m.too_deep)


def _split(text: str) -> ast.FunctionDef:
    fn = ast.parse(text).body[0]
    assert bound_depth(fn) is None
    return fn


def _deepest(fn) -> int:
    return max(depths(s)[id(s)][0] for s in ast.walk(fn) if isinstance(s, ast.expr))


def test_statements_are_split_into_fresh_locals_in_evaluation_order():
    n = 500
    fn = _split(f"def k(a, _bw_deep0):\n    x = {_chain(n, lambda i: f'a[{i}]')}\n    if {_chain(n)} > 0.0:\n"
                f"        pass\n    elif {_chain(n)} > 1.0:\n        pass\n")
    assert _deepest(fn) <= MAX_DEPTH
    names = [s.targets[0].id for s in fn.body if isinstance(s, ast.Assign) and s.targets[0].id != "x"]
    assert names and "_bw_deep0" not in names and len(set(names)) == len(names)  # the user's name is kept
    # the first local holds the sum's first terms: a[0] is still added first
    first = fn.body[0].value
    while isinstance(first, ast.BinOp):
        first = first.left
    assert ast.unparse(first) == "a[0]"
    # the elif's test is split inside the else branch, before its own if
    elif_block = fn.body[-1].orelse
    assert isinstance(elif_block[0], ast.Assign) and isinstance(elif_block[-1], ast.If)


@pytest.mark.parametrize("expr", [
    "c if b else {chain}",  # a branch that may not run
    "b and {chain}",  # the right of and
    "f(b) + ({chain_r})",  # a call that runs before it
])
def test_what_may_not_run_or_run_earlier_is_not_split(expr):
    n = 150
    chain_r = " + (".join(["a[0]"] * n) + ")" * (n - 1)
    fn = ast.parse(f"def k(a, b, c, f):\n    x = {expr.format(chain=_chain(2 * MAX_DEPTH), chain_r=chain_r)}\n").body[0]
    deepest = bound_depth(fn)
    assert len(fn.body) == 1 and deepest is fn.body[0].value


def test_math_builtins_and_constructors_before_a_deep_operand_do_not_block_the_split(tmp_path):
    """``wp.sin(a) + (wp.sin(b) + (...))``: the calls evaluated first have no effect, so the deep
    right operand may run before them (190 levels: unsplit, the compiler's walkers give up)."""
    n = 190
    chain = " + (".join(f"wp.sin(float(a[{i % 7}]))" for i in range(n)) + ")" * (n - 1)
    m, _ = _module(tmp_path, f"""
@wp.kernel
def sines(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = {chain}
""")
    a, out = np.arange(7, dtype=f32), wp.zeros(1, dtype=float)
    wp.launch(m.sines, dim=1, inputs=[wp.array(a), out])
    want = f32(np.sin(a[(n - 1) % 7]))
    for i in reversed(range(n - 1)):
        want = f32(f32(np.sin(a[i % 7])) + want)
    np.testing.assert_allclose(out.numpy()[0], want, rtol=1e-5)
