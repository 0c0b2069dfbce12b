"""Reverse-mode automatic differentiation from Python: ``Tape`` and backward launches.

A ``Tape`` used as a context manager records every ``launch`` made inside it; ``backward`` runs the
backward kernel (``passes/adjoint.py``) of each recorded launch in reverse order, accumulating into
the ``.grad`` arrays of the arrays that require gradients. ``launch(..., adjoint=True, adj_inputs=
..., adj_outputs=...)`` runs one backward kernel directly, as in Warp.
"""

from __future__ import annotations

import numpy as np

from .. import config
from ..device import CPU, get_device
from ..errors import LaunchError
from ..lang.determinism import check_backward
from ..lang.modules import backward_enabled
from ..types import array_reads
from ..types.array_constructors import empty, zeros
from ..types.arrays import ArrayType, array, copy_observers, type_name
from ..types.composite import CompositeBase
from ..types.fabric_arrays import FABRIC_TYPES, empty_fabric
from ..types.held_arrays import point_at_gradients
from ..types.kernel_params import KEEP_BITS, KEEP_PARAM, has_adjoint_param, has_adjoint_value, is_pack_type
from ..types.scalars import ScalarBase, bool_, is_scalar_type, uint64
from ..types.structs import StructBase, gradient_struct, has_array_fields
from . import gradient_flow
from .warp_warnings import warn

#: Tapes recording now, innermost last (launch records into the innermost).
recording: list = []


