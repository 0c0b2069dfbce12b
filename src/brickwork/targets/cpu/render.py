"""IR -> C++ text: one method per node kind (``e_<Node>`` for expressions, ``s_<Node>`` for
statements). The translation unit around it (structs, functions, OpenMP loops, entry) is
``unit.py``; builtin calls render through the implementation ``select_builtins`` attached."""

from __future__ import annotations

from ... import ir
from ...ir.analysis import range_query_loop
from ...ir.inner_stride import any_stride_locals, has_any_stride
from ...jit.rejected import NATIVE_MARK
from ...types.arrays import ArrayType
from ...types.composite import is_composite_type, is_matrix_type
from ...types.scalars import int32, int64, is_scalar_type
from ...types.structs import is_struct_type
from .cnames import c_constant, c_name, c_type


def local(name: str) -> str:
    """The C++ name of a local or parameter."""
    return c_name("v", name)


#: ``and``/``or`` whose second operand may be evaluated eagerly: the non-short-circuit operator
_EAGER_LOGIC = {"logical_and": "&", "logical_or": "|"}
#: int32 operations an int64 index is widened through (when proven not to overflow)
_WIDENED = {"add": "+", "sub": "-", "mul": "*"}


#: Loop counters that count in 64 bits in a ``wide`` loop (``s_IRFor``).
_NARROW_COUNTERS = ("int8_t", "int16_t", "int32_t", "uint8_t", "uint16_t", "uint32_t")


