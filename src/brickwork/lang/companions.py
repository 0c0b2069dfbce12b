"""The instances built together with one that misses the cache, as Warp builds a module's kernels together.

Warp compiles a whole module (every kernel of a Python module, forward and backward) at the first launch
of any of its kernels. brickwork compiles instance by instance, so a program of many kernels paid a
compiler run at each kernel's first launch, one after the other. When an instance misses the cache, its
module's other instances that are likely to be launched soon are built with it (``jit.compile.compile_many``:
small ones share compiler runs, large ones run side by side on the cores):

* for a forward instance, the concrete kernels of its module (``kernel.module``: its Python module's, or
  the one ``module=`` names; a ``module="unique"`` kernel has one of its own) on the same target and mode;
  not the generic ones, whose types are not known until they are launched or declared;
* for a backward (adjoint) instance, the adjoints of the module's instances that were launched forward
  (``Instance.requested``; not those only built as companions), as a tape's backward pass replays them next.

A companion is built on trial (``pipeline.build``'s ``tentative``): if its typing raises, warns, or its
compile fails, it is left as it was, to be built at its own launch, where the error or warning is
raised with its own context. Each instance is tried as a companion once.
``config.compile_module`` (``BRICKWORK_COMPILE_MODULE``) off builds each instance alone.

A program can also name, ahead of their first launches, instances that no module holds (loop bodies: each is a
kernel of its own): ``expect_launch`` makes the instance a launch with given arguments would build a companion
of the next instance that misses the cache, whatever its module.
"""

from __future__ import annotations

import weakref

from .. import config
from ..errors import KernelError
from ..types.generic import is_generic, type_of_value
from ..types.indexed_arrays import ARRAY_KINDS
from ..types.scalars import python_annotation_type


def companions(inst) -> list:
    """The instances to build with ``inst`` (which missed the cache), each not yet loaded nor tried."""
    if not config.compile_module or inst.variant not in ("", "adjoint"):
        return []
    found = _module_companions(inst)
    found += [e for e in list(_expected) if e is not inst and e.target == inst.target and e.mode == inst.mode]
    chosen = [c for c in found if c.fn is None and c.error is None and not getattr(c, "_tried_as_companion", False)]
    for c in chosen:
        c._tried_as_companion = True
        _expected.discard(c)
    return chosen


def _module_companions(inst) -> list:
    kernel = inst.kernel
    module = getattr(kernel, "module", None)
    if getattr(kernel, "form", "kernel") != "kernel" or module is None:
        return []
    from .modules import backward_enabled

    kernels = [k for k in list(module._kernels.values()) if k is not kernel]
    found = []
    if inst.variant == "":
        for k in kernels:
            if k.is_generic:
                continue
            try:
                other = k.get_instance(k.concrete_types(), None if isinstance(inst.target, str) else inst.target)
            except KernelError:  # a bad return annotation: its launch raises it
                continue
            if other.target == inst.target and other.mode == inst.mode:
                found.append(other)
    else:
        for k in kernels:
            if not backward_enabled(k):
                continue
            for forward in list(k.instances.values()):
                if forward.variant == "" and forward.requested and forward.target == inst.target:
                    found.append(forward.adjoint())
    return found


#: Instances ``expect_launch`` named: companions of the next instance that misses the cache. Held weakly: the
#: kernels of a program's objects that are dropped unlaunched (a loop body's closure) are not built.
_expected: weakref.WeakSet = weakref.WeakSet()


def expect_launch(kernel, args: list) -> None:
    """Make the CPU instance that ``launch(kernel, inputs=args)`` would build a companion of the next instance
    that misses the cache, so that it is built with it, side by side, instead of alone at its own first launch
    (on trial, as the module's companions: one that fails is left for its own launch to report). Arguments
    whose type cannot be inferred, a wrong count, or an instance loaded or failed already: nothing is added."""
    params = kernel.params
    if not config.compile_module or config.target != "cpu" or len(args) != len(params):
        return
    types = []
    for (_, ann), value in zip(params, args):  # as the launch infers them (runtime/launch_prepare.py)
        t = python_annotation_type(ann) if not is_generic(ann) and not isinstance(value, ARRAY_KINDS) else \
            type_of_value(value)
        if t is None:
            return
        types.append(t)
    try:
        inst = kernel.get_instance(tuple(types) if kernel.is_generic else kernel.concrete_types())
    except KernelError:
        return
    if inst.fn is None and inst.error is None:
        _expected.add(inst)
