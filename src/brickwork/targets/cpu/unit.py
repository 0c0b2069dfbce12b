"""The CPU target: one C++ translation unit per kernel instance, with OpenMP loops.

A launch of ``D`` dimensions becomes ``D`` nested loops (no division or modulo per element):
the outer loops run in parallel (``collapse`` over all but the innermost) when the launch is
large enough, the innermost is ``#pragma omp simd``. Arguments are copied to locals. The body
is instantiated twice: with unit innermost array strides (vectorizable) and general strides.
"""

from __future__ import annotations

from ... import ir
from ...frontend.tile_structs import accumulates
from ...types.arrays import ArrayType
from ...types.fixed_arrays import FixedArrayType
from ...types.opaque import TupleType
from ...types.structs import is_struct_type
from . import BOUNDS_SYMBOL, ENTRY_SYMBOL
from .builtins import CPU_HEADERS
from .cnames import c_name, c_type, generated_name
from .dead_locals import drop_dead_locals
from .render import CppRenderer, local


def render_translation_unit(kernel: ir.IRFunction, callees: list, label: str, general_strides: bool = False) -> str:
    """C++ source of one kernel instance and every function and struct it reaches; with only the
    unit-stride body unless ``general_strides`` (see ``_entry``)."""
    kernel = drop_dead_locals(kernel)  # a backward kernel's replayed values that reach nothing
    scan = UnitScan([*callees, kernel])
    r = CppRenderer()
    out = [f"// brickwork kernel instance {label}", '#include "brickwork.h"', *scan.includes, "namespace {", ""]
    out.extend(struct_declarations(scan))
    for fn in callees:
        out.extend(_function(r, fn, id(fn) in scan.taped))
    out.extend(_kernel(r, kernel, id(kernel) in scan.taped))
    out.append("}  // namespace")
    out.extend(_entry(kernel, scan.slices_arrays, general_strides))
    if scan.checked:
        out += [f'extern "C" BW_EXPORT int {BOUNDS_SYMBOL}(char* out, int size) {{',
                "    return bw::take_bounds_error(out, size);", "}"]
    return "\n".join(out) + "\n"


class UnitScan:
    """What a translation unit needs to know of its functions, from one walk of each body (the
    renderers of the CPU, CUDA and emulation targets share it):

    - ``includes``: the ``#include`` lines of builtin families kept out of brickwork.h that they call;
    - ``types``: the struct and tuple types they reach, dependencies first (C++ declaration order);
    - ``slices_arrays``: whether one takes a slice of an array (a view of any innermost stride);
    - ``checked``: whether an access is bounds-checked (debug mode), or a slice's runtime step tested;
    - ``atomic_structs``: the struct types an ``atomic_add`` updates, with the structs nested in them,
      dependencies first (each gets a ``struct_atomic_add``);
    - ``taped``: ids of the functions that push onto a tape (a backward kernel whose loops save values)."""

    __slots__ = ("includes", "types", "slices_arrays", "checked", "atomic_structs", "taped")

    def __init__(self, functions: list):
        headers: set = set()
        atomic: set = set()
        self.types: list = []
        self.slices_arrays = self.checked = False
        self.taped: set = set()
        note, seen = self._note, set()
        for fn in functions:
            for _, t in fn.params:
                note(t)
            for t in fn.locals.values():
                note(t)
            note(fn.return_type)
            for node in ir.walk(fn.body):
                t = getattr(node, "type", None)
                if t is not None and id(t) not in seen:
                    seen.add(id(t))  # a type object met again adds nothing (most nodes share a few)
                    note(t)
                if type(node) is ir.IRCall:
                    if node.op in CPU_HEADERS:
                        headers.add(CPU_HEADERS[node.op])
                    elif node.op == "array_slice":
                        self.slices_arrays = True
                        self.checked = self.checked or bool(node.where)  # a runtime step: a zero one is recorded
                    elif node.op == "atomic_add" and is_struct_type(node.type):
                        atomic.add(node.type)
                elif type(node) is ir.IRPush:
                    self.taped.add(id(fn))
                if not self.checked and getattr(node, "checked", False):
                    self.checked = True
        self.includes = [f'#include "{h}"' for h in sorted(headers)]
        for t in list(atomic):  # a nested struct's fields are added by its own function
            atomic.update(_nested_structs(t))
        self.atomic_structs = [t for t in self.types if t in atomic]

    def _note(self, t) -> None:
        if (is_struct_type(t) or isinstance(t, TupleType)) and t not in self.types:
            for ft in (t.types if isinstance(t, TupleType) else [ft for _, ft in t._fields]):
                self._note(ft)
            self.types.append(t)
        elif isinstance(t, ArrayType):
            self._note(t.dtype)


