"""Kernels made from loop bodies: plain Python functions whose parameters are loop indices.

``par_for`` and ``par_for_outer`` (and the loop abstraction) JIT-compile a body such as
``def body(k, j, i): ...``. Its free variables that hold runtime values (arrays, packs,
brickwork-typed scalars, structs) become hidden kernel arguments, read afresh at every launch;
everything else it names (functions, types, tags, Python numbers) is a compile-time constant and
part of the instance key. A body kernel is generic over the types of its captured values.
"""

from __future__ import annotations

import builtins
import operator
import typing

from ..errors import KernelSyntaxError, LaunchError
from ..frontend.fingerprint import free_name_values
from ..frontend.intrinsics import INTRINSICS
from ..frontend.source import MISSING, FunctionSource
from ..frontend.static_eager import evaluate_planned, static_plan
from ..types.arrays import ArrayType, array
from ..types.composite import CompositeBase
from ..types.scalars import ScalarBase, int32, int64
from ..types.structs import StructBase
from .kernel import Kernel

#: Geometry of an index space, passed to every outer body as hidden int32 parameters ``_la_<name>``
#: in this order (``IndexSpace.runtime_geometry``); ``expand_loop_abstraction`` reads them by name.
LA_GEOMETRY = ("ks", "ke", "js", "je", "is", "ie", "NK", "NJ", "NI", "ninner", "nouter")


def is_runtime_value(value) -> bool:
    """Values a body receives at launch rather than baking in as constants."""
    return isinstance(value, (array, ScalarBase, CompositeBase, StructBase)) or hasattr(value, "kernel_value")


def _is_static_value(value) -> bool:
    """Values a body bakes in that could plausibly change between launches (not functions/types)."""
    if isinstance(value, (bool, int, float, str)):
        return True
    return INTRINSICS.rule(value, "fingerprint") is not None or getattr(
        getattr(value, "__dataclass_params__", None), "frozen", False)


