"""adjoint_activity: the locals of a normal form that no differentiable input reaches (*inactive* locals).

A local is *active* when a value it holds may depend on a kernel parameter (its arrays, values, structs),
or on something the analysis does not follow (an atomic's result, a native function, a builtin that
reads arrays behind an id): the backward kernel keeps adjoints for those only. An inactive local (a
table of constants: ``tile_fft``'s twiddle factors, a loop's counters turned into floats, a random
draw) has an adjoint that would stay zero, and the adjoints it would pass on reach only other inactive
locals, so the reverse sweep leaves it out: no adjoint local, no adjoint arithmetic, and a loop that
assigns nothing active is replayed, not recorded or reversed (``adjoint.py``). The gradients that
reach the arrays and parameters are bit for bit the ones computed without the analysis.

The analysis ignores the order of statements (a local assigned from an active value anywhere is
active everywhere): it only ever answers "inactive" where no assignment can carry a dependence. A local
array (a tile, a fixed-size array) and the views of it are one value: a store through either into the
other makes both active. Kernels with loop-abstraction or team statements are not analysed (every local
is active there).
"""

from __future__ import annotations

from .. import ir
from ..builtins.adjoints import ARRAY_ADJOINT_OPS
from ..builtins.bvh import GRADIENT_STRUCTS
from ..ir.analysis import REFERENCE_ARGUMENTS, reference_locals
from ..types.arrays import ArrayType
from .adjoint_inline import IRCustomAdjoint
from .adjoint_tiles import tile_with_adjoint
from .adjoint_values import access_path, carries_adjoint

#: expressions whose value depends only on their operands (the locals they mention)
_PLAIN = (ir.IRConst, ir.IRLocal, ir.IRCall, ir.IRCast, ir.IRConstruct, ir.IRArrayElem, ir.IRSubarray,
          ir.IRArrayShape, ir.IRComponent, ir.IRField, ir.IRTupleGet, ir.IRSelect, ir.IRTid)


def inactive_locals(fn: ir.IRFunction) -> frozenset:
    """The locals of the normal form ``fn`` that no parameter reaches (see the module's docstring)."""
    deps: dict = {}  # local -> the locals its assignments read
    active: set = {name for name, _ in fn.params}
    if not _collect(fn.body, deps, active):
        return frozenset()
    users: dict = {}
    for name, used in deps.items():
        for u in used:
            users.setdefault(u, set()).add(name)
    todo = list(active)
    while todo:
        for name in users.get(todo.pop(), ()):
            if name not in active:
                active.add(name)
                todo.append(name)
    return frozenset(n for n in fn.locals if n not in active)


def _collect(stmts: list, deps: dict, active: set) -> bool:
    """Record what the assignments of ``stmts`` read; False where a statement is not followed (the kernel is
    not analysed)."""
    for s in stmts:
        if isinstance(s, ir.IRAssign):
            _assignment(s, deps, active)
        elif isinstance(s, ir.IRExprStmt):  # an atomic or a call writing locals: its locals are one value
            _together(_mentioned(s.expr), deps)
            _writes_arguments(s.expr, deps, active)
        elif isinstance(s, ir.IRIf):
            if not (_collect(s.body, deps, active) and _collect(s.orelse, deps, active)):
                return False
        elif isinstance(s, (ir.IRFor, ir.IRWhile)):
            if not _collect(s.body, deps, active):
                return False
        elif isinstance(s, IRCustomAdjoint):  # the user's gradient code: every local it touches is active
            active.update(_mentioned(s))
        elif not isinstance(s, (ir.IRBreak, ir.IRPrint)):
            return False
    return True


def _assignment(s: ir.IRAssign, deps: dict, active: set) -> None:
    root = access_path(s.target)[1]
    if isinstance(root, ir.IRArrayElem):
        root = root.array
    read = _mentioned(s.value)
    _writes_arguments(s.value, deps, active)
    if not isinstance(root, ir.IRLocal):
        return  # a store into a parameter's array, a view: the reverse sweep keeps it
    if _is_source(s.value):
        active.add(root.name)
    if isinstance(root.type, ArrayType):  # a local array or a view of one: one value with what it views
        _together({root.name, *(n for n in read if _array_local(n, s.value))}, deps)
    deps.setdefault(root.name, set()).update(read)


def _writes_arguments(value, deps: dict, active: set) -> None:
    """A call that writes locals it is given: a builtin's reference arguments (a random state, a tile stack
    a value is pushed onto) take their values from the call's operands; a native function's wp.ref
    parameters may take them from anything (they are active)."""
    for n in ir.walk(value):
        if isinstance(n, ir.IRFuncCall):
            active.update(_mentioned(n))
        elif isinstance(n, ir.IRCall) and n.op in REFERENCE_ARGUMENTS:
            used = _mentioned(n)
            for written in reference_locals(n):
                deps.setdefault(written.name, set()).update(used)


def _array_local(name: str, value) -> bool:
    return any(isinstance(n, ir.IRLocal) and n.name == name and isinstance(n.type, ArrayType) for n in ir.walk(value))


def _together(names: set, deps: dict) -> None:
    """Make ``names`` active together (any one active makes every one active)."""
    for n in names:
        deps.setdefault(n, set()).update(names - {n})


def _mentioned(node) -> set:
    return {n.name for n in ir.walk(node) if isinstance(n, ir.IRLocal)}


def _is_source(value) -> bool:
    """Whether ``value`` may depend on more than the locals it mentions."""
    for n in ir.walk(value):
        if not isinstance(n, _PLAIN):
            return True
        if isinstance(n, ir.IRCall) and (n.op.startswith("atomic_") or n.op in ARRAY_ADJOINT_OPS
                                         or n.op in GRADIENT_STRUCTS):
            return True
    return False


def reverses_nothing(stmts: list, inactive: frozenset) -> bool:
    """Whether the reverse sweep of ``stmts`` is empty: they assign (as a whole, a part or an element)
    only inactive locals and locals without an adjoint, store into no parameter's array and apply no
    atomic. Such a loop is replayed, never recorded or reversed. Anything unknown answers False."""
    for s in stmts:
        if isinstance(s, ir.IRAssign):
            if isinstance(s.value, ir.IRCall) and s.value.op.startswith("atomic_"):
                return False
            root = access_path(s.target)[1]
            if isinstance(root, ir.IRArrayElem):
                root = root.array
            if not isinstance(root, ir.IRLocal):
                return False
            if root.name in inactive:
                continue
            if root is not s.target or carries_adjoint(root.type) or tile_with_adjoint(root):
                return False
        elif isinstance(s, ir.IRIf):
            if not (reverses_nothing(s.body, inactive) and reverses_nothing(s.orelse, inactive)):
                return False
        elif isinstance(s, (ir.IRFor, ir.IRWhile)):
            if not reverses_nothing(s.body, inactive):
                return False
        elif not isinstance(s, ir.IRBreak):
            return False
    return True
