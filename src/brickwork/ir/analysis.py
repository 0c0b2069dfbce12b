"""Facts about IR that several stages need: which parameters a function writes, how often each
local is assigned."""

from __future__ import annotations

import weakref

from ..types.arrays import ArrayType
from ..types.scalars import is_scalar_type
from ..types.structs import is_struct_type
from . import nodes as ir
from .walk import any_node, children, walk


def written_params(fn: ir.IRFunction) -> frozenset:
    """Names of ``fn``'s array parameters whose elements it may write: stores, atomics, arrays
    passed to a function that writes them, and locals that alias a parameter."""
    arrays = {name for name, t in fn.params if isinstance(t, ArrayType)}
    return frozenset(name for name, path in written_roots(fn) if not path and name in arrays)


def written_fields(fn: ir.IRFunction) -> frozenset:
    """``(parameter, field path)`` of each array inside a struct parameter, or inside the elements of an
    array-of-structs parameter, whose elements ``fn`` may write (``s.inner.a[i] = v`` gives ``("s", ("inner",
    "a"))``, ``p[j].a[i] = v`` gives ``("p", ("[]", "a"))``), through aliases and calls too."""
    structs = {name for name, t in fn.params
               if is_struct_type(t) or isinstance(t, ArrayType) and is_struct_type(t.dtype)}
    if not structs:  # no struct parameter: nothing to walk for
        return frozenset()
    return frozenset((name, path) for name, path in written_roots(fn) if path and name in structs)


def written_roots(fn: ir.IRFunction, _memo: dict | None = None) -> frozenset:
    """``(parameter, field path)`` of every array ``fn`` may write: path ``()`` for an array parameter,
    the fields leading to it for an array in a struct parameter."""
    memo = {} if _memo is None else _memo
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = frozenset()  # recursion is rejected by typing; this only guards the walk
    sources: dict = {}  # array or struct local -> the roots it may hold
    written: set = set()
    for n in walk(fn.body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal) and _holds_arrays(n.target.type) \
                and _root_path(n.value) is not None:  # b = a, row = a[i], t = s: b aliases a
            sources.setdefault(n.target.name, set()).add(_root_path(n.value))
        elif isinstance(n, ir.IRAssign) and isinstance(_stored_element(n.target), ir.IRArrayElem):
            written.add(_root_path(_stored_element(n.target).array))  # a[i] = v, a[i][0] = v, s.a[i].f = v
        elif isinstance(n, ir.IRCall) and n.op.startswith("atomic_"):
            written.add(_root_path(n.args[0]))
        elif isinstance(n, ir.IRFuncCall):
            inner = written_roots(n.func, memo)
            for (name, _), arg in zip(n.func.params, n.args):
                root = _root_path(arg)
                if root is not None:
                    written.update((root[0], root[1] + path) for inner_name, path in inner if inner_name == name)
    params = {name for name, _ in fn.params}
    frontier, seen = [w for w in written if w is not None], set()
    while frontier:  # follow aliases back to parameters
        name, path = root = frontier.pop()
        if root in seen:
            continue
        seen.add(root)
        frontier.extend((source, prefix + path) for source, prefix in sources.get(name, ()))
    memo[id(fn)] = result = frozenset(root for root in seen if root[0] in params)
    return result


def _holds_arrays(t) -> bool:
    return isinstance(t, ArrayType) or is_struct_type(t)


#: builtins that write some of their arguments where those are local variables (passed by reference): the
#: positions of those arguments. ``hash_grid_query_next(query, index)`` advances ``query`` and stores into
#: ``index``; the random builtins advance their state (an rvalue state is advanced and dropped).
REFERENCE_ARGUMENTS = {"hash_grid_query_next": (0, 1), "bvh_query_next": (0, 1), "mesh_query_next": (0, 1),
                       "mesh_query_aabb_next": (0, 1), "tile_stack_push": (0,), "tile_stack_pop": (0,),
                       "tile_stack_clear": (0,), "tile_query_next": (0,), **{name: (0,) for name in (
    "randi", "randu", "randf", "randn", "poisson", "sample_cdf", "sample_unit_square", "sample_unit_cube",
    "sample_unit_ring", "sample_unit_disk", "sample_triangle", "sample_unit_sphere_surface", "sample_unit_sphere",
    "sample_unit_hemisphere_surface", "sample_unit_hemisphere")}}


