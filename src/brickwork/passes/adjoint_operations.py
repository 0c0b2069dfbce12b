"""The reverse sweep of one assigned value in a backward kernel (a mixin of ``adjoint._Adjoint``): a local's
adjoint passed on, a builtin call's by its rule (``builtins/adjoints.py``; some add into the gradient
arrays of array arguments), a ``wp.func_native`` call's by its adjoint snippet, casts and constructions
part by part, reads of arrays, views and scratch as adds into their adjoints (atomic where other threads
reach the same element), and atomics (the value that won a min or max gets the adjoint).
"""

from __future__ import annotations

import math

from .. import ir
from ..builtins.adjoints import ADJOINTS, ARRAY_ADJOINT_OPS, NOT_DIFFERENTIABLE, ArrayAdjoint
from ..types.arrays import ArrayType, type_name
from ..types.opaque import TupleType
from ..types.scalars import bool_
from ..types.structs import is_struct_type
from .adjoint_refusals import not_differentiable
from .adjoint_values import E, bind_shared, carries_adjoint, flat_component, rebase, zero


class OperationAdjoints:
    """Mixin of ``_Adjoint``: the reverse of an assigned value, of a ``wp.func_native`` call and of atomics."""

    def reverse_native(self, call: ir.IRFuncCall, g, out):
        """The adjoint snippet of a ``wp.func_native`` call: it takes the arguments and the result's adjoint
        and returns the adjoints of the differentiable parameters (none: no gradient flows)."""
        adj_fn = call.func.native_adjoint
        if adj_fn is None and call.func.reference_result is not None:
            params = dict(call.func.params)
            written = [n for n in call.func.reference_result[1] if carries_adjoint(params[n])]
            if written:  # as in Warp: no gradient is known for what it stores there (it may depend on anything)
                raise not_differentiable(self.label, f"{call.func.label} stores into wp.ref parameters "
                                          f"({', '.join(written)}) and has no adj_snippet, so the gradient through "
                                          f"them is unknown; give it an adj_snippet, or launch the kernel with "
                                          f"enable_backward=False")
        if adj_fn is None or adj_fn.return_type is None:
            return
        got = self.locals.new("_ad_native", adj_fn.return_type)
        out.append(ir.IRAssign(got, ir.IRFuncCall(adj_fn, [*call.args, g], adj_fn.return_type)))
        by_name = {n: a for (n, _), a in zip(call.func.params, call.args)}
        # its locals adj_<p> of parameters p, in the order it returns them (adj_ret is the result's adjoint)
        names = [local[len("adj_"):] for local in adj_fn.locals if local[len("adj_"):] in by_name]
        for k, name in enumerate(names):
            part = got if len(names) == 1 else ir.IRTupleGet(got, k, adj_fn.return_type.types[k])
            self.accumulate(by_name[name], part, out)

    def reverse_value(self, value, result, g, out):
        if isinstance(value, ir.IRLocal):
            self.accumulate(value, g, out)
        elif isinstance(value, ir.IRFuncCall):  # a wp.func_native call (other calls are inlined)
            self.reverse_native(value, g, out)
        elif isinstance(value, ir.IRCall):
            self.reverse_call(value, result, g, out)
        elif isinstance(value, ir.IRCast):
            if carries_adjoint(value.arg.type):
                self.accumulate(value.arg, ir.IRCast(g, value.arg.type), out)
        elif isinstance(value, ir.IRConstruct):
            t = value.type
            if is_struct_type(t):
                for (name, ft), a in zip(t._fields, value.args):
                    if a is not None:
                        self.accumulate(a, ir.IRField(g, name, ft), out)
            elif isinstance(t, TupleType):
                for k, (et, a) in enumerate(zip(t.types, value.args)):
                    self.accumulate(a, ir.IRTupleGet(g, k, et), out)
            else:
                for k, a in enumerate(value.args):
                    self.accumulate(a, flat_component(g, k), out)
        elif isinstance(value, ir.IRArrayElem) and self.is_team_scratch(value.array):
            self.add_to_team_scratch(value, g, out)
        elif isinstance(value, ir.IRArrayElem) and self.fixed.holds(value.array):
            # an element of a local array or of a view of one: one thread owns it, a plain add
            place = self.local_elem_adjoint(value)
            if place is not None:
                self._add_into(place, g, out)
        elif isinstance(value, ir.IRArrayElem):
            adj_arr = self.adj_array(value.array)
            place = ir.IRArrayElem(adj_arr, value.indices, value.type)
            update: list = []
            if self.rows.radius is not None:  # scatters near tid(0)'s row: the target phases the rows
                self._add_into(place, g, update)
            elif is_struct_type(value.type):  # a struct element: each differentiable field atomically
                self._atomic_add_fields(place, g, update)
            else:
                update.append(ir.IRExprStmt(ir.IRCall("atomic_add", [adj_arr, *value.indices, g], value.type)))
            out.extend(self.if_grad(adj_arr, update))
        elif isinstance(value, ir.IRLAViewElem):
            place = self.adj_view_elem(value)
            if self.team_threads or self.slice_loop != "bvoi":  # other slices (threads) reach the same cells
                out.append(ir.IRAtomicAdd(place, g))
            else:  # a bvoi slice is its block, on one thread, its visits in order
                self._add_into(place, g, out)
        elif isinstance(value, ir.IRPackElem):  # a pack subscript: other threads may read the same cell
            out.append(ir.IRAtomicAdd(self.adj_pack_elem(value), g))
        elif isinstance(value, ir.IRLAScratchElem):
            place = self.adj_scratch_elem(value)
            if self.team_threads:  # the slice's threads share its scratch
                out.append(ir.IRAtomicAdd(place, g))
            else:  # a slice runs on one thread, its visits in order (not as a vector loop)
                self._add_into(place, g, out)
        elif isinstance(value, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
            base = value.base
            if not isinstance(base, ir.IRLocal) or not carries_adjoint(base.type) or base.name in self.inactive:
                pass
            elif self.in_visit and base.name in self.slice_locals:
                self.sum_component_over_threads(value, g, out)
            else:
                self._add_into(rebase([value], self.adj_of(base)), g, out)
        # constants, tid(), shapes, subarrays: nothing flows back

    def reverse_call(self, call, result, g, out):
        if call.op in NOT_DIFFERENTIABLE:
            return
        rule = ADJOINTS.get(call.op)
        into_arrays = rule is not None and call.op in ARRAY_ADJOINT_OPS
        if not any(self.has_adjoint(a) for a in call.args) and not into_arrays:
            return
        if rule is None:
            raise not_differentiable(self.label, f"the builtin '{call.op}' has no adjoint rule yet")
        contributions = list(rule(E, call.args, result, g))
        for k, (arg, c) in enumerate(zip(call.args, contributions)):
            if isinstance(c, ArrayAdjoint):  # added into the array argument's gradient array, where it has one
                contributions[k] = None
                if isinstance(getattr(arg, "type", None), ArrayType) and hasattr(arg, "name"):
                    adj_arr = self.adj_array(arg)
                    out.extend(self.if_grad(adj_arr, [ir.IRExprStmt(c.build(E, adj_arr))]))
        if into_arrays and not any(self.has_adjoint(a) for a in call.args):
            return
        # a rule answering None for every argument that carries a gradient has no rule for these types:
        # refusing beats dropping the gradient silently
        if len(contributions) != len(call.args) or (not into_arrays and all(
                c is None for a, c in zip(call.args, contributions) if self.has_adjoint(a))):
            raise not_differentiable(self.label, f"the builtin '{call.op}' has no adjoint rule for "
                                      f"({', '.join(type_name(a.type) for a in call.args)})")
        wanted = [c if isinstance(a, ir.IRLocal) and self.has_adjoint(a) else None
                  for a, c in zip(call.args, contributions)]
        contributions = bind_shared(wanted, lambda t: self.locals.new("_ad_s", t), out)
        for arg, contribution in zip(call.args, contributions):
            if contribution is not None and isinstance(arg, ir.IRLocal) and carries_adjoint(arg.type):
                if contribution.type is not arg.type:
                    raise AssertionError(f"adjoint rule of {call.op}: {contribution.type!r} for {arg.type!r}")
                self.accumulate(arg, contribution, out)

    def reverse_atomic(self, call, out):
        if not (isinstance(call, ir.IRCall) and call.op.startswith("atomic_")) or call.op == "atomic_cas":
            return  # a compare-and-swap passes no gradient (as in Warp)
        arr, idx, (value,) = ir.atomic_parts(call)
        if not carries_adjoint(value.type) or not isinstance(value, ir.IRLocal):
            return
        adj_arr = self.adj_array(arr)
        g = self.locals.new("_ad_g", value.type)
        read = [ir.IRAssign(g, ir.IRArrayElem(adj_arr, idx, value.type))]
        out.append(ir.IRAssign(g, zero(value.type)))
        if call.op == "atomic_exch":  # a store: the element's adjoint moves to the value (what was there gets none)
            clear = self.unless_kept(arr, [ir.IRAssign(ir.IRArrayElem(adj_arr, idx, value.type), zero(value.type))])
            out.extend(self.if_grad(adj_arr, [*read, *clear]))
            self.accumulate(value, g, out)
        elif call.op in ("atomic_add", "atomic_sub"):
            out.extend(self.if_grad(adj_arr, read))
            self.accumulate(value, g if call.op != "atomic_sub" else ir.IRCall("neg", [g], g.type), out)
        elif call.op in ("atomic_min", "atomic_max"):  # the value that won receives the adjoint (as Warp)
            current = ir.IRArrayElem(arr, idx, value.type)
            shape = getattr(value.type, "_shape", None)
            if shape is None:
                won = _atomic_won(current, value)
                has = self.has_grad(adj_arr)
                test = won if has is None else ir.IRCall("logical_and", [has, won], bool_)
                out.append(ir.IRIf(test, read, []))
                self.accumulate(value, g, out)
                return
            # vectors and matrices are compared component by component: each component that won gets its adjoint
            out.extend(self.if_grad(adj_arr, read))
            dtype = value.type._dtype
            comps = []
            for k in range(math.prod(shape)):
                won = _atomic_won(flat_component(current, k), flat_component(value, k))
                comps.append(ir.IRSelect(won, flat_component(g, k), ir.IRConst(0, dtype), dtype))
            masked = self.locals.new("_ad_g", value.type)
            out.append(ir.IRAssign(masked, ir.IRConstruct(comps, value.type)))
            self.accumulate(value, masked, out)



def _atomic_won(current, value) -> ir.IRExpr:
    """Whether an atomic min/max stored ``value``: the element now equals it, or both are NaN (the
    forward stored the NaN value; NaN == NaN is false), as Warp's adjoint decides."""
    won = ir.IRCall("eq", [current, value], bool_)
    if not getattr(value.type, "is_float", False):
        return won
    both_nan = ir.IRCall("logical_and", [ir.IRCall("isnan", [current], bool_), ir.IRCall("isnan", [value], bool_)],
                         bool_)
    return ir.IRCall("logical_or", [won, both_nan], bool_)