class CppRenderer:
    """Renders expressions and statements of one function; ``unit`` names the template flag that
    says the innermost array stride is 1."""

    #: int64 indices and offsets widened through proven int32 arithmetic (``index64``)
    widen_indices = True

    def __init__(self, unit: str = "UNIT"):
        self.unit = unit
        self.any_stride: frozenset = frozenset()  # locals the unit flag does not cover (``begin``)
        self.loops = 0  # numbers helper names and labels: the same tree gives the same text
        self.regions: dict = {}  # region name -> label of the copy being rendered

    def begin(self, fn: ir.IRFunction) -> CppRenderer:
        """Prepare to render ``fn``'s body: its array locals of any innermost stride (``ir.inner_stride``)."""
        self.any_stride = any_stride_locals(fn)
        return self

    def unit_of(self, arr) -> str:
        """The unit-stride template flag of an access to ``arr``: the launch's, or false for an array the
        launch's flag does not speak for (a struct field, a tuple element, a call's result)."""
        return "false" if has_any_stride(arr, self.any_stride) else self.unit

    # -- expressions ------------------------------------------------------------------------------
    def expr(self, e) -> str:
        return getattr(self, "e_" + type(e).__name__)(e)

    def e_IRConst(self, e):
        return c_constant(e.value, e.type)

    def e_IRLocal(self, e):
        return local(e.name)

    def e_IRTid(self, e):
        return f"tid{e.dim}"

    def e_IRCall(self, e):
        args = [self.expr(a) for a in e.args]
        if e.op in _EAGER_LOGIC and ir.speculatable(e.args[1]):
            # Both operands evaluated: the same value when the second cannot fault or write, and
            # no branch, so a loop that tests ``a > 0 and b > 0`` stays a vector loop.
            return f"(bw::truth({args[0]}) {_EAGER_LOGIC[e.op]} bw::truth({args[1]}))"
        if e.op.startswith("atomic_"):
            arr, idx, operands = ir.atomic_parts(e)
            elem = self.element(arr, idx, e.where if e.checked else None)
            # a struct's field-wise add is generated beside the struct (unit.struct_atomic_add)
            fn = "struct_atomic_add" if e.op == "atomic_add" and is_struct_type(e.type) else f"bw::{e.op}"
            return f"{fn}(&{elem}, {', '.join(self.expr(v) for v in operands)})"
        if getattr(e.impl, "with_result_type", False):
            return e.impl(args, c_type(e.type))
        if getattr(e.impl, "with_where", False):
            return e.impl(args, c_string(e.where or "?"))
        if isinstance(e.type, ir.TupleType):  # several results: the C++ function fills output references
            outs = [f"bw_results.f{i}" for i in range(len(e.type.types))]
            return f"[&]() {{ {c_type(e.type)} bw_results; {e.impl(args + outs)}; return bw_results; }}()"
        return e.impl(args)

    def call_argument(self, a) -> str:
        """The text of a @func call's argument ``a`` (a target may wrap it)."""
        return self.expr(a)

    def e_IRFuncCall(self, e):
        args = ", ".join(self.call_argument(a) for a in e.args)
        strided = any(isinstance(a.type, ArrayType) and has_any_stride(a, self.any_stride) for a in e.args)
        return f"{e.func.name}<{'false' if strided else self.unit}>({args})"

    def e_IRCast(self, e):
        if self.widen_indices and e.type == int64 and e.arg.type == int32:  # offsets into packs, scratch
            return self.index64(e.arg)
        return f"bw::cast<{c_type(e.type)}>({self.expr(e.arg)})"

    def e_IRConstruct(self, e):
        t = e.type
        if is_struct_type(t):
            fields = ", ".join("{}" if a is None else self.expr(a) for a in e.args)
            return f"{c_type(t)}{{{fields}}}"
        if isinstance(t, ir.TupleType):  # None: a part left empty (an array in an adjoint's zero)
            return f"{c_type(t)}{{{', '.join('{}' if a is None else self.expr(a) for a in e.args)}}}"
        parts = [self.expr(a) for a in e.args]
        if len(parts) > 16 and parts.count(parts[0]) == len(parts):
            # one value in every component (wp.vector(length=n), a zero matrix): a loop, not a call of n
            # arguments, which the C++ compiler took minutes over from a few thousand (a compile-time bomb)
            return f"bw::make_filled<{c_type(t)}>({parts[0]})"
        return f"bw::make<{c_type(t)}>({', '.join(parts)})"

    def index64(self, e) -> str:
        """``e`` as an int64 index. int32 ``+ - *`` proven not to overflow is widened operand by
        operand: ``(int64_t)k - 1`` rather than the extension of ``k - 1``, which g++
        does not distribute, so a stencil's neighbours share one row address instead of each
        holding its own (the row setup of a 3-D Laplacian spilled them)."""
        if not self.widen_indices:
            return f"(int64_t)({self.expr(e)})"
        if isinstance(e, ir.IRCall) and e.no_wrap and e.op in _WIDENED and e.type == int32 and len(e.args) == 2:
            return f"({self.index64(e.args[0])} {_WIDENED[e.op]} {self.index64(e.args[1])})"
        if isinstance(e, ir.IRConst) and e.type == int32:
            return f"int64_t({e.value})"
        return f"(int64_t)({self.expr(e)})"

    def element(self, arr, indices, checked_at: str | None = None) -> str:
        idx = ", ".join(self.index64(i) for i in indices)
        if checked_at is not None:
            return f"bw::at_checked<{self.unit_of(arr)}>({self.expr(arr)}, {c_string(checked_at or '?')}, {idx})"
        return f"bw::at<{self.unit_of(arr)}>({self.expr(arr)}, {idx})"

    def e_IRSubarray(self, e):
        if not e.indices:  # a whole local array viewed as an array (fixedarray_t converts to array_t)
            return self.expr(e.array)
        idx = ", ".join(f"(int64_t)({self.expr(i)})" for i in e.indices)
        if e.checked:
            return f"bw::subarray_checked({self.expr(e.array)}, {c_string(e.where or '?')}, {idx})"
        return f"bw::subarray({self.expr(e.array)}, {idx})"

    def e_IRArrayElem(self, e):
        return self.element(e.array, e.indices, e.where if e.checked else None)

    def e_IRRawElem(self, e):
        if e.checked:
            bounds = ", ".join(f"(int64_t)({self.expr(b)})" for b in e.bounds)
            return (f"bw::raw_checked<{c_type(e.type)}>({self.expr(e.address)}, {self.expr(e.offset)}, "
                    f"{c_string(e.where or '?')}, {bounds})")
        return f"bw::raw<{c_type(e.type)}>({self.expr(e.address)}, {self.expr(e.offset)})"

    def e_IRArrayShape(self, e):
        return f"((int32_t)({self.expr(e.array)}).shape[{e.dim}])"

    def e_IRComponent(self, e):
        base = self.expr(e.base)
        if is_matrix_type(e.base.type):
            rows = f"({base}).r[{self.expr(e.indices[0])}]"
            return rows if len(e.indices) == 1 else f"{rows}.c[{self.expr(e.indices[1])}]"
        return f"({base}).c[{self.expr(e.indices[0])}]"

    def e_IRField(self, e):
        return f"({self.expr(e.base)}).{c_name('m', e.name)}"

    def e_IRTeamBegin(self, e):
        return f"bw::team_begin({self.expr(e.arena_bytes)})"

    def e_IRTeamScratch(self, e):
        sizes = ", ".join(self.expr(s) for s in [e.member, *e.sizes])
        return f"bw::team_alloc<{c_type(e.type.dtype)}, {e.type.ndim}>({sizes})"

    def e_IRLocalArray(self, e):
        return f"bw::local_array({local(e.name)})"

    def e_IRPop(self, e):
        return f"bw_tape.pop<{c_type(e.type)}>()"

    def e_IRTupleGet(self, e):
        return f"({self.expr(e.base)}).f{e.index}"

    def e_IRSelect(self, e):
        return f"(bw::truth({self.expr(e.cond)}) ? {self.expr(e.if_true)} : {self.expr(e.if_false)})"

    # -- statements -------------------------------------------------------------------------------
    def block(self, stmts, indent: int) -> list[str]:
        lines: list[str] = []
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(s, indent, lines)
        return lines

    def s_IRAssign(self, s, ind, out):
        out.append(" " * ind + f"{self.expr(s.target)} = {self.expr(s.value)};")

    def s_IRPush(self, s, ind, out):
        out.append(" " * ind + f"bw_tape.push({self.expr(s.value)});")

    def s_IRAtomicAdd(self, s, ind, out):
        out.append(" " * ind + f"bw::atomic_add(&({self.expr(s.place)}), {self.expr(s.value)});")

    def s_IRExprStmt(self, s, ind, out):
        out.append(" " * ind + f"(void)({self.expr(s.expr)});")

    def s_IRIf(self, s, ind, out):
        pad = " " * ind
        out.append(pad + f"if (bw::truth({self.expr(s.cond)})) {{")
        out.extend(self.block(s.body, ind + 4))
        if s.orelse:
            out.append(pad + "} else {")
            out.extend(self.block(s.orelse, ind + 4))
        out.append(pad + "}")

    def s_IRFor(self, s, ind, out):
        pad = " " * ind
        t = c_type(s.var.type)
        self.loops += 1
        n = self.loops
        stop, step, it = f"_stop{n}", f"_step{n}", f"_it{n}"
        # a step of 0 known at run time only: no iteration, as in Warp
        cond = {1: f"{it} < {stop}", -1: f"{it} > {stop}"}.get(
            s.step_sign, f"({step} > 0 ? {it} < {stop} : {step} < 0 && {it} > {stop})")
        out.append(pad + f"{{ const {t} {stop} = {self.expr(s.stop)}; const {t} {step} = {self.expr(s.step)};")
        if s.simd:
            clause = ""
            if s.reduction is not None:
                op = {"sum": "+", "prod": "*", "min": "min", "max": "max"}[s.reduction.join]
                clause = f" reduction({op}:{local(s.reduction.acc)})"
            out.append(pad + "#pragma omp simd" + clause)
        # a user's step other than +-1 can carry the counter past the type's end (range(-2**31 + 1, 2**31 - 1,
        # 2**30) wrapped and never ended): narrow integer counters then count in 64 bits
        counter = "int64_t" if s.wide and t in _NARROW_COUNTERS else t
        out.append(pad + f"for ({counter} {it} = {self.expr(s.start)}; {cond}; {it} += {step}) {{")
        out.append(pad + f"    {self.expr(s.var)} = {it if counter == t else f'({t}){it}'};")
        out.extend(self.block(s.body, ind + 4))
        out.append(pad + "} }")

    def s_IRWhile(self, s, ind, out):
        pad = " " * ind
        ranges = range_query_loop(s)
        if ranges is not None:  # a loop over each cell's range: its bounds stay in registers
            query, index = (self.expr(a) for a in ranges)
            self.loops += 1
            lo, hi, ids, k = (f"_{name}{self.loops}" for name in ("lo", "hi", "ids", "k"))
            out.append(pad + f"{{ int32_t {lo}, {hi}; const int32_t* {ids};")
            out.append(pad + f"while (bw::hash_grid_query_range({query}, {lo}, {hi}, {ids})) {{")
            out.append(pad + f"    for (int32_t {k} = {lo}; {k} < {hi}; ++{k}) {{")
            out.append(pad + f"        {index} = {ids}[{k}];")
            out.extend(self.block(s.body, ind + 8))
            out.append(pad + "    }")
            out.append(pad + "} }")
            return
        out.append(pad + f"while (bw::truth({self.expr(s.cond)})) {{")
        out.extend(self.block(s.body, ind + 4))
        out.append(pad + "}")

    def s_IRBlock(self, s, ind, out):
        out.extend(self.block(s.body, ind))

    def s_IRRegion(self, s, ind, out):
        # Leaving a region early is a jump to its end: the one goto C++ needs for structured exits.
        # Passes may copy a region (one visit per halo offset), so each copy gets its own label.
        self.loops += 1
        label = f"{s.name}_{self.loops}"
        saved = self.regions.get(s.name)
        self.regions[s.name] = label
        out.extend(self.block(s.body, ind))
        out.append(" " * ind + f"{label}: ;")
        self.regions[s.name] = saved

    def s_IRExitRegion(self, s, ind, out):
        out.append(" " * ind + f"goto {self.regions[s.name]};")

    def s_IRBreak(self, s, ind, out):
        out.append(" " * ind + "break;")

    def s_IRContinue(self, s, ind, out):
        out.append(" " * ind + "continue;")

    def s_IRReturn(self, s, ind, out):
        out.append(" " * ind + ("return;" if s.value is None else f"return {self.expr(s.value)};"))

    def s_IRPrint(self, s, ind, out):
        if s.parts and isinstance(s.parts[0], ir.Format):
            # printf: the user's format string as is; values promoted the way C varargs expect.
            args = "".join(", " + _printf_arg(p.type, self.expr(p)) for p in s.parts[1:])
            out.append(" " * ind + f"printf({c_string(str(s.parts[0]))}{args});")
            return
        fmt, args = [], []
        for i, part in enumerate(s.parts):
            if i and s.sep:
                fmt.append(s.sep)
            if isinstance(part, ir.Format):
                fmt.append(str(part))
            elif isinstance(part, str):  # a NUL would end the format: printed as a %c of 0, as Python prints it
                fmt.append(part.replace("%", "%%").replace("\0", "%c"))
                args.extend("0" for _ in range(part.count("\0")))
            else:
                f, a = self.format_value(part)
                fmt.append(f)
                args.extend(a)
        if s.newline:
            fmt.append("\n")
        text = "".join(fmt)
        out.append(" " * ind + f"printf({c_string(text)}{''.join(', ' + a for a in args)});")

    def s_IRExpect(self, s, ind, out):
        if s.aborts:  # assert: checked in debug mode only
            if s.enabled:
                out.append(" " * ind + f"if (!({self.expr(s.left)})) {{ {self.assert_failure(s.message)} }}")
            return
        fa, aa = self.format_value(s.left)
        fb, ab = self.format_value(s.right)
        check = f"bw::eq({self.expr(s.left)}, {self.expr(s.right)})"
        cond = f"!{check}" if s.equal else check
        text = c_string(s.message.replace("%", "%%") + f": {fa} {'!=' if s.equal else '=='} {fb}\n")
        out.append(" " * ind + f"if ({cond}) printf({text}{''.join(', ' + a for a in aa + ab)});")

    def s_IRNative(self, s, ind, out):
        # the snippet names the function's parameters as written: each is bound to its local by reference
        pad = " " * ind
        if s.origin:  # what jit.compile's errors name when the compiler rejects the unit (native_origins)
            out.append(pad + f"{NATIVE_MARK}{s.origin.replace(chr(10), ' ')}")
        out.append(pad + "{")
        for name in s.names:
            out.append(pad + f"    auto& {name} = {local(name)}; (void){name};")
        out.extend(pad + "    " + line if line.strip() else "" for line in s.text.strip("\n").split("\n"))
        out.append(pad + "}")

    def assert_failure(self, message: str) -> str:
        """C++ statements run when an assert fails: the message to stderr, then the process aborts."""
        return f"std::fputs({c_string(message + chr(10))}, stderr); std::fflush(stderr); __builtin_abort();"

    def format_value(self, e) -> tuple[str, list[str]]:
        """printf format and arguments of a scalar, vector or matrix value."""
        t = e.type
        text = self.expr(e)
        if is_scalar_type(t):
            return _scalar_format(t, text)
        if is_composite_type(t):
            comps = []
            n = 1
            for d in t._shape:
                n *= d
            fmt_parts, args = [], []
            for k in range(n):
                f, a = _scalar_format(t._dtype, f"bw::component({text}, {k})")
                fmt_parts.append(f)
                args.extend(a)
            comps = ", ".join(fmt_parts)
            return f"[{comps}]", args
        raise TypeError(f"cannot print {t!r}")


def _scalar_format(t, text) -> tuple[str, list[str]]:
    name = t.__name__
    if name == "bool":
        return "%s", [f"(({text}) ? \"True\" : \"False\")"]
    if t.is_float:
        return "%g", [f"(double)bw::cast<float>({text})" if name in ("float16", "bfloat16")
                        else f"(double)({text})"]
    if t.is_signed:
        return "%lld", [f"(long long)({text})"]
    return "%llu", [f"(unsigned long long)({text})"]


def _printf_arg(t, text) -> str:
    """A scalar as a printf argument: floats as double (half has no C promotion), bool as int."""
    name = t.__name__
    if name in ("float16", "bfloat16"):
        return f"(double)bw::cast<float>({text})"
    if t.is_float:
        return f"(double)({text})"
    if name == "bool":
        return f"(int)({text})"
    return f"({text})"


def c_string(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 32 or ord(ch) > 126:
            out.extend(f"\\x{b:02x}\"\"" for b in ch.encode())
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


