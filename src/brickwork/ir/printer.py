"""Readable text of the IR (``BRICKWORK_DUMP=ir,passes`` and the golden tests of passes).

    kernel scale[float32](a: array1d[float32], s: float32) grid=1
      i: int32 = tid(0)
      a[i] = mul(a[i], s)

Types show on declarations; expressions print as calls of their builtin or node name.
"""

from __future__ import annotations

import dataclasses

from ..types.arrays import type_name
from . import vocabulary as ir


def tname(t) -> str:
    return "void" if t is None else type_name(t)


def format_function(fn: ir.IRFunction) -> str:
    """The whole function: signature, locals, body."""
    params = ", ".join(f"{n}: {tname(t)}" for n, t in fn.params)
    kind = "kernel" if fn.is_kernel else "func"
    extra = f" grid={fn.tid_dims}" if fn.is_kernel else f" -> {tname(fn.return_type)}"
    lines = [f"{kind} {fn.label or fn.name}({params}){extra}"]
    if fn.index_ranges:
        lines.append("  index ranges " + ", ".join(f"{n} in [{r[0]}, {r[1]}]" for n, r in fn.index_ranges.items()))
    if fn.locals:
        lines.append("  locals " + ", ".join(f"{n}: {tname(t)}" for n, t in fn.locals.items()))
    for name, (dtype, count) in fn.buffers.items():
        lines.append(f"  buffer {name}: {tname(dtype)}[{count}]")
    if fn.gpu_launch is not None:
        lines.append("  gpu launch " + ", ".join(f"{k}={v}" for k, v in fn.gpu_launch.items()))
    lines.extend(format_block(fn.body, 1))
    return "\n".join(lines)


def format_block(stmts, depth: int) -> list[str]:
    out: list[str] = []
    for s in stmts:
        _stmt(s, depth, out)
    return out