def struct_declarations(scan: "UnitScan") -> list[str]:
    """The structs and tuples a unit reaches, then the atomic adds of those it updates atomically (the CPU,
    CUDA and emulation units alike)."""
    out = []
    for t in scan.types:
        out.extend(_struct_decl(t))
    for t in scan.atomic_structs:
        out.extend(struct_atomic_add(t))
    return out


def _struct_decl(t) -> list[str]:
    name = generated_name(t)
    if isinstance(t, ir.TupleType):
        fields = [f"    {c_type(ft)} f{i};" for i, ft in enumerate(t.types)]
        return [f"struct {name} {{", *fields, "};", ""]
    if not is_struct_type(t):
        return []
    fields = [f"    {c_type(ft)} {c_name('m', n)};" for n, ft in t._fields]
    return [f"struct {name} {{", *fields, "};", ""]


def struct_atomic_add(t) -> list[str]:
    """``struct_atomic_add`` of a struct (``tile_atomic_add`` of a tile of structs; the renderers call it for
    an ``atomic_add`` of a struct element), as Warp's: each field that accumulates (``tile_structs.accumulates``)
    atomically, a nested struct's field by field, the others left as they are; the old value. An overload
    beside the struct (not in namespace bw, which a batch of units would then shadow)."""
    name = generated_name(t)
    adds = [f"    old.{m} = {'struct_atomic_add' if is_struct_type(ft) else 'bw::atomic_add'}(&p->{m}, v.{m});"
            for m, ft in ((c_name("m", n), ft) for n, ft in t._fields) if accumulates(ft)]
    return [f"BW_INLINE {name} struct_atomic_add({name}* p, {name} v) {{", f"    {name} old = *p;", *adds,
            "    return old;", "}", ""]


def _nested_structs(t) -> list:
    found = []
    for _, ft in t._fields:
        if is_struct_type(ft):
            found += [ft, *_nested_structs(ft)]
    return found


def _assigned_before_use(fn: ir.IRFunction) -> set:
    """Fixed-size local arrays (tiles) that a statement of the body's top level assigns whole before any
    statement names them: their first value is never read, so they are declared without zeroing (a tile op's
    buffers are zeroed where they are made: zeroing each declaration too took a tenth of tile_fft's launch)."""
    if not any(isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal)
               and isinstance(s.target.type, FixedArrayType) for s in fn.body):
        return set()  # no candidate: the walks below would find none
    if ir.contains(fn.body, ir.IRNative):  # C++ text names locals the walk does not see
        return set()
    seen, found = set(), set()
    for s in fn.body:
        names = {n.name for n in ir.walk(s) if isinstance(n, ir.IRLocal)}
        target = s.target if isinstance(s, ir.IRAssign) else None
        if (isinstance(target, ir.IRLocal) and isinstance(target.type, FixedArrayType) and target.name not in seen
                and not any(isinstance(n, ir.IRLocal) and n.name == target.name for n in ir.walk(s.value))):
            found.add(target.name)
        seen |= names
    return found


def _locals(fn: ir.IRFunction, indent: int, taped: bool) -> list[str]:
    """The declarations of ``fn``'s locals; ``taped``: it pushes onto a tape (``UnitScan.taped``)."""
    assigned = _assigned_before_use(fn)
    lines = [" " * indent + f"{c_type(t)} {local(n)}{'' if n in assigned else '{}'};" for n, t in fn.locals.items()]
    if taped:  # a backward kernel whose loops save values (passes/adjoint.py)
        lines.append(" " * indent + "bw::tape_stack bw_tape;")
    lines += [" " * indent + f"bw::local_buf<{c_type(dtype)}, {count}> {local(n)}{{}};"
              for n, (dtype, count) in fn.buffers.items()]
    return lines


