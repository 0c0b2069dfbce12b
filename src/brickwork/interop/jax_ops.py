"""``wp.jax_kernel`` and ``wp.jax_callable``: a brickwork kernel, or a Python function that launches kernels, as
a JAX operation (Warp's ``warp.jax_experimental`` API), on JAX's CPU devices.

Each wrapper is an XLA FFI target (``jax.ffi.ffi_call``) whose handler is a Python callback (``jax_ffi.py``): XLA
hands it the input and result buffers, which it views as brickwork arrays (no copy) and launches on. So the
operation works under ``jax.jit`` (XLA allocates the results, of the shapes computed here when tracing),
``jax.vmap`` (``vmap_method``: JAX's batching rules of ``ffi_call``; batch dimensions are folded into the
first array dimension, as in Warp) and in-out arguments (XLA aliases the result to the input). Scalar
arguments are static values, kept with the traced call by a ``launch_id`` attribute. ``enable_backward``
adds a ``jax.custom_vjp`` whose backward launches the kernel's adjoint (``jax_grad.py``).
"""

from __future__ import annotations

import enum
import inspect
import itertools
import operator
import threading

import numpy as np

from ..runtime.launch import launch
from ..types.arrays import ArrayType, element_layout, type_name
from ..types.generic import is_generic
from ..types.scalars import is_scalar_type, python_annotation_type
from . import jax_ffi
from .jax import dtype_to_jax
from .optional import import_library

__all__ = ["JaxCallableGraphMode", "JaxModulePreloadMode", "clear_jax_callable_graph_cache", "jax_callable",
           "jax_kernel"]

_MAX_TID = 2**31 - 1  # wp.tid() is a 32-bit int in each dimension


class JaxCallableGraphMode(enum.IntEnum):
    """How ``jax_callable`` work is captured in CUDA graphs (Warp's modes). On the CPU, where brickwork's JAX
    operations run, ``NONE`` and ``JAX`` run the function; the ``WARP`` modes need a CUDA device."""

    NONE = 0
    JAX = 1
    WARP = 2
    WARP_STAGED = 3
    WARP_STAGED_EX = 4


class JaxModulePreloadMode(enum.IntEnum):
    """Where ``jax_kernel``/``jax_callable`` load kernel modules before the first call (Warp's modes). brickwork
    compiles a kernel at its first launch, inside the call, whatever the mode."""

    NONE = 0
    CURRENT_DEVICE = 1
    ALL_DEVICES = 2


class _Arg:
    """A parameter of the wrapped kernel or function: an array (its JAX scalar type and dimensions, element
    dimensions trailing) or a scalar (a static value)."""

    def __init__(self, name: str, annotation, in_out: bool = False):
        self.name, self.in_out = name, in_out
        t = python_annotation_type(annotation)
        self.type = t
        self.is_array = isinstance(t, ArrayType)
        if self.is_array:
            if is_generic(t.dtype) or not (is_scalar_type(t.dtype) or hasattr(t.dtype, "_shape")):
                raise TypeError(f"Invalid data type for array argument '{name}', expected scalar, vector, or matrix "
                                f"(got {type_name(t.dtype)}: give a generic kernel's concrete overload)")
            comp, self.dtype_shape = element_layout(t.dtype)
            self.scalar = t.dtype if is_scalar_type(t.dtype) else t.dtype._dtype
            self.jax_type = dtype_to_jax(self.scalar)
            self.warp_ndim = t.ndim
            self.jax_ndim = t.ndim + len(self.dtype_shape)
        elif is_scalar_type(t):
            self.jax_type = dtype_to_jax(t)
        else:
            raise TypeError(f"Invalid type for argument '{name}', expected array or scalar, got {type_name(t)}")

    def check(self, value) -> None:
        """Warp's checks of an input array: its scalar type, dimensions and element dimensions."""
        if np.dtype(value.dtype) != np.dtype(self.jax_type):
            raise TypeError(f"Invalid data type for array argument '{self.name}', expected "
                            f"{np.dtype(self.jax_type)}, got {value.dtype}")
        if value.ndim != self.jax_ndim:
            raise TypeError(f"Invalid dimensionality for array argument '{self.name}', expected {self.jax_ndim} "
                            f"dimensions, got {value.ndim}")
        if tuple(value.shape[self.warp_ndim:]) != self.dtype_shape:
            raise TypeError(f"Invalid inner dimensions for array argument '{self.name}', expected "
                            f"{self.dtype_shape}, got {tuple(value.shape[self.warp_ndim:])}")

    def out_type(self, dims, meta: dict):
        """The ``jax.ShapeDtypeStruct`` of a result of ``dims`` (array dimensions, element dimensions optional),
        with ``meta``'s manual axes (``_varying``)."""
        jax = import_library("jax", "wp.jax_kernel")
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if self.dtype_shape and len(dims) == self.warp_ndim:
            dims = dims + self.dtype_shape
        elif len(dims) != self.jax_ndim or tuple(dims[self.warp_ndim:]) != self.dtype_shape:
            raise ValueError(f"Invalid output dimensions for argument '{self.name}': {dims}")
        return jax.ShapeDtypeStruct(dims, self.jax_type, **meta)


