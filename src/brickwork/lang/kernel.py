"""``@kernel``: kernels, their instances per concrete signature, and explicit ``overload``."""

from __future__ import annotations

import typing

from .. import config
from ..errors import AmbiguousOverloadError, KernelCallError, KernelSyntaxError, KernelTypeError, LaunchError
from ..frontend.intrinsics import INTRINSICS
from ..frontend.limits import KERNEL_RETURN
from ..frontend.source import FunctionSource
from ..types.arrays import ArrayType, type_name
from ..types.generic import is_generic, is_kernel_type, matches
from ..types.references import RefType
from ..types.scalars import python_annotation_type
from .by_reference import reduce_by_reference
from .instance import Instance, _pending
from .modules import (
    Module,
    backward_enabled,
    check_kernel_module_options,
    get_module,
    kernel_mode,
    max_unroll,
    update_options,
)
from .unique_modules import unique_kernel


class Kernel:
    """A kernel: a Python function compiled per tuple of concrete parameter types."""

    def __init__(self, func, key: str | None = None, module=None, options=None, module_options=None,
                 code_transformers=None, **unused):
        pyfunc = func  # Warp's keyword is ``func``: wp.Kernel(func=f, key=..., module=...)
        self.func = pyfunc
        self.options = dict(options or {})
        # Warp's code_transformers: ast.NodeTransformers applied in turn to the parsed definition
        self.source = FunctionSource(pyfunc, tuple(code_transformers or ()))
        self.source.evaluate_statics()
        self.key = key or pyfunc.__name__
        if module == "unique":  # Warp's module of its own for this kernel (its options are the kernel's)
            self.module = Module(f"{pyfunc.__module__}.{self.key}")
            update_options(self.module, module_options or {}, f"@kernel for {self.key!r}")
        else:
            self.module = module if isinstance(module, Module) else get_module(
                module if isinstance(module, str) else pyfunc.__module__)
        if self.module.namespace is None:
            self.module.namespace = pyfunc.__globals__
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        ann = self.source.annotations()
        self.params = []
        for name in self.source.param_names:
            if name not in ann:
                raise KernelSyntaxError(f"parameter '{name}' of kernel '{self.key}' needs a type annotation "
                                        f"(use typing.Any for a generic parameter)",
                                        self.source.location(self.source.tree))
            if isinstance(ann[name], RefType):
                raise KernelTypeError(f"parameter '{name}' of kernel '{self.key}' is annotated {ann[name]!r}: "
                                      f"wp.ref[T] is not allowed in kernel signatures (it is for @func parameters; "
                                      f"pass an array and its index instead)", self.source.location(self.source.tree))
            t = python_annotation_type(ann[name])
            if not (is_generic(t) or is_kernel_type(t)):  # a plain class, a lambda, a tuple: no launch can pass it
                raise KernelTypeError(f"parameter '{name}' of kernel '{self.key}' is annotated {_shown(ann[name])}, "
                                      f"which is not a kernel type (wp.float32, wp.vec3, wp.array(dtype=...), a "
                                      f"@wp.struct, typing.Any...){_brickwork_spelling(ann[name])}",
                                      self.source.location(self._param_node(name)))
            foreign = _foreign_dtype(t.dtype) if isinstance(t, ArrayType) else None
            if foreign is not None:  # no array has it: the launch said "must be array(dtype=float32), got float32"
                raise KernelTypeError(f"parameter '{name}' of kernel '{self.key}' is an array of {foreign}, which is "
                                      f"not a brickwork dtype{_brickwork_spelling(t.dtype, 'dtype=')}",
                                      self.source.location(self._param_node(name)))
            self.params.append((name, t))
        # reported when the kernel is first instantiated, as Warp does at launch
        if ann.get("return", None) not in (None, type(None)):
            self.return_error = KernelTypeError(f"kernel '{self.key}' is annotated to return "
                                                f"{type_name(ann['return'])}: {KERNEL_RETURN}",
                                                self.source.location(self.source.tree))
        self.generic_params = [i for i, (_, t) in enumerate(self.params) if is_generic(t)]
        self.is_generic = bool(self.generic_params)
        self.instances: dict = {}  # concrete types (with the target, for a non-default one) -> Instance
        #: the concrete instances of a generic kernel, declared (``@overload`` stubs, ``overload(k, types)``) or
        #: launched: concrete types -> instance
        self.overloads: dict = {}
        self.launch_table: dict = {}  # launch signature -> (Instance, packer)
        self.module._kernels[self.key] = self  # last: a kernel refused above is not its module's

    def __call__(self, *args, **kwargs):
        # Warp's kernels are launched, never called; the message says how (Python's own said only
        # "'Kernel' object is not callable"). Code that tells kernels from functions tests isinstance(x, Kernel).
        params = ", ".join(name for name, _ in self.params)
        raise KernelCallError(f"kernel '{self.key}' cannot be called as a function: launch it with "
                              f"wp.launch({self.key}, dim=..., inputs=[{params}])")

    def __reduce__(self):  # pickled by module and name, as a function is: a worker process imports it
        func = self.func
        where = f"{self.source.filename}:{self.source.first_line}"
        return reduce_by_reference(self, "kernel", func.__module__, func.__qualname__, where)

    def __copy__(self):  # one kernel, whose compiled instances every copy would share
        return self

    def __deepcopy__(self, memo):
        return self

    def _param_node(self, name: str):
        """The AST node of parameter ``name`` (for its line), else the function's."""
        args = self.source.tree.args
        for node in args.posonlyargs + args.args + args.kwonlyargs:
            if node.arg == name:
                return node
        return self.source.tree

    #: The error of a return annotation other than None, raised on first instantiation (loop bodies: none).
    return_error = None
    #: How the function becomes a kernel (part of the cache key); loop bodies say which loops.
    form = "kernel"
    #: Elements of work per grid point (launch goes parallel when total work is large enough).
    work_per_item = 1

    def builder_options(self) -> dict:
        """Extra options of the frontend for this kind of kernel (none for ``@kernel``)."""
        return {}

    def instance_label(self, arg_types) -> str:
        if not self.is_generic:
            return self.key
        shown = []
        for i in self.generic_params:
            t = arg_types[i]
            label = type_name(t.dtype) if isinstance(t, ArrayType) else type_name(t)
            if label not in shown:
                shown.append(label)
        return f"{self.key}[{', '.join(shown)}]"

    def get_instance(self, arg_types: tuple, target=None) -> Instance:
        """The instance for ``arg_types`` on ``target`` (None: the default, CPU, target)."""
        if self.return_error is not None:
            raise self.return_error
        mode = kernel_mode(self)
        key = arg_types if mode == "release" else (arg_types, mode)
        if target is not None:
            key = (key, target)
        elif config.target != "cpu":
            key = (key, config.target)
        inst = self.instances.get(key)
        if inst is None:
            inst = self.instances[key] = Instance(self, arg_types, target)
            overloads = getattr(self, "overloads", None)  # loop bodies keep none
            if self.is_generic and overloads is not None and arg_types not in overloads:
                overloads[arg_types] = InstanceKernel(self, inst)  # as Warp's, a launch adds an overload
        return inst

    def add_overload(self, arg_types):
        """Warp's ``kernel.add_overload(types)``: the concrete instance of this generic kernel for ``arg_types``,
        as ``wp.overload(kernel, types)`` gives it (launch it, or wrap it with ``wp.jax_kernel``)."""
        return overload(self, list(arg_types))

    @property
    def backward_enabled(self) -> bool:
        """Whether the kernel has a backward pass (its ``enable_backward`` option, else its module's)."""
        return backward_enabled(self)

    @property
    def max_unroll(self) -> int:
        """The longest loop with constant bounds the CPU target unrolls in this kernel (its module's option)."""
        return max_unroll(self)

    def cuda_resources(self, arg_types=None, arch: str | None = None) -> dict:
        """Registers, spills, stack and shared memory per entry of this kernel's CUDA instance for ``arg_types``
        on ``arch`` (built by NVRTC or taken from the cache; no GPU needed): ``lang/cuda_report.py``."""
        from .cuda_report import cuda_resources

        return cuda_resources(self, arg_types, arch)

    def concrete_types(self) -> tuple:
        if self.is_generic:
            raise LaunchError(f"kernel '{self.key}' is generic")
        return tuple(t for _, t in self.params)

    def check_concrete(self, arg_types: tuple, where: str) -> None:
        """Raise if ``arg_types`` does not instantiate this kernel's annotations."""
        if len(arg_types) != len(self.params):
            raise KernelTypeError(f"{where}: kernel '{self.key}' has {len(self.params)} parameters, got "
                                  f"{len(arg_types)} types")
        for (name, ann), t in zip(self.params, arg_types):
            if not (is_generic(t) or is_kernel_type(t)):
                raise KernelTypeError(f"{where}: parameter '{name}' of kernel '{self.key}' needs a kernel type "
                                      f"(wp.float32, wp.vec3, wp.array(dtype=...), a struct...), got {t!r}")
            if is_generic(t):
                raise KernelTypeError(f"{where}: parameter '{name}' of kernel '{self.key}' needs a concrete type, "
                                      f"got the generic {type_name(t)}")
            if not matches(ann, t):
                raise KernelTypeError(f"{where}: parameter '{name}' of kernel '{self.key}' is {type_name(ann)}, "
                                      f"got {type_name(t)}")

    def __repr__(self):
        return f"<brickwork kernel {self.key}>"


