"""The launch's slow path, once per launch signature: check the arguments against the kernel's parameters, find,
build and load the instance, make its argument packer, and keep both in the kernel's launch table."""

from __future__ import annotations

import numpy as np

from .. import config
from .. import device as _devices
from ..device import get_device
from ..errors import LaunchArgumentError, LaunchError
from ..lang.kernel import sibling_kernels
from ..types.array_kinds import cross_family
from ..types.array_types import ReadOnly
from ..types.arrays import ArrayType, is_foreign_cuda_array, type_name
from ..types.composite import CompositeBase, is_composite_type
from ..types.generic import describe_value, is_generic, matches, type_of_value
from ..types.held_arrays import read_only_at
from ..types.indexed_arrays import ARRAY_KINDS, indexedarray
from ..types.redefined_structs import redefined_struct_hint
from ..types.scalars import ScalarBase, bool_, is_scalar_type, python_annotation_type, uint64
from ..types.structs import is_struct_type
from .packing import ComponentError, composite_converts, composite_values, make_packer

CPU_BLOCKS = ("{how} of '{key}': wp.config.enable_cpu_blocks is True, but a block runs as one thread here (Warp's "
              "CPU blocks of block_dim lanes are not supported); set it to False")


def _refuse_external_entry_point(kernel) -> None:
    """A kernel declared for an external launcher cannot run through ``launch`` (checked on the slow path:
    a kernel's options are fixed when it is declared)."""
    options = getattr(kernel, "options", None)
    if isinstance(options, dict) and options.get("entry_point_abi") == "external_constant_params":
        raise RuntimeError(f"kernel '{kernel.key}' has entry_point_abi='external_constant_params': an external "
                           f"launcher starts it, so it cannot be launched with wp.launch (brickwork has no such "
                           f"launcher; use the default entry_point_abi='warp')")


def prepare(kernel, sig, args, device, target=None, table_key=None, rank: int = 0) -> tuple:
    """Slow path, once per signature: check, choose the instance (for ``target``; None: the CPU's),
    build it, make its packer; the entry goes in the launch table under ``table_key`` (default ``sig``).
    ``rank``: the entries of the launch's ``dim``, where more than the kernel's ``tid()`` gives indices
    (``Instance.ranked``)."""
    on = get_device(device) if device is not None else _devices.CPU  # raises for unavailable devices
    _refuse_external_entry_point(kernel)
    params = kernel.params
    if len(args) != len(params):
        sibling = _sibling_with_count(kernel, len(args))
        if sibling is not None:
            entry = prepare(sibling, sig, args, device, target, table_key, rank)
            kernel.launch_table[sig if table_key is None else table_key] = entry
            return entry
        names = ", ".join(n for n, _ in params)
        raise LaunchError(f"launch of '{kernel.key}': expected {len(params)} arguments ({names}), "
                          f"got {len(args)}")
    for (name, _), a in zip(params, args):
        kinds = cross_family(a) if isinstance(a, ARRAY_KINDS) else None
        if kinds:
            raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is a {type(a).__name__}, which derives "
                              f"from more than one native array family ({kinds}); derive from one only")
        if isinstance(a, ARRAY_KINDS) and a.device != on:
            raise LaunchError(f"launch of '{kernel.key}' on {on}: argument '{name}' is an array on {a.device}; "
                              f"arrays must be on the launch device (copy it with a.to('{on}'))")
    if kernel.is_generic:
        types = []
        for (name, ann), value in zip(params, args):
            if not is_generic(ann) and not isinstance(value, ARRAY_KINDS):
                # a concrete parameter takes its annotation's type (a Python int for a uint64 grid id, as in
                # a kernel with no generic parameter); the packer checks and converts the value
                types.append(python_annotation_type(ann))
                continue
            t = type_of_value(value)
            if t is None:
                raise LaunchError(f"launch of '{kernel.key}': cannot infer a type for argument '{name}' from "
                                  f"a value of type {describe_value(value)}; pass a brickwork type, e.g. "
                                  f"wp.float32(x) or wp.vec3f(...)")
            if not matches(ann, t):
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(ann)}, got "
                                  f"{type_name(t)}{redefined_struct_hint(ann, t)}")
            types.append(t)
        inst = kernel.get_instance(tuple(types), target)
    else:
        types = kernel.concrete_types()
        for (name, _), t, value in zip(params, types, args):
            _check_concrete(kernel, name, t, value)
        inst = kernel.get_instance(types, target)
    inst.ensure_loaded()
    if rank > inst.tid_dims:
        inst = inst.ranked(rank)
        inst.ensure_loaded()
    if inst.uses_tiles and config.enable_cpu_blocks:  # launch_tiled checks each launch; launch when it prepares one
        raise LaunchError(CPU_BLOCKS.format(how="launch", key=kernel.key))
    for i in inst.writes:
        if isinstance(args[i], ARRAY_KINDS) and args[i].readonly:
            raise LaunchError(f"launch of '{kernel.key}': argument '{params[i][0]}' is a read-only array (it views "
                              f"read-only memory) but the kernel writes it; pass a writable copy (wp.clone(a))")
        if isinstance(getattr(args[i], "_sig", None), ReadOnly):  # writable memory, but elements share addresses
            base = args[i].data if isinstance(args[i], indexedarray) else args[i]
            what = "has elements that" if base is args[i] else "indexes an array whose elements"
            raise LaunchError(f"launch of '{kernel.key}': argument '{params[i][0]}' {what} share memory (shape "
                              f"{base.shape}, strides {base.strides} bytes) and the kernel writes it: its threads "
                              f"would race on the shared elements; pass a copy (wp.clone(a))")
    pack = make_packer(inst.arg_types, sig, tuple(n for n, _ in params), on, kernel.key, inst.tid_bounds,
                       inst.range_bounds)
    if inst.writes_fields:  # a struct's fields can change between launches: checked at each
        pack = _refusing_read_only_fields(pack, kernel.key, params, inst.writes_fields)
    entry = (inst, pack)
    kernel.launch_table[sig if table_key is None else table_key] = entry
    return entry