def reference_locals(call: ir.IRCall) -> list:
    """The local variables a call of a ``REFERENCE_ARGUMENTS`` builtin writes (none for other calls)."""
    return [call.args[i] for i in REFERENCE_ARGUMENTS.get(call.op, ()) if isinstance(call.args[i], ir.IRLocal)]


def assignment_counts(stmts) -> dict:
    """Local name -> how many statements or calls assign it (assignments, ``for`` loop variables and the
    locals a builtin of ``REFERENCE_ARGUMENTS`` writes)."""
    counts: dict = {}
    for n in walk(stmts):
        target = n.target if isinstance(n, ir.IRAssign) else n.var if isinstance(n, ir.IRFor) else None
        if isinstance(target, ir.IRLocal):
            counts[target.name] = counts.get(target.name, 0) + 1
        elif isinstance(n, ir.IRCall) and n.op in REFERENCE_ARGUMENTS:
            for local in reference_locals(n):
                counts[local.name] = counts.get(local.name, 0) + 1
    return counts


def _stored_element(target):
    """The array element a store's target is part of (itself, or under components and fields)."""
    while isinstance(target, (ir.IRComponent, ir.IRField)):
        target = target.base
    return target


def _root_path(e):
    """(local, field path) an array expression reaches: views stripped, struct fields followed, an element
    of an array of structs as ``"[]"`` (``p[j].a`` gives ``("p", ("[]", "a"))``)."""
    while isinstance(e, ir.IRSubarray) or isinstance(e, ir.IRCall) and e.op == "array_slice":  # views
        e = e.array if isinstance(e, ir.IRSubarray) else e.args[0]
    path: list = []
    while isinstance(e, ir.IRField) or isinstance(e, ir.IRArrayElem) and is_struct_type(e.type):
        path.append(e.name if isinstance(e, ir.IRField) else "[]")
        e = e.base if isinstance(e, ir.IRField) else e.array
        while isinstance(e, ir.IRSubarray) or isinstance(e, ir.IRCall) and e.op == "array_slice":
            e = e.array if isinstance(e, ir.IRSubarray) else e.args[0]
    return (e.name, tuple(reversed(path))) if isinstance(e, ir.IRLocal) else None


#: builtins with an effect: they write memory, advance a random state or a query (passed by reference)
EFFECT_PREFIXES = ("atomic_", "rand", "sample_", "poisson", "hash_grid_query_next", "bvh_query_next",
                   "mesh_query_next", "mesh_query_aabb_next", "volume_store", "volume_sample_index_data")
#: builtins that read memory through an id (a hash grid's tables): not to be evaluated where the program would not
_READS_THROUGH_IDS = ("hash_grid_", "bvh_", "mesh_", "volume_")


def atomic_parts(call: ir.IRCall) -> tuple:
    """(array, indices, operands) of an atomic call: ``atomic_cas`` has two operands (compare, value),
    the others one (value)."""
    arr = call.args[0]
    n = arr.type.ndim
    return arr, call.args[1:1 + n], call.args[1 + n:]


def has_effect(e) -> bool:
    """Whether evaluating expression ``e`` (or the statements of list ``e``) writes memory, advances a
    random state or prints, itself or in a function it calls."""
    return any_node(e, _call_with_effect)


def _call_with_effect(n) -> bool:
    return isinstance(n, ir.IRCall) and n.op.startswith(EFFECT_PREFIXES) \
        or isinstance(n, ir.IRFuncCall) and _function_has_effect(n.func)


def _node_with_effect(n) -> bool:
    return isinstance(n, (ir.IRPrint, ir.IRAtomicAdd)) or isinstance(n, ir.IRAssign) and _writes_memory(n.target) \
        or _call_with_effect(n)


_FUNCTION_EFFECTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # IRFunction -> has an effect