class Tape:
    """Records launches for reverse-mode differentiation.

    ``with wp.Tape() as tape: ...launches...``, then ``tape.backward(loss)`` (``loss``: a one-element
    array whose gradient is set to 1) or ``tape.backward(grads={array: gradient})``; gradients land
    in each array's ``.grad``. ``zero()`` clears the gradients, ``reset()`` also forgets the launches.
    ``gradients`` maps each recorded array to its gradient and each recorded struct holding arrays to a
    struct of their gradients; ``record_scope_begin``/``record_scope_end`` mark named groups of launches
    in ``scopes``. Tapes do not nest: one records at a time.
    """

    def __init__(self):
        self.launches: list = []
        self.gradients: dict = {}
        self.packs: list = []  # kernel values of the mesh packs recorded launches use
        self.loss = None
        self._accessed: list = []  # arrays of recorded launches and copies: their read flags (array_reads.py)
        #: (launch index, name, metadata) where a scope begins, (launch index, None, None) where one ends
        self.scopes: list = []
        self._flow_checked = (0, 0)  # launches and other steps seen by the last gradient flow check
        #: the steps that are no kernel launch, for that check: (position among the launches, Step, argument
        #: names, arrays, positions read, positions written) (gradient_flow.py)
        self._flow_steps: list = []

    def __enter__(self):
        if any(t is self for t in recording):
            raise RuntimeError("this Tape is already recording (a Tape cannot be entered twice)")
        if recording:
            raise RuntimeError("cannot enter a Tape while another Tape is recording (tapes do not nest): exit the "
                               "other Tape first")
        recording.append(self)
        return self

    def __exit__(self, *exc):
        if not any(t is self for t in recording):  # list.remove's own error ('x not in list') named no tape
            raise RuntimeError("this Tape is not recording: __exit__ without a matching __enter__ (or called twice)")
        recording.remove(self)
        return False

    # -- recording ---------------------------------------------------------------------------------
    def record_launch(self, kernel, dim, inputs, outputs, device=None, saved=None, adjoints=None) -> None:
        """Record a launch; ``saved``: (storage, values) to put back while its backward kernel runs (taken
        now from the mesh fields its packs reach when None); ``adjoints``: a function giving the adjoint
        arguments at backward time (default: each array's ``.grad``)."""
        snapshot = []
        for a in _with_struct_arrays((*inputs, *outputs)):
            if isinstance(a, array):
                self._accessed.append(a)
            if isinstance(a, array) and a.requires_grad:
                self.gradients[a] = a.grad
            elif is_pack_type(type(a)):  # before structs: a pack's kernel value is a struct of arrays too
                self.packs.append(a)
                snapshot += field_snapshot(a)
            elif has_array_fields(type(a)):
                self.gradients[a] = gradient_struct(a)
        # mesh fields are updated in place stage after stage: the backward kernel must replay this launch
        # on the values it read, so they are saved now (plain arrays are not: as in Warp, don't overwrite
        # an array a recorded launch read)
        saved = snapshot if saved is None else saved
        inputs, outputs = [_as_launched(a) for a in inputs], [_as_launched(a) for a in outputs]
        self.launches.append((kernel, dim, inputs, outputs, device, saved, adjoints))

    def record_func(self, backward, arrays) -> None:
        """Record a Python function to call (with no arguments) at its place in the backward pass;
        ``arrays`` are the arrays whose gradients it updates (zeroed by ``zero()``). The gradient flow check
        takes the step to read each of them and to write those that have a gradient."""
        if not callable(backward):
            raise TypeError(f"record_func needs a callable, got {type(backward).__name__}")
        arrays = list(arrays)
        if config.verify_gradient_flow:
            named = [(f"arrays[{k}]", a) for k, a in enumerate(arrays)]
            self._record_step(gradient_flow.function_step(backward), named,
                              [(n, a) for n, a in named if adjoint_of(a) is not None])
        self._record_func(backward, arrays)

    def _record_func(self, backward, arrays) -> None:
        self.launches.append(backward)
        for a in arrays:
            if isinstance(a, array):
                self._accessed.append(a)
            if isinstance(a, array) and a.requires_grad:
                self.gradients[a] = a.grad

    def _record_step(self, step, reads, writes, backward=None, arrays=()) -> None:
        """Note for the gradient flow check a step that is no kernel launch, at this place among the launches:
        ``step`` (a ``gradient_flow.Step``) reads and writes the ``(argument name, array)`` pairs ``reads`` and
        ``writes``. With ``backward``, record it as ``record_func`` does (its gradients: ``arrays``')."""
        if config.verify_gradient_flow:
            pairs = [*reads, *writes]
            self._flow_steps.append((len(self.launches), step, [n for n, _ in pairs], [a for _, a in pairs],
                                     range(len(reads)), range(len(reads), len(pairs))))
        if backward is not None:
            self._record_func(backward, arrays)

    def record_scope_begin(self, scope_name: str, metadata: dict | None = None) -> None:
        """Begin a named scope of the launches recorded next (``metadata``: any information to keep with it)."""
        self.scopes.append((len(self.launches), scope_name, dict(metadata) if metadata else {}))

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """End the innermost open scope; one without launches is removed unless ``remove_scope_if_empty`` is
        False. Raises ``RuntimeError`` when no scope is open."""
        depth = 0
        for i in range(len(self.scopes) - 1, -1, -1):  # the innermost scope still open
            depth += 1 if self.scopes[i][1] is None else -1
            if depth < 0:
                break
        else:
            raise RuntimeError("Tape.record_scope_end: ended tape scope, but scope not present (no "
                               "record_scope_begin is open)")
        if remove_scope_if_empty and self.scopes[i][0] == len(self.launches) and i == len(self.scopes) - 1:
            del self.scopes[i]
        else:
            self.scopes.append((len(self.launches), None, None))

    def visualize(self, filename: str | None = None, simplify_graph: bool = True, hide_readonly_arrays: bool = False,
                  array_labels: dict | None = None, choose_longest_node_name: bool = True,
                  ignore_graph_scopes: bool = False, track_inputs: list | None = None,
                  track_outputs: list | None = None, track_input_names: list | None = None,
                  track_output_names: list | None = None, graph_direction: str = "LR") -> str:
        """The recorded launches as GraphViz DOT text (also written to ``filename`` when given): a node per
        launch, an ellipse per array, scopes as clusters; ``simplify_graph`` draws consecutive identical
        launches once ("repeated Nx"), ``hide_readonly_arrays`` leaves out arrays no launch writes,
        ``array_labels`` names arrays (else the longest, or with ``choose_longest_node_name=False`` the first,
        parameter name they were passed as), ``track_inputs``/``track_outputs`` highlight arrays."""
        from .tape_graph import tape_to_dot

        text = tape_to_dot(self, simplify_graph, hide_readonly_arrays, array_labels, choose_longest_node_name,
                           ignore_graph_scopes, track_inputs, track_outputs, track_input_names, track_output_names,
                           graph_direction)
        if filename is not None:
            with open(filename, "w") as f:
                f.write(text)
        return text

    # -- backward ----------------------------------------------------------------------------------
    def backward(self, loss=None, grads: dict | None = None) -> None:
        """Run the recorded launches' backward kernels in reverse order, starting from ``loss`` (its
        gradient set to 1), from ``grads``, or (neither given) from the ``.grad`` values set already."""
        if loss is not None:
            if not isinstance(loss, array) or loss.grad is None:
                raise ValueError("Tape.backward(loss): loss must be an array created with requires_grad=True")
            if loss.size != 1:
                raise ValueError(f"Tape.backward(loss): loss must have one element, got shape {loss.shape} "
                                 f"(pass grads={{array: gradient}} to start from a whole gradient)")
        for a, g in (grads or {}).items():  # checked before anything is set
            if not isinstance(a, array):
                raise ValueError(f"Tape.backward(grads=...): each key must be a brickwork array, got "
                                 f"{type(a).__name__}")
            if a.grad is None and not (isinstance(g, array) and g.shape == a.shape and g.dtype is a.dtype):
                raise ValueError("Tape.backward(grads=...): the gradient of an array without requires_grad must be "
                                 f"an array of its shape {a.shape} and dtype {a.dtype.__name__}, got {g!r}")
            shape, own = (tuple(g.shape) if isinstance(g, array) else np.shape(g)), tuple(a.shape)
            if a.grad is not None and shape not in (own, own + tuple(getattr(a.dtype, "_shape_", ()))):
                raise ValueError(f"Tape.backward(grads=...): the gradient of an array of shape {a.shape} must have "
                                 f"that shape, got {shape}")  # checked here: nothing is set before every check passed
            if a.grad is not None and isinstance(g, array) and (g.dtype is not a.grad.dtype or shape != own):
                # assign converts numpy data but no brickwork array: it raised after the earlier keys were set
                raise ValueError(f"Tape.backward(grads=...): the gradient of an array of shape {a.shape} and dtype "
                                 f"{type_name(a.grad.dtype)} must be an array of that shape and dtype (or numpy "
                                 f"data), got {type_name(g.dtype)} of shape {shape}")
        if loss is not None:
            self.loss = loss
            loss.grad.fill_(_unit_seed(loss.dtype))
        for a, g in (grads or {}).items():
            if a.grad is None:
                a.grad = g  # as Warp: the array given becomes the gradient
            else:
                a.grad.assign(g)
        seen = (len(self.launches), len(self._flow_steps))
        if config.verify_gradient_flow and seen != self._flow_checked:
            gradient_flow.check(self)  # an array without gradient between two steps: warn once
            self._flow_checked = seen
        for entry in reversed(self.launches):
            if callable(entry):
                entry()
                continue
            kernel, dim, inputs, outputs, device, saved, adjoints = entry
            if not backward_enabled(kernel):  # as Warp's tape: warned and passed over (a forward-only helper)
                warn(f"Tape.backward: kernel '{kernel.key}' has no backward pass (enable_backward=False), so its "
                     f"launch is skipped and the gradients it would pass back are missing", stacklevel=2)
                continue
            if adjoints is not None:
                adj_in, adj_out = adjoints(), []
            else:
                adj_in = [adjoint_of(a) for a in inputs]
                adj_out = [adjoint_of(a) for a in outputs]
            now = [(storage, storage.copy()) for storage, _ in saved]
            for storage, before in saved:
                storage[...] = before
            try:
                launch_adjoint(kernel, dim, inputs, outputs, adj_in, adj_out, device)
            finally:
                for storage, after in now:
                    storage[...] = after
        self._clear_read_flags()  # the reads are consumed: writing those arrays now is safe

    def _clear_read_flags(self) -> None:
        """Clear the read flags (``verify_autograd_array_access``) of the arrays this tape recorded, and of
        the arrays they view. Another tape's pending reads of the same arrays are cleared too."""
        for a in self._accessed:
            array_reads.clear(a)

    def zero(self) -> None:
        """Set every recorded array's gradient to zero."""
        for a, g in self.gradients.items():
            if not isinstance(a, array):  # a struct: its arrays are keys of their own
                continue
            if a.grad is not None:
                a.grad.zero_()
            elif g is not None:
                g.zero_()
        for value in self.packs:  # mesh fields reached through packs: their gradients
            pack = getattr(value, "_bw_pack_source", None)
            if pack is not None:
                pack.zero_grad()

    def reset(self) -> None:
        """Forget the recorded launches and zero the gradients."""
        self.zero()
        self._clear_read_flags()
        self.launches = []
        self._flow_checked = (0, 0)
        self._flow_steps = []
        self.scopes = []
        self.packs = []
        self._accessed = []
        self.loss = None

    def get_adjoint(self, a):
        """The gradient array of ``a``, the struct of gradients of a recorded struct, or None (other
        values, arrays without a gradient)."""
        if not isinstance(a, array) and has_array_fields(type(a)):
            return self.gradients.get(a)
        return adjoint_of(a)


