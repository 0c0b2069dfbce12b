"""Operators in kernels: binary and unary operators (a user ``@func`` of the operator's name first, then an
extension's rule, then the builtin), comparisons (chains; compile-time constants compared as Python would)
and ``and``/``or``; the hints their type errors add for a Python number operand. A mixin of
``ExpressionTyper`` (``expressions.py``).
"""

from __future__ import annotations

import ast
import operator

from .. import ir
from ..builtins.table import Mismatch, resolve
from ..errors import KernelSyntaxError, KernelTypeError, KernelUnsupportedSyntaxError
from ..types.arrays import type_name
from ..types.promotion import comparison_type
from ..types.scalars import bool_, float32, int32, is_scalar_type
from .array_truth import truth_arguments
from .intrinsics import INTRINSICS
from .operand_hints import array_operand_hint, conversion_hint, generic_parameters
from .resolve import MISSING
from .static_value import Static

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bit_and", ast.BitOr: "bit_or", ast.BitXor: "bit_xor",
           ast.LShift: "lshift", ast.RShift: "rshift", ast.MatMult: "matmul"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "bit_and": "&", "bit_or": "|", "bit_xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@",
           "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "neg": "unary -",
           "pos": "unary +", "invert": "~", "logical_not": "not"}
_PY_CMP = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
           ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_UNSUPPORTED_CMPOPS = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}  # as written