def _parse(params, num_outputs: int, in_out_argnames) -> tuple[list, list, dict]:
    """(input args, output args, XLA's input-output aliases) of ``params`` [(name, annotation)], with Warp's
    checks and words."""
    names = list(in_out_argnames or ())
    in_out = set(names)
    if len(names) != len(in_out):
        raise ValueError("in_out_argnames must not contain duplicate names")
    num_inputs = len(params) - num_outputs + len(in_out)
    if num_outputs < 1:
        raise ValueError("At least one output is required")
    if num_outputs > len(params):
        raise ValueError("Number of outputs cannot be greater than the number of kernel arguments")
    if num_outputs < len(in_out):
        raise ValueError("Number of outputs cannot be smaller than the number of in_out_argnames")
    inputs, outputs = [], []
    for i, (name, annotation) in enumerate(params):
        if i >= num_inputs and name in in_out:
            raise ValueError(f"Expected an output-only argument for argument {name}. in_out arguments should be "
                             f"placed before output-only arguments.")
        arg = _Arg(name, annotation, name in in_out)
        in_out.discard(name)
        if i >= num_inputs and not arg.is_array:
            raise TypeError("All output arguments must be arrays")
        (inputs if i < num_inputs else outputs).append(arg)
    if in_out:
        raise ValueError(f"in_out_argnames: '{in_out}' did not match any function argument names.")
    in_out_inputs = [i for i, a in enumerate(inputs) if a.in_out]
    return inputs, outputs, {i: k for k, i in enumerate(in_out_inputs)}


def _varying(jax, arrays) -> dict:
    """The manual mesh axes (``shard_map``) along which any input varies, for the results' types: XLA cannot
    see which inputs a result depends on, so each result varies where any input does (as in Warp)."""
    axes: set = set()
    for value in arrays:
        aval = jax.typeof(value)
        manual = getattr(aval, "manual_axis_type", None)
        axes.update(getattr(manual, "varying", None) or getattr(aval, "vma", None) or ())
    if not axes or not hasattr(jax.sharding, "ManualAxisType"):
        return {}
    return {"manual_axis_type": jax.sharding.ManualAxisType(varying=frozenset(axes)),
            "sharding": jax.sharding.NamedSharding(jax.sharding.get_abstract_mesh(), jax.sharding.PartitionSpec())}


def _dims(value) -> tuple:
    return (operator.index(value),) if not hasattr(value, "__len__") else tuple(operator.index(d) for d in value)


def _check_launch_bounds(dims: tuple) -> None:
    for d, extent in enumerate(dims):
        if extent > _MAX_TID:
            raise ValueError(f"Warp cannot launch a kernel using wp.tid() with extent {extent} in dimension {d}: "
                             f"wp.tid() is a 32-bit integer (at most {_MAX_TID})")


_NAMES = itertools.count()
_REGISTRY_LOCK = threading.Lock()
_KERNELS: dict = {}
_CALLABLES: dict = {}


