"""run_passes skips a pass with ``needs`` on a function without those node classes (ir.node_classes), with the
same result as running every pass; frontend.shallow.syntax_children lists what ast.iter_child_nodes does.
Typing only: nothing is compiled."""

import ast
import inspect

import pytest
from ir_helpers import typed_kernel

import brickwork as wp
from brickwork import ir
from brickwork.frontend.shallow import syntax_children
from brickwork.passes import run_passes
from brickwork.targets.cpu import CPU

F32 = wp.array(dtype=wp.float32)


@wp.kernel
def plain(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * 2.0 + 1.0


@wp.kernel
def branchy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), n: int):
    i = wp.tid()
    s = wp.float32(0.0)
    for k in range(3):
        s += x[i] * float(k)
    if s > 1.0:
        y[i] = s
    else:
        y[i] = -s
    for k in range(n):
        y[i] += 1.0


CASES = [(plain, [F32, F32]), (branchy, [F32, F32, wp.int32])]


@pytest.mark.parametrize(("kernel", "types"), CASES, ids=["plain", "branchy"])
def test_node_classes_are_those_of_every_node(kernel, types):
    fn = typed_kernel(kernel, types)
    assert ir.node_classes(fn.body) == {type(n) for n in ir.walk(fn.body)}
    assert ir.node_classes(fn.body[0]) == {type(n) for n in ir.walk(fn.body[0])}


@pytest.mark.parametrize(("kernel", "types"), CASES, ids=["plain", "branchy"])
def test_skipping_gives_what_every_pass_gives(kernel, types):
    passes = CPU.passes("release")
    skipped, stages = [], []
    fn = typed_kernel(kernel, types)
    out = run_passes(fn, passes, observe=lambda name, f: stages.append(name))
    every = typed_kernel(kernel, types)
    for p in passes:
        before, every = every, p.run(every)
        if getattr(p, "needs", None) is not None and every is before:
            skipped.append(p.name)
    assert ir.format_function(out) == ir.format_function(every)
    assert stages == [p.name for p in passes]  # a skipped pass is still seen by the observer (the IR dumps)
    assert "lower_pack_access" in skipped and "lower_teams" in skipped
    assert ("select_branches" in skipped) == (kernel is plain)


class _Refuses:
    """A pass that must not run: its ``needs`` are not in the function."""

    name = "refuses"
    needs = ir.IRWhile

    def run(self, fn):
        raise AssertionError("ran on a function without a while loop")


class _Counts:
    name = "counts"
    needs = ir.IRFor

    def __init__(self):
        self.runs = 0

    def run(self, fn):
        self.runs += 1
        return fn


def test_a_pass_runs_only_where_its_needs_are():
    counts = _Counts()
    assert run_passes(typed_kernel(plain, [F32, F32]), (_Refuses(), counts)) is not None
    assert counts.runs == 0  # plain has no loop
    fn = typed_kernel(branchy, [F32, F32, wp.int32])
    assert run_passes(fn, (counts, _Refuses(), counts)) is fn
    assert counts.runs == 2


def test_syntax_children_are_iter_child_nodes():
    tree = ast.parse(inspect.getsource(inspect.getmodule(test_syntax_children_are_iter_child_nodes)))
    nodes = list(ast.walk(tree))
    assert len(nodes) > 500
    for node in nodes:
        assert syntax_children(node) == list(ast.iter_child_nodes(node))
