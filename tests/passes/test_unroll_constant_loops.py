"""unroll_constant_loops: a ``for`` over a constant range of at most ``max_unroll`` trips becomes copies of its body.

Each kernel is built twice, unrolled (the default ``max_unroll``, 16) and rolled (``max_unroll = 0`` in a module
of its own), and both are launched on the same inputs: the results agree bit for bit and with numpy, for loops
with ``continue``, negative steps, empty ranges, a loop variable read after the loop or assigned in the body, and
nested loops; the generated C++ has no loop left where it should be unrolled, and keeps the loop for a ``break``,
a trip count above the limit in code run once per slice (``la.outer``) and a body over the size guard; in code run
per point a loop of more than ``max_unroll`` trips unrolls too (not inside a loop that stays rolled), until a function
that holds tiles would pass its own size guard (the later loops stay rolled), or, past ``max_unroll`` trips,
its calls weigh as the functions they inline. Gradients of an unrolled loop equal the rolled
loop's bit for bit. The option's value is checked, and ``wp.static(range(...))`` is refused as Warp refuses it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline
from brickwork.errors import KernelSyntaxError
from brickwork.lang.modules import Module
from brickwork.passes.unroll_constant_loops import MAX_FUNCTION_NODES, MAX_POINT_NODES

NCOMP = 6


def _expected(x: np.ndarray) -> np.ndarray:
    xs = x.reshape(-1, NCOMP)
    out = np.zeros((xs.shape[0], 5), dtype=np.float32)
    for i, row in enumerate(xs):
        s = np.float32(0)
        for c in range(NCOMP):
            if c != 2:
                s = np.float32(s + row[c] * np.float32(c + 1))
        t = np.float32(0)
        for c in (5, 2, -1):
            t = np.float32(t * np.float32(2) + np.float32(c) * row[0])
        u = np.float32(0)
        for c in range(4):
            u = np.float32(u + np.float32(c * 3) * row[1])
        v = np.float32(0)
        for a in range(3):
            for b in range(a, 4):
                v = np.float32(v * np.float32(0.5) + row[a + b])
        out[i] = [s, np.float32(t + np.float32(-100)), 7, np.float32(u + 9), v]
    return out


def _kernel_pair(func):
    """``func`` as a kernel that unrolls (default options) and as one that does not (max_unroll = 0)."""
    return wp.kernel(func), wp.kernel(func, module="unique", module_options={"max_unroll": 0})


def _body_loops(text: str) -> int:
    """The C++ ``for`` loops of a plain kernel's body (the launch's loop over points left out)."""
    return len(re.findall(r"\bfor \(", text)) - len(re.findall(r"for \(int32_t t0 = 0;", text))


def _generated(kernel) -> str:
    text, _ = pipeline.generate(kernel, kernel.concrete_types(), "t")
    return text


def loops_kernel(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    s = 0.0
    for c in range(NCOMP):  # continue: each copy ends early
        if c == 2:
            continue
        s = s + x[i * NCOMP + c] * float(c + 1)
    out[i, 0] = s
    t = 0.0
    for c in range(5, -4, -3):  # a negative step: 5, 2, -1
        t = t * 2.0 + float(c) * x[i * NCOMP]
    out[i, 1] = t + float(c) * 100.0  # the loop variable after the loop: its last value
    c = 7
    for c in range(3, 3):  # empty: c keeps its value
        t = t + 1.0
    out[i, 2] = float(c)
    u = 0.0
    for c in range(4):  # the body assigns the loop variable: each copy starts from its own value
        c = c * 3
        u = u + float(c) * x[i * NCOMP + 1]
    out[i, 3] = u + float(c)
    v = 0.0
    for a in range(3):  # nested: both unrolled
        for b in range(a, 4):
            v = v * 0.5 + x[i * NCOMP + a + b]
    out[i, 4] = v


UNROLLED, ROLLED = _kernel_pair(loops_kernel)


def test_unrolled_loops_give_the_rolled_loops_results_bit_for_bit():
    assert _body_loops(_generated(UNROLLED)) == 0
    assert _body_loops(_generated(ROLLED)) == 6  # the empty range's loop too
    rng = np.random.default_rng(7)
    x = rng.standard_normal(NCOMP * 64).astype(np.float32)
    outs = []
    for k in (UNROLLED, ROLLED):
        out = wp.zeros((64, 5), dtype=float)
        wp.launch(k, dim=64, inputs=[wp.array(x), out])
        outs.append(out.numpy())
    assert outs[0].tobytes() == outs[1].tobytes()
    np.testing.assert_allclose(outs[0], _expected(x), rtol=2e-6, atol=1e-6)


def stays_rolled(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = 0.0
    for c in range(8):  # a break of its own: rolled, as in Warp
        if x[i * 8 + c] < 0.0:
            break
        s = s + x[i * 8 + c]
    for c in range(17):  # one more trip than max_unroll, in the code run per point: unrolled
        s = s * 0.5 + float(c)
    out[i] = s


def test_a_break_keeps_the_loop_and_more_than_max_unroll_trips_per_point_unroll():
    unrolled, rolled = _kernel_pair(stays_rolled)
    assert _body_loops(_generated(unrolled)) == 1
    assert _body_loops(_generated(rolled)) == 2
    x = np.random.default_rng(3).standard_normal(8 * 16).astype(np.float32)
    out = wp.zeros(16, dtype=float)
    wp.launch(unrolled, dim=16, inputs=[wp.array(x), out])
    want = []
    for row in x.reshape(16, 8):
        s = np.float32(0)
        for v in row:
            if v < 0:
                break
            s = np.float32(s + v)
        for c in range(17):
            s = np.float32(s * np.float32(0.5) + np.float32(c))
        want.append(s)
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.float32))


def twenty(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for c in range(20):
        s = s * 0.5 + float(c)
    out[i] = s


def test_max_unroll_zero_keeps_a_per_point_loop_of_twenty_trips_rolled():
    default = wp.kernel(twenty)
    off = wp.kernel(twenty, module="unique", module_options={"max_unroll": 0})
    assert _body_loops(_generated(default)) == 0
    assert _body_loops(_generated(off)) == 1
    x = wp.array(np.linspace(-3, 3, 9, dtype=np.float32))
    a, b = wp.zeros(9, dtype=float), wp.zeros(9, dtype=float)
    wp.launch(default, dim=9, inputs=[x, a])
    wp.launch(off, dim=9, inputs=[x, b])
    assert a.numpy().tobytes() == b.numpy().tobytes()


def inside_rolled(x: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for k in range(n):  # bounds known at run time only: rolled
        for c in range(20):  # per point, but inside a rolled loop: rolled too (more than max_unroll trips)
            s = s * 0.5 + float(c + k)
        for c in range(3):  # at most max_unroll trips: unrolled, as in Warp
            s = s + float(c)
    j = 0
    while j < n:  # the same in a while loop
        for c in range(20):
            s = s * 0.25 + float(c)
        j += 1
    out[i] = s


def test_a_loop_inside_a_rolled_loop_unrolls_only_to_max_unroll():
    kernel = wp.kernel(inside_rolled)
    assert _body_loops(_generated(kernel)) == 3  # for k, its for c of 20 trips, the while's: the 3 trips unrolled
    x = np.linspace(-2, 2, 7, dtype=np.float32)
    out = wp.zeros(7, dtype=float)
    wp.launch(kernel, dim=7, inputs=[wp.array(x), 3, out])
    want = []
    for s in x:
        for k in range(3):
            for c in range(20):
                s = np.float32(s * np.float32(0.5) + np.float32(c + k))
            for c in range(3):
                s = np.float32(s + np.float32(c))
        for _ in range(3):
            for c in range(20):
                s = np.float32(s * np.float32(0.25) + np.float32(c))
        want.append(s)
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.float32))


def test_set_module_options_rebuilds_with_the_new_limit():
    k = wp.kernel(twenty, module="unique")
    x, out = wp.array(np.ones(4, dtype=np.float32)), wp.zeros(4, dtype=float)
    wp.launch(k, dim=4, inputs=[x, out])
    first = out.numpy().copy()
    before = next(iter(k.instances.values()))
    assert _body_loops(_generated(k)) == 0
    wp.set_module_options({"max_unroll": 0}, module=k.module)
    assert k.max_unroll == 0 and _body_loops(_generated(k)) == 1
    out.zero_()
    wp.launch(k, dim=4, inputs=[x, out])
    assert next(iter(k.instances.values())) is not before
    assert out.numpy().tobytes() == first.tobytes()


SLICE_TRIPS = 17  # more than max_unroll


def _per_slice_loop_kernel(cache) -> str:
    """An ``la.outer`` body with a loop of ``SLICE_TRIPS`` trips run once per slice, before its cells' loop, which
    writes the loop's sum into every cell; returns the generated C++ after checking the values."""
    import os

    from brickwork import la

    nb, n, ng = 1, 8, 1
    x = wp.array(np.arange(1, SLICE_TRIPS + 1, dtype=np.float64) / 4.0, dtype=wp.float64)
    out = wp.zeros((nb, 1 + 2 * ng, n + 2 * ng, n + 2 * ng), dtype=wp.float64)
    space = la.IndexSpace.box(la.bovi, la.logical_flat, nb, n, n, 1, ng, ninner=la.ij_slab)

    def body(r, b):
        s = wp.float64(0.0)
        for c in range(SLICE_TRIPS):
            s = s * wp.float64(0.5) + x[c]
        for idx in la.inner(r):
            k, j, i = r.get_kji(idx)
            out[b, k, j, i] = s + wp.float64(i)

    la.outer(space, body)
    want = np.float64(0.0)
    for v in x.numpy():
        want = want * 0.5 + v
    inner = out.numpy()[0, ng:-ng, ng:-ng, ng:-ng]
    np.testing.assert_array_equal(inner, np.broadcast_to(want + np.arange(ng, n + ng), inner.shape))
    (source,) = [os.path.join(root, "kernel.cpp") for root, _, files in os.walk(cache) if "kernel.cpp" in files]
    with open(source) as f:
        return f.read()