def _function(r: CppRenderer, fn: ir.IRFunction, taped: bool) -> list[str]:
    params = ", ".join(f"{c_type(t)} {local(n)}" for n, t in fn.params)
    # functions inline by default (a kernel's calls cost nothing); @func(inline=False) keeps one out of line
    attribute = "static __attribute__((noinline))" if fn.inline is False \
        else "static inline __attribute__((always_inline))"
    head = f"template <bool UNIT> {attribute} {c_type(fn.return_type)} "
    lines = [f"// {fn.label}", head + f"{fn.name}({params}) {{"]
    lines += _locals(fn, 4, taped)
    lines += r.begin(fn).block(fn.body, 4)
    lines += ["}", ""]
    return lines


def _kernel(r: CppRenderer, fn: ir.IRFunction, taped: bool) -> list[str]:
    dims = fn.tid_dims
    params = [(local(n), c_type(t)) for n, t in fn.params]
    split = fn.body[-1] if fn.body and isinstance(fn.body[-1], ir.IRInteriorSplit) else None
    # The body is a function taking the arguments by value: assignments to a parameter stay
    # local to one thread, as in Python, and after inlining the copies live in registers.
    sig = ", ".join([f"{t} {n}" for n, t in params] + [f"int32_t tid{d}" for d in range(dims)])
    lines: list[str] = []
    if split is not None:
        lines += ["// a bound of the interior box (int64, from the guard's expressions) clamped to [lo, hi]",
                  "static inline int32_t clamp_extent(int64_t x, int32_t lo, int32_t hi) {",
                  "    return (int32_t)(x < lo ? lo : (x > hi ? hi : x));", "}", ""]
    gather = split.gather if split is not None else None
    if gather is not None:
        lines += _OVERLAP_HELPERS
    bodies = [("body", fn.body, "", [])] if split is None else [
        ("body", fn.body[:-1] + split.boundary, "", []), ("body_interior", fn.body[:-1] + split.interior, "", [])]
    if gather is not None:
        # the gather bodies are whole (their slices copy what they need of the statements before the split);
        # the rim's tests read the interior box's bounds, passed in
        box = "".join(f", int32_t b{k}" for k in range(len(gather.box)))
        bodies += [("body_gather", gather.body, "", []),
                   ("body_rim", gather.rim, box, [f"    {local(b.name)} = b{k};" for k, b in enumerate(gather.box)])]
        if gather.clears:
            bodies.append(("body_clear", gather.clears, "", []))
    for name, stmts, extra, setup in bodies:
        lines += ["template <bool UNIT>", f"static inline __attribute__((always_inline)) void {name}({sig}{extra}) {{"]
        lines += _locals(fn, 4, taped)
        lines += setup
        lines += r.begin(fn).block(stmts, 4)
        lines += ["}", ""]
    lines += ["struct Args {"]
    lines += [f"    {t} {n};" for n, t in params] or ["    char unused;"]
    # a kernel over short rows prefers narrower vectors (see BW_SHORT_ROWS in brickwork.h); the
    # attribute goes on the function its loops are inlined into
    short = "BW_SHORT_ROWS " if any(isinstance(n, ir.IRFor) and n.short for n in ir.walk(fn.body)) else ""
    lines += ["};", "", "template <bool UNIT>", f"{short}static void run(const bw::launch_header& h, const Args& a) {{"]
    lines += [f"    {t} {n} = a.{n};" for n, t in params]
    # int32 counters (launch checks each extent fits): the index then evolves affinely, which
    # the vectorizer needs; a counter cast from int64 to int32 would not.
    lines += [f"    const int32_t n{d} = (int32_t)h.dim[{d}];" for d in range(dims)]
    args = ", ".join([n for n, _ in params] + [f"t{d}" for d in range(dims)])
    # firstprivate: each thread works on its own copies of the arguments (loop-invariant locals).
    private = f" firstprivate({', '.join(n for n, _ in params)})" if params else ""
    omp = f"if(parallel: h.parallel) num_threads(h.nthreads){private}"
    if split is not None:
        lines += _interior_box(r, split, dims)
        if gather is not None:
            lines += _gather_loops(gather, dims, args, omp)
        lines += _phased_split_loops(fn, dims, args, omp, gather) if fn.scatter_radius is not None else \
            _split_loops(fn, dims, args, omp)
        if gather is not None and gather.clears:
            lines += _clear_loops(r, gather, dims, args, omp)
        lines += ["}", ""]
        return lines
    call = f"body<UNIT>({args});"
    if fn.scatter_radius is not None:
        lines += _phased_loops(fn, dims, call, omp)
        lines += ["}", ""]
        return lines
    omp = omp.replace("num_threads(h.nthreads)", "num_threads(h.nthreads) schedule(static)")
    inner_simd = "    #pragma omp simd" if fn.simd_innermost else ""
    if dims == 1:
        lines.append(f"    #pragma omp parallel for{' simd' if fn.simd_innermost else ''} {omp}")
        lines.append(f"    for (int32_t t0 = 0; t0 < n0; ++t0) {call}")
    else:
        # Without an innermost simd loop (loop bodies with simd loops of their own) every grid
        # dimension is shared among the threads; with one, all but the innermost.
        outer = dims if not fn.simd_innermost else dims - 1
        # a launch of more dimensions than tid() gives indices (pipeline: the rankN variant): the trailing loops
        # repeat a point, and all of a point's repeats run in one thread, as Warp's CPU runs them
        repeated = getattr(fn, "repeated_dims", 0)
        if repeated:
            outer = max(1, min(outer, dims - repeated))
        collapse = f" collapse({outer})" if outer > 1 else ""
        lines.append(f"    #pragma omp parallel for{collapse} {omp}")
        for d in range(dims):
            pad = "    " + "    " * d
            if d == dims - 1 and inner_simd:
                lines.append(pad + inner_simd.strip())
            head = f"for (int32_t t{d} = 0; t{d} < n{d}; ++t{d})"
            lines.append(pad + head + (f" {call}" if d == dims - 1 else ""))
    lines += ["}", ""]
    return lines