def _record_copy(dest, src, region=None) -> None:
    """A copy made while a tape records (``assign``, ``clone``, ``wp.copy``); for a part of the arrays
    ``region`` is (destination offset, source offset, count of row-major elements).

    Its adjoint, as Warp's: the copied part of the destination's gradient is added to the source's and
    then set to zero (the copy overwrote those elements, so what was there before has no effect on what
    follows), unless the destination has ``retain_grad``. Elements that have no sum (structs, booleans) and
    copies between overlapping memory pass the gradient on by overwriting the source's and leave the
    destination's (the latter warns)."""
    if recording and config.verify_autograd_array_access:
        from .array_access import after_copy

        after_copy(dest, src)
        recording[-1]._accessed += [dest, src]
    if not recording:
        return
    tape = recording[-1]
    if config.verify_gradient_flow:  # the copy reads src and writes dest (also where it is not differentiated)
        # a copy between arrays without gradients never shows in a report (it reads none and writes none):
        # the user's line is looked up (a walk up the stack, microseconds) only for the others
        step = gradient_flow.ANY_COPY if src.grad is None and dest.grad is None else \
            gradient_flow.caller_step("the copy")
        tape._flow_steps.append((len(tape.launches), step, _COPY_NAMES, (src, dest), _FIRST, _SECOND))
    if src.grad is None or dest.grad is None:
        return
    src_grad, dest_grad = src.grad, dest.grad
    overlapping = _share_memory(src, dest)
    # a CUDA gradient's numpy() is a copy: the adjoint is computed on the host and uploaded again (it was
    # left out, and the source's gradient stayed zero without a word)
    uploads = [g for g in (src_grad, dest_grad) if g.device.is_cuda]

    def backward():
        sg, dg = src_grad.numpy(), dest_grad.numpy()
        _copy_adjoint(sg, dg)
        for g in uploads:
            g._upload(sg if g is src_grad else dg)

    def _copy_adjoint(sg, dg):
        if region is None:
            into, frm = (Ellipsis,), (Ellipsis,)
        else:
            to, start, n = region
            into = np.unravel_index(np.arange(start, start + n), tuple(src_grad.shape))
            frm = np.unravel_index(np.arange(to, to + n), tuple(dest_grad.shape))
        if overlapping or sg.dtype.kind == "b" or sg.dtype.names is not None:
            if overlapping:
                _warn_once("Tape.backward: the adjoint of an overlapping copy (source and destination share memory) "
                           "cannot yet be fully tracked: the destination's gradient is copied to the source's")
            sg[into] = dg[frm]
            return
        sg[into] += dg[frm]
        if not dest.retain_grad:  # a retained gradient stays (it may count twice, as in Warp)
            dg[frm] = 0

    tape._record_func(backward, [src, dest])


