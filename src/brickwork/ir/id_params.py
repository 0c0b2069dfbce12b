"""Which ``uint64`` parameters of a kernel are ids of a mesh, a BVH, a hash grid or a volume.

A parameter counts when it is passed, unchanged, as the first argument of a builtin of the family
(``mesh_*``, ``bvh_*``, ``hash_grid_*``, ``volume_*``), in the kernel or in a ``wp.func`` it calls with the
parameter. The launch checks that such an argument is the id of a live object of the kind
(``runtime/live_ids``); a parameter used for two kinds, or never passed to a query, is not checked.
"""

from __future__ import annotations

from ..types.scalars import uint64
from . import nodes as ir
from .walk import walk

#: builtin name prefix -> the kind of object its first argument is the id of
_FAMILIES = (("mesh_", "mesh"), ("bvh_", "bvh"), ("hash_grid_", "hash_grid"), ("volume_", "volume"))


def id_params(fn: ir.IRFunction) -> list:
    """``[param position, kind, builtin]`` (the first builtin it is passed to) for each ``uint64`` parameter of
    ``fn`` used as the id of one kind of object, in parameter order."""
    uses = _uses(fn, {})
    out = []
    for i, (name, t) in enumerate(fn.params):
        kinds = uses.get(name, {})
        if t is uint64 and len(kinds) == 1:
            (kind, op), = kinds.items()
            out.append([i, kind, op])
    return out


def _uses(fn: ir.IRFunction, memo: dict) -> dict:
    """param name -> {kind: builtin} for the unchanged ``uint64`` parameters of ``fn`` passed as ids."""
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = {}  # a call cycle (refused by the frontend) ends here
    reassigned = {n.target.name for n in walk(fn.body)
                  if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal)}
    reassigned |= {n.var.name for n in walk(fn.body) if isinstance(n, ir.IRFor)}
    params = {name for name, t in fn.params if t is uint64 and name not in reassigned}
    uses: dict = {}
    for node in walk(fn.body):
        if isinstance(node, ir.IRCall) and node.args and _is_param(node.args[0], params):
            kind = next((k for prefix, k in _FAMILIES if node.op.startswith(prefix)), None)
            if kind is not None:
                uses.setdefault(node.args[0].name, {}).setdefault(kind, node.op)
        elif isinstance(node, ir.IRFuncCall):
            inner = _uses(node.func, memo)
            for (callee_param, _), arg in zip(node.func.params, node.args):
                if _is_param(arg, params):
                    for kind, op in inner.get(callee_param, {}).items():
                        uses.setdefault(arg.name, {}).setdefault(kind, op)
    memo[id(fn)] = uses
    return uses


def _is_param(e, params: set) -> bool:
    return isinstance(e, ir.IRLocal) and e.name in params