def _refusing_read_only_fields(pack, key: str, params, fields: tuple):
    """``pack`` that first refuses a launch whose struct argument holds a read-only array (numpy
    memory that is not writable) at a field path the kernel writes."""

    def packer(a, d0, d1, d2, d3, par, nt):
        for i, path in fields:
            found = read_only_at(a[i], path)
            if found is not None:
                where = ".".join((params[i][0], *path)).replace(".[]", "[i]")
                if not found.readonly:  # writable memory whose elements share addresses
                    raise LaunchError(f"launch of '{key}': '{where}' has elements that share memory (strides "
                                      f"{getattr(found, 'data', found).strides} bytes) and the kernel writes it: its "
                                      f"threads would race on the shared elements; assign a copy (wp.clone(...))")
                raise LaunchError(f"launch of '{key}': '{where}' is a read-only array (it views read-only "
                                  f"memory) but the kernel writes it; assign a writable copy (wp.clone(...))")
        return pack(a, d0, d1, d2, d3, par, nt)

    return packer


def _sibling_with_count(kernel, nargs):
    """Another kernel of the same name and module taking ``nargs`` arguments, if one exists."""
    for k in sibling_kernels(kernel):
        if k is not kernel and len(k.params) == nargs:
            return k
    return None


def _dtype_hint(want, got) -> str:
    """How to convert an array whose elements are of another scalar type than the parameter's, or whose last
    dimensions hold the components of the parameter's vectors or matrices ("" otherwise)."""
    if (isinstance(got, ArrayType) and is_composite_type(want.dtype) and got.dtype is want.dtype._dtype
            and got.ndim == want.ndim + len(want.dtype._shape)):
        name = want.dtype.__name__
        return (f" (if its last {'dimension holds' if len(want.dtype._shape) == 1 else 'dimensions hold'} each "
                f"{name}'s components: make an array of {name} from the data, wp.array(data, dtype=wp.{name}) or "
                f"wp.from_numpy(data, dtype=wp.{name}))")
    if not (isinstance(got, ArrayType) and want.ndim == got.ndim and is_scalar_type(want.dtype)
            and is_scalar_type(got.dtype) and want.dtype is not got.dtype):
        return ""
    name = want.dtype.__name__
    numpy_form = f"numpy_array.astype(numpy.{name}) or " if want.dtype._np.__name__ == name else ""  # not bfloat16
    return (f" (its elements are {got.dtype.__name__}, the kernel's {name}: convert the data, e.g. {numpy_form}"
            f"wp.array(numpy_array, dtype=wp.{name}))")


