"""The typed tree: what the frontend produces and codegen renders.

Node classes carry an ``IR`` prefix so they are never confused with Python's ``ast`` nodes.
Every expression has a concrete ``type`` (a kernel-language type object); statements have none.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class IRExpr:
    type: object


@dataclass(eq=False)
class IRConst(IRExpr):
    value: object
    type: object


@dataclass(eq=False)
class IRLocal(IRExpr):
    name: str
    type: object


@dataclass(eq=False)
class IRCall(IRExpr):
    """A builtin call; ``op`` names the builtin, ``spelling`` comes from its table entry."""

    op: str
    args: list
    type: object
    spelling: str | None = None


@dataclass(eq=False)
class IRFuncCall(IRExpr):
    """A call of a user function instance."""

    func: object  # FunctionInstanceIR
    args: list
    type: object


@dataclass(eq=False)
class IRCast(IRExpr):
    arg: IRExpr
    type: object


@dataclass(eq=False)
class IRConstruct(IRExpr):
    """A vector, matrix, quaternion or struct built from its components or fields."""

    args: list
    type: object


@dataclass(eq=False)
class IRArrayElem(IRExpr):
    array: IRExpr
    indices: list
    type: object


@dataclass(eq=False)
class IRArrayShape(IRExpr):
    array: IRExpr
    dim: int
    type: object


@dataclass(eq=False)
class IRComponent(IRExpr):
    """``v[i]`` of a vector or quaternion, ``m[i, j]`` of a matrix (indices are expressions)."""

    base: IRExpr
    indices: list
    type: object


@dataclass(eq=False)
class IRField(IRExpr):
    base: IRExpr
    name: str
    type: object


@dataclass(eq=False)
class IRTupleGet(IRExpr):
    base: IRExpr
    index: int
    type: object


@dataclass(eq=False)
class IRSelect(IRExpr):
    cond: IRExpr
    if_true: IRExpr
    if_false: IRExpr
    type: object


@dataclass(eq=False)
class IRRawElem(IRExpr):
    """Element ``offset`` of a ``type`` buffer at address ``address`` (an int64): pack storage."""

    address: IRExpr
    offset: IRExpr
    type: object


@dataclass(eq=False)
class IRTid(IRExpr):
    """Index of the current thread along one launch dimension (int32)."""

    dim: int
    type: object


# -- statements --------------------------------------------------------------------------------


class IRStmt:
    pass


@dataclass(eq=False)
class IRAssign(IRStmt):
    target: IRExpr
    value: IRExpr


@dataclass(eq=False)
class IRExprStmt(IRStmt):
    expr: IRExpr


@dataclass(eq=False)
class IRIf(IRStmt):
    cond: IRExpr
    body: list
    orelse: list


@dataclass(eq=False)
class IRFor(IRStmt):
    var: IRLocal
    start: IRExpr
    stop: IRExpr
    step: IRExpr
    body: list
    step_sign: int = 1  # +1 or -1 when the step is a compile-time constant, 0 if unknown
    simd: bool = False  # iterations are independent (an inner loop of nested parallelism)
    reduction: str | None = None  # an OpenMP simd reduction clause, e.g. "+:v__la_acc"


@dataclass(eq=False)
class IRWhile(IRStmt):
    cond: IRExpr
    body: list


@dataclass(eq=False)
class IRBreak(IRStmt):
    pass


@dataclass(eq=False)
class IRContinue(IRStmt):
    pass


@dataclass(eq=False)
class IRBlock(IRStmt):
    """Statements in sequence (what one source statement expanded into)."""

    body: list


@dataclass(eq=False)
class IRLabel(IRStmt):
    """The end of an inlined function body; its ``return`` statements jump here."""

    name: str


@dataclass(eq=False)
class IRGoto(IRStmt):
    name: str


@dataclass(eq=False)
class IRReturn(IRStmt):
    value: IRExpr | None


@dataclass(eq=False)
class IRPrint(IRStmt):
    """Print ``parts`` (strings and expressions) separated by ``sep``, then a newline."""

    parts: list
    sep: str = " "
    newline: bool = True


@dataclass(eq=False)
class IRExpect(IRStmt):
    """``expect_eq``/``expect_neq``: print ``message`` with both values when the check fails."""

    equal: bool
    left: IRExpr
    right: IRExpr
    message: str


@dataclass(eq=False)
class TupleType:
    """The type of several values returned together (``tid()`` of 2+ dims, multiple returns)."""

    types: tuple

    def __hash__(self):
        return hash(self.types)

    def __eq__(self, other):
        return isinstance(other, TupleType) and other.types == self.types

    @property
    def __name__(self):
        return "tuple[" + ", ".join(getattr(t, "__name__", repr(t)) for t in self.types) + "]"


@dataclass(eq=False)
class IRFunction:
    """A concrete kernel or function: parameters, locals and body, ready for codegen."""

    name: str  # unique C identifier
    params: list  # [(name, type)]
    locals: dict  # name -> type (declared at the top)
    body: list
    return_type: object = None
    is_kernel: bool = False
    tid_dims: int = 1
    simd_innermost: bool = True  # False when the body has simd loops of its own (par_for_outer)
    callees: list = field(default_factory=list)  # IRFunction of functions called, in dependency order
    structs: list = field(default_factory=list)  # struct types used
    label: str = ""  # readable name with types, for logs