def _share_memory(a, b) -> bool:
    """Whether arrays ``a`` and ``b`` (host or CUDA) have memory in common."""
    if a.device.is_cuda or b.device.is_cuda:
        return a.device == b.device and a.ptr < b.ptr + b._nbytes() and b.ptr < a.ptr + a._nbytes()
    return np.shares_memory(a._np, b._np)


_COPY_NAMES, _FIRST, _SECOND = ("src", "dest"), (0,), (1,)  # a copy's step for the gradient flow check
_warned: set = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        import warnings

        warnings.warn(message, UserWarning, stacklevel=4)


copy_observers.append(_record_copy)


def _with_struct_arrays(values):
    """``values``, and the arrays that struct values among them hold (nested structs alike)."""
    for v in values:
        yield v
        if has_array_fields(type(v)):
            yield from _with_struct_arrays(getattr(v, name) for name, _ in v._fields)


def field_snapshot(value) -> list:
    """(storage, copy) of every mesh array the pack kernel value ``value`` reaches."""
    pack = getattr(value, "_bw_pack_source", None)
    if pack is None:
        return []
    return [(a, a.copy()) for a in (*pack.arrays, *pack.flux_arrays) if a is not None]


def _as_launched(value):
    """``value`` as the launch passed it, for the launch's backward kernel: a scalar, vector, matrix or struct
    object is copied (a struct's arrays stay shared), since the launch took its value then and the caller may
    change the object in place before ``backward`` (hydro sets its coefficient vector's components before each
    stage: the backward kernels of every stage ran with the last stage's weights). Arrays and packs are kept as
    references: their contents are the backward pass's business (read-flag check, field snapshots)."""
    if isinstance(value, (ScalarBase, CompositeBase)):
        return type(value)(value)
    if isinstance(value, StructBase) and not is_pack_type(type(value)):
        return value._copy()
    return value