class _Op:
    """What ``jax_kernel`` and ``jax_callable`` share: the call's checks and result types, the FFI target and
    the views of its buffers. ``run(values, dims)`` does the work (``dims``: launch dimensions or None)."""

    def __init__(self, label: str, params, num_outputs, vmap_method, output_dims, in_out_argnames,
                 module_preload_mode, has_side_effect):
        self.inputs, self.outputs, self.input_output_aliases = _parse(params, num_outputs, in_out_argnames)
        self.num_outputs, self.num_inputs = num_outputs, len(self.inputs)
        self.num_in_out = len(self.input_output_aliases)
        self.vmap_method, self.output_dims = vmap_method, output_dims
        self.module_preload_mode, self.has_side_effect = module_preload_mode, has_side_effect
        self.first_array = next((i for i, a in enumerate(self.inputs) if a.is_array), None)
        self.name = f"brickwork_{label}_{next(_NAMES)}"
        self._calls: dict = {}  # launch_id -> (static scalar values by name, launch dims or None)
        self._ids = itertools.count()
        jax_ffi.register(self.name, self._handle)

    def _trace(self, args, output_dims, launch_dims, vmap_method, what: str):
        jax = import_library("jax", what)
        if len(args) != self.num_inputs:
            names = ", ".join(a.name for a in self.inputs)
            raise ValueError(f"Expected {self.num_inputs} input{'s' if self.num_inputs != 1 else ''} ({names}), "
                             f"but got {len(args)}")
        statics, arrays = {}, []
        for arg, value in zip(self.inputs, args):
            if arg.is_array:
                arg.check(value)
                arrays.append(value)
            elif isinstance(value, jax.core.Tracer):
                raise ValueError(f"Argument '{arg.name}' must be a static value")
            else:
                statics[arg.name] = value
        meta = _varying(jax, arrays)
        out_types = [arg.out_type(value.shape, meta) for arg, value in zip(self.inputs, args) if arg.in_out]
        if launch_dims is not None:
            launch_dims = _dims(launch_dims)
            _check_launch_bounds(launch_dims)
        elif self.first_array is not None and what == "wp.jax_kernel":
            _check_launch_bounds(tuple(args[self.first_array].shape[:self.inputs[self.first_array].warp_ndim]))
        if isinstance(output_dims, dict):
            for arg in self.outputs:
                if arg.name not in output_dims:
                    raise ValueError(f"Missing output dimensions for argument '{arg.name}'")
                out_types.append(arg.out_type(output_dims[arg.name], meta))
        elif self.outputs:
            if output_dims is None:
                output_dims = launch_dims
            if output_dims is None:
                if self.first_array is None:
                    raise RuntimeError("Failed to determine launch dimensions" if what == "wp.jax_kernel" else
                                       "Unable to determine output dimensions")
                first = self.inputs[self.first_array]
                output_dims = tuple(args[self.first_array].shape[:first.warp_ndim])
            out_types.extend(arg.out_type(output_dims, meta) for arg in self.outputs)
        if self.first_array is None and launch_dims is None and what == "wp.jax_kernel":
            raise RuntimeError("Failed to determine launch dimensions")
        launch_id = next(self._ids)
        self._calls[launch_id] = (statics, launch_dims)
        call = jax.ffi.ffi_call(self.name, out_types, vmap_method=vmap_method,
                                input_output_aliases=self.input_output_aliases, has_side_effect=self.has_side_effect)
        return call(*arrays, launch_id=launch_id)

    def _handle(self, in_buffers, out_buffers, attrs) -> None:
        statics, launch_dims = self._calls[attrs["launch_id"]]
        values, arrays, batch = [], iter(in_buffers), 1
        for arg in self.inputs:
            if arg.is_array:
                buffer = next(arrays)
                values.append(jax_ffi.view(buffer, arg.type.dtype, arg.warp_ndim))
                batch = max(batch, int(np.prod(buffer.shape[:len(buffer.shape) - arg.jax_ndim], dtype=np.int64)))
            else:
                values.append(statics[arg.name])
        for arg, buffer in zip(self.outputs, out_buffers[self.num_in_out:]):
            values.append(jax_ffi.view(buffer, arg.type.dtype, arg.warp_ndim))
            batch = max(batch, int(np.prod(buffer.shape[:len(buffer.shape) - arg.jax_ndim], dtype=np.int64)))
        if launch_dims is None and self.first_array is not None:
            launch_dims = values[self.first_array].shape  # batch dimensions already folded in
        elif launch_dims is not None and batch > 1 and self.batch_launch_dims:
            # vmap's batch multiplies the first launch dimension (jax_kernel's rule; a differentiable kernel's
            # launch_dims are the whole launch, as Warp's, whose kernel then loops over the batch itself)
            launch_dims = (batch * launch_dims[0], *launch_dims[1:])
        if launch_dims is not None:
            _check_launch_bounds(tuple(launch_dims))
        self.run(values, launch_dims)

    #: whether ``vmap``'s batch multiplies given launch dimensions
    batch_launch_dims = True

    # Each kind of operation defines ``run(values, dims)``: JaxKernel launches its kernel over ``dims``,
    # JaxCallable calls its Python function with the arrays.


