"""Typing rules of nested parallelism: ``par_for_inner``, team members, ``ScratchPad1D/2D/3D``.

``par_for_inner(member, lo, hi, fn)`` runs ``fn(i)`` for ``lo <= i <= hi`` inside one team;
``fn`` is a nested ``def`` or a ``lambda``, typed at the call (``Typer.inline_local``). A team's
``ScratchPad1D/2D/3D`` are arrays cut from the team's arena; ``team_barrier()`` orders producer
and consumer loops. Each becomes its own IR node (``IRTeamLoop``, ``IRTeamScratch``,
``IRTeamBarrier``); how a team maps onto threads is the target's choice.
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import FUNCTIONS
from ..errors import KernelTypeError, KernelValueError
from ..types.arrays import ArrayType, type_name
from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int32, python_annotation_type
from .expressions import LocalFunction, Static
from .intrinsics import INTRINSICS
from .limits import INDEX_LIMIT

SCRATCH_PADS = {"ScratchPad1D": 1, "ScratchPad2D": 2, "ScratchPad3D": 3}


class MemberMethod:
    """``member.team_barrier`` / ``member.team_scratch`` before the call."""

    def __init__(self, member, name):
        self.member = member
        self.name = name


def _member_attribute(typer, base, attr, node):
    if attr in ("team_barrier", "team_scratch"):
        return Static(MemberMethod(base, attr))
    raise typer.error(KernelTypeError, f"a team member has no attribute '{attr}' (it has team_barrier, "
                      f"team_scratch)", node)


def _call_member_method(typer, method: MemberMethod, node):
    if method.name == "team_scratch":
        level = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if level is None or isinstance(level, ast.Constant) and (type(level.value) is not int or
                                                               level.value not in (0, 1)):
            raise typer.error(KernelTypeError, f"team_scratch(level) takes the scratch level, 0 or 1 (Kokkos's two "
                              f"levels), got team_scratch({', '.join(ast.unparse(a) for a in node.args)})", node)
        return method.member  # one arena per team; the scratch level only matters on GPUs
    raise typer.error(KernelTypeError, "team_barrier() is a statement and has no value", node)


def _member_statement(typer, method: MemberMethod, node):
    if method.name != "team_barrier":
        return None
    if node.args or node.keywords:
        raise typer.error(KernelTypeError, "team_barrier() takes no arguments", node)
    return ir.IRTeamBarrier(method.member)


def _scratch_pad(typer, f, node):
    name = f.name
    ndim = SCRATCH_PADS[name]
    if len(node.args) != ndim + 2 or node.keywords:
        raise typer.error(KernelTypeError, f"{name}(member, dtype, {', '.join(f'n{d}' for d in range(ndim))}) "
                          f"takes {ndim + 2} arguments", node)
    member = typer.value(node.args[0])
    if member.type is not TEAM_MEMBER:
        raise typer.error(KernelTypeError, f"{name}: the first argument must be the team member, got "
                          f"{type_name(member.type)}", node)
    dtype = python_annotation_type(typer.static_value(node.args[1]))
    sizes = [typer.value(a) for a in node.args[2:]]
    for s in sizes:
        if not getattr(s.type, "is_int", False):
            raise typer.error(KernelTypeError, f"{name}: sizes must be integers, got {type_name(s.type)}", node)
        if isinstance(s, ir.IRConst) and s.value < 0:  # it ran as an empty pad whose shape said the negative size
            raise typer.error(KernelValueError, f"{name}: sizes must not be negative, got "
                              f"{tuple(getattr(n, 'value', '?') for n in sizes)}", node)
    return ir.IRTeamScratch(member, sizes, ArrayType(dtype, ndim))


def _par_for_inner(typer, f, node) -> ir.IRStmt:
    """``par_for_inner(member, lo, hi, fn)``: an inclusive team loop with ``fn`` applied per index."""
    if len(node.args) in (6, 8) and not node.keywords:  # Parthenon's 2-D and 3-D forms
        raise typer.error(KernelTypeError, f"par_for_inner takes one range, (member, lo, hi, fn), not "
                          f"{len(node.args) // 2 - 1} (Parthenon's 2-D or 3-D form): loop over the outer "
                          f"indices around it, 'for j in range(jl, ju + 1):' with a par_for_inner over i inside", node)
    if len(node.args) != 4 or node.keywords:
        raise typer.error(KernelTypeError, "par_for_inner(member, lo, hi, fn) takes 4 arguments", node)
    member = typer.value(node.args[0])
    if member.type is not TEAM_MEMBER:
        raise typer.error(KernelTypeError, f"par_for_inner: the first argument must be the team member, got "
                          f"{type_name(member.type)}", node)
    lo, hi = typer.value(node.args[1]), typer.value(node.args[2])
    for bound in (lo, hi):
        if bound.type is not int32:
            raise typer.error(KernelTypeError, f"par_for_inner: bounds must be int32, got "
                              f"{type_name(bound.type)}", node)
        # as par_for's ranges: the loop stops at hi + 1, which wraps around past 2**31 - 1 (no iteration ran)
        if isinstance(bound, ir.IRConst) and not -INDEX_LIMIT <= bound.value <= INDEX_LIMIT:
            raise typer.error(KernelValueError, f"par_for_inner: bound {bound.value} reaches beyond +-2**30, the "
                              f"index range of loop bodies", node)
    fn = typer.static_value(node.args[3])
    if not isinstance(fn, LocalFunction) or len(fn.params) != 1:
        raise typer.error(KernelTypeError, "par_for_inner: the body must be a nested def or lambda taking "
                          "one index", node)
    body = typer.inline_local(fn, [int32], node)
    refuse_barrier_inside(typer, [body], "a par_for_inner body", node)
    return ir.IRTeamLoop(member, body.args[0], lo, hi, [body])


def refuse_barrier_inside(typer, body: list, where: str, node) -> None:
    """Refuse a ``team_barrier()`` in ``body``, a loop whose iterations the team's threads share out: on a GPU
    not every thread reaches it (a thread may have no iteration), which hangs or breaks the block (the emulation
    target ran on and wrote a quarter of the cells)."""
    if ir.contains(body, ir.IRTeamBarrier):
        raise typer.error(KernelTypeError, f"team_barrier() inside {where}: its iterations are shared out among the "
                          f"team's threads, so not every thread reaches the barrier (on a GPU the block hangs or "
                          f"misbehaves); put the barrier between the loops", node)


def _local_function_call(typer, f, node):
    raise typer.error(KernelTypeError, f"local function '{f.name}' can only be used as loop bodies "
                      f"(par_for_inner, la.inner); define a @func to call it", node)


def _bind_member(typer, name, _option, out):
    """The team member parameter of a ``par_for_outer`` body: a fresh team per outer index."""
    arena = ir.IRLocal("_bw_scratch", typer.symbols.type_of("_bw_scratch"))
    out.append(ir.IRAssign(typer.declare(name, TEAM_MEMBER, typer.source.tree), ir.IRTeamBegin(arena, TEAM_MEMBER)))


INTRINSICS.register_type(lambda t: t is TEAM_MEMBER, value_attribute=_member_attribute)
INTRINSICS.register(MemberMethod, call=_call_member_method, statement=_member_statement)
INTRINSICS.register(LocalFunction, call=_local_function_call)
INTRINSICS.register(FUNCTIONS["par_for_inner"], statement=_par_for_inner)
for _name in SCRATCH_PADS:
    INTRINSICS.register(FUNCTIONS[_name], call=_scratch_pad)
INTRINSICS.bindings["member"] = _bind_member
