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


def _body_chains(source) -> list[list[str]]:
    """The names and dotted chains the function's signature (its return annotation too) and body read: its
    decorator's arguments are options (compared as ``kernel.options``), not values the code uses."""
    from ..frontend.fingerprint import name_chains

    tree = source.tree
    return name_chains([tree.args, *([tree.returns] if tree.returns is not None else []), *tree.body])


def _fingerprint(source, func) -> str:
    """Hash of the source text, of every value its signature and body name, of its static values and of
    its evaluated annotations (``wp.array[dtype]`` names ``dtype`` of the enclosing function, which the
    kernel's code does not capture)."""
    from ..frontend.fingerprint import function_fingerprint, value_fingerprint

    annotations = ";".join(f"{name}={value_fingerprint(value, set())}"
                           for name, value in getattr(func, "__annotations__", {}).items())
    return function_fingerprint(source, chains=_body_chains(source)) + annotations


def unique_kernel(k):
    """The kernel for a new ``module="unique"`` declaration ``k``: an identical earlier one, or ``k``
    itself, its module named after its fingerprint (different definitions, different module names)."""
    from ..frontend.fingerprint import free_name_values

    options = repr(sorted((name, repr(value)) for name, value in k.module.options.items()))
    fingerprint = _fingerprint(k.source, k.func) + options + repr(sorted(k.options.items()))
    key = (k.func.__module__, k.func.__qualname__, k.key, fingerprint)
    used = {chain[0] for chain in _body_chains(k.source)}
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
