"""adjoint_gather on the IR: which backward kernels get a gather form, what it holds (one store per written
array and point, contributions read at tid - offset, the rim's tests against the interior box), which it
refuses (a written gradient read, a dear or long slice, no split, an array alias), that only
the CPU target runs it, and split_interior's ``idle_outside`` (the boundary version only assigns locals
outside an exact box) on enter and exit guards, with an else branch, and in backward kernels."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ir_helpers import run, typed_kernel
from test_split_interior import lap3 as forward_lap3
from test_split_interior import smooth1

import brickwork as wp
from brickwork import ir
from brickwork.passes import AdjointGather, ProveNoOverflow, SplitInterior, gpu_pass_list
from brickwork.passes.adjoint import adjoint_kernel
from brickwork.targets.cpu import CpuTarget

TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

from autodiff import test_adjoint_gather as kernels  # noqa: E402


@wp.kernel
def unguarded(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.float64(3.0) * u[i]


@wp.kernel
def aliased(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = u
    if i > 0 and i < u.shape[0] - 1:
        out[i] = v[i - 1] + u[i + 1]


def _types(kernel):
    return kernel.get_instance(kernel.concrete_types()).arg_types


def _backward(kernel) -> ir.IRFunction:
    """The backward kernel of ``kernel`` after the CPU passes up to adjoint_gather."""
    return run(adjoint_kernel(typed_kernel(kernel, _types(kernel))), ProveNoOverflow(), SplitInterior(),
               AdjointGather())


def _gather(fn) -> ir.IRGather | None:
    split = fn.body[-1] if isinstance(fn.body[-1], ir.IRInteriorSplit) else None
    return None if split is None else split.gather


def _stores(stmts, name) -> int:
    return sum(1 for n in ir.walk(stmts) if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRArrayElem)
               and n.target.array.name == name)


def test_the_laplacian_gathers_one_store_per_point():
    fn = _backward(kernels.lap3_f64)
    g = _gather(fn)
    assert g is not None
    assert (g.low, g.high) == ([-1, -1, -1], [1, 1, 1])
    assert [a.name for a in g.writes] == ["adj_u"] and [a.name for a in g.reads] == ["adj_out"]
    assert _stores(g.body, "adj_u") == 1 and _stores(g.rim, "adj_u") == 1
    assert not ir.contains(g.body, ir.IRIf)
    loads = [n for n in ir.walk(g.body) if isinstance(n, ir.IRArrayElem) and n.array.name == "adj_out"]
    assert len(loads) == 7  # one per stencil point, at q - d
    tests = [s for s in g.rim if isinstance(s, ir.IRIf)]
    assert len(tests) == 7 and all(ir.contains(t.body, ir.IRArrayElem) for t in tests)  # loads only under the test
    assert {b.name for b in g.box} <= set(fn.locals)
    assert "gather offsets in [[-1, -1, -1], [1, 1, 1]] into adj_u (reads adj_out)" in ir.format_function(fn)


def test_two_written_arrays_and_asymmetric_offsets():
    g = _gather(_backward(kernels.weighted2))
    assert sorted(a.name for a in g.writes) == ["adj_u", "adj_w"]
    assert sorted(a.name for a in g.reads) == ["adj_out", "u", "w"]
    assert _stores(g.body, "adj_u") == 1 and _stores(g.body, "adj_w") == 1
    g = _gather(_backward(kernels.asym2))
    assert (g.low, g.high) == ([-1, -2], [2, 1])


@pytest.mark.parametrize("kernel", [kernels.in_place1, kernels.heavy1, kernels.long1, unguarded, aliased],
                         ids=["gradient read", "exp and sqrt", "long slice", "no split", "array alias"])
def test_kernels_the_rule_refuses(kernel):
    assert _gather(_backward(kernel)) is None


def test_the_pass_leaves_its_input_alone_and_forward_kernels_unchanged():
    fn = run(adjoint_kernel(typed_kernel(kernels.lap2, _types(kernels.lap2))), ProveNoOverflow(), SplitInterior())
    before = ir.format_function(fn)
    after = AdjointGather().run(fn)
    assert ir.format_function(fn) == before and after is not fn and _gather(after) is not None
    forward = run(typed_kernel(kernels.lap2, _types(kernels.lap2)), ProveNoOverflow(), SplitInterior())
    assert ir.format_function(AdjointGather().run(forward)) == ir.format_function(forward)


def test_only_the_cpu_target_gathers():
    names = [p.name for p in CpuTarget().passes()]
    assert names[names.index("split_interior") + 1] == "adjoint_gather"
    for target in ("cuda", "cuda-emulation"):
        assert "adjoint_gather" not in [p.name for p in gpu_pass_list(target, {}, None)]


# -- split_interior: the boundary idle outside the box ---------------------------------------------------


def _split(fn) -> ir.IRInteriorSplit:
    return fn.body[-1]


def test_idle_outside_an_exact_box():
    f32x3 = [wp.array3d(dtype=wp.float32)] * 2
    assert _split(run(typed_kernel(forward_lap3, f32x3), ProveNoOverflow(), SplitInterior())).idle_outside
    ints = [wp.array(dtype=float), wp.array(dtype=float), wp.int32]
    # the else branch and the statement after the if write outside the box
    assert not _split(run(typed_kernel(smooth1, ints), ProveNoOverflow(), SplitInterior())).idle_outside
    assert _split(_backward(kernels.lap3_f64)).idle_outside
    assert _split(_backward(kernels.lap1_f32)).idle_outside  # an exit guard: its flags fold
    split = _split(_backward(kernels.lap_else))
    assert not split.idle_outside and split.gather is not None
