"""The compiler in one place: source -> IR -> passes -> text -> artifact -> entry.

    fn, callees = type_instance(kernel, arg_types, label)       # frontend: typed, target-neutral IR
    fn, callees = lower(fn, callees, target)                     # the target's passes, in order
    text = target.render(fn, callees, label)                     # target text (C++ for the CPU)
    path, meta = target.compile_many([(key, text, label, meta)]) # cached artifact
    entry = target.load(path, meta)                              # callable entry point

``key_parts`` says what a cache key covers; ``build`` runs the whole sequence for a batch of
instances (compiles in parallel, an error stays with its own instance).

Importing this module is cheap: typing, the passes and the renderer are imported the first time
an instance is typed (``_compiler``), so a program whose instances all come from the cache never
loads them (the warm path).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types as pytypes

from . import config
from .errors import KernelError, KernelUnsupportedSyntaxError
from .jit import store
from .jit.early import EarlyCompiles
from .jit.notice import CompileNotice
from .targets import current_target, keys, target_named  # noqa: F401  (part of the pipeline's API)
from .targets.base import Target
from .targets.cpu import CPU
from .targets.keys import cache_key  # noqa: F401  (part of the pipeline's API)
from .types.tiles import TileType

#: The target instances compile for unless ``config.target`` names another.
DEFAULT_TARGET: Target = CPU


def key_parts(kernel, arg_types, mode: str = "release", target: Target | None = None) -> dict:
    """What an instance's cache key covers (``targets.keys``); the current target unless ``target``."""
    return keys.key_parts(kernel, arg_types, mode, target or current_target())


@functools.cache
def _compiler() -> pytypes.SimpleNamespace:
    """The modules a cache miss needs, imported once, on the first miss (start-up stays cheap)."""
    from . import ir
    from .frontend.typer import InstantiationContext, Typer
    from .passes import run_passes
    from .passes.adjoint import adjoint_kernel

    return pytypes.SimpleNamespace(ir=ir, InstantiationContext=InstantiationContext, Typer=Typer,
                                   run_passes=run_passes, adjoint_kernel=adjoint_kernel)


def type_instance(kernel, arg_types, label: str) -> tuple:
    """The target-neutral IR (``IRFunction``) of a kernel for concrete argument types, and the
    functions it calls."""
    c = _compiler()
    # a Kernel answers for its options and its module's (lang.modules.backward_enabled); a loop body has a backward
    context = c.InstantiationContext(backward=getattr(kernel, "backward_enabled", True))
    params = dict(zip((n for n, _ in kernel.params), arg_types))
    fn = c.Typer(kernel.source, params, is_kernel=True, context=context, name="kernel", label=label,
                 **kernel.builder_options()).build()
    return fn, list(context.order)


def type_function(source, param_types: dict, context, name: str, label: str):
    """The IR of one ``@func`` overload for concrete parameter types, typed inside a kernel's context
    (typing calls this back when a kernel calls the function)."""
    return _compiler().Typer(source, param_types, is_kernel=False, context=context, name=name, label=label).build()


def lower(fn, callees: list, target: Target | None = None, mode: str = "release") -> tuple:
    """``fn`` and its callees after the target's passes for ``mode`` (calls are re-pointed at
    lowered callees)."""
    c = _compiler()
    ir, run_passes = c.ir, c.run_passes
    dump = config.dump
    passes = (target or current_target()).passes(mode)
    lowered: dict = {}
    out = []
    for f in [*callees, fn]:
        if config.verify_ir:
            ir.verify(f, after="typing")
        if "ir" in dump:
            _dump(f"IR of {f.label} after typing", ir.format_function(f))
        g = run_passes(f, passes, verify=config.verify_ir, observe=_PassDump(f) if "passes" in dump else None)
        g = _repoint(g, lowered)
        lowered[id(f)] = g
        out.append(g)
    return out[-1], out[:-1]