def _phased_loops(fn: ir.IRFunction, dims: int, call: str, omp: str) -> list[str]:
    """A backward kernel's grid when its adjoint scatters (plain adds) reach ``scatter_radius`` rows
    around tid(0): dimension 0 in chunks of at least 2 * radius + 1 rows, even chunks in parallel,
    then odd ones, so no two threads ever add into one element. No simd: neighbouring points of
    one row may add into the same elements, unless the adjoint pass found that every scatter indexes a
    dimension with the innermost index (``simd_innermost``): then the innermost loop is a simd loop."""
    radius = fn.scatter_radius
    lines = ["    const int32_t nt = h.parallel ? (h.nthreads > 0 ? h.nthreads : 1) : 1;",
             "    int64_t chunk = ((int64_t)n0 + 2 * nt - 1) / (2 * nt);",
             f"    if (chunk < {2 * radius + 1}) chunk = {2 * radius + 1};",
             "    const int64_t nchunks = ((int64_t)n0 + chunk - 1) / chunk;",
             "    for (int phase = 0; phase < 2; ++phase) {",
             f"        #pragma omp parallel for {omp} schedule(static, 1)",
             "        for (int64_t c = phase; c < nchunks; c += 2) {",
             "            const int32_t lo = (int32_t)(c * chunk);",
             "            const int32_t hi = (int32_t)((c + 1) * chunk < n0 ? (c + 1) * chunk : n0);"]
    pad = "            "
    simd = "#pragma omp simd"
    if dims == 1 and fn.simd_innermost:
        lines.append(pad + simd)
    lines.append(pad + "for (int32_t t0 = lo; t0 < hi; ++t0)" + (f" {call}" if dims == 1 else ""))
    for d in range(1, dims):
        pad += "    "
        if d == dims - 1 and fn.simd_innermost:
            lines.append(pad + simd)
        lines.append(pad + f"for (int32_t t{d} = 0; t{d} < n{d}; ++t{d})" + (f" {call}" if d == dims - 1 else ""))
    lines += ["        }", "    }"]
    return lines