def adjoint_of(a):
    return a.grad if isinstance(a, array) else None


# -- backward launches -------------------------------------------------------------------------------


def launch_adjoint(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device=None) -> None:
    """Run the backward kernel of ``kernel`` with the primal arguments ``inputs + outputs`` and the
    adjoints ``adj_inputs + adj_outputs`` (None, or a non-array value, means no gradient)."""
    from .launch import _host_arguments, _host_value, _prepare, _signature, launch_dims, run_packed
    from .launch_rank import RANKED, ranked_entry

    if config.print_launches:  # the launch hooks: printed, timed (runtime/launch_hooks.py)
        from .launch_hooks import hooked_adjoint

        return hooked_adjoint(kernel, dim, inputs, outputs, adj_inputs, adj_outputs, device)

    args = list(inputs) + list(outputs)
    if any(_host_value(a) for a in args):  # numpy data (np.memmap too), None, CPU tensors: as launch
        args = _host_arguments(kernel, args)
    adjs = list(adj_inputs or ()) + list(adj_outputs or ())
    if adjs and len(adjs) != len(args):
        raise LaunchError(f"backward launch of '{kernel.key}': got {len(adjs)} adjoints for {len(args)} arguments")
    adjs = adjs or [None] * len(args)
    sig = _signature(args)
    on = get_device(device) if device is not None else CPU
    table_key = sig if on.is_cpu else (on.alias, sig)  # a CUDA device's entries: as cuda_launch keys them
    entry = kernel.launch_table.get(table_key)
    if entry is None:
        if on.is_cpu:
            entry = _prepare(kernel, sig, args, device)
        else:
            from ..targets.cuda import device_target

            entry = _prepare(kernel, sig, args, on, device_target(on), table_key)
    base = entry

    def prepare_ranked(key, rank):  # more extents than tid() gives indices: the ranked instance (launch_rank.py)
        if on.is_cpu:
            return _prepare(kernel, sig, args, device, None, key, rank)
        from ..targets.cuda import device_target

        return _prepare(kernel, sig, args, on, device_target(on), key, rank)

    entry = ranked_entry(kernel, entry, dim, table_key, prepare_ranked)
    if entry is not base:
        table_key = (RANKED, entry[0].tid_dims, table_key)
    inst = entry[0]
    k = getattr(inst, "kernel", kernel)
    if not backward_enabled(k):
        raise LaunchError(f"backward launch of '{kernel.key}': the kernel was compiled with enable_backward=False "
                          f"(enable it with @wp.kernel(enable_backward=True) or wp.set_module_options)")
    check_backward(kernel)  # a deterministic kernel that uses an atomic's result cannot be replayed
    grads = []
    for (name, _), t, arg, adj in zip(k.params, inst.arg_types, args, adjs):
        if has_adjoint_value(t):  # a scalar's or vector's adjoint value: what the caller passed, or zero
            grads.append(_adjoint_value(kernel, name, t, adj))
            continue
        if is_pack_type(t):  # a mesh pack: the same tables over its fields' gradients
            grads.append(_pack_adjoint(kernel, name, arg))
            continue
        if has_array_fields(t):  # a struct holding arrays: the same struct over their gradients
            grads.append(adj if type(adj) is t else gradient_struct(arg))
            continue
        if not isinstance(t, ArrayType):
            continue
        if not isinstance(adj, array):
            adj = _null_array(t)
        elif adj._key is not t or adj.shape != arg.shape:
            raise LaunchError(f"backward launch of '{kernel.key}': the adjoint of '{name}' must be "
                              f"{type_name(t)} of shape {arg.shape}, got {type_name(adj._key)} of shape {adj.shape}")
        if has_array_fields(t.dtype):  # structs holding arrays: the adjoint's elements point to their gradients
            if adj.size == 0 and arg.size:
                adj = zeros(arg.shape, t.dtype, arg.device)
            point_at_gradients(arg, adj)
        grads.append(adj)
    back = inst.adjoint()
    table = kernel.__dict__.setdefault("_adjoint_packers", {})
    packer = table.get(table_key)
    if packer is None or back.fn is None:
        back.ensure_loaded()
        from .packing import make_packer

        adjoint = [has_adjoint_param(t) or has_adjoint_value(t) for t in inst.arg_types]
        names = tuple(n for n, _ in k.params) + tuple(f"adj_{n}" for (n, _), a in zip(k.params, adjoint) if a)
        types = tuple(inst.arg_types) + tuple(t for t, a in zip(inst.arg_types, adjoint) if a)
        names, types = names + (KEEP_PARAM,), types + (uint64,)
        # the forward's launch checks, by the forward parameters' positions, which lead the backward's
        packer = table[table_key] = make_packer(types, tuple(sig) + tuple(types[len(sig):]), names, on, kernel.key,
                                                inst.tid_bounds, inst.range_bounds)
    dims = launch_dims(dim, back, kernel)
    if dims is None:
        return
    values = args + grads + [uint64(keep_mask(inst.arg_types, args, adjs))]
    if on.is_cpu:
        run_packed(back, packer, values, dims, kernel)
        return
    from . import streams  # a CUDA device: the backward kernel on the device's current stream
    from .packing import UNIT_INNER_FLAG

    d0, d1, d2, d3, _ = dims
    current = streams._current.get(on.ordinal)
    buf = packer(values, d0, d1, d2, d3, 0, 0)
    entry = back.fn if buf[UNIT_INNER_FLAG] or not back.fn.unit_only else back.general_entry()  # as cuda_launch
    entry.launch(buf, (d0, d1, d2, d3), on, values, k.params, 0 if current is None else current.cuda_stream)