def _same_constant(a, b) -> bool:
    """Whether two ``wp.static`` results are the same compile-time value: the same object, or numbers, strings or
    brickwork values of one type with the same text (``-0.0`` is not ``0.0``), or tuples of such."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_constant(x, y) for x, y in zip(a, b))
    return isinstance(a, (bool, int, float, complex, str, ScalarBase, CompositeBase)) and repr(a) == repr(b)


def _free_layout(source) -> list[tuple[str, int]]:
    """``(name, index of its closure cell or -1)`` of each free name of ``source`` (``free_name_values``' order)."""
    free_name_values(source)  # finds the names once per parse
    cells = source.func.__code__.co_freevars if source.func.__closure__ else ()
    return [(n, cells.index(n) if n in cells else -1) for n in source._free_names]


def _cell_reader(cell):
    """What ``FunctionSource.reader`` gives for a closure cell: its value at each call (``MISSING`` when empty)."""
    def read_cell():
        try:
            return cell.cell_contents
        except ValueError:
            return MISSING

    return read_cell


_NO_METHOD = object()  # what getattr(value, "kernel_value", _NO_METHOD) gives for a value without one


def _reading(source, names: list) -> tuple:
    """``(order, read)``: ``read()`` returns, as a tuple in the order ``order`` (``names``' module globals,
    then their closure cells), what each name holds now, as ``source.reader`` reads it. The globals are
    read with one ``itemgetter`` call and the cells directly, not with a Python call per name: this runs
    at every launch, to see a value changed since the last one."""
    func = source.func
    code, closure = func.__code__, func.__closure__
    cell_names = [n for n in names if n in code.co_freevars] if closure else []
    global_names = [n for n in names if n not in cell_names]
    order = global_names + cell_names
    readers = [source.reader(n) for n in order]
    cells = [closure[code.co_freevars.index(n)] for n in cell_names]
    namespace = func.__globals__
    get = operator.itemgetter(*global_names) if global_names else None
    one = len(global_names) == 1  # itemgetter of one name returns the value, not a tuple

    def read() -> tuple:
        try:
            found = () if get is None else (get(namespace),) if one else get(namespace)
            return found + tuple([c.cell_contents for c in cells]) if cells else found
        except (KeyError, ValueError):  # a global deleted (then a builtin, or missing) or an empty cell
            return tuple([r() for r in readers])

    return order, read


class BodyKernel(Kernel):
    """A loop body compiled as a kernel: ``mode`` is "for" (all parameters are indices) or "outer"
    (the first parameter is the team member, the rest are indices)."""

    def __init__(self, pyfunc, mode: str, nindices: int, la_config: dict | None = None):
        self.func = pyfunc
        self.source = FunctionSource(pyfunc)
        self.source.evaluate_statics()
        self.key = pyfunc.__name__
        self.__name__ = pyfunc.__name__
        self.mode = mode
        names = self.source.param_names
        self.la_config = la_config
        if mode == "la":
            if len(names) != 2:
                raise KernelSyntaxError(f"outer body '{self.source.qualname}' must take (idx_range, b), it takes "
                                        f"({', '.join(names)})", self.source.location(self.source.tree))
            self.index_names = []
            self.capture_names = [n for n, v in free_name_values(self.source) if is_runtime_value(v)]
            self._init_statics()
            self.params = [(n, typing.Any) for n in self.capture_names] + [(f"_la_{g}", int32) for g in LA_GEOMETRY]
            reducer = la_config.get("reducer")
            if reducer is not None:
                self.params.append(("_la_partials", ArrayType(reducer.value_type, 1)))
            self.generic_params = list(range(len(self.capture_names)))
            self.is_generic = True
            self.instances = {}
            self.launch_table = {}
            self.form = "la outer " + ",".join(f"{k}={v}" for k, v in sorted(la_config.items()))
            return
        expected = nindices + (1 if mode == "outer" else 0)
        if len(names) != expected:
            what = "a team member and " if mode == "outer" else ""
            raise KernelSyntaxError(f"loop body '{self.source.qualname}' must take {what}{nindices} index "
                                    f"parameter(s), it takes {len(names)}: ({', '.join(names)})",
                                    self.source.location(self.source.tree))
        self.index_names = names[1:] if mode == "outer" else names
        self.capture_names = [n for n, v in free_name_values(self.source) if is_runtime_value(v)]
        self._init_statics()
        hidden = [(f"_bw_lo{d}", int32) for d in range(nindices)]
        if mode == "outer":
            hidden.append(("_bw_scratch", int64))
        self.params = [(n, typing.Any) for n in self.capture_names] + hidden
        self.generic_params = list(range(len(self.capture_names)))
        self.is_generic = True
        self.instances = {}
        self.launch_table = {}
        self.form = f"loop body {mode} {nindices}"

    def _init_statics(self) -> None:
        self.static_names = [n for n, v in free_name_values(self.source) if _is_static_value(v)]
        self._static_order, self._read_statics = _reading(self.source, self.static_names)
        self._capture_readers = [(n, self.source.reader(n)) for n in self.capture_names]
        self._flux_packs = flux_pack_names(self.source)
        self._statics = self._read_statics()
        self.rebuilds = 0
        self._changed: set = set()  # the static names whose value changed, for the recompilation warning

    def twin(self, pyfunc, evaluated: list | None = None) -> BodyKernel | None:
        """This kernel for ``pyfunc``, another function object of the same code (a body defined inside a function
        called again), sharing the parse: None unless every free name ``pyfunc`` reads is what it is here in kind,
        a runtime value where this kernel captures one (only its type is compiled in: the instances are per type),
        the very object where it is neither a runtime value nor a compile-time constant (a function, a module).
        Where its compile-time values (the constants it names, its ``wp.static`` results) are equal too, the
        instances and launch table are shared; else it is a variant with instances of its own. ``evaluated`` (a
        list, filled by the first kernel that evaluates them) holds the ``wp.static`` results of ``pyfunc``, in
        source order, so that trying several kernels of the same code evaluates them once."""
        func = self.func
        if pyfunc.__globals__ is not func.__globals__ or pyfunc.__defaults__ != func.__defaults__ \
                or pyfunc.__kwdefaults__ != func.__kwdefaults__:
            return None  # a default may depend on a captured value: made afresh
        plan = None
        if self.source.static_results:
            plan = self.source.__dict__.get("_static_plan")
            if plan is None:
                plan = self.source._static_plan = static_plan(self.source)
        layout = self.source.__dict__.get("_free_layout")
        if layout is None:
            layout = self.source._free_layout = _free_layout(self.source)
        # the values of the free names as free_name_values gives them, read inline (this runs at every call of a
        # function that defines a body): a cell of the closure, or a global or builtin (the same namespace here)
        closure, old_closure, namespace = pyfunc.__closure__, func.__closure__, pyfunc.__globals__
        captures, statics, cell_captures = [], [], {}
        for name, i in layout:
            if i >= 0:
                try:
                    value = closure[i].cell_contents
                except ValueError:  # an empty cell: no value, as lookup finds none
                    continue
            else:
                value = namespace.get(name, MISSING)
                if value is MISSING:
                    value = getattr(builtins, name, MISSING)
                    if value is MISSING:
                        continue
            if is_runtime_value(value):
                captures.append(name)
                if i >= 0:
                    cell_captures[name] = closure[i]
            elif _is_static_value(value):
                statics.append(name)
            elif i >= 0:  # neither: the very object this kernel's closure holds (a global is the same one here)
                try:
                    if value is not old_closure[i].cell_contents:
                        return None
                except ValueError:
                    return None
        if captures != self.capture_names or statics != self.static_names:
            return None
        source = self.source.rebound(pyfunc)
        twin = object.__new__(BodyKernel)
        twin.__dict__.update(self.__dict__)  # the instances and launch table are the same objects: shared
        twin.func, twin.source, twin._changed = pyfunc, source, set()
        twin.__dict__.pop("_la_halo_readers", None)  # la.outer's readers of the add_halo names: this closure's own
        cells = pyfunc.__code__.co_freevars
        same = True
        if any(n in cells for n in statics):  # globals are read as they are here: the same namespace
            twin._static_order, twin._read_statics = _reading(source, statics)
            try:
                twin._statics = twin._read_statics()
                same = twin._statics == self._statics
            except Exception:  # a constant whose == raises (a frozen dataclass holding an array): made afresh
                return None
        if cell_captures:  # readers of this closure's cells; those of globals are this kernel's
            twin._capture_readers = [(n, _cell_reader(cell_captures[n]) if n in cell_captures else read)
                                     for n, read in self._capture_readers]
        if plan:
            if not evaluated:
                try:  # as the declaration of a new body evaluates them: once per closure
                    evaluated[:] = list(evaluate_planned(source, plan).values())
                except Exception:  # noqa: BLE001 - made afresh: evaluated (and reported) while typing
                    return None
            source.static_results = dict(zip([node for node, _ in plan], evaluated))
            same = same and all(_same_constant(self.source.static_results[node], value)
                                for node, value in source.static_results.items())
        if not same:  # a variant: the parse is shared, its instances are its own
            twin.instances, twin.launch_table, twin.rebuilds = {}, {}, 0
            return twin
        # the instances build (their adjoints too) with the newest function: the older closure, and the arrays it
        # holds, are not kept alive by them
        stack = list(self.instances.values())
        while stack:
            inst = stack.pop()
            inst.kernel = twin
            stack += [i for i in (inst._adjoint, inst._general, *inst._ranked.values()) if i is not None]
        return twin

    def builder_options(self) -> dict:
        if self.mode == "la":
            names = self.source.param_names
            bindings = [(names[1], "la_block", 0), (names[0], "la_range", self.la_config)]
            boiv_grid = self.la_config["loop"] == "boiv" and not self.la_config.get("reducer")
            return {"bindings": bindings, "simd_innermost": boiv_grid, "form": "la"}
        bindings = []
        if self.mode == "outer":
            bindings.append((self.source.param_names[0], "member", 0))
        bindings += [(name, "index", d) for d, name in enumerate(self.index_names)]
        return {"bindings": bindings, "simd_innermost": self.mode == "for"}

    def _check_statics(self) -> None:
        """Compile-time values the body reads (Python numbers, offsets, tags) are part of its
        instances; when one changes between launches the instances are rebuilt for the new value."""
        now = self._read_statics()
        if now == self._statics:
            return
        # compared as the tuples are: identity first, then equality (a NaN constant is unchanged)
        self._changed.update(n for n, old, new in zip(self._static_order, self._statics, now)
                             if old is not new and old != new)
        self._statics = now
        self.instances = {}
        self.launch_table = {}
        self.rebuilds += 1
        if self.rebuilds == 3:
            import logging

            changed = [n for n in self.static_names if n in self._changed]
            first = changed[0] if changed else "x"
            # "pass a typed scalar" alone read as "write wp.float64(dt) in the body", which still compiles dt in
            logging.getLogger("brickwork").warning(
                "loop body '%s' was recompiled %d times because a captured Python value changed (%s): a Python "
                "number a body reads is compiled in, even as wp.float64(%s) in the body; bind the name to a typed "
                "scalar on the host (%s = wp.float64(...), or wp.int32(...)) or put the value in an array, to avoid "
                "recompiling", self.key, self.rebuilds, ", ".join(changed), first, first)

    def arguments(self, lows, scratch_bytes=None, check=None) -> list:  # la: (geometry, partials or None)
        """Launch arguments: the captured values as they are now (``captured``), then the hidden ones."""
        values = self.captured(check)
        # Plain ints for the int32 hidden parameters (Python ints infer as int32 and pack fastest).
        if self.mode == "la":
            return values + [int(x) for x in lows] + ([scratch_bytes] if scratch_bytes is not None else [])
        values += [int(lo) for lo in lows]
        if self.mode == "outer":
            values.append(int64(scratch_bytes or 0))  # an int would be inferred as int32
        return values

    def captured(self, check=None) -> list:
        """The captured values as they are now, as kernel values, once the compile-time values are checked
        (``_check_statics``). ``check(key, name, value)`` sees each captured value that is not an array
        (the loop abstraction checks its packs against the index space: ``la.outer``)."""
        self._check_statics()
        values = []
        for name, read in self._capture_readers:
            value = read()
            if type(value) is array:
                values.append(value)
                continue
            to_kernel = getattr(value, "kernel_value", _NO_METHOD)  # is_runtime_value and _kernel_value, inline
            if to_kernel is _NO_METHOD and not isinstance(value, (array, ScalarBase, CompositeBase, StructBase)):
                raise LaunchError(f"loop body '{self.key}': '{name}' no longer holds an array or typed value "
                                  f"(it is {type(value).__name__})")
            if check is not None:
                check(self.key, name, value)
            if name in self._flux_packs and getattr(getattr(value, "descriptor", None), "with_fluxes", True) is False:
                # its flux tables are empty: the kernel would read and write through null pointers
                raise LaunchError(f"loop body '{self.key}': pack '{name}' has no fluxes but the body reads or "
                                  f"writes them (flux views, {name}.flux[...]): build its PackDescriptor with "
                                  f"with_fluxes=True")
            values.append(value if to_kernel is _NO_METHOD else to_kernel())
        return values


#: Loop-body kernels by (code object, mode, index count, configuration), the most recent first, to find a twin for a
#: new function object of the same code (a body defined inside a function is a new one at each call). Bounded, so
#: that a long session that defines bodies in a loop does not grow: at most ``_VARIANTS`` kernels per code (closures
#: whose compile-time values differ), at most ``_MAX_CODES`` codes, the one least recently given a new function object
#: dropped first. A function's own kernels are also kept on it (``_OWN``), as long as it lives, whatever this drops.
_BODIES: dict = {}
_VARIANTS = 4
_MAX_CODES = 512
_OWN = "__brickwork_body_kernels__"


def body_kernel(pyfunc, mode: str, nindices: int, la_config: dict | None = None) -> BodyKernel:
    """The body kernel of a Python function (one per function object, mode and configuration). Another function
    object of the same code whose compile-time values are those of a kernel already made gets a twin of it
    (``BodyKernel.twin``): the source is not parsed again and the compiled instances are shared."""
    code = getattr(pyfunc, "__code__", None)
    if code is None:
        raise LaunchError(f"a loop body must be a Python function (a def or a lambda), got {type(pyfunc).__name__}")
    form = (mode, nindices, tuple(sorted(la_config.items())) if la_config else ())
    own = getattr(pyfunc, "__dict__", None)
    mine = own.get(_OWN) if own is not None else None
    if mine is not None:
        found = mine.get(form)
        if found is not None and found.func is pyfunc:  # the warm path (not a copy of the attribute: functools.wraps)
            return found
    key = (code, *form)
    variants = _BODIES.pop(key, None)  # put back last: the most recently used code is dropped last
    kernel = variant = None
    evaluated: list = []  # the closure's wp.static results, evaluated by the first kernel that gets that far
    for i, found in enumerate(variants or ()):
        kernel = found if found.func is pyfunc else found.twin(pyfunc, evaluated)
        if kernel is not None and kernel.instances is found.instances:
            del variants[i]  # it takes its place: only the newest closure of a variant is held here
            break
        variant = variant or kernel  # other compile-time values: a new variant, unless a later kernel is a twin
        kernel = None
    if kernel is None:
        kernel = variant or BodyKernel(pyfunc, mode, nindices, la_config)
    variants = [kernel, *(variants or ())][:_VARIANTS]
    _BODIES[key] = variants
    while len(_BODIES) > _MAX_CODES:
        del _BODIES[next(iter(_BODIES))]
    if own is not None:
        if mine is None or mine.get(form, kernel).func is not pyfunc:
            mine = own[_OWN] = {}  # a function's own table (one copied from another function is replaced)
        mine[form] = kernel  # a cycle with the function: collected with it
    return kernel


def halo_arguments(source) -> list[tuple[str, tuple]]:
    """``(root name, attribute chain)`` of every ``add_halo`` argument of an outer body that is a name or a
    chain of attributes of one (``la.halo.minus_i``: ``("la", ("halo", "minus_i"))``); a local is not seen. Found
    once per parse (a closure made again shares it: ``FunctionSource.rebound``)."""
    found = source.__dict__.get("_halo_arguments")
    if found is None:
        found = source._halo_arguments = _halo_arguments(source)
    return found


def _halo_arguments(source) -> list[tuple[str, tuple]]:
    import ast

    found = []
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_halo" \
                and node.args:
            chain, cur = [], node.args[0]
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name):
                found.append((cur.id, tuple(reversed(chain))))
    return found


_FLUX_VIEWS = ("make_flux_pack_view", "make_flux_view", "make_sparse_flux_pack_view")


def flux_pack_names(source) -> set:
    """The names of the packs whose fluxes a body reaches: the pack argument of a flux view
    (``la.make_flux_pack_view(rng, pack, d)``, ...) or ``pack.flux[...]`` / ``pack.flux(...)``."""
    import ast

    found = set()
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and len(node.args) > 1:
            called = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if called in _FLUX_VIEWS and isinstance(node.args[1], ast.Name):
                found.add(node.args[1].id)
        if isinstance(node, ast.Attribute) and node.attr == "flux" and isinstance(node.value, ast.Name):
            found.add(node.value.id)
    return found
