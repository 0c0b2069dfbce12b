"""The launch's packer: a function generated once per launch signature that packs the header and the
arguments into the bytes a kernel entry takes, and the conversions of a value of another type on the
way (composites of another scalar type, floats beyond a narrow type's range, values that do not fit)."""

from __future__ import annotations

import math
import numbers
import struct
import textwrap

import numpy as np

from ..errors import LaunchArgumentError, LaunchError
from ..types.arrays import ArrayType, type_name
from ..types.composite import CompositeBase, is_composite_type
from ..types.held_arrays import held_devices
from ..types.layout import pack_format, struct_offsets
from ..types.scalars import ScalarBase, bfloat16, bfloat16_bits, float16, float32, is_scalar_type
from ..types.structs import has_array_fields, has_device_fields, struct_devices
from . import live_ids, range_checks
from .element_fields import element_check
from .held_devices import refuse_elsewhere

_HEADER = "4q4i"
#: The byte offset of the header's parallel flag (after the four int64 extents).
PARALLEL_FLAG = struct.calcsize("<4q")
UNIT_INNER_FLAG = struct.calcsize("<4q2i")  # the header's unit_inner: every array has unit innermost stride
_NARROW_FLOATS = {float16: np.float16, float32: np.float32}  # scalar types whose packing can overflow


def on_one_thread(buf: bytes) -> bytes:
    """A packed launch that runs on one thread: ``buf`` with its parallel flag cleared (the count is then unread)."""
    return buf[:PARALLEL_FLAG] + bytes(4) + buf[PARALLEL_FLAG + 4:]


def composite_converts(src, dst) -> bool:
    """Whether a launch converts a value of composite type ``src`` for a parameter of type ``dst``, as Warp does:
    the same kind and shape (vec3f for vec3h or vec3d), elements of the same kind or integers to floats."""
    floats_to_integers = src._dtype.is_float and not dst._dtype.is_float
    return src._kind == dst._kind and src._shape == dst._shape and not floats_to_integers