class OperatorRules:
    """Mixin of ``ExpressionTyper``: operators, comparisons and boolean operators."""

    def expr_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(KernelSyntaxError, f"operator {type(node.op).__name__} is not supported", node)
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(left, Static) and isinstance(right, Static) and (
                INTRINSICS.rule(left.value, "adapt") or INTRINSICS.rule(right.value, "adapt")):
            fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}.get(op)
            if fn is None:
                raise self.error(KernelTypeError, f"'{_SYMBOL.get(op, op)}' is not defined for index offsets", node)
            return Static(fn(left.value, right.value))  # host arithmetic on compile-time offsets
        left, right = self._adapt_static(left, right, node), self._adapt_static(right, left, node)
        a, b = self.to_value(left, node.left), self.to_value(right, node.right)
        try:
            return self.binary(op, a, b, node)
        except KernelTypeError as e:
            hint = _python_number_hint([(node.left, left, b), (node.right, right, a)]) or \
                conversion_hint(node.left, a, node.right, b, generic_parameters(self.source)) or \
                array_operand_hint(node.left, a, node.right, b)
            if not hint:
                raise
            raise type(e)(e.message + hint, e.location) from None

    def _adapt_static(self, value, other, node):
        """A host value that takes the type of what it meets (an la MemoryOffset or Index3)."""
        adapt = INTRINSICS.rule(value.value, "adapt") if isinstance(value, Static) else None
        if adapt is not None and isinstance(other, ir.IRExpr):
            try:
                return Static(adapt(value.value, other.type))
            except TypeError as e:
                raise self.error(KernelTypeError, str(e), node) from None
        return value

    def binary(self, op, a, b, node) -> ir.IRExpr:
        return self.operator_call(op, [a, b], node)

    def operator_call(self, op, args, node) -> ir.IRExpr:
        """An operator: a user function of the operator's name that the kernel sees, when it takes the
        operand types (``@wp.func def add(a: S, b: S)`` makes ``+`` and ``+=`` work on structs ``S``; one
        taking floats replaces ``+`` on floats, as in Warp), else the builtin."""
        args = truth_arguments(op, args)  # `not a` of an array: "has no data"
        user = self.source.lookup(op)
        rule = INTRINSICS.rule(user, "operator") if user is not MISSING else None
        if rule is not None:
            found = rule(self, user, args, node)
            if found is not None:
                return found
        for a in args:  # an extension's values (tiles): elementwise rules of their own
            value_rule = INTRINSICS.type_rule(a.type, "value_operator")
            if value_rule is not None:
                found = value_rule(self, op, args, node)
                if found is not None:
                    return found
        try:
            _, result = resolve(op, [a.type for a in args])
        except Mismatch as e:
            raise self.mismatch(f"'{_SYMBOL.get(op, op)}' ({op}): {e}", args, node, operator=op) from None
        return ir.IRCall(op, args, result)

    def expr_UnaryOp(self, node):
        op = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "logical_not", ast.Invert: "invert"}[type(node.op)]
        operand = self.expr(node.operand)
        if isinstance(operand, Static) and op == "neg" and isinstance(operand.value, (int, float)):
            return Static(-operand.value)  # keep -2**31 and the like literal
        if isinstance(operand, Static) and op == "logical_not" and isinstance(operand.value, (bool, int, float)):
            return Static(not operand.value)
        return self.operator_call(op, [self.to_value(operand, node)], node)

    def _static_numbers(self, nodes):
        """The Python values of ``nodes`` if every one is a compile-time number, else None."""
        values = []
        for n in nodes:
            v = self.expr(n)
            if not (isinstance(v, Static) and isinstance(v.value, (bool, int, float))):
                return None
            values.append(v.value)
        return values

    def _static_constants(self, nodes):
        """The Python values of ``nodes`` if every one is a compile-time number, string or tuple, else None."""
        values = []
        for n in nodes:
            if isinstance(n, ast.Tuple):  # a tuple written in the kernel: (2, 3)
                items = self._static_constants(n.elts)
                if items is None:
                    return None
                values.append(tuple(items))
                continue
            v = self.expr(n)
            if not (isinstance(v, Static) and isinstance(v.value, (bool, int, float, str, tuple))):
                return None
            values.append(v.value)
        return values

    def expr_Compare(self, node):
        static = self._static_constants([node.left, *node.comparators])
        if static is not None and all(type(op) in _PY_CMP for op in node.ops):
            # compile-time constants (a captured MODE == "upwind", N in (2, 3)): decided here, as Python would
            try:
                return Static(all(_PY_CMP[type(op)](a, b) for op, a, b in zip(node.ops, static, static[1:])))
            except TypeError as e:
                raise self.error(KernelTypeError, f"'{ast.unparse(node)}' compares constants Python cannot "
                                 f"compare: {e}", node) from None
        if static is not None:
            shown = ", ".join(repr(v) for v in static)
            raise self.error(KernelTypeError, f"'{ast.unparse(node)}': compile-time constants ({shown}) compare "
                             f"with <, <=, >, >=, ==, !=, in and not in only", node)
        left = self.value(node.left)
        result = None
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                spelled = _UNSUPPORTED_CMPOPS.get(type(op_node), type(op_node).__name__)
                raise self.error(KernelSyntaxError, f"comparison '{spelled}' is not supported in kernels: "
                                 f"{ast.unparse(node)}; compare values with == or !=", node)
            right = self.value(right_node)
            if right_node is not node.comparators[-1] and ir.has_effect(right):
                # the operand is both comparisons' (a < f() < b), and the IR has no expression-level
                # temporary: it would run twice
                raise self.error(KernelUnsupportedSyntaxError, "the middle operand of a chained comparison has an "
                                 "effect (an atomic, a random draw, a function that writes an array) and would run "
                                 "twice; assign it to a variable first", right_node)
            term = self.builtin_call(op, self._compared(left, right, op, node), node,
                                     label=f"'{_SYMBOL[op]}' ({op})")
            result = term if result is None else ir.IRCall("logical_and", [result, term], bool_)
            left = right
        return result

    def _compared(self, left, right, op, node) -> list:
        """The operands of one comparison: scalars of different types are converted to the type C++ compares
        them in (Warp compares ``float32 == int32`` and the like as C++ does); a chain needs one type."""
        common = comparison_type(left.type, right.type)
        if common is None or left.type is right.type:
            return [left, right]
        if len(node.ops) > 1:
            raise self.error(KernelTypeError, f"cannot chain comparisons of unequal types: {type_name(left.type)} "
                             f"{_SYMBOL[op]} {type_name(right.type)}", node)
        return [v if v.type is common else ir.IRCast(v, common) for v in (left, right)]

    def expr_BoolOp(self, node):
        static = self._static_numbers(node.values)
        if static is not None:
            return Static(all(static) if isinstance(node.op, ast.And) else any(static))
        op = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        values = [self.value(v) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = self.builtin_call(op, [result, v], node, label=f"'{'and' if op == 'logical_and' else 'or'}'")
        return result


def _python_number_hint(operands) -> str:
    """What to add to an operator's type error when an operand is a Python number (``2.0``, ``2``, or a name
    the kernel captured) and the other is of another type: kernels take Python floats as float32 and Python
    ints as int32, so ``x * 2`` of a float32 ``x`` or ``n + 1`` of an int64 ``n`` needs the number written in
    the other operand's type."""
    for src, value, other in operands:
        number = value.value if isinstance(value, Static) else None
        if type(number) not in (int, float):  # bool is no number here
            continue
        scalar = other.type if is_scalar_type(other.type) else getattr(other.type, "dtype", None)
        taken_type = float32 if type(number) is float else int32
        if scalar is None or not is_scalar_type(scalar) or scalar is bool_ or scalar is taken_type:
            continue
        if type(number) is float and not getattr(scalar, "is_float", False):
            continue  # an integer operand and a float: the float is not the one to change
        text, name = ast.unparse(src), type_name(scalar)
        kind = "float" if type(number) is float else "int"
        what = f"'{text}' is a Python {kind} captured by the kernel" if isinstance(src, ast.Name) else \
            f"{text} is a Python {kind}"
        if scalar is float32 and isinstance(src, ast.Constant):
            fix = f"{number}.0" if type(number) is int else text
        else:
            fix = f"wp.{name}({text})"
        return f"; {what}, which kernels take as {type_name(taken_type)}: write {fix}"
    return ""

