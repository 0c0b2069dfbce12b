"""The vector, matrix, quaternion and transform type a class name denotes (``vec3f``, ``mat22d``, ``quath``,
``vector(length=2, dtype=bool)``, ``matrix(shape=(2, 3), dtype=float64)``): how pickle finds these types, which
are made on the fly, as attributes of ``brickwork.types.composite`` (whose ``__getattr__`` asks here)."""

from __future__ import annotations

import re

from . import composite

_SUFFIXES = "|".join(sorted(composite._SUFFIX, key=len, reverse=True))  # "ub" before "b"
_FAMILY = re.compile(rf"(vec|mat|quat|transform)(\d*)({_SUFFIXES})")
_VECTOR = re.compile(r"vector\(length=(\d+), dtype=(\w+)\)")
_MATRIX = re.compile(r"matrix\(shape=\((\d+), (\d+)\), dtype=(\w+)\)")


def type_named(name: str):
    """The type whose ``__name__`` is ``name``, made if need be; None when no composite type has that name."""
    found = _FAMILY.fullmatch(name)
    if found:
        family, digits, suffix = found.groups()
        dtype = composite._SCALAR_BY_NAME[composite._SUFFIX[suffix]]
        if family == "vec" and digits:
            t = composite.vector(int(digits), dtype)
        elif family == "mat" and digits and len(digits) % 2 == 0 and digits[:len(digits) // 2] * 2 == digits:
            n = int(digits[:len(digits) // 2])
            t = composite.matrix((n, n), dtype)
        elif family in ("quat", "transform") and not digits:
            t = (composite.quaternion if family == "quat" else composite.transformation)(dtype)
        else:
            return None
        return t if t.__name__ == name else None
    found = _VECTOR.fullmatch(name) or _MATRIX.fullmatch(name)
    if found is None or found.groups()[-1] not in composite._SCALAR_BY_NAME:
        return None
    *sizes, dtype = found.groups()
    dtype = composite._SCALAR_BY_NAME[dtype]
    t = composite.vector(int(sizes[0]), dtype) if len(sizes) == 1 else \
        composite.matrix((int(sizes[0]), int(sizes[1])), dtype)
    return t if t.__name__ == name else None