_KERNELS: dict = {}  # (module, qualname) -> [Kernel], one per argument count
_KERNEL_BUILD_OPTIONS = ("grid_stride", "launch_bounds", "cuda_max_registers", "enable_cuda_smem_spilling")


def kernel(f=None, *, key: str | None = None, module=None, enable_backward=None, name: str | None = None,
           module_options=None, **options):
    """Decorator: compile a Python function as a kernel launched over a grid of threads.

    ``name`` (Warp's option) names the kernel instead of the function's name; it must be a C++ identifier.
    ``module_options`` (a dict, with ``module="unique"`` only) sets options of the kernel's own module,
    e.g. ``{"deterministic": DeterministicMode.RUN_TO_RUN}``.
    """
    if name is not None and not (isinstance(name, str) and name.isidentifier() and name.isascii()):
        raise ValueError(f"kernel name {name!r} is not a valid C++ identifier (letters, digits and '_', not "
                         f"starting with a digit)")
    _check_entry_point_abi(options.get("entry_point_abi"), enable_backward)

    # Warp's per-kernel build options: kept in ``kernel.options`` (a unique kernel's identity), as Warp keeps
    # them (None and the default False of smem spilling left out); only enable_backward acts here
    kept = {n: v for n, v in options.items() if n in _KERNEL_BUILD_OPTIONS and v is not None}
    if kept.get("enable_cuda_smem_spilling") is False:
        del kept["enable_cuda_smem_spilling"]
    if enable_backward is not None:
        kept["enable_backward"] = enable_backward
    if options.get("entry_point_abi") == EXTERNAL_ENTRY_POINT:  # wp.launch refuses it (runtime/launch.py)
        kept["entry_point_abi"] = EXTERNAL_ENTRY_POINT

    def wrap(func):
        checked = None
        if module_options is not None:
            checked = check_kernel_module_options(key or name or func.__name__, module, module_options)
        k = Kernel(func, key=key or name, module=module, module_options=checked, options=kept)
        if module == "unique":
            reused = unique_kernel(k)
            if reused is not k:
                return reused
        group = _KERNELS.setdefault((func.__module__, func.__qualname__), [])
        # a redefinition replaces the kernel of its argument count; the same function under another name
        # (wp.kernel(name=...)(f) twice) is a second kernel, which an @overload stub cannot choose between
        group[:] = [g for g in group if len(g.params) != len(k.params) or (g.func is func and g.key != k.key)] + [k]
        return k

    return wrap(f) if f is not None else wrap