def test_a_loop_over_max_unroll_run_once_per_slice_stays_rolled(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    text = _per_slice_loop_kernel(tmp_path)
    assert re.search(rf"_stop\d+ = int32_t\({SLICE_TRIPS}\);", text)  # the loop, with its constant bound


def long_body(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for c in range(64):
        s = wp.sin(s) * 0.5 + wp.cos(s * 0.25) + wp.sqrt(wp.abs(s) + 1.0) * float(c) - wp.exp(-s * s) / (s * s + 2.0)
        s = wp.sin(s) * 0.5 + wp.cos(s * 0.25) + wp.sqrt(wp.abs(s) + 1.0) * float(c) - wp.exp(-s * s) / (s * s + 2.0)
        s = wp.sin(s) * 0.5 + wp.cos(s * 0.25) + wp.sqrt(wp.abs(s) + 1.0) * float(c) - wp.exp(-s * s) / (s * s + 2.0)
    out[i] = s


def test_a_long_body_stays_rolled_under_the_size_guard():
    from brickwork import ir

    k = wp.kernel(long_body)
    typed, _ = pipeline.type_instance(k, k.concrete_types(), "t")
    loop = next(n for n in ir.walk(typed.body) if isinstance(n, ir.IRFor))
    assert sum(1 for _ in ir.walk(loop.body)) * 64 > MAX_POINT_NODES
    assert _body_loops(_generated(k)) == 1


LONG_LOOPS = 5


def long_loops(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    t = 1.0
    ones = wp.tile_ones(shape=2, dtype=float)  # a tiled kernel: its size guard holds
    for c in range(150):  # five loops of 150 trips: each under the per-point guard, together over the function's
        s = s * 0.5 + t * 0.25 + float(c) * 0.001
        t = t * 0.75 - s * 0.125
    for c in range(150):
        s = s * 0.5 + t * 0.25 + float(c) * 0.001
        t = t * 0.75 - s * 0.125
    for c in range(150):
        s = s * 0.5 + t * 0.25 + float(c) * 0.001
        t = t * 0.75 - s * 0.125
    for c in range(150):
        s = s * 0.5 + t * 0.25 + float(c) * 0.001
        t = t * 0.75 - s * 0.125
    for c in range(150):
        s = s * 0.5 + t * 0.25 + float(c) * 0.001
        t = t * 0.75 - s * 0.125
    out[i] = s + t + ones[1]


def test_a_tiled_function_stops_unrolling_at_its_own_size_guard_and_gives_the_same_results():
    from brickwork import ir

    unrolled, rolled = _kernel_pair(long_loops)
    typed, _ = pipeline.type_instance(unrolled, unrolled.concrete_types(), "t")
    loops = [n for n in ir.walk(typed.body) if isinstance(n, ir.IRFor) and n.var.name == "c"]
    copies = [150 * sum(1 for _ in ir.walk(loop.body)) for loop in loops]
    assert len(loops) == LONG_LOOPS and max(copies) < MAX_POINT_NODES and sum(copies) > MAX_FUNCTION_NODES
    assert 0 < _body_loops(_generated(unrolled)) < LONG_LOOPS  # the first loops unroll, the last stay rolled
    assert _body_loops(_generated(rolled)) == LONG_LOOPS + 1  # and the tile's own loop
    x = np.linspace(-2, 2, 13, dtype=np.float32)
    outs = []
    for k in (unrolled, rolled):
        out = wp.zeros(13, dtype=float)
        wp.launch(k, dim=13, inputs=[wp.array(x), out])
        outs.append(out.numpy())
    assert outs[0].tobytes() == outs[1].tobytes()
    want = []
    for v in x:
        s, t = np.float32(v), np.float32(1)
        for c in list(range(150)) * LONG_LOOPS:
            s = np.float32(np.float32(s * np.float32(0.5)) + np.float32(t * np.float32(0.25)))
            s = np.float32(s + np.float32(np.float32(c) * np.float32(0.001)))
            t = np.float32(np.float32(t * np.float32(0.75)) - np.float32(s * np.float32(0.125)))
        want.append(np.float32(np.float32(s + t) + np.float32(1)))
    np.testing.assert_array_equal(outs[0], np.array(want, dtype=np.float32))


@wp.func
def long_step(s: float, c: int):
    s = s * 0.5 + float(c) * 0.25  # eight statements: about 100 nodes
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    s = s * 0.5 + float(c) * 0.25
    return s


def calls_in_loop(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    ones = wp.tile_ones(shape=2, dtype=float)
    s = x[i]
    for c in range(64):  # 64 calls: a few hundred nodes, but 64 inlined copies of the function's
        s = long_step(s, c)
    out[i] = s + ones[0]


def test_in_a_tiled_function_a_call_counts_as_the_function_it_calls():
    from brickwork import ir

    unrolled, rolled = _kernel_pair(calls_in_loop)
    typed, _ = pipeline.type_instance(unrolled, unrolled.concrete_types(), "t")
    loop = next(n for n in ir.walk(typed.body) if isinstance(n, ir.IRFor) and n.var.name == "c")
    assert 64 * sum(1 for _ in ir.walk(loop.body)) < MAX_POINT_NODES  # unrolled, if the call counted as one node
    assert _body_loops(_generated(unrolled)) == 1  # the loop of calls stays rolled (the tile's 2 trips unroll)
    assert _body_loops(_generated(rolled)) == 2
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    outs = []
    for k in (unrolled, rolled):
        out = wp.zeros(5, dtype=float)
        wp.launch(k, dim=5, inputs=[wp.array(x), out])
        outs.append(out.numpy())
    want = []
    for v in x:
        s = np.float32(v)
        for c in range(64):
            for _ in range(8):
                s = np.float32(np.float32(s * np.float32(0.5)) + np.float32(np.float32(c) * np.float32(0.25)))
        want.append(np.float32(s + np.float32(1)))
    assert outs[0].tobytes() == outs[1].tobytes()
    np.testing.assert_array_equal(outs[0], np.array(want, dtype=np.float32))


def calls_per_point(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for c in range(64):  # per point, past max_unroll: the calls weigh as the function g++ inlines into each copy
        s = long_step(s, c)
    for c in range(8):  # within max_unroll: unrolled as before, calls or not
        s = long_step(s, c)
    out[i] = s


def test_per_point_past_max_unroll_a_call_counts_as_the_function_it_calls():
    from brickwork import ir

    unrolled, rolled = _kernel_pair(calls_per_point)
    typed, _ = pipeline.type_instance(unrolled, unrolled.concrete_types(), "t")
    loop = next(n for n in ir.walk(typed.body) if isinstance(n, ir.IRFor) and n.stop.value == 64)
    assert 64 * sum(1 for _ in ir.walk(loop.body)) < MAX_POINT_NODES  # unrolled, if the call counted as one node
    assert _body_loops(_generated(unrolled)) == 1  # the 64 calls stay rolled, the 8 unroll
    assert _body_loops(_generated(rolled)) == 2
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    out = wp.zeros(5, dtype=float)
    wp.launch(unrolled, dim=5, inputs=[wp.array(x), out])
    want = []
    for v in x:
        s = np.float32(v)
        for c in [*range(64), *range(8)]:
            for _ in range(8):
                s = np.float32(np.float32(s * np.float32(0.5)) + np.float32(np.float32(c) * np.float32(0.25)))
        want.append(s)
    np.testing.assert_array_equal(out.numpy(), np.array(want, dtype=np.float32))


def grad_loop(x: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = x[i]
    for c in range(5):
        if c == 3:
            continue
        s = wp.sin(s * w[c]) + s * float(c)
    for c in range(4, 0, -2):
        s = s * s * w[c] + float(c)
    out[i] = s


def test_gradients_of_an_unrolled_loop_equal_the_rolled_ones_bit_for_bit():
    unrolled, rolled = _kernel_pair(grad_loop)
    rng = np.random.default_rng(11)
    xs = rng.uniform(-1, 1, 32).astype(np.float32)
    ws = rng.uniform(0.5, 1.5, 5).astype(np.float32)
    grads = []
    for k in (unrolled, rolled):
        x, w = wp.array(xs, requires_grad=True), wp.array(ws, requires_grad=True)
        out = wp.zeros(32, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(k, dim=32, inputs=[x, w, out])
        tape.backward(grads={out: wp.ones(32, dtype=float)})
        grads.append((out.numpy(), x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*grads):
        assert a.tobytes() == b.tobytes()
    # against a central difference in float64 of the same function
    def f(x, w):
        s = x
        for c in (0, 1, 2, 4):
            s = np.sin(s * w[c]) + s * c
        for c in (4, 2):
            s = s * s * w[c] + c
        return s

    h = 1e-6
    fd = (f(xs.astype(np.float64) + h, ws.astype(np.float64)) - f(xs.astype(np.float64) - h, ws.astype(np.float64)))
    np.testing.assert_allclose(grads[0][1], fd / (2 * h), rtol=2e-3, atol=2e-3)


def test_a_max_unroll_that_is_no_int_is_refused_and_nothing_runs():
    k = wp.kernel(twenty, module="unique", module_options={"max_unroll": "16"})
    out = wp.full(4, 5.0, dtype=float)
    with pytest.raises(TypeError, match=r"module option 'max_unroll' must be an int.*'16'"):
        wp.launch(k, dim=4, inputs=[wp.array(np.ones(4, dtype=np.float32)), out])
    np.testing.assert_array_equal(out.numpy(), np.full(4, 5.0, dtype=np.float32))


def test_config_max_unroll_is_the_default_of_modules_made_after(monkeypatch):
    monkeypatch.setattr(config, "max_unroll", 4)
    assert Module("bw_test_unroll_config").options["max_unroll"] == 4
    monkeypatch.setattr(config, "max_unroll", 16)
    assert Module("bw_test_unroll_config2").options["max_unroll"] == 16


def static_range(out: wp.array(dtype=float)):
    s = 0.0
    for c in wp.static(range(NCOMP)):
        s = s + float(c)
    out[0] = s


def test_iterating_over_wp_static_range_is_refused_as_in_warp():
    k = wp.kernel(static_range)
    out = wp.full(1, 3.0, dtype=float)
    with pytest.raises(KernelSyntaxError, match=r"(?s)test_unroll_constant_loops\.py.*line \d+.*"
                       r"cannot iterate over wp\.static\(range\(\.\.\.\)\)"):
        wp.launch(k, dim=1, inputs=[out])
    assert out.numpy()[0] == 3.0