def _stmt(s, depth, out):
    pad = "  " * depth
    kind = type(s).__name__
    if isinstance(s, ir.IRAssign):
        out.append(f"{pad}{expr(s.target)} = {expr(s.value)}" + ("  # updates" if s.updates else ""))
    elif isinstance(s, ir.IRExprStmt):
        out.append(f"{pad}{expr(s.expr)}")
    elif isinstance(s, ir.IRIf):
        out.append(f"{pad}if {expr(s.cond)}:")
        out.extend(format_block(s.body, depth + 1))
        if s.orelse:
            out.append(f"{pad}else:")
            out.extend(format_block(s.orelse, depth + 1))
    elif isinstance(s, ir.IRFor):
        tags = (" simd" if s.simd else "") + (" short" if s.short else "") + (
            f" reduce({s.reduction.join}:{s.reduction.acc})" if s.reduction else "")
        out.append(f"{pad}for {s.var.name} in range({expr(s.start)}, {expr(s.stop)}, {expr(s.step)}){tags}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRWhile):
        out.append(f"{pad}while {expr(s.cond)}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, (ir.IRBlock,)):
        out.extend(format_block(s.body, depth))
    elif isinstance(s, ir.IRRegion):
        out.append(f"{pad}region {s.name}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRExitRegion):
        out.append(f"{pad}exit {s.name}")
    elif isinstance(s, ir.IRInteriorSplit):
        box = ", ".join(f"tid({d}) in [{'0' if lo is None else expr(lo)}, {f'dim({d})' if hi is None else expr(hi)})"
                        for d, (lo, hi) in enumerate(zip(s.lower, s.upper)) if lo is not None or hi is not None)
        out.append(f"{pad}split interior {box}:")
        out.extend(format_block(s.interior, depth + 1))
        out.append(f"{pad}boundary:")
        out.extend(format_block(s.boundary, depth + 1))
        if s.gather is not None:
            out.extend(format_block([s.gather], depth))
    elif isinstance(s, ir.IRGather):
        g = s
        out.append(f"{pad}gather offsets in [{g.low}, {g.high}] into {', '.join(w.name for w in g.writes)} "
                   f"(reads {', '.join(r.name for r in g.reads)}):")
        out.extend(format_block(g.body, depth + 1))
        out.append(f"{pad}rim (interior box {', '.join(b.name for b in g.box)}):")
        out.extend(format_block(g.rim, depth + 1))
    elif isinstance(s, ir.IRPush):
        out.append(f"{pad}push({expr(s.value)})")
    elif isinstance(s, ir.IRAtomicAdd):
        out.append(f"{pad}atomic {expr(s.place)} += {expr(s.value)}")
    elif isinstance(s, ir.IRReturn):
        out.append(f"{pad}return" + ("" if s.value is None else f" {expr(s.value)}"))
    elif isinstance(s, ir.IRPrint):
        parts = ", ".join(repr(str(p)) if isinstance(p, str) else expr(p) for p in s.parts)
        out.append(f"{pad}print({parts})")
    elif isinstance(s, ir.IRExpect) and s.aborts:
        out.append(f"{pad}assert {expr(s.left)}{'' if s.enabled else '  (debug mode only)'}")
    elif isinstance(s, ir.IRExpect):
        out.append(f"{pad}expect_{'eq' if s.equal else 'neq'}({expr(s.left)}, {expr(s.right)})")
    elif isinstance(s, ir.IRInlineBody):
        params = ", ".join(f"{p.name}={expr(a)}" for p, a in zip(s.params, s.args))
        out.append(f"{pad}inline {s.name}({params}){' fold' if s.fold else ''}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRTeamLoop):
        out.append(f"{pad}team_loop {s.var.name} in {expr(s.lo)}..{expr(s.hi)} of {expr(s.member)}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRTeamBarrier):
        out.append(f"{pad}team_barrier({'slice' if s.member is None else expr(s.member)})")
    elif isinstance(s, ir.IRLAOuter):
        c = s.config
        red = f" reducer={c.reducer!r}" if c.reducer is not None else ""
        out.append(f"{pad}la.outer[{c.loop}, {c.inner}, backend={c.backend}, ndim={c.ndim}, chunk={c.chunk}{red}] "
                   f"block {s.block.name}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRLAInner):
        names = ", ".join(p.name for p in s.params)
        what = "la.inner_reduce" if s.reduce else "la.inner"
        out.append(f"{pad}{what}[{s.inner}] {names} over slice + {s.halo!r}:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRLAScratch):
        out.append(f"{pad}{s.storage.name} = la.scratch({tname(s.storage.type.dtype)}, dims={s.dims}, "
                   f"halo={s.halo!r})")
    elif isinstance(s, ir.IRLAScratchZero):
        out.append(f"{pad}la.scratch_zero({s.storage.name})")
    elif isinstance(s, ir.IRLAFold):
        loc = "" if s.location is None else " at (" + ", ".join(expr(x) for x in s.location) + ")"
        out.append(f"{pad}la.fold({expr(s.value)}){loc}")
    elif isinstance(s, ir.IRSliceReduction):
        by = " per block" if s.per_block else ""
        out.append(f"{pad}slice_reduction{by} {s.reducer!r} into {s.partials.name}[{expr(s.slice_id)}]:")
        out.extend(format_block(s.body, depth + 1))
    elif isinstance(s, ir.IRGpuBarrier):
        out.append(f"{pad}gpu_barrier({'warp' if s.warp else ''})")
    elif isinstance(s, ir.IRGpuShuffleDown):
        out.append(f"{pad}{expr(s.target)} = shuffle_down({expr(s.source)}, {s.delta})")
    elif isinstance(s, (ir.IRBreak, ir.IRContinue)):
        out.append(pad + kind[2:].lower())
    else:
        out.append(f"{pad}<{kind}>")


def expr(e) -> str:
    """One expression as text."""
    if isinstance(e, ir.IRConst):
        return repr(e.value) if e.type.__name__ in ("int32", "float32", "bool") else f"{e.type.__name__}({e.value!r})"
    if isinstance(e, ir.IRLocal):
        return e.name
    if isinstance(e, ir.IRCall):
        return f"{e.op}{'[nw]' if e.no_wrap else ''}({_args(e.args)})"
    if isinstance(e, ir.IRFuncCall):
        return f"{e.func.label or e.func.name}({_args(e.args)})"
    if isinstance(e, ir.IRCast):
        return f"{tname(e.type)}({expr(e.arg)})"
    if isinstance(e, ir.IRConstruct):
        return f"{tname(e.type)}({_args(e.args)})"
    if isinstance(e, ir.IRArrayElem):
        return f"{expr(e.array)}[{_args(e.indices)}]"
    if isinstance(e, ir.IRSubarray):
        return f"{expr(e.array)}[{_args(e.indices)}, ...]"
    if isinstance(e, ir.IRArrayShape):
        return f"{expr(e.array)}.shape[{e.dim}]"
    if isinstance(e, ir.IRComponent):
        return f"{expr(e.base)}[{_args(e.indices)}]"
    if isinstance(e, ir.IRField):
        return f"{expr(e.base)}.{e.name}"
    if isinstance(e, ir.IRTupleGet):
        return f"{expr(e.base)}.{e.index}"
    if isinstance(e, ir.IRSelect):
        return f"({expr(e.if_true)} if {expr(e.cond)} else {expr(e.if_false)})"
    if isinstance(e, ir.IRTid):
        return f"tid({e.dim})"
    if isinstance(e, ir.IRPackElem):
        where = _args(e.kji) if e.kji is not None else f"mem={expr(e.memory)}"
        slot = f"flux {expr(e.flux_dir)}" if e.flux_dir is not None else f"element {e.element}"
        return f"{expr(e.pack)}[b={expr(e.block)}, var={_var(e.var)}, {slot}, {where}]"
    if isinstance(e, ir.IRPackBound):
        return f"{expr(e.pack)}.{e.which}_bound(b={expr(e.block)}, var#{e.position})"
    if isinstance(e, ir.IRLAViewElem):
        v = e.view
        d = f", dir={expr(v.direction)}" if v.direction is not None else ""
        return f"{v.kind}_view({expr(v.pack)}{d})[var={_var(e.var)}, element {e.element}, {_args(e.point)}]"
    if isinstance(e, ir.IRLAScratchElem):
        return f"{e.storage.name}.scratch[{_args(e.comps + e.point)}]"
    if isinstance(e, ir.IRLAGetKJI):
        return f"get_kji({expr(e.index)})"
    if isinstance(e, ir.IRTeamBegin):
        return f"team_begin({expr(e.arena_bytes)})"
    if isinstance(e, ir.IRTeamScratch):
        return f"team_scratch<{tname(e.type)}>({expr(e.member)}, {_args(e.sizes)})"
    if isinstance(e, ir.IRRawElem):
        return f"raw<{tname(e.type)}>({expr(e.address)})[{expr(e.offset)}]"
    if isinstance(e, ir.IRLocalArray):
        return f"local_array({e.name})"
    if isinstance(e, ir.IRPop):
        return f"pop<{tname(e.type)}>()"
    if isinstance(e, (ir.IRGpuIndex, ir.IRGpuDim)):
        return f"{e.axis}_{'idx' if isinstance(e, ir.IRGpuIndex) else 'dim'}({e.dim})"
    if isinstance(e, ir.IRLaunchExtent):
        return f"launch_dim({e.dim})"
    if isinstance(e, ir.IRSharedBuffer):
        return f"shared<{tname(e.type.dtype)}>({e.name}, {e.count})"
    if isinstance(e, ir.IRGpuArena):
        return f"gpu_arena({expr(e.size)}, shared if <= {e.shared_limit} else global)"
    fields = ", ".join(f"{f.name}={getattr(e, f.name)!r}" for f in dataclasses.fields(e) if f.name != "type")
    return f"<{type(e).__name__} {fields}>"


def _args(items) -> str:
    return ", ".join("default" if a is None else expr(a) for a in items)  # None: a struct field's default


def _var(v: ir.PackVar) -> str:
    return f"#{v.position}+{expr(v.offset)}" if v.position is not None else expr(v.offset)