def _phased_split_loops(fn: ir.IRFunction, dims: int, args: str, omp: str, gather=None) -> list[str]:
    """A split backward kernel with ``scatter_radius``: the phases of ``_phased_loops`` twice, first
    over the interior box's points (``body_interior``, simd innermost loop when allowed), then over
    the others (``body``, no simd). The boundary version may add atomically where the interior adds
    plainly (``passes/adjoint_wrap.py``): a plain add never runs beside an atomic one. When the gather
    form ran (``use_gather``, ``_gather_loops``), it did the interior's work: only the other points run,
    and none where they would only assign locals (``IRInteriorSplit.idle_outside``)."""
    radius = fn.scatter_radius
    boundary, interior = f"body<UNIT>({args});", f"body_interior<UNIT>({args});"
    # after the gather: the boundary's points, unless they only assign locals (``idle_outside``)
    first_pass = "0" if gather is None else "use_gather ? 2 : 0" if fn.body[-1].idle_outside else "use_gather ? 1 : 0"
    lines = ["    const int32_t nt = h.parallel ? (h.nthreads > 0 ? h.nthreads : 1) : 1;",
             "    int64_t chunk = ((int64_t)n0 + 2 * nt - 1) / (2 * nt);",
             f"    if (chunk < {2 * radius + 1}) chunk = {2 * radius + 1};",
             "    const int64_t nchunks = ((int64_t)n0 + chunk - 1) / chunk;",
             f"    for (int pass = {first_pass}; pass < 2; ++pass) {{",
             "    for (int phase = 0; phase < 2; ++phase) {",
             f"        #pragma omp parallel for {omp} schedule(static, 1)",
             "        for (int64_t c = phase; c < nchunks; c += 2) {",
             "            const int32_t c_lo = (int32_t)(c * chunk);",
             "            const int32_t c_hi = (int32_t)((c + 1) * chunk < n0 ? (c + 1) * chunk : n0);",
             "            const int32_t in_lo = c_lo > lo0 ? c_lo : lo0;",
             "            const int32_t in_hi = c_hi < hi0 ? c_hi : hi0;",
             "            if (pass == 0) {"]
    pad = "                "
    lines += _interior_rows(fn, dims, interior, pad)
    lines.append("            } else {")
    if dims == 1:
        lines += [pad + f"for (int32_t t0 = c_lo; t0 < (c_hi < lo0 ? c_hi : lo0); ++t0) {boundary}",
                  pad + f"for (int32_t t0 = (c_lo > hi0 ? c_lo : hi0); t0 < c_hi; ++t0) {boundary}"]
    else:
        last = dims - 1
        lines.append(pad + "for (int32_t t0 = c_lo; t0 < c_hi; ++t0) {")
        for d in range(1, last):
            lines.append(pad + "    " * d + f"for (int32_t t{d} = 0; t{d} < n{d}; ++t{d}) {{")
        inner = pad + "    " * last
        inside = " && ".join(f"t{d} >= lo{d} && t{d} < hi{d}" for d in range(last))
        lines += [inner + f"if ({inside}) {{",
                  inner + f"    for (int32_t t{last} = 0; t{last} < lo{last}; ++t{last}) {boundary}",
                  inner + f"    for (int32_t t{last} = hi{last}; t{last} < n{last}; ++t{last}) {boundary}",
                  inner + "} else {",
                  inner + f"    for (int32_t t{last} = 0; t{last} < n{last}; ++t{last}) {boundary}",
                  inner + "}"]
        for d in range(last - 1, -1, -1):
            lines.append(pad + "    " * d + "}")
    lines += ["            }", "        }", "    }", "    }"]
    return lines


def _interior_rows(fn: ir.IRFunction, dims: int, call: str, pad: str) -> list[str]:
    """The interior box's points of one chunk of rows ``[in_lo, in_hi)``."""
    simd = [pad + "    " * (dims - 1) + "#pragma omp simd"] if fn.simd_innermost else []
    if dims == 1:
        return simd + [pad + f"for (int32_t t0 = in_lo; t0 < in_hi; ++t0) {call}"]
    lines = [pad + "for (int32_t t0 = in_lo; t0 < in_hi; ++t0)"]
    for d in range(1, dims):
        if d == dims - 1:
            lines += simd
        lines.append(pad + "    " * d + f"for (int32_t t{d} = lo{d}; t{d} < hi{d}; ++t{d})"
                     + (f" {call}" if d == dims - 1 else ""))
    return lines


