"""Typing kernels and loop bodies to IR without launching them, and golden-text comparison."""

from __future__ import annotations

import os
from pathlib import Path

from brickwork import ir, pipeline
from brickwork.la.outer import _prepare
from brickwork.lang.body import body_kernel
from brickwork.types.generic import type_of_value

GOLDEN = Path(__file__).parent / "golden"


def typed_kernel(kernel, arg_types) -> ir.IRFunction:
    fn, _ = pipeline.type_instance(kernel, tuple(arg_types), kernel.key)
    return fn


def typed_values(kernel, values) -> ir.IRFunction:
    return typed_kernel(kernel, [type_of_value(v) for v in values])


def typed_la_body(body, space, reduce=False) -> ir.IRFunction:
    """The typed IR of an outer body for ``space`` (what ``la.outer`` would compile)."""
    kernel, _ = _prepare(space, body, "outer_reduce" if reduce else "outer", reduce)
    values = kernel.arguments(space.runtime_geometry(), *([kernel_partials(space)] if reduce else []))
    return typed_values(kernel, values)


def kernel_partials(space):
    from brickwork.types.array_constructors import empty

    return empty(1, dtype=space.reducer.value_type)


def typed_par_for_outer(body, nranges: int) -> ir.IRFunction:
    kernel = body_kernel(body, "outer", nranges)
    return typed_values(kernel, kernel.arguments([0] * nranges, 0))


def run(fn, *passes) -> ir.IRFunction:
    for p in passes:
        fn = p.run(fn)
        ir.verify(fn, after=p.name, target_neutral=p.name != "select_builtins")
    return fn


def check_golden(name: str, fn: ir.IRFunction) -> None:
    """``fn`` printed equals ``golden/<name>.txt`` (BRICKWORK_UPDATE_GOLDEN=1 rewrites it)."""
    text = ir.format_function(fn) + "\n"
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("BRICKWORK_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"no golden file {path} (BRICKWORK_UPDATE_GOLDEN=1 writes it)"
    assert text == path.read_text(), f"IR differs from {path} (BRICKWORK_UPDATE_GOLDEN=1 to accept)"
