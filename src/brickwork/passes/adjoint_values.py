"""adjoint_values: values and their adjoints as IR expressions, shared by the parts of the backward
kernel (``adjoint``) and by ``wp.grad``'s typing rules: which types carry an adjoint, zero values, the
builder ``E`` that the builtins' adjoint rules (``builtins/adjoints.py``) build their results with, and
components and access paths moved onto an adjoint."""

from __future__ import annotations

from .. import ir
from ..builtins.adjoints import is_differentiable_type
from ..builtins.table import resolve
from ..ir.walk import Rewriter, walk
from ..types.arrays import ArrayType
from ..types.composite import is_matrix_type, vector
from ..types.opaque import TupleType
from ..types.scalars import bool_
from ..types.structs import is_struct_type
from .build import i32


def carries_adjoint(t) -> bool:
    """Whether a value of type ``t`` has an adjoint (floats, composites of floats, structs or tuples
    holding one)."""
    if is_differentiable_type(t):
        return True
    if is_struct_type(t):
        return any(carries_adjoint(ft) for _, ft in t._fields)
    if isinstance(t, TupleType):
        return any(carries_adjoint(et) for et in t.types)
    return False


class _Builder:
    """``E`` of the adjoint rules: builtin calls and values, as IR expressions."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args):
            _, t = resolve(name, [a.type for a in args])
            return ir.IRCall(name, list(args), t)

        return call

    @staticmethod
    def type(v):
        return v.type

    @staticmethod
    def const(value, t):
        return ir.IRConst(float(value), t)

    @staticmethod
    def zero(t):
        return zero(t)

    @staticmethod
    def comp(v, i, j=None):
        t = v.type
        if is_matrix_type(t):
            if j is None:
                return ir.IRComponent(v, [i32(i)], vector(t._shape[1], t._dtype))
            return ir.IRComponent(v, [i32(i), i32(j)], t._dtype)
        return ir.IRComponent(v, [i32(i)], t._dtype)

    @staticmethod
    def field(v, name):
        """Field ``name`` of a struct value (a query's result, or its adjoint)."""
        return ir.IRField(v, name, dict(v.type._fields)[name])

    @staticmethod
    def int_const(value):
        """The int32 constant ``value`` (``E.int32(x)`` would be the builtin's cast)."""
        return i32(value)

    @staticmethod
    def make(t, comps):
        return ir.IRConstruct(list(comps), t)

    @staticmethod
    def sel(cond, if_true, if_false):
        return ir.IRSelect(cond, if_true, if_false, if_true.type)

    @staticmethod
    def cast(v, t):
        return v if v.type is t else ir.IRCast(v, t)


E = _Builder()


def zero(t):
    if isinstance(t, ArrayType):
        raise TypeError("arrays have no zero value")
    if is_struct_type(t):
        return ir.IRConstruct([None] * len(t._fields), t)
    if isinstance(t, TupleType):  # an array in a tuple (a wp.ref array's final value) has no adjoint: left empty
        return ir.IRConstruct([None if isinstance(et, ArrayType) else zero(et) for et in t.types], t)
    if hasattr(t, "_shape"):
        n = 1
        for d in t._shape:
            n *= d
        return ir.IRConstruct([ir.IRConst(0, t._dtype)] * n, t)
    return ir.IRConst(False if t is bool_ else 0, t)


def flat_component(v, k):
    """Component ``k`` of the flat (row-major) components of a composite value."""
    t = v.type
    if is_matrix_type(t):
        cols = t._shape[1]
        return ir.IRComponent(v, [i32(k // cols), i32(k % cols)], t._dtype)
    return ir.IRComponent(v, [i32(k)], t._dtype)


def access_path(target):
    """(components/fields from the root outwards, root) of an assignment target."""
    path = []
    while isinstance(target, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
        path.append(target)
        target = target.base
    return list(reversed(path)), target


def rebase(path, base):
    """The access ``path`` (components, fields, tuple items: ``access_path``) applied to
    ``base`` instead of its root (the adjoint of the root, a gradient struct)."""
    for node in path:
        if isinstance(node, ir.IRComponent):
            base = ir.IRComponent(base, node.indices, node.type)
        elif isinstance(node, ir.IRField):
            base = ir.IRField(base, node.name, node.type)
        else:
            base = ir.IRTupleGet(base, node.index, node.type)
    return base


def bind_shared(values: list, new_local, out: list) -> list:
    """``values`` (an adjoint rule's contributions) with every node they use more than once computed
    once, into a local (``new_local(type)``) assigned in ``out`` before them. A rule builds a DAG (a
    value it names is one node wherever it is used); printed as a tree, svd3's rule printed each shared
    matrix product once per use. Only nodes that ``ir.cannot_fault`` are moved: one used in a select's
    branch is then computed before the select."""
    uses: dict = {}
    for v in values:
        if v is not None:
            for n in walk(v):
                uses[id(n)] = uses.get(id(n), 0) + 1
    if all(count == 1 for count in uses.values()):
        return values
    binder = _Binder({k for k, count in uses.items() if count > 1}, new_local, out)
    return [None if v is None else binder.expr(v) for v in values]


class _Binder(Rewriter):
    def __init__(self, shared: set, new_local, out: list):
        self.shared, self.new_local, self.out, self.bound = shared, new_local, out, {}

    def expr(self, e):
        if e is None:
            return None
        found = self.bound.get(id(e))
        if found is not None:
            return found
        rebuilt = super().expr(e)
        if id(e) in self.shared and not isinstance(e, (ir.IRConst, ir.IRLocal)) and ir.cannot_fault(e):
            t = self.new_local(rebuilt.type)
            self.out.append(ir.IRAssign(t, rebuilt))
            self.bound[id(e)] = (rebuilt := t)
        return rebuilt


def summable_parts(t, path: tuple = ()) -> list:
    """(path, type) of each part of a value of type ``t`` that carries an adjoint of its own: ``t`` itself
    when it is a float, vector, matrix, quaternion or transform; else each field of a struct and item of a
    tuple, recursively (field names and item indices make the path; arrays and integers have none)."""
    if is_differentiable_type(t):
        return [(path, t)]
    if is_struct_type(t):
        return [part for name, ft in t._fields for part in summable_parts(ft, (*path, name))]
    if isinstance(t, TupleType):
        return [part for k, et in enumerate(t.types) for part in summable_parts(et, (*path, k))]
    return []


def part_of(value, path: tuple):
    """The part of ``value`` at ``path`` (``summable_parts``): fields and tuple items of it."""
    for step in path:
        t = value.type
        if isinstance(step, str):
            value = ir.IRField(value, step, dict(t._fields)[step])
        else:
            value = ir.IRTupleGet(value, step, t.types[step])
    return value