def make_packer(arg_types: tuple, sig: tuple, names: tuple = (), device=None, key: str = "", bounds: tuple = (),
                ranges: tuple = ()):
    """Generate ``pack(args, d0, d1, d2, d3, parallel, nthreads) -> bytes`` for one signature; with
    ``device``, a texture argument, or a struct argument holding arrays or textures, is refused unless they
    all live there (the error names kernel ``key``). ``bounds``: the instance's ``tid_bounds``, each tested
    before packing (a ``LaunchError`` for a dim that takes an access every launch point makes out of its array,
    or for an id parameter holding no live object of its kind on ``device``: ``runtime/live_ids``). ``ranges``: a
    loop body instance's ``range_bounds``, tested the same way (``runtime/range_checks``)."""
    offsets, size, _ = struct_offsets(list(arg_types))
    fmt, pos, exprs, unit_terms, checks = ["<", _HEADER], 0, [], [], []
    namespace = {"_sb": _struct_devices_differ, "_dev": device, "_key": key, "_ok": struct_devices({device}),
                 "_oob": _out_of_bounds(key, names, bounds), "_bad_id": _bad_id(key, names, bounds, device)}
    for n, (i, axis, component, *_) in enumerate(bounds):
        if axis == "elements":  # array fields of the elements of an array of structs: read from their records
            namespace[f"_F{n}"] = element_check(bounds[n], key, names)
            checks.append(f"    _F{n}(a[{i}], (d0, d1, d2, d3))\n")
            continue
        if isinstance(axis, str) and len(bounds[n]) > 4:  # a uint64 array whose elements are ids: a scan of it
            checks.append(f"    if _bad_el({axis!r}, a[{i}], _dev) is not None: _bad_id(a, {n})\n")
            continue
        if isinstance(axis, str):  # an id parameter (param, kind, builtin): one dict lookup
            value = f"a[{i}].value" if sig[i] is arg_types[i] else f"a[{i}]"
            if len(bounds[n]) > 3:  # a uint64 field of a struct argument (param, kind, builtin, path)
                namespace[f"_P{n}"] = tuple(bounds[n][3])
                value = f"_fid(a[{i}], _P{n})"
            namespace[f"_L{n}"] = live_ids.LIVE[axis]
            # 0, the null id, passes: a kernel may leave an optional object unset and query it only in a branch
            checks.append(f"    if {value} and _L{n}.get({value}, _N)[0] is not _dev: _bad_id(a, {n})\n")
            continue
        offset = bounds[n][3]
        reach = f"d{component} + {offset}" if component >= 0 else f"{offset}"
        if len(bounds[n]) > 5:  # an array field of a struct argument: None (unset) has no elements
            namespace[f"_P{n}"] = tuple(bounds[n][5])
            checks.append(f"    if {reach} > _fs(a[{i}], _P{n}, {axis}): _oob(a, (d0, d1, d2, d3), {n})\n")
            continue
        checks.append(f"    if {reach} > a[{i}].shape[{axis}]: _oob(a, (d0, d1, d2, d3), {n})\n")
    namespace["_N"], namespace["_fs"], namespace["_fid"] = (None,), field_extent, field_id
    namespace["_bad_el"] = live_ids.bad_element
    namespace["_hd"], namespace["_he"] = held_devices, refuse_elsewhere
    if ranges:
        scalars = {p: f"a[{p}].value" for p in range(len(sig)) if sig[p] is arg_types[p] and is_scalar_type(sig[p])}
        checks += range_checks.check_lines(ranges, scalars)
        namespace["_oor"], namespace["_pe"] = range_checks.out_of_range(key, names, ranges), range_checks.pack_extents
        namespace["_pc"] = range_checks.pack_components
    for i, (t, s, off) in enumerate(zip(arg_types, sig, offsets)):
        if off > pos:
            fmt.append(f"{off - pos}x")
        pos = off + struct.calcsize("<" + pack_format(t))
        fmt.append(pack_format(t))
        if device is not None and has_device_fields(t):  # packing it tells where its arrays and textures live
            name = names[i] if i < len(names) else f"argument {i}"
            checks.append(f"    s{i} = a[{i}]._to_bytes()\n"
                          f"    if a[{i}]._devices is not _ok: _sb(a[{i}], _dev, _key, {name!r})\n")
            exprs.append(f"s{i}")
        else:
            exprs.append(_value_expr(i, t, s))
        if device is not None and has_device_fields(getattr(t, "dtype", None)):  # an array: what its elements hold
            name = names[i] if i < len(names) else f"argument {i}"
            checks.append(f"    if _hd(a[{i}]) - _ok: _he(a[{i}], _dev, _key, {name!r})\n")
        namespace[f"_T{i}"] = t
        if isinstance(t, ArrayType):
            unit_terms.append(f"a[{i}]._unit_inner")
    size = max(size, 1)
    if size > pos:
        fmt.append(f"{size - pos}x")
    unit = " and ".join(unit_terms) or "True"
    body = (f"{''.join(checks)}"
            f"    return _S.pack(d0, d1, d2, d3, par, nt, {unit}, 0{''.join(', ' + e for e in exprs)})\n")
    code = f"def raw(a, d0, d1, d2, d3, par, nt):\n{body}"
    guarded = any(is_scalar_type(t) or is_composite_type(t) for t in arg_types)
    if guarded:  # the try in the packer itself: a wrapping function would cost every launch a call
        code += (f"def pack(a, d0, d1, d2, d3, par, nt):\n    try:\n{textwrap.indent(body, '    ')}"
                 f"    except _E as e:\n        return _out_of_range(e, a, d0, d1, d2, d3, par, nt)\n")
    namespace["_S"] = struct.Struct("".join(fmt))
    namespace["_bf16"] = _bfloat16_bits
    namespace["_cv"] = composite_values
    namespace["_E"] = (struct.error, OverflowError, ComponentError)
    exec(code, namespace)  # noqa: S102 - generated from types only, no user text
    if not guarded:
        return namespace["raw"]
    namespace["_out_of_range"] = _out_of_range(namespace["raw"], arg_types, names, key)
    return namespace["pack"]


def _out_of_bounds(key: str, names: tuple, bounds: tuple):
    """What a packer calls when the launch fails check ``n`` of ``bounds``: raise a ``LaunchError`` saying which
    access would leave which array, and how far."""

    def fail(a, dims, n):
        i, axis, component, offset, where = bounds[n][:5]
        name = names[i] if i < len(names) else f"argument {i}"
        path = bounds[n][5] if len(bounds[n]) > 5 else ()
        held = field_array(a[i], path)
        name = ".".join((name, *path))
        if held is None:
            raise LaunchError(f"launch of '{key}': the access of '{name}' at {where} runs at every launch point, but "
                              f"'{name}' is None (the field was never set): set it to an array before the launch")
        shape = tuple(held.shape)
        if component < 0:
            reach = f"index {offset - 1} on its axis {axis}"
        else:
            reach = (f"index {dims[component] + offset - 1} on its axis {axis} (tid() component {component} runs "
                     f"to {dims[component] - 1}{f' plus {offset}' if offset else ''})")
        raise LaunchError(f"launch of '{key}': the access of '{name}' at {where} runs at every launch point, and this "
                          f"launch takes it to {reach}, but '{name}' has shape {shape}; launch over the array's "
                          f"shape, or test the index before the access"
                          f"{' (None for an array argument is an empty array)' if 0 in shape else ''}")

    return fail


