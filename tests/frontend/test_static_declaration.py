"""``wp.static`` expressions that read only globals and closure variables are evaluated once, when the kernel
is declared (as in Warp): side effects happen once, later rebinding of the names changes nothing, and two kernels
from one definition with different captured values each keep their own value (and their own cache entry)."""

import ast

import numpy as np
import pytest

import brickwork as wp


class OneShot:
    """A property that may be read once."""

    def __init__(self):
        self.reads = 0

    @property
    def value(self):
        self.reads += 1
        if self.reads > 1:
            raise RuntimeError("read twice")
        return 3


def test_evaluated_once_at_declaration():
    box = OneShot()

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = wp.static(box.value)

    assert box.reads == 1
    out = wp.zeros(1, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 3 and box.reads == 1


def test_nested_static_evaluated_once():
    calls = []

    def inner():
        calls.append(1)
        return 3.0

    @wp.kernel
    def k(out: wp.array(dtype=float)):
        out[0] = wp.static(1.0 + wp.static(inner()))

    assert len(calls) == 1
    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 4.0 and len(calls) == 1


_alias = wp.static


def test_rebinding_the_static_alias_after_declaration():
    global _alias

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = _alias(7)

    def plain(value):
        return value

    _alias = plain
    try:
        out = wp.zeros(1, dtype=int)
        wp.launch(k, dim=1, inputs=[out])
        assert out.numpy()[0] == 7
    finally:
        _alias = wp.static


def _make(v):
    @wp.kernel
    def scaled(out: wp.array(dtype=float)):
        out[wp.tid()] = wp.static(v * 2.0)

    return scaled


def test_each_declaration_keeps_its_value():
    out = wp.zeros(2, dtype=float)
    for v in (1.0, 2.0, 1.0):
        wp.launch(_make(v), dim=2, inputs=[out])
        np.testing.assert_array_equal(out.numpy(), [2.0 * v, 2.0 * v])


@wp.struct
class Pair:
    a: int
    b: float


def _make_struct_kernel(a):
    @wp.kernel
    def k(out: wp.array(dtype=Pair)):
        out[0] = wp.static(Pair(a, 0.5))

    return k


def test_struct_values_are_part_of_the_cache_key():
    out = wp.zeros(1, dtype=Pair)
    for a in (1, 2):
        wp.launch(_make_struct_kernel(a), dim=1, inputs=[out])
        assert out.numpy()[0][0] == a and out.numpy()[0][1] == 0.5


def test_evaluated_in_source_order():
    counter = {"n": 0.0}

    def bump():
        counter["n"] += 1.0
        return counter["n"]

    @wp.kernel
    def k(out: wp.array(dtype=float)):
        x = wp.static(bump())
        y = wp.static(bump())
        out[0] = x * 10.0 + y

    out = wp.zeros(1, dtype=float)
    wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 12.0


_looped = 10  # a global with the name of a loop variable below


def test_code_transformers_rewrite_the_kernel():
    """``wp.Kernel(code_transformers=...)``: the transformed tree is compiled (and keyed: another rewrite of the
    same function is another instance), and a node placed twice evaluates its ``wp.static`` once per place."""
    bumps = {"n": 0.0}

    def bump():
        bumps["n"] += 1.0
        return bumps["n"]

    def raw(out: wp.array(dtype=float)):
        x = wp.static(bump())
        y = 0.0
        out[0] = 10.0 * x + y

    class ReuseValue(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            node.body[1].value = node.body[0].value  # y = wp.static(bump()), the same node object
            return node

    class Scale(ast.NodeTransformer):
        def visit_Constant(self, node):
            return ast.copy_location(ast.Constant(100.0), node) if node.value == 10.0 else node

    out = wp.zeros(1, dtype=float)
    wp.launch(wp.Kernel(raw, code_transformers=[ReuseValue()]), dim=1, inputs=[out])
    assert out.numpy()[0] == 12.0 and bumps["n"] == 2.0
    wp.launch(wp.Kernel(raw, code_transformers=[ReuseValue(), Scale()]), dim=1, inputs=[out])
    assert out.numpy()[0] == 100.0 * 3.0 + 4.0
    wp.launch(wp.Kernel(raw), dim=1, inputs=[out])  # untransformed: y stays 0
    assert out.numpy()[0] == 50.0


def test_a_transformer_that_loses_the_definition_is_an_error():
    def raw(out: wp.array(dtype=float)):
        out[0] = 1.0

    class Drop(ast.NodeTransformer):
        def visit_Module(self, node):
            return None

    with pytest.raises(wp.KernelSyntaxError, match="code transformer of raw did not return"):
        wp.Kernel(raw, code_transformers=[Drop()])


def test_global_wins_over_a_local_outside_its_loop():
    """As in Warp: a static reading a loop variable inside its loop is unrolled; outside it (and where a local
    shadows a global) the global is read at declaration."""

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        for _looped in range(2):
            out[_looped] = wp.static(_looped + 1)
        out[2] = wp.static(_looped + 1)
        _looped = 3
        out[3] = wp.static(_looped)

    out = wp.zeros(4, dtype=int)
    wp.launch(k, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [1, 2, 11, 10])
