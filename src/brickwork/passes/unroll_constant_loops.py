"""unroll_constant_loops: a ``for`` whose trip count is known when the kernel is built becomes copies of its body.

Warp unrolls ``for i in range(N)`` when every bound is a compile-time constant and N is at most the module's
``max_unroll`` (default ``wp.config.max_unroll``, 16), unless the loop has a ``break`` of its own. brickwork
does the same, for the CPU target, on the IR: each copy reads the loop variable's value as a constant (or, where
the body assigns the variable, assigns it first), and the variable holds the last value after the copies, so the
body and the code after the loop see what the rolled loop gives them (``-ffp-contract=off``: the same operations
in the same order, bit for bit). It matters for speed more than for Warp's sake: g++ vectorizes
one loop of a nest, and a short loop over components nested in the loop over cells was the one it picked (a
6-trip loop over primitives cost a hydro stage with one passive scalar 32-44 %); unrolled, the cell loop is the
innermost loop left.

* A ``continue`` of the loop ends its copy: the copy is a region that the continue leaves (as a local
  function's ``return`` leaves its application). A ``break`` of its own keeps the loop rolled, as in Warp.
* Nested loops: each copy of an outer loop unrolls the loops inside it, where the outer variable is a constant
  (``for b in range(a, 4)`` unrolls too, as in Warp); the outer loop counts them, unrolled, in its size.
* Size guard: a loop whose copies would hold more than ``max_nodes`` IR nodes stays rolled. A long body gains
  nothing from losing its loop counter, and g++ schedules and vectorizes a compact loop better than a long
  straight run (hundreds of statements spill registers and dilute the instruction cache); the guard lets
  ``max_unroll`` raised by a user unroll short bodies without multiplying long ones.
* In the code that runs once per point (a kernel's body without the loop abstraction, an ``la.inner`` body,
  a ``par_for_inner`` body) a loop unrolls whatever its trip count when its copies hold at most
  ``max_point_nodes`` IR nodes: rolled, it is the innermost loop of the nest, and g++ 12 vectorizes it (strided,
  a few lanes) instead of the loop over points, which it cannot vectorize around a loop (no outer-loop
  vectorization of such a nest): PLM of 17 components per point ran 3.6x slower rolled than unrolled, 24 and
  32 components 2.7x and 3.4x (1 thread). A long body gains nothing from being rolled there either (16 trips
  of 80 nodes of sin/cos/exp: the same time). Past ``max_unroll`` trips a call of a ``@wp.func`` counts there
  as the nodes of the function it calls (g++ inlines it into every copy): Warp's ray-marching example marches
  128 steps of a signed-distance function of five calls, and its 128 inlined copies took g++ 20-30 s (2.6 s
  rolled) for no faster a render. Elsewhere (an outer body's code once per slice, or the body of a
  loop that stays rolled: a ``while``, a ``for`` of bounds known at run time only, around which the loop over
  points cannot be vectorized anyway) a loop of more than ``max_unroll`` trips stays rolled, as in Warp.
* A function that holds tiles stops unrolling at ``max_function_nodes`` IR nodes in all (``MAX_FUNCTION_NODES``):
  the loops that would take it past stay rolled, for g++ to compile in seconds rather than a minute. In such a
  function a call of a ``@wp.func`` counts as the nodes of the function it calls (g++ inlines it into every
  copy): Warp's tile_mcgp maps a walk of 8 mesh queries over a tile of 128 points, and 128 copies of it kept
  g++ busy for minutes with 2 GB of memory.
* Only the user's sequential loops: the compiler's own vector (``simd``) loops are left as they are, and the
  pass runs before the loop abstraction makes the loops over cells.

The limit is the function's ``max_unroll`` (``IRFunction.max_unroll``, set from the kernel's module options);
``max_unroll = 0`` keeps every loop rolled.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.analysis import assignment_counts
from ..ir.walk import children

#: IR nodes the copies of one loop may hold together (the size guard): a few dozen arithmetic statements
MAX_UNROLLED_NODES = 1200
#: the same for a loop in the code run per point, of any trip count: its copies cost less than the scalar loop
#: over points a rolled loop leaves (PLM of 32 components per point, 1700 nodes: 3.4x faster unrolled)
MAX_POINT_NODES = 4 * MAX_UNROLLED_NODES
#: IR nodes a function that holds tiles may hold once its loops are unrolled (a loop that would take it past this
#: stays rolled): its tile operations are the compiler's loops over 16 x 16 elements, each unrolled into thousands
#: of nodes, and g++'s time grows faster than the function's length (Warp's block Cholesky: 52 000 nodes, 750 kB
#: of C++, 20 s of g++ at -O3, where Warp compiles it in 3 s). Smaller tiled kernels unroll as before (a 16 x 16
#: tile_cholesky and its solve: 8 300 nodes, and 20 % slower rolled).
MAX_FUNCTION_NODES = 12_000
#: statements of a function whose body runs once per slice or team, not per point (la.outer, par_for_inner)
_PER_SLICE = (ir.IRLAOuter, ir.IRTeamLoop)

#: statements a ``continue`` may sit in to be turned into the exit of its copy's region
_PLAIN_BLOCKS = (ir.IRIf, ir.IRBlock, ir.IRRegion)
#: statements whose break/continue belong to a loop of their own
_LOOPS = (ir.IRFor, ir.IRWhile)


@dataclass(frozen=True)
class UnrollConstantLoops:
    name: str = "unroll_constant_loops"
    max_nodes: int = MAX_UNROLLED_NODES
    max_point_nodes: int = MAX_POINT_NODES
    max_function_nodes: int = MAX_FUNCTION_NODES

    needs = ir.IRFor  # (run_passes skips the pass without a loop)

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        limit = fn.max_unroll
        if limit < 1 or not any(_constant_trips(n) is not None for n in ir.walk(fn.body) if isinstance(n, ir.IRFor)):
            return fn  # nothing it could unroll
        per_point = not any(isinstance(n, _PER_SLICE) for n in ir.walk(fn.body))
        tiled = _has_tiles(fn)
        rewriter = _Unroller(limit, self.max_nodes, self.max_point_nodes, per_point, float("inf"), tiled)
        if tiled:
            rewriter.room = self.max_function_nodes - rewriter.size(fn.body)
        out = rewriter.function(fn)
        return out if rewriter.unrolled else fn


def _has_tiles(fn: ir.IRFunction) -> bool:
    """Whether ``fn`` has a tile among its locals or parameters."""
    from ..types.tiles import TileType

    types = [*fn.locals.values(), *(t for _, t in fn.params)]
    return any(isinstance(t, TileType) for t in types)


def _constant_trips(s: ir.IRFor) -> range | None:
    """The values the loop variable takes, when every bound is a constant integer and the loop is a plain one."""
    if s.simd or s.reduction is not None or s.short:
        return None
    bounds = (s.start, s.stop, s.step)
    if not all(isinstance(b, ir.IRConst) and isinstance(b.value, int) and not isinstance(b.value, bool)
               for b in bounds) or s.step.value == 0:
        return None
    return range(s.start.value, s.stop.value, s.step.value)


def _own(stmts, found: list, under_plain: bool = True) -> None:
    """Append to ``found`` the (statement, in plain blocks only) pairs of the break/continue statements in
    ``stmts`` that belong to the loop whose body ``stmts`` is (not to a loop nested in it)."""
    for s in stmts:
        if isinstance(s, (ir.IRBreak, ir.IRContinue)):
            found.append((s, under_plain))
        elif not isinstance(s, _LOOPS):
            plain = under_plain and isinstance(s, _PLAIN_BLOCKS)
            for child in children(s):
                if isinstance(child, ir.IRStmt):
                    _own([child], found, plain)


class _Unroller(ir.Rewriter):
    def __init__(self, limit: int, max_nodes: int, max_point_nodes: int, per_point: bool, room: float,
                 weigh_calls: bool = False):
        self.limit = limit
        self.room = room  # IR nodes a tiled function may still grow by (``max_function_nodes``)
        self.weigh_calls = weigh_calls  # a call of a user function counts as that function's nodes
        self.callee_nodes: dict = {}  # id(IRFunction) -> its nodes, with those of the functions it calls
        self.max_nodes = max_nodes
        self.max_point_nodes = max_point_nodes
        self.per_point = per_point  # the statement being rewritten runs once per point
        self.unrolled = 0
        self.regions = 0

    def r_IRLAInner(self, s):
        return self.point_body(s)

    def r_IRTeamLoop(self, s):
        return self.point_body(s)

    def r_IRFor(self, s: ir.IRFor):
        values = _constant_trips(s)
        if values is None:
            return self.point_body(s) if s.simd else self.rolled_body(s)  # a team's vector loop: once per point
        budget = self.max_point_nodes if self.per_point else self.max_nodes if len(values) <= self.limit else 0
        if not budget:
            return self.copy(s)
        exits: list = []
        _own(s.body, exits)
        if any(isinstance(x, ir.IRBreak) or not plain for x, plain in exits):
            return self.copy(s)  # a break of its own (or a continue inside something other than if/blocks): rolled
        region = None
        if exits:  # a name of its own, taken before loops nested in it take theirs
            self.regions += 1
            region = f"_unroll{self.regions}"
        # the copies read the loop variable's value as a constant (a nested range(a, 4) is constant then), unless
        # the body assigns it: then each copy assigns it first, and reads it
        fixed = not _writes(s.body, s.var.name)
        out: list = []
        size = 0
        room = self.room  # what the copies' own unrolled loops take from it is given back if this one stays rolled
        own = self.size([s])
        # past max_unroll trips (per point only) a call counts as the function g++ inlines into every copy
        weigh = self.weigh_calls or len(values) > self.limit
        for v in values:
            value = ir.IRConst(v, s.var.type)
            body = self.stmts(_Copy(region, s.var.name if fixed else None, value).stmts(s.body))
            size += self.size(body, weigh) + 2
            if size > budget or size - own > room:
                self.room = room
                return self.copy(s)  # the size guards: rolled
            if not fixed:
                out.append(ir.IRAssign(ir.IRLocal(s.var.name, s.var.type), value))
            out.append(ir.IRRegion(region, body) if region else ir.IRBlock(body))
        if fixed and values:  # its value after the loop: the last
            out.append(ir.IRAssign(ir.IRLocal(s.var.name, s.var.type), ir.IRConst(values[-1], s.var.type)))
        self.room = room - (size - own)
        self.unrolled += 1
        return out


    def size(self, stmts, weigh_calls: bool | None = None) -> int:
        """IR nodes of ``stmts``; with ``weigh_calls`` (default: the unroller's), each call of a user function
        adds that function's nodes."""
        weigh = self.weigh_calls if weigh_calls is None else weigh_calls
        count = 0
        for n in ir.walk(stmts):
            count += 1
            if weigh and isinstance(n, ir.IRFuncCall):
                count += self._callee(n.func)
        return count

    def _callee(self, fn) -> int:
        key = id(fn)
        if key not in self.callee_nodes:
            self.callee_nodes[key] = 0  # a recursive call counts once
            self.callee_nodes[key] = self.size(fn.body)
        return self.callee_nodes[key]

    def r_IRWhile(self, s):
        return self.rolled_body(s)

    def rolled_body(self, s):
        """``s``, a loop that stays rolled, rewritten with its body as code that does not run once per point: the
        loop over points has a loop inside it whatever its body's loops do, so unrolling them past ``max_unroll``
        would not leave it innermost for g++ to vectorize; it would only make a long straight run (Warp's
        tile_nbody: 64 interactions of a 64-trip loop inside the loop over tiles, 1.9x the time of the rolled
        loop, 1 thread)."""
        saved, self.per_point = self.per_point, False
        try:
            return self.copy(s)
        finally:
            self.per_point = saved

    def point_body(self, s):
        """``s`` rewritten, its body as code that runs once per point."""
        saved, self.per_point = self.per_point, True
        try:
            return self.copy(s)
        finally:
            self.per_point = saved


def _writes(stmts, name: str) -> bool:
    """Something in ``stmts`` may assign the local ``name`` (an assignment, a loop's variable, a reference argument,
    a parameter a statement binds)."""
    if name in assignment_counts(stmts):
        return True
    for n in ir.walk(stmts):
        if isinstance(n, ir.IRAssign) and any(isinstance(t, ir.IRLocal) and t.name == name for t in ir.walk(n.target)):
            return True  # a component or field of it
        bound = [getattr(n, f, None) for f in ("var", "block")] + list(getattr(n, "params", None) or ())
        if isinstance(n, ir.IRStmt) and any(isinstance(b, ir.IRLocal) and b.name == name for b in bound):
            return True
    return False


class _Copy(ir.Rewriter):
    """A fresh copy of a loop body (no node shared between copies): its own ``continue`` statements leave
    ``region`` instead (those of nested loops stay), and reads of the local ``name`` are ``value``."""

    def __init__(self, region: str | None, name: str | None, value: ir.IRConst):
        self.region = region
        self.name = name
        self.value = value

    def r_IRLocal(self, e: ir.IRLocal):
        return ir.IRConst(self.value.value, self.value.type) if e.name == self.name else self.copy(e)

    def r_IRContinue(self, s: ir.IRContinue):
        return ir.IRExitRegion(self.region) if self.region else self.copy(s)

    def r_IRFor(self, s):
        return _Copy(None, self.name, self.value).copy(s)  # its continue statements are its own

    def r_IRWhile(self, s):
        return _Copy(None, self.name, self.value).copy(s)
