"""Kernels declared with ``module="unique"``: each definition gets a module of its own, and declaring the
same kernel again (same source, same captured values, same options) gives back the first kernel
object, with its compiled instances, as Warp does.
"""

from __future__ import annotations

#: (Python module, qualname, key, fingerprint) -> [(kernel, its captured values)]
_UNIQUE: dict = {}


def _same_captures(old: list, new: list, seen: set) -> bool:
    """Captured values match when they are the same objects or hash to the same compile-time value
    (a fingerprint of "object ..." says only the type, so such values must be the same object)."""
    from ..frontend.fingerprint import value_fingerprint

    if [n for n, _ in old] != [n for n, _ in new]:
        return False
    for (_, a), (_, b) in zip(old, new):
        if a is b:
            continue
        fa, fb = value_fingerprint(a, set(seen)), value_fingerprint(b, set(seen))
        if fa != fb or "object " in fa:
            return False
    return True


def _body_names(source) -> tuple[set, list]:
    """The free names and dotted chains the function's signature (its return annotation too) and body
    read: its decorator's arguments are options (compared as ``kernel.options``), not values the code uses."""
    import ast

    tree = source.tree
    chains: dict = {}
    for top in [tree.args, *([tree.returns] if tree.returns is not None else []), *tree.body]:
        for node in ast.walk(top):
            parts = []
            cur = node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and (parts or isinstance(node, ast.Name)):
                chains[".".join([cur.id, *reversed(parts)])] = [cur.id, *reversed(parts)]
    return {c[0] for c in chains.values()}, [chains[n] for n in sorted(chains)]


def _fingerprint(source) -> str:
    """Hash of the source text, of every value its signature and body name, and of its static values."""
    import hashlib

    from ..frontend.fingerprint import value_fingerprint
    from ..frontend.resolve import resolve_chain

    seen: set = set()
    h = hashlib.sha256(source.digest.encode())
    for chain in _body_names(source)[1]:
        h.update(f"{'.'.join(chain)}={value_fingerprint(resolve_chain(source, chain), seen)};".encode())
    for node, value in sorted(source.static_results.items(), key=lambda kv: (kv[0].lineno, kv[0].col_offset)):
        h.update(f"static@{node.lineno}:{node.col_offset}={value_fingerprint(value, seen)};".encode())
    return h.hexdigest()


def unique_kernel(k):
    """The kernel for a new ``module="unique"`` declaration ``k``: an identical earlier one, or ``k``
    itself, its module named after its fingerprint (different definitions, different module names)."""
    from ..frontend.fingerprint import free_name_values

    options = repr(sorted((name, repr(value)) for name, value in k.module.options.items()))
    fingerprint = _fingerprint(k.source) + options + repr(sorted(k.options.items()))
    key = (k.func.__module__, k.func.__qualname__, k.key, fingerprint)
    used = _body_names(k.source)[0]
    captured = [(n, v) for n, v in free_name_values(k.source) if n in used]
    earlier = _UNIQUE.setdefault(key, [])
    for kernel, kernel_captured in earlier:
        if _same_captures(kernel_captured, captured, set()):
            return kernel
    import hashlib

    # the same source and options capturing other objects: numbered, so that every name stays distinct
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:8] + (f"_{len(earlier)}" if earlier else "")
    k.module.name = f"{k.func.__module__}.{k.key}_{digest}"
    earlier.append((k, captured))
    return k
