"""``wp.jax_kernel(..., enable_backward=True)``: the kernel as a JAX operation that ``jax.grad`` differentiates.

A ``jax.custom_vjp`` whose forward is the kernel's operation (``jax_ops.JaxKernel``) and whose backward is a
second FFI operation launching the kernel's adjoint (``wp.launch(..., adjoint=True)``) over the same launch
dimensions: its inputs are the kernel's inputs and outputs and the outputs' cotangents, its results the input
arrays' gradients (zeroed, then accumulated by the adjoint). Scalar inputs are static (not differentiated),
as in Warp; the wrapper is jitted with them as static arguments.
"""

from __future__ import annotations

import inspect
import threading

from ..runtime.launch import launch
from .jax_ops import JaxKernel, _hashable, _Op
from .optional import import_library

_MISSING = object()
_CACHE: dict = {}
_LOCK = threading.Lock()


class _Adjoint(_Op):
    """The backward operation: inputs, outputs and output cotangents in, input gradients out."""

    batch_launch_dims = False  # the forward's launch, as Warp's

    def __init__(self, kernel, forward, launch_dims, vmap_method, module_preload_mode, has_side_effect):
        self.kernel, self.forward, self.launch_dims = kernel, forward, launch_dims
        ins = [(a.name, a.type) for a in forward.inputs]
        outs = [(a.name, a.type) for a in forward.outputs]
        adj_outs = [(f"adj_{a.name}", a.type) for a in forward.outputs]
        adj_ins = [(f"adj_{a.name}", a.type) for a in forward.inputs if a.is_array]
        super().__init__(f"adjoint_{kernel.key}", ins + outs + adj_outs + adj_ins, len(adj_ins), vmap_method, None,
                         None, module_preload_mode, has_side_effect)

    def __call__(self, *args):
        dims = {f"adj_{a.name}": tuple(v.shape[:a.warp_ndim])
                for a, v in zip(self.forward.inputs, args) if a.is_array}
        return self._trace(args, dims, self.launch_dims, self.vmap_method, "wp.jax_kernel")

    def run(self, values, dims) -> None:
        n_in, n_out = self.forward.num_inputs, len(self.forward.outputs)
        inputs, outputs = values[:n_in], values[n_in:n_in + n_out]
        adj_outputs = values[n_in + n_out:n_in + 2 * n_out]
        grads = iter(values[n_in + 2 * n_out:])
        adj_inputs = []
        for arg, value in zip(self.forward.inputs, inputs):
            if arg.is_array:
                grad = next(grads)
                grad.zero_()  # XLA's result buffers are not cleared, and the adjoint accumulates
                adj_inputs.append(grad)
            else:
                adj_inputs.append(value)  # a static scalar has no gradient (as in Warp)
        launch(self.kernel, dim=dims, inputs=inputs, outputs=outputs, adj_inputs=adj_inputs, adj_outputs=adj_outputs,
               adjoint=True, device="cpu", record_tape=False)


class DifferentiableKernel:
    """What ``jax_kernel(..., enable_backward=True)`` returns: call it with the kernel's inputs (scalars as
    static values); it returns the list of results, and ``jax.grad`` goes through it."""

    def __init__(self, jitted, launch_dims, block_dim):
        self._jitted, self._launch_dims, self.block_dim = jitted, launch_dims, block_dim

    def __call__(self, *args, launch_dims=_MISSING, output_dims=_MISSING, vmap_method=_MISSING):
        if launch_dims is not _MISSING:
            raise TypeError(f"jax_kernel(): launch_dims cannot be overridden per-call when enable_backward=True "
                            f"(this wrapper was created with launch_dims={self._launch_dims!r}). Call jax_kernel() "
                            f"again with a different launch_dims to create a new wrapper.")
        if output_dims is not _MISSING:
            raise TypeError("jax_kernel(): output_dims is not supported when enable_backward=True.")
        if vmap_method is not _MISSING:
            raise TypeError("jax_kernel(): vmap_method cannot be overridden per-call when enable_backward=True; it "
                            "is fixed at construction time. Call jax_kernel() again with a different vmap_method to "
                            "create a new wrapper.")
        return self._jitted(*args)


def differentiable_kernel(kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames,
                          module_preload_mode, has_side_effect, block_dim) -> DifferentiableKernel:
    """The differentiable wrapper of ``kernel`` (cached by its arguments), with Warp's checks."""
    if in_out_argnames:  # Warp's exception and words: its code catches them; the reason is in docs/interop.md
        raise NotImplementedError("jax_kernel(): Input-output arguments (in_out_argnames) are not supported when "
                                  "enable_backward=True.")
    launch_dims = _hashable(launch_dims)
    key = (kernel, num_outputs, vmap_method, launch_dims, _hashable(output_dims), module_preload_mode, has_side_effect,
           block_dim)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = _build(kernel, num_outputs, vmap_method, launch_dims, output_dims, module_preload_mode,
                                 has_side_effect, block_dim)
        return _CACHE[key]


def _build(kernel, num_outputs, vmap_method, launch_dims, output_dims, module_preload_mode, has_side_effect,
           block_dim):
    jax = import_library("jax", "wp.jax_kernel")
    forward = JaxKernel(kernel, num_outputs, vmap_method, launch_dims, None, None, module_preload_mode,
                        has_side_effect, block_dim)
    forward.batch_launch_dims = False
    adjoint = _Adjoint(kernel, forward, launch_dims, vmap_method, module_preload_mode, has_side_effect)
    static = tuple(i for i, a in enumerate(forward.inputs) if not a.is_array)

    def run_forward(args):  # the results: output_dims, else shaped as the first input array, whatever launch_dims
        if output_dims is not None:
            return forward(*args, output_dims=output_dims)
        first = forward.first_array
        if first is None:
            raise RuntimeError("Unable to determine output dimensions: the kernel has no input array")
        return forward(*args, output_dims=tuple(args[first].shape[:forward.inputs[first].warp_ndim]))

    def primal(*args):
        return run_forward(args)

    def primal_fwd(*args):
        outputs = run_forward(args)
        return outputs, (tuple(v for i, v in enumerate(args) if i not in static), tuple(outputs))

    def primal_bwd(*bwd_args):
        statics, (arrays, outputs), cotangents = bwd_args[:len(static)], bwd_args[len(static)], bwd_args[-1]
        statics, arrays = iter(statics), iter(arrays)
        inputs = [next(statics) if i in static else next(arrays) for i in range(forward.num_inputs)]
        return tuple(adjoint(*inputs, *outputs, *cotangents))

    differentiable = jax.custom_vjp(primal, nondiff_argnums=static)
    differentiable.defvjp(primal_fwd, primal_bwd)

    def call(*args):
        return differentiable(*args)

    call.__signature__ = inspect.Signature([inspect.Parameter(a.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                            for a in forward.inputs])
    jitted = jax.jit(call, static_argnames=tuple(a.name for a in forward.inputs if not a.is_array))
    return DifferentiableKernel(jitted, launch_dims, block_dim)