def keep_mask(types, args, adjs) -> int:
    """The backward kernel's ``KEEP_PARAM``: bit k set unless array argument k's adjoint is its own ``.grad``
    (a tape's backward, or ``adj_inputs=[..., a.grad]``) and it does not ``retain_grad``. Where a bit is
    clear, reversing a store clears the stored element's adjoint, as Warp's adjoint of a store does; an
    adjoint array of the caller's own is read and left as it was."""
    mask = 0
    for k, (t, arg, adj) in enumerate(zip(types[:KEEP_BITS], args, adjs)):
        own = getattr(arg, "_grad", None) if isinstance(t, ArrayType) else None
        if own is None or not isinstance(adj, array) or adj.ptr != own.ptr or getattr(arg, "_retain_grad", False):
            mask |= 1 << k
    return mask


_NULL: dict = {}


def _adjoint_value(kernel, name, t, adj):
    """The adjoint value of a scalar or composite parameter: ``adj`` as a ``t`` (None or an array: zero)."""
    if adj is None or isinstance(adj, array):
        return t()
    try:
        return adj if type(adj) is t else t(adj)
    except (TypeError, ValueError) as e:
        raise LaunchError(f"backward launch of '{kernel.key}': the adjoint of '{name}' must be a {type_name(t)}, got "
                          f"{adj!r} ({e})") from None


def _pack_adjoint(kernel, name, value):
    pack = getattr(value, "_bw_pack_source", None)
    if pack is None:
        raise LaunchError(f"backward launch of '{kernel.key}': the pack argument '{name}' was not made by a "
                          f"SparsePack, so it has no gradient storage")
    return pack.kernel_value(adjoint=True)


def _null_array(t: ArrayType) -> array:
    """An empty array of type ``t``: the backward kernel skips adjoints into it."""
    found = _NULL.get(t)
    if found is None:
        if isinstance(t, FABRIC_TYPES):  # their own layout: a plain array's bytes would read as a size
            found = _NULL[t] = empty_fabric(t)
        else:
            found = _NULL[t] = empty((0,) * t.ndim, dtype=t.dtype, device="cpu")  # never read: no memory needed
    return found


def _unit_seed(dtype):
    """The gradient a loss of ``dtype`` starts from: 1 (in every component of a vector or matrix); for a
    struct (a reduction's value and location), 1 in its floating-point fields and 0 elsewhere."""
    if not getattr(dtype, "_bw_struct", False):
        return 1
    seed = dtype()
    for name, t in dtype._fields:
        if is_scalar_type(t) and not t.is_int and t is not bool_:
            setattr(seed, name, 1.0)
    return seed