class JaxKernel(_Op):
    """A kernel as a JAX operation (``wp.jax_kernel``): call it with the input arrays and static scalars; it
    returns a list of the results (in-out arguments first)."""

    def __init__(self, kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames,
                 module_preload_mode, has_side_effect, block_dim):
        if getattr(kernel, "is_generic", False):
            raise TypeError(f"wp.jax_kernel: kernel '{kernel.key}' is generic: give a concrete overload "
                            f"(wp.overload(kernel, [types...]))")
        self.kernel, self.launch_dims, self.block_dim = kernel, launch_dims, block_dim
        super().__init__(f"kernel_{kernel.key}", kernel.params, num_outputs, vmap_method, output_dims,
                         in_out_argnames, module_preload_mode, has_side_effect)

    def __call__(self, *args, output_dims=None, launch_dims=None, vmap_method=None):
        return self._trace(args, self.output_dims if output_dims is None else output_dims,
                           self.launch_dims if launch_dims is None else launch_dims,
                           self.vmap_method if vmap_method is None else vmap_method, "wp.jax_kernel")

    def run(self, values, dims) -> None:
        launch(self.kernel, dim=dims, inputs=values, device="cpu", record_tape=False)


class JaxCallable(_Op):
    """A Python function that launches kernels, as a JAX operation (``wp.jax_callable``): its array parameters
    receive brickwork arrays over JAX's buffers, and it writes its outputs."""

    def __init__(self, func, num_outputs, graph_mode, vmap_method, output_dims, in_out_argnames,
                 stage_in_argnames, stage_out_argnames, graph_cache_max, module_preload_mode, has_side_effect):
        self.func = func
        self.graph_mode = JaxCallableGraphMode(graph_mode)
        self.stage_in_argnames = set(stage_in_argnames) if stage_in_argnames else None
        self.stage_out_argnames = set(stage_out_argnames) if stage_out_argnames else None
        self.graph_cache_max = graph_cache_max
        signature = inspect.signature(func)
        try:
            hints = inspect.get_annotations(func, eval_str=True)
        except Exception:  # an annotation that does not evaluate: the signature's text
            hints = {}
        params = []
        for p in signature.parameters.values():
            annotation = hints.get(p.name, p.annotation)
            if annotation is inspect.Parameter.empty:
                raise RuntimeError(f"Incomplete argument annotations on function {func.__qualname__}: '{p.name}' "
                                   f"has none")
            params.append((p.name, annotation))
        if hints.get("return") not in (None, type(None)):
            raise TypeError("Function must not return a value")
        super().__init__(f"callable_{func.__name__}", params, num_outputs, vmap_method, output_dims,
                         in_out_argnames, module_preload_mode, has_side_effect)

    @property
    def graph_cache_size(self) -> int:
        """Graphs captured for this callable: none on the CPU, where no graph is captured."""
        return 0

    def __call__(self, *args, output_dims=None, vmap_method=None):
        return self._trace(args, self.output_dims if output_dims is None else output_dims, None,
                           self.vmap_method if vmap_method is None else vmap_method, "wp.jax_callable")

    def run(self, values, dims) -> None:
        if self.graph_mode >= JaxCallableGraphMode.WARP:
            raise RuntimeError(f"graph_mode {self.graph_mode.name} captures a CUDA graph, which the CPU has not: "
                               f"use JaxCallableGraphMode.NONE or JAX for a call on the CPU")
        self.func(*values)


def _block_dim(block_dim):
    if block_dim is None:
        return None
    if isinstance(block_dim, bool):
        raise TypeError("jax_kernel(): block_dim must be an integer or None.")
    try:
        block_dim = operator.index(block_dim)
    except TypeError:
        raise TypeError("jax_kernel(): block_dim must be an integer or None.") from None
    if block_dim <= 0:
        raise ValueError("jax_kernel(): block_dim must be positive.")
    return block_dim