#: Whether two arrays' elements may share memory (their byte spans intersect): the gather form of a
#: backward kernel runs only when no array it writes may overlap one it reads or another it writes.
_OVERLAP_HELPERS = [
    "// the bytes an array's elements occupy, [lo, hi) (lo == hi: none)",
    "template <class T, int D>",
    "static inline void byte_span(const bw::array_t<T, D>& a, uintptr_t& lo, uintptr_t& hi) {",
    "    int64_t first = 0, last = 0;",
    "    for (int d = 0; d < D; ++d) {",
    "        if (a.shape[d] <= 0) { lo = hi = 0; return; }",
    "        const int64_t reach = (a.shape[d] - 1) * a.strides[d];",
    "        if (reach < 0) first += reach; else last += reach;",
    "    }",
    "    lo = (uintptr_t)a.data + (uintptr_t)(first * (int64_t)sizeof(T));",
    "    hi = (uintptr_t)a.data + (uintptr_t)((last + 1) * (int64_t)sizeof(T));",
    "}",
    "",
    "template <class T, int D, class U, int E>",
    "static inline bool may_overlap(const bw::array_t<T, D>& a, const bw::array_t<U, E>& b) {",
    "    uintptr_t alo, ahi, blo, bhi;",
    "    byte_span(a, alo, ahi);",
    "    byte_span(b, blo, bhi);",
    "    return alo < ahi && blo < bhi && alo < bhi && blo < ahi;",
    "}",
    "",
]


def _gather_loops(gather: ir.IRGather, dims: int, args: str, omp: str) -> list[str]:
    """The gather form's loop, before the phases: over the box ``[rlo, rhi)`` that the writes reach from
    the interior box ``[lo, hi)``, ``body_gather`` inside the gather box ``[glo, ghi)`` (clamped into it),
    ``body_rim`` elsewhere; each point adds into its own elements only, so all run at once. It runs
    (``use_gather``) when the interior box is not empty and no written array may overlap another array
    the gather touches."""
    lines = ["    // the gather form (passes/adjoint_gather.py): each point q sums the contributions of the",
             "    // interior points q - d, for every write offset d"]
    for d in range(dims):
        low, high = gather.low[d], gather.high[d]
        lines += [f"    const int64_t rlo{d} = {_plus(f'(int64_t)lo{d}', low)};",
                  f"    const int64_t rhi{d} = {_plus(f'(int64_t)hi{d}', high)};",
                  f"    const int64_t glo{d} = bw::min(bw::max({_plus(f'(int64_t)lo{d}', high)}, rlo{d}), rhi{d});",
                  f"    const int64_t ghi{d} = bw::min(bw::max({_plus(f'(int64_t)hi{d}', low)}, glo{d}), rhi{d});"]
    names = [local(a.name) for a in gather.writes]
    others = names + [local(a.name) for a in gather.reads]
    tests = [f"lo{d} < hi{d} && rlo{d} >= INT32_MIN && rhi{d} <= INT32_MAX" for d in range(dims)]
    tests += [f"!may_overlap({a}, {b})" for i, a in enumerate(names) for b in others[i + 1:]]
    lines.append(f"    const bool use_gather = {' && '.join(tests)};")
    box = ", ".join(f"lo{d}, hi{d}" for d in range(dims))
    inner, rim = f"body_gather<UNIT>({args});", f"body_rim<UNIT>({args}, {box});"
    omp = omp.replace("num_threads(h.nthreads)", "num_threads(h.nthreads) schedule(static)")
    last = dims - 1

    def span(pad, start, stop, call, simd=False):
        return ([pad + "#pragma omp simd"] if simd else []) + [
            pad + f"for (int32_t t{last} = (int32_t){start}; t{last} < (int32_t){stop}; ++t{last}) {call}"]

    lines.append("    if (use_gather) {")
    if dims == 1:
        lines += [f"        #pragma omp parallel {omp.replace(' schedule(static)', '')}", "        {"]
        for start, stop, call in (("rlo0", "glo0", rim), ("glo0", "ghi0", inner), ("ghi0", "rhi0", rim)):
            lines.append(f"            #pragma omp for{' simd' if call is inner else ''} schedule(static) nowait")
            lines.append(f"            for (int32_t t0 = (int32_t){start}; t0 < (int32_t){stop}; ++t0) {call}")
        lines.append("        }")
    else:
        loops, pad = _parallel_outer_loops(dims, omp, lambda d: (f"(int32_t)rlo{d}", f"(int32_t)rhi{d}"), "        ")
        lines += loops
        inside = " && ".join(f"t{d} >= glo{d} && t{d} < ghi{d}" for d in range(last))
        lines.append(pad + f"if ({inside}) {{")
        lines += span(pad + "    ", f"rlo{last}", f"glo{last}", rim)
        lines += span(pad + "    ", f"glo{last}", f"ghi{last}", inner, simd=True)
        lines += span(pad + "    ", f"ghi{last}", f"rhi{last}", rim)
        lines.append(pad + "} else {")
        lines += span(pad + "    ", f"rlo{last}", f"rhi{last}", rim)
        lines.append(pad + "}")
        lines.append(pad[:-4] + "}")
    lines.append("    }")
    return lines