#: Warp's entry point for a CUDA kernel an outside launcher (such as OptiX) starts, its parameters in constant
#: memory: brickwork has no such launcher, and ``wp.launch`` refuses these kernels, as Warp's does.
EXTERNAL_ENTRY_POINT = "external_constant_params"


def _check_entry_point_abi(abi, enable_backward) -> None:
    """Warp's checks of the ``entry_point_abi`` option (``"warp"``, the default, or ``EXTERNAL_ENTRY_POINT``)."""
    if abi is None or abi == "warp":
        return
    if abi != EXTERNAL_ENTRY_POINT:
        raise ValueError(f"entry_point_abi must be 'warp' or '{EXTERNAL_ENTRY_POINT}', got {abi!r}")
    if enable_backward is not False:
        raise ValueError(f"entry_point_abi='{EXTERNAL_ENTRY_POINT}' requires enable_backward=False")


def rebuild_program_kernels() -> None:
    """Build the program's kernels (not brickwork's own) again at their next launch: a ``@func`` was defined again
    with a new body (a re-run notebook cell), and Warp rebuilds the modules that reach it. brickwork does not keep
    which kernels call which function, so every one of the program's rebuilds; those whose code did not change
    load from the kernel cache, and ``wp.overload`` instances (made with the default target) take the new ones."""
    for (module, _), kernels in _KERNELS.items():
        if (module or "").split(".")[0] != "brickwork":  # a function made by exec may have no __module__
            for kernel in kernels:
                kernel.instances = {}
                kernel.launch_table.clear()
                for declared in kernel.overloads.values():
                    declared.instance = kernel.get_instance(declared.instance.arg_types)
                    declared.launch_table.clear()
    from .body import _BODIES  # body.py imports this module

    for variants in _BODIES.values():  # the program's loop bodies (par_for, la.outer ...) likewise
        for body in variants:
            if (getattr(body.func, "__module__", None) or "").split(".")[0] != "brickwork":
                body.instances.clear()  # in place: twins of a body (closures made again) share these tables
                body.launch_table.clear()


