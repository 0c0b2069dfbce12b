"""``adjoint_values.bind_shared``: an adjoint rule's contributions are a DAG; every node they use more than
once is computed once into a local before them, unless computing it outside the select that guards it
could trap (an integer division) or read memory."""

from brickwork import ir
from brickwork.passes.adjoint_values import bind_shared
from brickwork.types.arrays import ArrayType
from brickwork.types.scalars import bool_, float64, int32, uint32


def _call(name, args, t=float64):
    return ir.IRCall(name, args, t)


def _binder():
    made, out = [], []

    def new_local(t):
        local = ir.IRLocal(f"s{len(made)}", t)
        made.append(local)
        return local
    return new_local, out


def test_a_shared_product_is_computed_once_and_used_by_both_contributions():
    x, y = ir.IRLocal("x", float64), ir.IRLocal("y", float64)
    prod = _call("mul", [x, y])
    a, b = _call("add", [prod, x]), _call("sub", [prod, y])
    new_local, out = _binder()
    got = bind_shared([a, None, b], new_local, out)
    assert len(out) == 1 and out[0].value.op == "mul" and [v.name for v in out[0].value.args] == ["x", "y"]
    shared = out[0].target
    assert got[1] is None
    assert got[0].op == "add" and got[0].args[0] is shared and got[2].args[0] is shared


def test_nothing_shared_leaves_the_values_as_they_are():
    x = ir.IRLocal("x", float64)
    a = _call("neg", [x])
    new_local, out = _binder()
    assert bind_shared([a], new_local, out) == [a] and out == []


def test_a_shared_integer_division_or_array_read_under_a_select_stays_where_it_is():
    n, m = ir.IRLocal("n", int32), ir.IRLocal("m", int32)
    arr = ir.IRLocal("a", ArrayType(float64, 1))
    cond = ir.IRLocal("c", bool_)
    quotient = _call("div", [n, m], int32)  # m may be 0 where the select does not take this side
    read = ir.IRArrayElem(arr, [quotient], float64)
    guarded = ir.IRSelect(cond, _call("add", [read, read]), ir.IRConst(0.0, float64), float64)
    new_local, out = _binder()
    got = bind_shared([guarded, _call("mul", [read, read])], new_local, out)
    assert out == []  # neither the read nor the division is hoisted
    assert isinstance(got[0].if_true.args[0], ir.IRArrayElem)  # still read inside the select


def test_cannot_fault_admits_composites_and_costly_builtins_but_no_effect_read_or_integer_division():
    from brickwork.types.composite import vector

    v3 = vector(3, float64)
    v, x = ir.IRLocal("v", v3), ir.IRLocal("x", float64)
    n, m = ir.IRLocal("n", int32), ir.IRLocal("m", int32)
    state = ir.IRLocal("state", uint32)
    arr = ir.IRLocal("a", ArrayType(float64, 1))
    assert ir.cannot_fault(_call("sqrt", [_call("div", [_call("length", [v]), x])]))
    assert ir.cannot_fault(_call("mul", [v, x], v3))
    assert not ir.cannot_fault(_call("div", [n, m], int32))
    assert not ir.cannot_fault(_call("mod", [n, m], int32))
    assert not ir.cannot_fault(_call("atomic_add", [arr, n, x]))
    assert not ir.cannot_fault(_call("randf", [state], float64))
    assert not ir.cannot_fault(_call("add", [ir.IRArrayElem(arr, [n], float64), x]))