def _clear_loops(r: CppRenderer, gather: ir.IRGather, dims: int, args: str, omp: str) -> list[str]:
    """After the gather form and the phases: the interior points clear the adjoints of the elements they
    stored (``body_clear``), now that no point reads them any more (the gather read them at other points);
    not at all when the launch keeps every one of those adjoints (their tests read only ``_bw_keep``)."""
    omp = omp.replace("num_threads(h.nthreads)", "num_threads(h.nthreads) schedule(static)")
    call = f"body_clear<UNIT>({args});"
    tests = [r.expr(c.cond) for c in gather.clears if isinstance(c, ir.IRIf)]
    wanted = "" if len(tests) < len(gather.clears) else " && (" + " || ".join(tests) + ")"
    lines = [f"    if (use_gather{wanted}) {{"]
    if dims == 1:
        lines += [f"        #pragma omp parallel for {omp}", f"        for (int32_t t0 = lo0; t0 < hi0; ++t0) {call}"]
    else:
        loops, pad = _parallel_outer_loops(dims, omp, lambda d: (f"lo{d}", f"hi{d}"), "        ")
        lines += loops + [pad + f"for (int32_t t{dims - 1} = lo{dims - 1}; t{dims - 1} < hi{dims - 1}; ++t{dims - 1}) "
                                f"{call}", pad[:-4] + "}"]
    return lines + ["    }"]


def _plus(x: str, c: int) -> str:
    return x if c == 0 else f"{x} + {c}" if c > 0 else f"{x} - {-c}"


def _interior_box(r: CppRenderer, split: ir.IRInteriorSplit, dims: int) -> list[str]:
    """``lo<d>``/``hi<d>``: the interior box of the launch, clamped to the grid (possibly empty)."""
    lines = []
    for d in range(dims):
        lo, hi = split.lower[d], split.upper[d]
        lo_text = "0" if lo is None else f"clamp_extent({r.expr(lo)}, 0, n{d})"
        hi_text = f"n{d}" if hi is None else f"clamp_extent({r.expr(hi)}, lo{d}, n{d})"
        lines += [f"    const int32_t lo{d} = {lo_text};", f"    const int32_t hi{d} = {hi_text};"]
    return lines


def _split_loops(fn: ir.IRFunction, dims: int, args: str, omp: str) -> list[str]:
    """Loops of a split launch: the interior box runs ``body_interior`` (no guard), the rest ``body``.

    The innermost dimension of each row splits into [0, lo), [lo, hi), [hi, n): the interior part
    is a simd loop without the guard; rows outside the box run the guarded body throughout.
    """
    boundary, interior = f"body<UNIT>({args});", f"body_interior<UNIT>({args});"
    last = dims - 1
    simd = "#pragma omp simd" if fn.simd_innermost else ""
    if fn.body[-1].idle_outside:
        return _interior_only_loops(fn, dims, interior, omp)

    def row(pad: str, inside: str) -> list[str]:
        out = []
        for start, stop, call in ((None, f"lo{last}", boundary), (f"lo{last}", f"hi{last}", interior),
                                  (f"hi{last}", f"n{last}", boundary)):
            first = "0" if start is None else start
            if simd:
                out.append(pad + simd)
            out.append(pad + f"for (int32_t t{last} = {first}; t{last} < {stop}; ++t{last}) {call}")
        if inside:
            out = [pad + f"if ({inside}) {{", *["    " + line for line in out], pad + "} else {"]
            if simd:
                out.append(pad + "    " + simd)
            out += [pad + f"    for (int32_t t{last} = 0; t{last} < n{last}; ++t{last}) {boundary}", pad + "}"]
        return out

    if dims == 1:
        # one parallel region, the three ranges shared out in turn (no barrier between them)
        lines = [f"    #pragma omp parallel {omp}", "    {"]
        for start, stop, call in (("0", "lo0", boundary), ("lo0", "hi0", interior), ("hi0", "n0", boundary)):
            lines.append(f"        #pragma omp for{' simd' if simd else ''} schedule(static) nowait")
            lines.append(f"        for (int32_t t0 = {start}; t0 < {stop}; ++t0) {call}")
        return lines + ["    }"]
    lines, pad = _parallel_outer_loops(dims, f"{omp} schedule(static)", lambda d: ("0", f"n{d}"))
    inside = " && ".join(f"t{d} >= lo{d} && t{d} < hi{d}" for d in range(dims - 1))
    lines += row(pad, inside)
    lines.append(pad[:-4] + "}")
    return lines