def sibling_kernels(k) -> list:
    """Kernels of the same module and name as ``k`` (one per argument count)."""
    func = getattr(k, "func", None) or k.kernel.func
    return list(_KERNELS.get((func.__module__, func.__qualname__), []))


def _generic_kernel_for(stub) -> Kernel:
    group = _KERNELS.get((stub.__module__, stub.__qualname__), [])
    nargs = stub.__code__.co_argcount
    found = [k for k in group if len(k.params) == nargs]
    if len(found) > 1:
        raise AmbiguousOverloadError(f"Ambiguous kernel lookup for @overload of '{stub.__qualname__}': kernels "
                                     f"{', '.join(repr(k.key) for k in found)} are defined by the same function; "
                                     f"use overload(kernel, types) instead")
    if found:
        return found[0]
    raise KernelSyntaxError(f"@overload of '{stub.__qualname__}': no kernel of that name with {nargs} "
                            f"parameters is defined before it")


def _shown(annotation) -> str:
    """An annotation as an error message names it: a class or function by its qualified name (a numpy class
    with its module: ``numpy.float32``, not a bare ``float32`` that reads as brickwork's)."""
    if isinstance(annotation, type):
        module = annotation.__module__
        return f"class '{module + '.' if module.split('.')[0] == 'numpy' else ''}{annotation.__qualname__}'"
    if hasattr(annotation, "__code__"):  # a function or a lambda
        return f"function '{annotation.__qualname__}'"
    return repr(annotation)


def _foreign_dtype(dtype) -> str | None:
    """How an error names an array annotation's dtype that is numpy's (``np.float32``, ``np.dtype("f4")``) or a
    string (``"float32"``): no brickwork array has such a dtype. None for anything else."""
    if isinstance(dtype, str):
        return f"the string {dtype!r}"
    module = (dtype if isinstance(dtype, type) else type(dtype)).__module__ or ""
    if module.split(".")[0] == "numpy":
        return f"numpy's {getattr(dtype, '__name__', None) or dtype}"
    return None


def _brickwork_spelling(value, prefix: str = "") -> str:
    """``": write wp.float32"`` for numpy's float32 (the class or a dtype) or the string "float32"; else ``""``."""
    from ..types.scalars import SCALAR_TYPES

    name = value if isinstance(value, str) else str(getattr(value, "__name__", None) or value)
    if name == "ndarray" and _foreign_dtype(value) is not None:
        return ": write wp.array(dtype=...) (numpy arrays are passed to such parameters in place)"
    if _foreign_dtype(value) is None or name not in {t.__name__ for t in SCALAR_TYPES}:
        return ""
    return f": write {prefix}wp.{name}"