def generate(kernel, arg_types, label: str, target: Target | None = None, mode: str = "release",
             sources: list | None = None) -> tuple[str, dict]:
    """Source text of one instance and its metadata: ``tid_dims``, ``writes`` (the positions of
    the array parameters the kernel may write, checked against read-only arrays at launch), and
    for a GPU-mapped instance ``gpu_launch`` (how to launch it, docs/architecture.md).

    The mode's variants (after ``:``, joined by ``+``): ``adjoint`` makes the backward kernel
    (``passes/adjoint.py``) of the typed kernel, before the target's passes: its writes are the
    adjoint arrays only; ``strided`` renders the body for arrays of any innermost stride too
    (``Instance.run_with_general_strides``); ``rankN`` runs a kernel whose ``tid()`` gives fewer than N
    indices over a launch of N dimensions (``Instance.ranked``). ``sources``: the kernel's reached sources
    (``targets.keys.reached_sources``) where its key's walk gave them already."""
    try:
        return _generate(kernel, arg_types, label, target or current_target(), mode, sources)
    except KernelError as e:
        # a user's error: its message gives the kernel's file, line and source line; the compiler's dozen frames
        # between here and the expression at fault would only bury it
        raise e.with_traceback(None)  # noqa: B904 - the same exception re-raised: its own cause is kept
    except RecursionError:  # an expression the frontend could not split (frontend/shallow.py)
        source = kernel.source
        where = source.location(source.deepest if source.deepest is not None else source.tree)
        what = "an expression" + ("" if source.deepest is not None else " of this kernel or of a function it calls")
        raise KernelUnsupportedSyntaxError(
            f"{label}: {what} is nested too deeply to compile (Python's recursion limit was reached). Deep "
            f"expressions are split into statements where the order of evaluation allows, not in a branch of "
            f"'x if c else y', on the right of and/or, in a while test, or after a call that may have an effect; "
            f"assign parts of it to variables", where) from None


def _relocate_slice_steps(functions: list, line) -> bool:
    """Give each slice of ``functions`` whose step is a runtime value (a zero one is recorded as the launch runs,
    frontend/array_slices.py) its ``line(where)``, relative to its function's, as the loader reads it back: the
    compiled code names no file, so its cache entry serves the same text anywhere. True when there is one."""
    ir = _compiler().ir
    found = False
    for f in functions:
        for node in ir.walk(f.body):
            if type(node) is ir.IRCall and node.op == "array_slice" and node.where:
                node.where = line(node.where)
                found = True
    return found