def _parallel_outer_loops(dims: int, omp: str, bounds, indent: str = "    ") -> tuple[list[str], str]:
    """The parallel loops over every dimension but the innermost (collapsed), dimension ``d`` from
    ``bounds(d)[0]`` to ``bounds(d)[1]``; and the indentation of their body. The caller closes the
    last brace."""
    outer = dims - 1
    collapse = f" collapse({outer})" if outer > 1 else ""
    lines = [f"{indent}#pragma omp parallel for{collapse} {omp}"]
    for d in range(outer):
        brace = " {" if d == outer - 1 else ""
        start, stop = bounds(d)
        lines.append(indent + "    " * d + f"for (int32_t t{d} = {start}; t{d} < {stop}; ++t{d}){brace}")
    return lines, indent + "    " * outer


def _interior_only_loops(fn: ir.IRFunction, dims: int, interior: str, omp: str) -> list[str]:
    """The interior box's points only: outside it the guarded body would only assign locals
    (``IRInteriorSplit.idle_outside``, Warp's ``if i > 0 and i < n - 1 ...`` stencils), so those
    points are not visited at all, and the guarded body is not even instantiated."""
    omp = omp.replace("num_threads(h.nthreads)", "num_threads(h.nthreads) schedule(static)")
    if dims == 1:
        return [f"    #pragma omp parallel for{' simd' if fn.simd_innermost else ''} {omp}",
                f"    for (int32_t t0 = lo0; t0 < hi0; ++t0) {interior}"]
    lines, pad = _parallel_outer_loops(dims, omp, lambda d: (f"lo{d}", f"hi{d}"))
    outer = dims - 1
    if fn.simd_innermost:
        lines.append(pad + "#pragma omp simd")
    lines.append(pad + f"for (int32_t t{outer} = lo{outer}; t{outer} < hi{outer}; ++t{outer}) {interior}")
    return lines + [pad[:-4] + "}"]


def _entry(fn: ir.IRFunction, slices: bool = False, general_strides: bool = False) -> list[str]:
    """``bw_entry``: runs the launch and returns 0, or returns 1 without running anything when an
    array has a non-unit innermost stride and the unit holds only the unit-stride body.

    Most launches pass contiguous arrays (mesh and loop-abstraction kernels always do), and each
    body instantiation is a full -O3 compile of the kernel: the general-stride body is compiled
    only when a launch needs it, as another variant of the instance (``Instance.run_with_general_strides``),
    which holds both. A slice's view may have any innermost stride, so a unit that slices arrays
    has only the general body."""
    if slices:
        dispatch = ["run<false>(h, a);"]
    elif general_strides:
        dispatch = ["if (h.unit_inner) run<true>(h, a); else run<false>(h, a);"]
    else:
        dispatch = ["if (!h.unit_inner) return 1;", "run<true>(h, a);"]
    return [
        f'extern "C" BW_EXPORT int {ENTRY_SYMBOL}(const char* buf) {{',
        "    const bw::launch_header& h = *reinterpret_cast<const bw::launch_header*>(buf);",
        "    const Args& a = *reinterpret_cast<const Args*>(buf + sizeof(bw::launch_header));",
        *[f"    {d}" for d in dispatch],
        "    return 0;",
        "}",
    ]