def overload(target, types=None):
    """Declare a concrete instance of a generic kernel (or function).

    ``@overload`` on a stub with concrete annotations, ``overload(k, [types])`` or
    ``overload(k, {name: type})`` naming generic parameters only. Returns the concrete instance,
    launchable like a kernel with relaxed argument conversions.
    """
    from .function import Function

    if isinstance(target, Function):
        if types is None:
            raise TypeError("overload(func, types) needs the argument types")
        return target  # functions instantiate on use; nothing to declare
    if types is None and callable(target) and not isinstance(target, Kernel):
        stub = target
        _check_stub(stub)
        k = _generic_kernel_for(stub)
        ann = FunctionSource(stub).annotations()
        if ann.get("return", None) not in (None, type(None)):
            raise KernelTypeError(f"@overload of '{k.key}': Return annotations are not allowed on @wp.overload "
                                  f"stubs (kernels return nothing)")
        names = [n for n, _ in k.params]
        missing = [n for n in names if n not in ann]
        if missing:
            raise KernelTypeError(f"@overload of '{k.key}': parameter '{missing[0]}' needs a concrete annotation")
        declare(k, tuple(python_annotation_type(ann[n]) for n in names), "@overload")
        return k
    if not isinstance(target, Kernel):
        raise TypeError(f"overload() needs a kernel, got {type(target).__name__}")
    if not isinstance(types, (list, tuple, dict)):
        raise TypeError(f"overload({target.key}, types) takes a list of the parameters' types or a dict naming "
                        f"the generic parameters' types, got {type(types).__name__}")
    k = _same_name_kernel_for(target, types)
    if isinstance(types, dict):
        unknown = [n for n in types if n not in dict(k.params)]
        if unknown:
            raise KernelTypeError(f"overload of '{k.key}': no parameter named '{unknown[0]}'")
        concrete = []
        for name, ann in k.params:
            if name in types:
                concrete.append(python_annotation_type(types[name]))
            elif is_generic(ann):
                raise KernelTypeError(f"overload of '{k.key}': generic parameter '{name}' needs a type")
            else:
                concrete.append(ann)
        arg_types = tuple(concrete)
    else:
        arg_types = tuple(python_annotation_type(t) for t in types)
    return declare(k, arg_types, "overload")


def _same_name_kernel_for(k: Kernel, types) -> Kernel:
    """The kernel of ``k``'s name that ``overload(k, types)`` declares: ``k``, or another of the same name and
    module whose parameters fit the types' count (a list) or names (a dict naming every generic parameter),
    as a launch picks one."""
    def fits(kernel):
        if not isinstance(types, dict):
            return len(types) == len(kernel.params)
        generic = {n for n, ann in kernel.params if is_generic(ann)}
        return generic <= set(types) <= {n for n, _ in kernel.params}

    if not isinstance(types, (dict, list, tuple)) or fits(k):
        return k
    return next((other for other in sibling_kernels(k) if fits(other)), k)


def declare(k: Kernel, arg_types: tuple, where: str) -> "InstanceKernel":
    k.check_concrete(arg_types, where)
    inst = k.get_instance(arg_types)
    if not inst.loaded and inst.error is None and inst not in _pending:
        _pending.append(inst)
    declared = k.overloads.get(arg_types)
    if declared is None:
        declared = k.overloads[arg_types] = InstanceKernel(k, inst)
    return declared


def _check_stub(stub) -> None:
    body = FunctionSource(stub).tree.body
    ok = all(isinstance(s, ast_Expr) and isinstance(s.value, ast_Constant) and (
        s.value.value is Ellipsis or isinstance(s.value.value, str)) or isinstance(s, ast_Pass) for s in body)
    if not ok:
        raise KernelSyntaxError(f"@overload stub '{stub.__qualname__}' must have an empty body "
                                f"('...', a docstring or 'pass')")


class InstanceKernel:
    """A concrete instance of a generic kernel returned by ``overload``; launch it like a kernel."""

    is_generic = False
    work_per_item = 1

    def __init__(self, kernel: Kernel, instance: Instance):
        self.kernel = kernel
        self.instance = instance
        self.key = instance.label
        self.params = [(n, t) for (n, _), t in zip(kernel.params, instance.arg_types)]
        self.launch_table: dict = {}

    @property
    def module(self):
        return self.kernel.module

    def concrete_types(self) -> tuple:
        return self.instance.arg_types

    def get_instance(self, arg_types, target=None) -> Instance:
        if target is not None:  # another target (CUDA): the kernel's instance for it
            return self.kernel.get_instance(self.instance.arg_types, target)
        if self.instance.mode != kernel_mode(self.kernel) or self.instance.target != config.target:
            # the mode or target changed since overload(): that mode's and target's instance
            return self.kernel.get_instance(self.instance.arg_types)
        return self.instance

    def __repr__(self):
        return f"<brickwork kernel instance {self.key}>"


from ast import Constant as ast_Constant  # noqa: E402
from ast import Expr as ast_Expr  # noqa: E402
from ast import Pass as ast_Pass  # noqa: E402

_ = typing


def _reject_call(typer, k: Kernel, node):
    raise typer.error(KernelTypeError, f"kernel '{k.key}' cannot be called from kernel code; call a @func instead",
                      node)


INTRINSICS.register(Kernel, call=_reject_call, fingerprint=lambda k, seen: k.source.qualname)
