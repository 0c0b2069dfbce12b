"""The typed, target-neutral IR: what typing produces, what passes rewrite, what targets render.

Node classes carry an ``IR`` prefix so they are never confused with Python's ``ast`` nodes.
Every expression has a concrete ``type`` (a kernel-language type object); statements have none.
Control flow is structured: loops, ifs, and regions that a statement may leave early (the
``return`` of an inlined body). Calls name a builtin by id; ``select_builtins`` attaches a
target's implementation to ``IRCall.impl`` as the last pass, nothing before it does.

Constructs of the loop abstraction, mesh packs and nested parallelism (``IRLA*``, ``IRPack*``, ``IRTeam*``)
have their own module (``loop_abstraction_nodes``), as have the nodes of the GPU mapping (``gpu_nodes``); the
package (``brickwork.ir``) offers all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class IRExpr:
    type: object


class IRStmt:
    pass


# -- expressions ---------------------------------------------------------------------------------


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
    """A builtin call; ``op`` is the builtin's id. ``impl`` stays None until ``select_builtins``.

    Integer arithmetic of the user wraps around on overflow; ``no_wrap`` says this call's result
    cannot overflow (the compiler's own index arithmetic, or proved by ``prove_no_overflow``), so
    a target may use operations whose overflow it need not define."""

    op: str
    args: list
    type: object
    impl: object = None
    no_wrap: bool = False
    where: str = ""  # "file:line" of an atomic's array access (bounds checks report it)
    checked: bool = False  # an atomic whose array access is bounds-checked (debug mode)


@dataclass(eq=False)
class IRFuncCall(IRExpr):
    """A call of a user function instance."""

    func: object  # IRFunction
    args: list
    type: object


@dataclass(eq=False)
class IRCast(IRExpr):
    arg: IRExpr
    type: object


@dataclass(eq=False)
class IRConstruct(IRExpr):
    """A vector, matrix, quaternion, struct or tuple built from its components or fields."""

    args: list
    type: object


@dataclass(eq=False)
class IRArrayElem(IRExpr):
    array: IRExpr
    indices: list
    type: object
    where: str = ""  # "file:line" of the access in the user's code ("" for the compiler's own)
    checked: bool = False  # bounds-checked (debug mode, ``check_bounds``)


@dataclass(eq=False)
class IRSubarray(IRExpr):
    """``a[i]`` of an array with more dimensions than indices: a view of the remaining ones."""

    array: IRExpr
    indices: list
    type: object  # ArrayType(dtype, ndim - len(indices))
    where: str = ""
    checked: bool = False


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
    """Element ``offset`` (int64) of a ``type`` buffer at ``address`` (int64): lowered pack storage."""

    address: IRExpr
    offset: IRExpr
    type: object
    bounds: list = field(default_factory=list)  # [index, extent, index, extent, ...] in its storage (checks)
    where: str = ""
    checked: bool = False


@dataclass(eq=False)
class IRTid(IRExpr):
    """Index of the current grid point along one launch dimension (int32)."""

    dim: int
    type: object


@dataclass(eq=False)
class IRLocalArray(IRExpr):
    """A fixed-size array local to one thread (``IRFunction.buffers`` declares its storage)."""

    name: str
    type: object  # ArrayType(dtype, 1)


# -- statements ----------------------------------------------------------------------------------


@dataclass(eq=False)
class IRAssign(IRStmt):
    target: IRExpr
    value: IRExpr
    # the store updates its place in place: the value is computed from what the place held (a wp.ref[T]
    # argument's write-back), so the backward kernel moves an array element's adjoint to the value
    # rather than copying it (a plain array store leaves the element's adjoint, as Warp's do)
    updates: bool = False


@dataclass(eq=False)
class IRExprStmt(IRStmt):
    expr: IRExpr


@dataclass(eq=False)
class IRIf(IRStmt):
    cond: IRExpr
    body: list
    orelse: list


@dataclass(frozen=True)
class SimdReduction:
    """Iterations of a simd loop fold into ``acc`` with ``join`` (sum, prod, min or max)."""

    join: str
    acc: str  # name of the accumulator local


@dataclass(eq=False)
class IRFor(IRStmt):
    var: IRLocal
    start: IRExpr
    stop: IRExpr
    step: IRExpr
    body: list
    step_sign: int = 1  # +1 or -1 when the step is a compile-time constant, 0 if unknown
    simd: bool = False  # iterations are independent (inner loops of nested parallelism, la rows)
    reduction: SimdReduction | None = None
    # a row of a block whose rows are short (la ``rows="short"``): a few vectors long, where the
    # scalar remainder of wide vectors costs more than their width gains (a CPU target hint)
    short: bool = False
    # the user's range with a step other than +-1: its counter may step past the type's end before the
    # loop ends (the compiler's own loops stay within +-2**30, see frontend/limits.py)
    wide: bool = False


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
class IRRegion(IRStmt):
    """Statements that ``IRExitRegion(name)`` may leave early (an inlined body's ``return``)."""

    name: str
    body: list


@dataclass(eq=False)
class IRExitRegion(IRStmt):
    name: str


@dataclass(eq=False)
class IRReturn(IRStmt):
    value: IRExpr | None


@dataclass(eq=False)
class IRInteriorSplit(IRStmt):
    """The rest of a kernel's body in two versions (index-set splitting of a guarded launch).

    ``interior`` runs at grid points where, for every launch dimension ``d`` with a bound,
    ``lower[d] <= tid(d) < upper[d]`` (int64 bounds, ``None`` for no bound, evaluated once per
    launch: they read only constants, parameters and array shapes); ``boundary``, the original
    statements, runs everywhere else and is right everywhere. Only the last statement of a kernel.
    """

    lower: list
    upper: list
    interior: list
    boundary: list
    gather: "IRGather | None" = None  # the interior's gather form (passes/adjoint_gather.py), CPU only
    # the boundary version assigns only locals at the grid points outside a box that is not empty (the
    # guard's box is exact: its test fails there), so a target may skip those points
    idle_outside: bool = False


@dataclass(eq=False)
class IRGather(IRStmt):
    """A backward kernel's interior in gather (transposed-stencil) form, beside its scatter form.

    Every adjoint write of the interior is ``adj_X[tid + d] += e``. Each point ``q = tid()`` of the box the
    writes reach from the interior box ``I`` sums what they send it, ``adj_X[q] += sum of e at tid = q - d``,
    one store per written array (``passes/adjoint_gather.py``): ``body`` over the gather box ``G`` (``tid(k)``
    in ``[lo[k] + high[k], hi[k] + low[k])``, ``lo``/``hi`` the bounds of ``I`` in the launch, ``low``/``high``
    the least and greatest write offsets per dimension), where every ``q - d`` is in ``I``; ``rim`` over the
    rest of ``[lo[k] + low[k], hi[k] + high[k])``, each contribution under the test that ``q - d`` is in
    ``I`` (its bounds: the int32 locals ``box``, lower and upper per dimension, set by the target). The
    target runs the scatter form instead when a written array (``writes``) may overlap an array the
    gather reads (``reads``) or another written one. ``clears`` (``adj_Y[tid + c] = 0``: the adjoints of the
    elements the forward kernel stored, which the gather reads at other points) run over ``I`` after
    everything else.
    """

    low: list
    high: list
    body: list
    rim: list
    box: list
    writes: list
    reads: list
    clears: list = field(default_factory=list)


class Format(str):
    """A printf format string (printed as is, with the values substituted)."""


@dataclass(eq=False)
class IRPrint(IRStmt):
    """Print ``parts`` (strings, a ``Format`` and expressions) separated by ``sep``."""

    parts: list
    sep: str = " "
    newline: bool = True


@dataclass(eq=False)
class IRExpect(IRStmt):
    """``expect_eq``/``expect_neq``: print ``message`` with both values when the check fails.

    An ``assert`` (``aborts``) checks that ``left`` (a bool) holds; when it does not, ``message`` goes
    to stderr and the process aborts. Asserts are checked in debug mode only: typing makes them
    ``enabled=False`` and ``check_bounds`` (the debug pass) enables them."""

    equal: bool
    left: IRExpr
    right: IRExpr
    message: str
    aborts: bool = False
    enabled: bool = True


@dataclass(eq=False)
class IRNative(IRStmt):
    """C++ text of a ``wp.func_native`` function, the body of its ``IRFunction``: rendered as written, with
    each of ``names`` (its parameters and adjoint locals) bound to the local of that name."""

    text: str
    names: list
    origin: str = ""  # the Python function that gave the text, "name (file:line)", named in the C++ above it


@dataclass(eq=False)
class IRInlineBody(IRStmt):
    """A local function (nested ``def`` or ``lambda``) typed for one call site, applied to ``args``.

    Inside ``body`` a ``return`` ends this application only; with ``fold`` (an ``inner_reduce``
    body) ``return value`` folds the value into the slice's accumulator. ``inline_local_functions``
    turns this into assignments and an ``IRRegion``.
    """

    name: str  # unique among the function's inlined bodies
    params: list  # [IRLocal]
    args: list  # [IRExpr]
    body: list
    fold: bool = False


# -- reverse-mode autodiff (passes/adjoint.py) -----------------------------------------------------


@dataclass(eq=False)
class IRPush(IRStmt):
    """Save ``value`` on the thread's tape stack (a loop's carried values and trip count)."""

    value: IRExpr


@dataclass(eq=False)
class IRAtomicAdd(IRStmt):
    """``place += value`` as one atomic update (``place``: an array, scratch or view element). Backward
    kernels accumulate with it where several threads may add into the same element."""

    place: IRExpr
    value: IRExpr


@dataclass(eq=False)
class IRPop(IRExpr):
    """The value last pushed (of ``type``), taken off the thread's tape stack."""

    type: object


# -- functions -----------------------------------------------------------------------------------


@dataclass(eq=False)
class IRFunction:
    """A concrete kernel or function: parameters, locals and body."""

    name: str  # unique identifier in the translation unit
    params: list  # [(name, type)]
    locals: dict  # name -> type (declared at the top)
    body: list
    return_type: object = None
    is_kernel: bool = False
    tid_dims: int = 1
    simd_innermost: bool = True  # False when the body has simd loops of its own
    callees: list = field(default_factory=list)  # IRFunction of functions called, callees first
    label: str = ""  # readable name with types, for logs
    buffers: dict = field(default_factory=dict)  # name -> (dtype, count) of IRLocalArray storage
    # int32 locals whose values the launch keeps within [lo, hi] while they are assigned only by their
    # binding: name -> (lo, hi, number of binding assignments in the typed IR); loop-body and la indices
    index_ranges: dict = field(default_factory=dict)
    # A backward kernel whose adjoint scatters all land within this many rows of tid(0) (plain adds,
    # no atomics): the target must never run two grid points closer than that in dimension 0 at once.
    scatter_radius: int | None = None
    # A @func with @wp.func_grad / @wp.func_replay: the typed gradient and replay functions (the adjoint
    # pass uses them instead of differentiating or replaying this function's body).
    custom_grad: object = None
    custom_replay: object = None
    # A wp.func_native function (its body is one IRNative): the IRFunction of its adjoint snippet, which takes
    # its parameters and the result's adjoint and returns its parameters' adjoints (None: no adjoint snippet)
    native_adjoint: object = None
    # GPU-mapped kernels: how to launch them (``meta["gpu_launch"]``, docs/architecture.md); None otherwise
    gpu_launch: dict | None = None
    # A @func's inline hint (``@wp.func(inline=...)``): True forces inlining, False keeps the function out of
    # line, None leaves the choice to the target
    inline: bool | None = None
    # A @func with wp.ref[T] parameters: (its own result type or None, the names of those parameters). It
    # returns a tuple of its result (when it has one) and their final values, which the caller stores back.
    reference_result: tuple | None = None
    # The longest loop with constant bounds the target unrolls (the module option ``max_unroll``: Warp's, default 16)
    max_unroll: int = 16


