"""Naming the commonest puzzle of struct types in messages: a struct class defined again (a notebook cell run
twice, a reloaded module) is a new type with the old one's name, so "must be S, got S" needs its reason."""

from __future__ import annotations

from .array_types import ArrayType, type_name


def redefined_struct_hint(want, got) -> str:
    """Why a struct, or an array of structs, whose type bears the name of the ``want``ed one is refused
    (``got``: its type); "" for any other mismatch."""
    want_struct, got_struct = (x.dtype if isinstance(x, ArrayType) else x for x in (want, got))
    if (not getattr(want_struct, "_bw_struct", False) or not getattr(got_struct, "_bw_struct", False)
            or want_struct is got_struct or want_struct.__name__ != got_struct.__name__):
        return ""

    def fields(struct) -> str:
        return ", ".join(f"{name}: {type_name(t)}" for name, t in struct._fields)

    same = fields(want_struct) == fields(got_struct)
    return (f" (another struct class named {want_struct.__name__} than the one wanted: a class defined again, by "
            f"a notebook cell run twice or a reloaded module, is a new type; the one wanted has fields "
            f"{fields(want_struct)}, this value's {'the same' if same else fields(got_struct)}; make the value "
            f"from the class wanted, or define again what uses the struct (the kernel) after the class)")