def _hashable(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if hasattr(value, "__len__") and not isinstance(value, str):
        return tuple(value)
    return value


def jax_kernel(kernel, num_outputs=1, vmap_method="broadcast_all", launch_dims=None, output_dims=None,
               in_out_argnames=None, module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE,
               enable_backward: bool = False, has_side_effect: bool = False, block_dim=None):
    """A brickwork kernel as a JAX operation (Warp's ``jax_kernel``), for JAX arrays on the CPU.

    The kernel's last ``num_outputs`` parameters are its results (arrays XLA allocates, in-out arguments
    included), the others its inputs: JAX arrays for array parameters (vector and matrix elements as
    trailing dimensions), static Python values for scalars. Calling the wrapper returns the list of results.

    - vmap_method: how ``jax.vmap`` maps it (``jax.ffi.ffi_call``'s methods; batch dimensions are folded into
      the first array dimension); also a keyword of each call.
    - launch_dims: the launch dimensions (None: the first input array's); also per call.
    - output_dims: the results' dimensions (None: the launch dimensions), or a dict by parameter name; also
      per call.
    - in_out_argnames: input arrays that are also results (written in place by the kernel); they come before
      the output-only parameters, and count in ``num_outputs``.
    - enable_backward: differentiable with ``jax.grad`` (the kernel's adjoint); then ``launch_dims`` is fixed
      here, and ``output_dims`` and ``in_out_argnames`` are not allowed.
    - block_dim: checked and kept, as in Warp (one thread per block on the CPU). ``module_preload_mode`` and
      ``has_side_effect`` as in Warp.

    The wrapper is cached: the same arguments give the same object."""
    import_library("jax", "wp.jax_kernel")
    block_dim = _block_dim(block_dim)
    if enable_backward:
        from .jax_grad import differentiable_kernel

        return differentiable_kernel(kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames,
                                     module_preload_mode, has_side_effect, block_dim)
    key = (kernel, num_outputs, vmap_method, _hashable(launch_dims), _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None, module_preload_mode, has_side_effect, block_dim)
    with _REGISTRY_LOCK:
        if key not in _KERNELS:
            _KERNELS[key] = JaxKernel(kernel, num_outputs, vmap_method, launch_dims, output_dims, in_out_argnames,
                                      module_preload_mode, has_side_effect, block_dim)
        return _KERNELS[key]


def jax_callable(func, num_outputs: int = 1, graph_mode=JaxCallableGraphMode.JAX, vmap_method="broadcast_all",
                 output_dims=None, in_out_argnames=None, stage_in_argnames=None, stage_out_argnames=None,
                 graph_cache_max=None, module_preload_mode=JaxModulePreloadMode.CURRENT_DEVICE,
                 has_side_effect: bool = False):
    """A Python function that launches brickwork kernels, as a JAX operation (Warp's ``jax_callable``), for
    JAX arrays on the CPU.

    Every parameter of ``func`` is annotated as a kernel's: its last ``num_outputs`` parameters are results
    (arrays XLA allocates, which ``func`` writes), the others inputs (JAX arrays, or static Python values
    for scalars). ``output_dims``: the results' dimensions (None: the first input array's; a dict by name;
    also a keyword of each call). ``vmap_method`` and ``in_out_argnames`` as for ``jax_kernel``.
    ``graph_mode``: ``NONE`` and ``JAX`` run on the CPU, the ``WARP`` modes (CUDA graphs) are an error there;
    ``stage_in_argnames``, ``stage_out_argnames`` and ``graph_cache_max`` are kept for them. The wrapper is
    cached: the same arguments give the same object."""
    import_library("jax", "wp.jax_callable")
    graph_mode = JaxCallableGraphMode(graph_mode)
    key = (func, num_outputs, graph_mode, vmap_method, _hashable(output_dims),
           tuple(in_out_argnames) if in_out_argnames else None,
           tuple(stage_in_argnames) if stage_in_argnames else None,
           tuple(stage_out_argnames) if stage_out_argnames else None, graph_cache_max, module_preload_mode,
           has_side_effect)
    with _REGISTRY_LOCK:
        if key not in _CALLABLES:
            _CALLABLES[key] = JaxCallable(func, num_outputs, graph_mode, vmap_method, output_dims, in_out_argnames,
                                          stage_in_argnames, stage_out_argnames, graph_cache_max,
                                          module_preload_mode, has_side_effect)
        return _CALLABLES[key]


def clear_jax_callable_graph_cache(callable=None) -> None:
    """Forget the CUDA graphs captured by one ``jax_callable`` (None: all): nothing to do on the CPU, where
    none is captured."""
