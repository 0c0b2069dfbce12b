"""One registry of typing rules for what kernel code may name besides builtins and types.

The kernel language core types Python syntax; everything an extension adds (nested parallelism,
mesh packs, the loop abstraction, ``@func`` functions) registers rules here, keyed by the exact
object (``la.inner``) or by class (``Function``, ``VarTag``), or by a predicate on a runtime type
(a team member, a pack). The typer asks the registry and knows no extension by name.

Rule kinds and their signatures (``typer`` is the ``Typer`` typing the function):

- ``call(typer, obj, node)``: a call ``obj(...)`` as an expression;
- ``operator(typer, obj, args, node)``: ``obj`` (a user function named like an operator) applied
  to typed operands the builtin operator does not accept;
- ``statement(typer, obj, node) -> IRStmt``: a call used as a statement (``la.inner(rng, fn)``);
- ``for_iter(typer, obj, node, out)``: ``for x in obj(...)``;
- ``attribute(typer, obj, attr, node)`` and ``subscript(typer, obj, index_nodes, node)`` on a
  compile-time value;
- ``value_attribute`` / ``value_subscript`` on a runtime value whose type satisfies a predicate;
  ``value_operator(typer, op, args, node)`` on operands of such a type, and
  ``element_update(typer, op, place, value, node)``: ``c[i] op= value`` of an element of such a container
  (the combined value, or None for the operator's own);
- ``adapt(obj, t)``: a compile-time value that takes the type ``t`` of what it meets;
- ``fingerprint(obj) -> str``: what of a compile-time value the cache key must cover;
- ``binding(typer, name, option, out)``: a hidden parameter binding of loop-body kernels;
- ``wrap_body(typer, body) -> list``: shape a kernel body (an outer body's slice).
"""

from __future__ import annotations

KINDS = ("call", "statement", "for_iter", "attribute", "subscript", "adapt", "fingerprint", "operator")


class Intrinsics:
    def __init__(self):
        self._by_object: dict = {}  # id(obj) -> (obj, {kind: rule}); obj kept alive
        self._by_class: dict = {}  # class -> {kind: rule}
        self._by_type: list = []  # (predicate on a kernel type, {kind: rule})
        self.bindings: dict = {}  # binding kind -> rule
        self.body_wrappers: dict = {}  # kernel form -> rule

    def register(self, key, **rules) -> None:
        """Rules for one object (a function, a builtin name) or, when ``key`` is a class, its instances."""
        unknown = set(rules) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown rule kinds {sorted(unknown)}")
        if isinstance(key, type):
            self._by_class.setdefault(key, {}).update(rules)
        else:
            self._by_object.setdefault(id(key), (key, {}))[1].update(rules)

    def register_object(self, obj, **rules) -> None:
        """Rules for ``obj`` itself, also when it is a class (``wp.array(ptr=...)`` called in a kernel)."""
        unknown = set(rules) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown rule kinds {sorted(unknown)}")
        self._by_object.setdefault(id(obj), (obj, {}))[1].update(rules)

    def register_type(self, predicate, **rules) -> None:
        """Rules for runtime values whose kernel type satisfies ``predicate`` (value_attribute, value_subscript)."""
        self._by_type.append((predicate, rules))

    def rule(self, obj, kind: str):
        """The rule of ``kind`` for compile-time value ``obj``, or None."""
        found = self._by_object.get(id(obj))
        if found is not None and found[0] is obj and kind in found[1]:
            return found[1][kind]
        for cls in type(obj).__mro__:
            rules = self._by_class.get(cls)
            if rules is not None and kind in rules:
                return rules[kind]
        return None

    def type_rule(self, t, kind: str):
        """The rule of ``kind`` for runtime values of kernel type ``t``, or None."""
        for predicate, rules in self._by_type:
            if kind in rules and predicate(t):
                return rules[kind]
        return None


#: The registry every extension registers into.
INTRINSICS = Intrinsics()