def _generate(kernel, arg_types, label: str, target: Target, mode: str, sources: list | None) -> tuple[str, dict]:
    base_mode, _, variant = mode.partition(":")
    variants = variant.split("+")
    from .targets.keys import reached_sources
    from .targets.locations import relative

    if not sources:  # a line in the entry is relative to its function (targets/locations.py)
        sources = reached_sources(kernel)

    def line(where: str) -> str:
        return relative(sources, where)

    typed, typed_callees = type_instance(kernel, arg_types, label)
    rank = max((int(v[4:]) for v in variants if v.startswith("rank")), default=0)
    kept = typed.tid_dims
    if rank > kept:
        # a launch of more dimensions than tid() gives indices (Warp's rule): the kernel runs over all of them and
        # the trailing ones repeat each point; they run in one thread (simd would lose a repeat's update of the same
        # element: `y[i] += ...` adds once per point, as on Warp's CPU)
        typed = dataclasses.replace(typed, tid_dims=rank, simd_innermost=False)
    writes = _compiler().ir.written_params(typed)
    field_writes = _compiler().ir.analysis.written_fields(typed)
    from .ir.array_access import param_access

    access = param_access(typed)  # for wp.config.verify_autograd_array_access (runtime/array_access.py)
    from .ir.field_checks import check_field_accesses
    from .ir.id_params import id_params
    from .ir.launch_bounds import tid_bounds
    from .ir.range_bounds import component_arguments, range_bounds

    # what dim must satisfy for the accesses every launch point makes (checked by the launch's packer)
    # (debug builds check every access as it runs, and report the index it reached)
    plain = kernel.form == "kernel" and "adjoint" not in variants and base_mode != "debug"
    tested: set = set()  # the accesses of struct array fields among them (an unset field fails their test)
    bounds = tid_bounds(typed, tested) if plain else []
    # the same for a loop body's (par_for, par_for_outer, la.outer) accesses that its ranges bound
    body = kernel.form != "kernel" and "adjoint" not in variants and base_mode != "debug"
    ranges = range_bounds(typed) if body else []
    if "adjoint" not in variants and base_mode != "debug":  # u(n), n a launch argument, in a branch too
        ranges += component_arguments(typed, ranges)
    # the uint64 parameters passed to mesh/BVH/hash grid/volume queries: their ids checked at launch
    ids = id_params(typed) if kernel.form == "kernel" and "adjoint" not in variants else []
    if "adjoint" in variants:
        # plain (non-atomic) adjoint scatters only where the target runs rows in phases (the CPU)
        typed, typed_callees, writes = _compiler().adjoint_kernel(typed, phased_rows=target.name == "cpu"), [], set()
        field_writes = set()
        typed_callees = _native_callees(typed)  # the adjoint inlines every @func: wp.func_native ones stay calls
        if config.verify_ir:
            _compiler().ir.verify(typed, after="adjoint")
        if "ir" in config.dump:
            _dump(f"IR of {typed.label} (adjoint)", _compiler().ir.format_function(typed))
    # the other accesses of struct array fields (in a branch, a loop, through a local): tested as they run, where
    # the target reports it (an unset field is a null address: reading it crashed the process); a CUDA launch reads
    # the record back as the CPU's does (targets/cuda/loader.py)
    field_checks = base_mode != "debug" and check_field_accesses([*typed_callees, typed], tested, line)
    field_checks = _relocate_slice_steps([*typed_callees, typed], line) or field_checks
    for f in (typed, *typed_callees):  # a @func unrolls as the kernel that calls it (Warp's module option)
        f.max_unroll = getattr(kernel, "max_unroll", 16)
    fn, callees = lower(typed, typed_callees, target, base_mode)
    if rank > kept:
        fn.repeated_dims = rank - kept  # the CPU target runs a point's repeats in one thread (an attribute: no pass
        # reads it, none copies the function after this)
    text = target.render(fn, callees, label, general_strides="strided" in variants)
    from .targets.preambles import kernel_build_inputs, with_preamble

    preamble, include_dirs = kernel_build_inputs(kernel, target.name)  # the module's wp.ModuleBuildOptions
    text = with_preamble(text, preamble, include_dirs, target.name)
    if "source" in config.dump:
        _dump(f"{target.name} source of {label}", text)
    written = [i for i, (name, _) in enumerate(kernel.params) if name in writes]
    position = {name: i for i, (name, _) in enumerate(kernel.params)}
    meta = {"tid_dims": fn.tid_dims, "writes": written, "mode": base_mode, "variant": variant,
            "reads": sorted(position[n] for n in access.reads if n in position),
            "read_then_written": [[position[n], line(where)] for n, where in access.read_then_written
                                  if n in position]}
    if bounds:  # each access's line relative to the kernel's: a cached entry serves the same text anywhere
        meta["tid_bounds"] = [[*b[:4], line(b[4]), *b[5:]] for b in bounds]
    if ranges:
        meta["range_bounds"] = [[*b[:4], line(b[4]), *b[5:]] for b in ranges]
    if ids:
        meta["id_params"] = ids
    if field_checks:  # the loader raises what a checked access or a slice's zero step recorded
        meta["field_checks"] = True
    if field_writes:  # arrays inside struct arguments it writes: checked for read-only memory at launch
        meta["writes_fields"] = sorted([position[n], list(path)] for n, path in field_writes)
    if include_dirs:  # the compiler's extra include path (jit.compile, targets/cuda/build.py)
        meta["include_dirs"] = list(include_dirs)
    if fn.gpu_launch is not None:
        meta["gpu_launch"] = dict(fn.gpu_launch)
    if any(isinstance(t, TileType) for f in (fn, *callees) for t in (*f.locals.values(), *dict(f.params).values())):
        meta["tiles"] = True  # a block is one thread: refused under Warp's CPU blocks (runtime/launch_prepare.prepare)
    return text, meta


def _native_callees(fn) -> list:
    """The ``wp.func_native`` functions (and their adjoints) that ``fn`` calls, each once."""
    found: dict = {}
    for n in _compiler().ir.walk(fn.body):
        if isinstance(n, _compiler().ir.IRFuncCall):
            found.setdefault(id(n.func), n.func)
    return list(found.values())