def _bad_id(key: str, names: tuple, checks: tuple, device):
    """What a packer calls when the id parameter of check ``n`` holds no live object of its kind on the launch's
    device: raise a ``LaunchError`` naming the argument, its value, the builtin it goes to, and why."""

    def fail(a, n):
        i, kind, op, *path = checks[n]
        name = names[i] if i < len(names) else f"argument {i}"
        if len(path) > 1:  # a uint64 array whose elements are ids
            index, value = live_ids.bad_element(kind, a[i], device)
            raise LaunchError(f"launch of '{key}': array '{name}' holds {value} at flat index {index}, and its "
                              f"elements are passed to {op}() as ids of a {live_ids.CLASS_NAMES[kind]}, but "
                              f"{live_ids.describe(kind, value, device)}")
        value = field_id(a[i], path[0]) if path else getattr(a[i], "value", a[i])
        name = ".".join((name, *(path[0] if path else ())))
        try:
            value = int(value)
        except (TypeError, ValueError):  # the packer will name a value of the wrong type
            return
        raise LaunchError(f"launch of '{key}': argument '{name}' = {value} is passed to {op}() as the id of a "
                          f"{live_ids.CLASS_NAMES[kind]}, but {live_ids.describe(kind, value, device)}")

    return fail


def field_array(value, path):
    """The array at field ``path`` of struct ``value`` (``value`` itself for an empty path); None when a field
    on the way is unset."""
    for name in path:
        value = getattr(value, name, None) if value is not None else None
    return value


def field_id(value, path):
    """The id at ``uint64`` field ``path`` of struct ``value`` as the launch packs it (0 when a struct on the way is
    unset)."""
    held = field_array(value, path)
    return 0 if held is None else getattr(held, "value", held)


def field_extent(value, path, axis: int) -> int:
    """``shape[axis]`` of the array at field ``path`` of struct ``value``, 0 when it is unset (None)."""
    held = field_array(value, path)
    return 0 if held is None else held.shape[axis]


class ComponentError(LaunchError):
    """A value given for a vector or matrix parameter that does not convert (re-raised naming the argument)."""


def composite_values(t, value) -> list:
    """The element values a launch packs for a parameter of composite type ``t`` from ``value`` (of another
    type): converted by ``t`` (floats round as numpy rounds them), but an integer composite's own values as
    they are, so that packing refuses one that does not fit (a vec3l for a vec3i) instead of wrapping it. A
    list or tuple must hold real numbers: numpy would read "1" as 1.0 and drop the imaginary part of 1+5j."""
    if isinstance(value, CompositeBase) and not t._dtype.is_float:
        return value.flat_values()
    if type(value) is list or type(value) is tuple:
        bad = _not_real(value)
        if bad is not _REAL:
            raise ComponentError(f"component {bad!r} is a {type(bad).__name__}, not a real number")
    try:
        flat = t(value).flat_values()
    except (ValueError, TypeError) as e:
        raise ComponentError(str(e)) from None
    if t._dtype.is_float:
        return flat
    given = _given_integers(value)  # the constructor wraps (2**40 as 0): packing the numbers given refuses those
    return given if len(given) == len(flat) else flat


def _given_integers(value) -> list:
    """The numbers of a list, tuple or numpy array given for an integer composite, flat in row-major order as
    given (the constructor has accepted them); [] for anything else (a number broadcast to every component)."""
    if isinstance(value, np.ndarray):
        return value.ravel().tolist()
    if type(value) is not list and type(value) is not tuple:
        return []
    out = []
    for x in value:
        if type(x) is int:  # the common case first
            out.append(x)
        elif type(x) is list or type(x) is tuple or isinstance(x, np.ndarray):
            out += _given_integers(x)
        elif isinstance(x, CompositeBase):  # a matrix's rows given as vectors
            out += x.flat_values()
        else:
            out.append(x.value if isinstance(x, ScalarBase) else x)
    return out


_REAL = object()  # what ``_not_real`` returns when every component is a real number


def _not_real(value):
    """The first component of a (nested) list or tuple that is not a real number, or ``_REAL``."""
    for x in value:
        if type(x) is float or type(x) is int:  # the common case first
            continue
        if isinstance(x, (list, tuple)):
            bad = _not_real(x)
            if bad is not _REAL:
                return bad
        elif isinstance(x, np.ndarray):
            if x.dtype.kind not in "biuf":
                return x
        elif not isinstance(x, (numbers.Real, np.bool_, ScalarBase, CompositeBase)):
            return x
    return _REAL


