"""The launch packer's tests of a loop body's ranges (``ir/range_bounds.py``): a few comparisons per access,
generated into the packer, and the ``LaunchError`` of a launch that fails one."""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError

_UNCHECKED = (1 << 62,) * 3  # the extents of a pack variable whose storage differs between blocks: no test


def term_code(term, values: dict | None = None) -> str:
    """The packer's expression of a term ``[c, p, k]`` of ``range_bounds``: ``d<c> + a[<p>] + k`` (``values``:
    another expression of argument ``p``, ``a[p].value`` for a scalar instance)."""
    component, param, constant = term
    value = (values or {}).get(param, f"a[{param}]")
    parts = ([f"d{component}"] if component >= 0 else []) + ([value] if param >= 0 else [])
    if constant or not parts:
        parts.append(str(constant))
    return " + ".join(parts).replace("+ -", "- ")


def term_value(term, a, dims) -> int:
    component, param, constant = term
    return (dims[component] if component >= 0 else 0) + (int(a[param]) if param >= 0 else 0) + constant


def _extent_code(i: int, extent) -> str:
    if extent[0] == "array":
        return f"_h{i}[{extent[1]}]"
    if extent[0] == "blocks":
        return f"a[{i}].nblocks"
    if extent[0] == "vars":
        return f"a[{i}].ptrs.shape[1]"
    if extent[0] == "comps":
        return f"_pc(a[{i}], {extent[1]})"
    return f"_pe(a[{i}], {extent[1]}, {extent[2]})[{extent[3]}]"


def check_lines(ranges: tuple, values: dict | None = None) -> list:
    """The packer's lines testing each entry of ``ranges``: entry ``n`` fails through ``_oor(a, dims, n)``
    (``out_of_range``), ``_pe`` is ``pack_extents``, ``_pc`` ``pack_components``. Each array's shape and each
    bound is read or summed once (locals ``_h<param>``, ``_r<n>``), so that a test is one or two comparisons.
    ``values``: the expressions of scalar arguments given as instances (``a[p].value``), see ``term_code``."""
    lines, names = [], {}

    def local(code: str) -> str:  # a bound's sum, computed once (a plain name or number stays as it is)
        if code.isidentifier() or code.lstrip("-").isdigit() or code.startswith("a["):
            return code
        if code not in names:
            names[code] = f"_r{len(names)}"
            lines.append(f"    {names[code]} = {code}\n")
        return names[code]

    for i in sorted({entry[0] for entry in ranges if entry[1][0] == "array"}):
        lines.append(f"    _h{i} = a[{i}].shape\n")
    for n, (i, extent, low, high, *_) in enumerate(ranges):
        lo, hi = local(term_code(low, values)), local(term_code(high, values))
        below = "" if low[0] < 0 and low[1] < 0 and low[2] >= 0 else f" or {lo} < 0"  # a constant >= 0: never
        lines.append(f"    if ({hi} >= {_extent_code(i, extent)}{below}) and {lo} <= {hi}: "
                     f"_oor(a, (d0, d1, d2, d3), {n})\n")
    return lines


def pack_extents(value, position: int, element: int) -> tuple:
    """The (nk, nj, ni) storage extents of element ``element`` of variable ``position`` (-1: of every variable)
    of pack argument ``value`` (``mesh/kernel_pack``), the same in every block that has it; huge (no test) where
    they differ or none has it. Computed once per pack and variable (the tables do not change)."""
    found = value.__dict__.get("_bw_extents")
    if found is None:
        found = {}
        object.__setattr__(value, "_bw_extents", found)
    key = (position, element)
    if key not in found:
        shapes, bounds = value.ptr_shapes.numpy(), value.bounds.numpy()
        if position < 0:
            rows = [shapes[:, :, element].reshape(-1, 3)]
        else:
            rows = [shapes[b, lo:hi + 1, element] for b, (lo, hi) in enumerate(bounds[:, position]) if lo <= hi]
        rows = np.concatenate(rows) if rows else np.zeros((0, 3), dtype=np.int64)
        rows = rows[(rows > 0).all(axis=1)]  # rows of storage that exists
        same = len(rows) and (rows == rows[0]).all()
        found[key] = tuple(int(x) for x in rows[0]) if same else _UNCHECKED
    return found[key]


def pack_components(value, position: int) -> int:
    """The components variable ``position`` of pack argument ``value`` has in every block that has it (the
    least, where blocks differ); huge (no test) where no block has it. Computed once per pack and variable."""
    found = value.__dict__.get("_bw_components")
    if found is None:
        found = {}
        object.__setattr__(value, "_bw_components", found)
    if position not in found:
        lo, hi = value.bounds.numpy()[:, position].T
        counts = (hi - lo + 1)[hi >= lo]
        found[position] = int(counts.min()) if counts.size else _UNCHECKED[0]
    return found[position]


def out_of_range(key: str, names: tuple, ranges: tuple):
    """What a packer calls when the launch fails check ``n`` of ``ranges``: raise
    a ``LaunchError`` naming the access, its line, the launch's ranges, the index's span and the shape."""

    def fail(a, dims, n):
        i, extent, low, high, where, text, loops = ranges[n]
        name = names[i] if i < len(names) else f"argument {i}"
        lo, hi = term_value(low, a, dims), term_value(high, a, dims)
        spans = ", ".join(f"{v} in {term_value(l, a, dims)}..{term_value(h, a, dims)}" for v, l, h in loops)
        if extent[0] == "array":
            where_to = f"its index {text} on axis {extent[1]}"
            held = f"'{name}' has shape {tuple(a[i].shape)}"
        elif extent[0] == "blocks":
            where_to = f"its block index {text}"
            held = f"pack '{name}' has {a[i].nblocks} blocks"
        elif extent[0] == "vars":
            where_to = f"its flat variable index {text}"
            held = f"pack '{name}' has {a[i].ptrs.shape[1]} flat variable indices"
        elif extent[0] == "comps":
            count = pack_components(a[i], extent[1])
            arg = text.split('(')[1][:-1]
            when = (f"wherever it runs (the body tests {arg} nowhere, so this value is a mistake whichever branch "
                    f"runs)" if extent[3:] == ["any"] else "at every point of the range")
            raise LaunchError(f"launch of '{key}': the access of '{name}' at {where} takes the component {text} "
                              f"with {arg} = {lo} {when}, but variable "
                              f"'{extent[2]}' has {count} component{'s' * (count != 1)} in pack '{name}' (0 to "
                              f"{count - 1}); pass a component in that range (release builds do not test it in the "
                              f"kernel)")
        else:
            where_to = f"its cell index {text} on axis {'kji'[extent[3]]}"
            whose = "the variable's" if extent[1] >= 0 else "every variable's"
            held = f"{whose} storage in pack '{name}' has extents {pack_extents(a[i], *extent[1:3])} (k, j, i)"
        reach = f"{lo}..{hi}" if lo != hi else f"{lo}"
        raise LaunchError(f"launch of '{key}': the access of '{name}' at {where} runs at every point of the "
                          f"range ({spans}), which takes {where_to} to {reach}, but {held}; launch over a range "
                          f"inside it, or test the index before the access")

    return fail