def build(batch: list, target: Target | None = None, tentative: list = ()) -> None:
    """Generate, compile (in parallel) and load every instance of ``batch`` not in the cache.

    Each instance has ``kernel``, ``arg_types``, ``label``, ``key()``, ``key_parts``, ``loaded_from``
    and ``fail``; a user error in one instance is kept on that instance only. An instance of ``tentative``
    (also in ``batch``) whose typing raises or warns, or whose compile fails, is left unbuilt (its own
    launch builds it again and reports the problem there)."""
    target = target or current_target()
    on_trial = {id(inst) for inst in tentative}
    early = EarlyCompiles(target.compile_many, enabled=len(batch) > 1)  # large units compile while the rest generate
    notice = CompileNotice(target.name)  # a line on stderr if this takes more than a second
    try:
        _build(batch, target, on_trial, early, notice)
    finally:
        notice.end()


def _build(batch: list, target: Target, on_trial: set, early: EarlyCompiles, notice: CompileNotice) -> None:
    jobs, owners = [], []
    try:
        for inst in batch:
            if id(inst) in on_trial:
                notice.begin(inst.label)
                job = _tentative_job(inst, target)
            else:
                found = store.lookup(inst.key())
                if found is not None:  # warm: no typing, no passes, no rendering
                    inst.loaded_from(*found)
                    continue
                notice.begin(inst.label)
                try:
                    text, meta = generate(inst.kernel, inst.arg_types, inst.label, target, inst.mode,
                                          getattr(inst, "reached_sources", None))
                except Exception as e:  # noqa: BLE001 - a user error belongs to its own instance only
                    inst.fail(e)
                    continue
                job = (inst.key(), text, inst.label, dict(meta, key_parts=inst.key_parts))
            if job is not None:
                early.offer(len(jobs), job)
                jobs.append(job)
                owners.append(inst)
    except BaseException:
        early.close()
        raise
    if not jobs:
        return
    notice.count = len(jobs)
    import logging  # only here, where something was compiled: the warm path imports no logging

    from .jit import cache

    log = logging.getLogger("brickwork")
    for inst, result in zip(owners, early.finish(jobs)):
        if isinstance(result, Exception):
            if id(inst) not in on_trial:
                inst.fail(result)
            continue
        inst.loaded_from(*result)
        built = result[1]
        if not cache.published_here(inst.key()):  # waited for another process's build (an MPI rank's): not ours
            notice.count -= 1
            notice.waited += 1
            log.info("%s for %s: compiled by another process sharing the kernel cache, loaded from it", inst.label,
                     target.name)
        elif "same_source_as" in built:
            log.info("%s for %s: same code as a built instance, its library reused (no compiler run)",
                     inst.label, target.name)
        else:
            log.info("%s compiled for %s in %.0f ms", inst.label, target.name, 1e3 * built.get("compile_seconds", 0.0))


def _tentative_job(inst, target: Target) -> tuple | None:
    """The compile job of an instance built on trial (None: loaded from the cache now, or left for its own
    launch because its key, typing or code generation raised or warned)."""
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = store.lookup(inst.key())
            if found is not None:
                inst.loaded_from(*found)
                return None
            text, meta = generate(inst.kernel, inst.arg_types, inst.label, target, inst.mode,
                                  getattr(inst, "reached_sources", None))
    except Exception:  # noqa: BLE001 - raised again, with its context, at the instance's own launch
        return None
    if caught:
        return None
    return (inst.key(), text, inst.label, dict(meta, key_parts=inst.key_parts))


def _repoint(fn, lowered: dict):
    """Calls in ``fn`` refer to the lowered versions of its callees."""
    if not lowered:
        return fn
    return _repointer()(lowered).function(fn)


@functools.cache
def _repointer():
    """The rewriter class of ``_repoint`` (made once: rewriter classes are looked up by identity)."""
    ir = _compiler().ir

    class Calls(ir.Rewriter):
        def __init__(self, lowered: dict):
            self.lowered = lowered

        def r_IRFuncCall(self, e):
            return ir.IRFuncCall(self.lowered.get(id(e.func), e.func), [self.expr(a) for a in e.args], e.type)

    return Calls


class _PassDump:
    """Prints the IR after each pass (or says it is unchanged)."""

    def __init__(self, fn):
        self.last = _compiler().ir.format_function(fn)

    def __call__(self, name, fn):
        text = _compiler().ir.format_function(fn)
        _dump(f"IR of {fn.label} after {name}", "(unchanged)" if text == self.last else text)
        self.last = text


def _dump(title: str, text: str) -> None:
    print(f"---- {title} ----\n{text}", file=sys.stderr)