def _function_has_effect(fn) -> bool:
    known = _FUNCTION_EFFECTS.get(fn)
    if known is not None:
        return known
    _FUNCTION_EFFECTS[fn] = False  # recursion is rejected by typing; this only guards the walk
    effect = any_node(fn.body, _node_with_effect)
    _FUNCTION_EFFECTS[fn] = effect
    return effect


def _writes_memory(target) -> bool:
    """Whether storing to ``target`` writes memory (not a local, or a component or field of one)."""
    while isinstance(target, (ir.IRComponent, ir.IRField)):
        target = target.base
    return not isinstance(target, ir.IRLocal)


#: the integer forms of these fault on a zero divisor
_DIVISIONS = frozenset({"div", "mod", "floordiv"})


def cannot_fault(e) -> bool:
    """Whether evaluating expression ``e``, of any type, can neither fault nor have an effect (no memory
    read or write, no integer division, no random state advanced), so code may evaluate it where the
    program would not. Unlike ``speculatable`` it admits composites and every other builtin, costly ones
    too: for moving a value the program computes anyway, not for speculating work it may skip."""
    for n in walk(e):
        if isinstance(n, ir.IRCall):
            if n.op.startswith(EFFECT_PREFIXES) or n.op.startswith(_READS_THROUGH_IDS) or any(
                    isinstance(a.type, ArrayType) for a in n.args):
                return False
            if n.op in _DIVISIONS and not getattr(_scalar(n.type), "is_float", False):
                return False
        elif not isinstance(n, _VALUE_NODES):
            return False
    return True


_VALUE_NODES = (ir.IRConst, ir.IRLocal, ir.IRComponent, ir.IRConstruct, ir.IRCast, ir.IRField, ir.IRTupleGet,
                ir.IRSelect)


def _scalar(t):
    return getattr(t, "_dtype", t)


#: builtins that neither fault nor write on any scalar operands (no integer division, no memory)
SPECULATABLE_OPS = frozenset({
    "logical_and", "logical_or", "logical_not", "gt", "ge", "lt", "le", "eq", "ne", "add", "sub", "mul", "neg",
    "abs", "min", "max", "isfinite", "isnan", "isinf", "where", "select",
    "blend"})  # blend: select_branches' bitwise select (CPU)


def speculatable(e) -> bool:
    """Whether evaluating scalar expression ``e`` can neither fault nor have an effect (locals,
    constants and ``SPECULATABLE_OPS`` over scalars; float division too), so code may evaluate it
    where the program would not."""
    if isinstance(e, (ir.IRLocal, ir.IRConst)):
        return is_scalar_type(e.type)
    if isinstance(e, ir.IRSelect):
        return is_scalar_type(e.type) and all(speculatable(x) for x in (e.cond, e.if_true, e.if_false))
    if isinstance(e, ir.IRCall) and is_scalar_type(e.type) and all(is_scalar_type(a.type) for a in e.args):
        float_div = e.op == "div" and getattr(e.type, "is_float", False)
        return (e.op in SPECULATABLE_OPS or float_div) and all(speculatable(a) for a in e.args)
    return False


def range_query_loop(s: ir.IRWhile):
    """``(query, index)`` of a ``while hash_grid_query_next(query, index): body`` loop that a target may run as
    a loop over each cell's range of candidates: the body does not use the query and leaves the loop only by
    its end (a ``break`` would leave only the loop over a range); else None."""
    cond = s.cond
    if not (isinstance(cond, ir.IRCall) and cond.op == "hash_grid_query_next"
            and all(isinstance(a, ir.IRLocal) for a in cond.args)):
        return None
    query, index = cond.args
    if any(isinstance(n, ir.IRLocal) and n.name == query.name for n in walk(s.body)) or _breaks(s.body):
        return None
    return query, index


def _breaks(stmts) -> bool:
    """Whether a ``break`` in ``stmts`` (not in a loop nested there) leaves the loop that holds them."""
    for st in stmts:
        if isinstance(st, ir.IRBreak):
            return True
        if isinstance(st, (ir.IRFor, ir.IRWhile)):
            continue
        if _breaks([c for c in children(st) if isinstance(c, ir.IRStmt)]):
            return True
    return False