def _container_hint(want, value) -> str:
    """How to make an array of a list or tuple passed for an array parameter ("" for other values)."""
    if not isinstance(value, (list, tuple)):
        return ""
    return f" (a {type(value).__name__} is not an array: make one, wp.array(values, dtype=wp.{type_name(want.dtype)}))"


def _ndim_hint(want, got) -> str:
    """The two fixes of an array of the parameter's dtype with another number of dimensions ("" otherwise)."""
    if not (isinstance(got, ARRAY_KINDS) and getattr(got._key, "dtype", None) is want.dtype and got.ndim != want.ndim):
        return ""
    return (f" (its shape is {tuple(got.shape)}, and the parameter has {want.ndim} dimension"
            f"{'s' if want.ndim > 1 else ''}: annotate it wp.array(dtype=wp.{type_name(want.dtype)}, ndim={got.ndim})"
            f"{', or pass a.flatten()' if want.ndim == 1 else ''})")


def _check_concrete(kernel, name, t, value):
    def fail(got):
        raise LaunchError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(t)}, got {got}")

    if isinstance(t, ArrayType):
        if is_foreign_cuda_array(value):
            raise LaunchError(f"launch of '{kernel.key}' on the CPU: argument '{name}' is CUDA memory "
                              f"({describe_value(value)}); launch on its device (device='cuda:0', ...) or copy it "
                              f"to the host")
        if not isinstance(value, ARRAY_KINDS):
            fail(describe_value(value) + _container_hint(t, value))
        if value._key is not t:
            fail(type_name(value._key) + (_dtype_hint(t, value._key) or _ndim_hint(t, value)
                                          or redefined_struct_hint(t, value._key)))
        return
    if is_scalar_type(t):
        if isinstance(value, ScalarBase):
            # another scalar type of the same kind converts as its Python value would (wp.int64(5) for an int
            # parameter, wp.float64(0.5) for a float one), as in Warp; an integer out of range is refused below
            if type(value) is not t and not (t.is_float and type(value).is_float) and \
                    not (_is_int_type(t) and _is_int_type(type(value))):
                fail(type_name(type(value)))
        elif isinstance(value, (bool, np.bool_, int, np.integer)):  # an int for a bool: its truth, as Warp
            pass
        elif isinstance(value, (float, np.floating)) and t.is_float:
            pass
        elif t is uint64 and isinstance(getattr(value, "id", None), int):  # a Mesh, a Bvh, a HashGrid, a Volume
            fail(f"{describe_value(value)}: pass its id ({type(value).__name__.lower()}.id)")
        elif isinstance(value, (*ARRAY_KINDS, np.ndarray, list, tuple)):  # numpy's habit: one argument, many values
            article = "an" if type_name(t)[0] in "aeiou" else "a"
            fail(f"{describe_value(value)} ({article} {type_name(t)} parameter takes one number; a parameter that "
                 f"takes an array is annotated wp.array(dtype=wp.{type_name(t)}))")
        else:
            fail(describe_value(value))
        return
    if is_composite_type(t):
        if isinstance(value, (int, float, ScalarBase, np.number, np.bool_)):  # Warp refuses promoting one number
            raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}' expects {type_name(t)} but got "
                                      f"a single value")
        if isinstance(value, CompositeBase):
            if type(value) is not t and not composite_converts(type(value), t):
                fail(type_name(type(value)))
        elif isinstance(value, (list, tuple)):
            try:
                composite_values(t, value)
            except ComponentError as e:
                # a ValueError too, as Warp's 'Failed to convert argument'
                raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}' must be {type_name(t)}: "
                                          f"{e}") from None
        else:
            fail(describe_value(value))
        return
    if is_struct_type(t) and type(value) is not t:
        fail(describe_value(value) + redefined_struct_hint(t, type(value)))


def _is_int_type(t) -> bool:
    return is_scalar_type(t) and not t.is_float and t is not bool_