def _bfloat16_bits(value) -> int:
    """A bfloat16 scalar (or a number) as the bit pattern the packed buffer holds."""
    return int(bfloat16_bits(float(value.value if isinstance(value, ScalarBase) else value)))


def _struct_devices_differ(value, device, key: str, name: str) -> None:
    """A texture or struct argument (just packed) whose arrays or textures are not all on ``device``: refused,
    unless it holds none (an address of another device's memory would crash the kernel)."""
    if not value._devices:
        return
    where = ", ".join(sorted(str(d) for d in value._devices if d != device))
    if getattr(type(value), "_bw_texture", 0):
        raise LaunchError(f"launch of '{key}' on {device}: argument '{name}' is a {type(value).__name__} on {where}; "
                          f"a texture must be on the launch device (make it with device='{device}')")
    held = [w for w, holds in (("arrays", has_array_fields), ("textures", _holds_textures)) if holds(type(value))]
    fixes = {"arrays": f"copy them with a.to('{device}')", "textures": f"make them with device='{device}'"}
    raise LaunchError(f"launch of '{key}' on {device}: argument '{name}' holds {' or '.join(held)} on {where}; "
                      f"{' and '.join(held)} in a struct must be on the launch device "
                      f"({'; '.join(f'{w}: {fixes[w]}' if len(held) > 1 else fixes[w] for w in held)})")


def _holds_textures(t) -> bool:
    """Whether struct type ``t`` has texture fields, itself or in nested structs."""
    return any(getattr(ft, "_bw_texture", 0) or has_device_fields(ft) and _holds_textures(ft) for _, ft in t._fields)


def _value_expr(i, t, s) -> str:
    if isinstance(t, ArrayType):
        return f"a[{i}]._packed"
    if t is bfloat16:  # stored as its bits
        return f"_bf16(a[{i}])"
    if is_scalar_type(t):
        if s is t:
            return f"a[{i}].value"
        return f"a[{i}]"
    if is_composite_type(t):
        return f"*a[{i}].flat_values()" if s is t else f"*_cv(_T{i}, a[{i}])"
    return f"a[{i}]._to_bytes()"


def _out_of_range(pack, arg_types, names, key: str = ""):
    """What a packer does once packing raised ``err`` (``pack``: the packer without this handling): a float
    beyond float16's or float32's finite range becomes +-inf (IEEE rounding, as numpy and Warp convert it);
    an integer (300 for an int8) raises a LaunchError naming kernel ``key`` and the argument. Only a failed pack
    comes here."""
    where = f"launch of '{key}'" if key else "launch"

    def handle(err, a, d0, d1, d2, d3, par, nt):
        rounded = _floats_rounded(a, arg_types)
        if rounded is not None:
            return pack(rounded, d0, d1, d2, d3, par, nt)
        for name, t, value in zip(names, arg_types, a):
            try:
                if is_scalar_type(t):
                    struct.pack("<" + t._fmt, getattr(value, "value", value))
                elif is_composite_type(t):
                    struct.pack("<" + pack_format(t), *composite_values(t, value))
            except (struct.error, OverflowError):
                raise LaunchError(f"{where}: argument '{name}' = {_shown(value)} does not fit in "
                                  f"{type_name(t)}") from None
            except ComponentError as e:  # a list launched before with numbers, now with a string
                raise LaunchArgumentError(f"{where}: argument '{name}' must be {type_name(t)}: {e}") from None
        raise err

    return handle


def _shown(value) -> str:
    """``repr(value)``, but a huge integer by its size (its digits could fill a screen, or be too many to print)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    return repr(value)


def _floats_rounded(args, arg_types):
    """``args`` with each float16/float32 scalar beyond its type's finite range rounded to +-inf, or None
    when there is none."""
    out, changed = list(args), False
    for k, (t, value) in enumerate(zip(arg_types, args)):
        if isinstance(value, ScalarBase) and type(value).is_float:  # wp.float64(1e10): as the Python float
            value = value.value
        if isinstance(value, int) and value.bit_length() > 1024:  # no float of it (10**400): left to the caller
            continue
        if t in _NARROW_FLOATS and isinstance(value, (float, int, np.number)) and math.isfinite(value):
            with np.errstate(over="ignore"):
                rounded = float(_NARROW_FLOATS[t](value))
            if math.isinf(rounded):
                out[k], changed = rounded, True
    return out if changed else None
