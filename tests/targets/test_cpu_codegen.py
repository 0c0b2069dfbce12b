"""The generated C++ of small kernels: loop structure, OpenMP pragmas, argument copies, exact
constants, and the source file kept next to the library in the cache."""

import os
import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import pipeline
from brickwork.jit import cache
from brickwork.targets.cpu.cnames import c_constant, c_type


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def stencil2d(u: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    out[i, j] = u[i, j] * wp.float64(2.0)


@wp.kernel
def grid3d(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 100 + j * 10 + k


@wp.kernel(module="unique", module_options={"max_unroll": 0})  # loops kept: the constant one would be unrolled
def loops(n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    s = 0
    for k in range(10, 0, -2):
        s += k
    for k in range(n):
        s += k
    for k in range(0, n, n - 3):
        s += 1
    wp.printf("i=%d s=%d\n", i, s)
    out[i] = s


def generated(kernel) -> str:
    inst = kernel.get_instance(kernel.concrete_types())
    source, meta = pipeline.generate(inst.kernel, inst.arg_types, inst.label)
    return source


def run_function(source: str) -> str:
    start = source.index("static void run(")
    return source[start:source.index("\n}\n", start)]


def loop_headers(text: str) -> list:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("for (")]


def test_1d_kernel_structure():
    src = generated(saxpy)
    run = run_function(src)
    assert "#pragma omp parallel for simd" in run
    # the condition names the parallel construct: a bare if() would also switch off the simd of a serial launch
    assert "if(parallel: h.parallel)" in run and "num_threads(h.nthreads)" in run
    headers = loop_headers(run)
    assert len(headers) == 1
    assert not any("/" in h or "%" in h for h in headers)  # no division or modulo per element
    for name in ("v_a", "v_x", "v_y"):  # every argument copied to a local
        assert re.search(rf"^\s+\S.* {name} = a\.{name};$", run, re.M), name
    assert '#include "brickwork.h"' in src
    assert 'extern "C"' in src and "bw_entry" in src
    assert "run<true>" in src and "run<false>" not in src  # the unit-stride body; the general one on demand


@pytest.mark.parametrize("kernel, dims", [(stencil2d, 2), (grid3d, 3)])
def test_multidimensional_kernel_structure(kernel, dims):
    run = run_function(generated(kernel))
    assert "#pragma omp parallel for" in run
    assert "#pragma omp simd" in run  # the innermost loop
    assert ("collapse(2)" in run) == (dims == 3)
    headers = loop_headers(run)
    assert len(headers) == dims
    assert not any("/" in h or "%" in h for h in headers)
    simd_at = run.index("#pragma omp simd")
    assert run.index(headers[-1]) > simd_at > run.index(headers[-2])  # simd sits on the innermost loop


@wp.kernel
def count_visits(out: wp.array3d(dtype=int), who: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    wp.atomic_add(out, i, j, k, 1)
    who[i, j, k] = i * 10000 + j * 100 + k


@pytest.mark.parametrize("shape", [(3, 5, 7), (1, 1, 9), (1, 7, 3), (4, 1, 1), (2, 3, 1), (5, 4, 16)])
@pytest.mark.parametrize("threads", [2, 3, 5])
def test_parallel_3d_launch_visits_every_point_once(shape, threads):
    """A 3-D launch's rows shared among threads (fewer rows than threads included)."""
    out, who = wp.zeros(shape, dtype=int), wp.zeros(shape, dtype=int)
    with wp.config.override(parallel_threshold=1, num_threads=threads):
        wp.launch(count_visits, dim=shape, inputs=[out, who])
    np.testing.assert_array_equal(out.numpy(), np.ones(shape, dtype=np.int32))
    i, j, k = np.indices(shape)
    np.testing.assert_array_equal(who.numpy(), i * 10000 + j * 100 + k)


@wp.kernel
def label_4d(out: wp.array4d(dtype=int)):
    a, b, c, d = wp.tid()
    wp.atomic_add(out, a, b, c, d, a * 1000 + b * 100 + c * 10 + d + 1)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 1, 3, 2), (3, 1, 2, 7)])
def test_parallel_4d_launch_visits_every_point_once(shape):
    out = wp.zeros(shape, dtype=int)
    with wp.config.override(parallel_threshold=1, num_threads=3):
        wp.launch(label_4d, dim=shape, inputs=[out])
    a, b, c, d = np.indices(shape)
    np.testing.assert_array_equal(out.numpy(), a * 1000 + b * 100 + c * 10 + d + 1)


def test_loop_conditions_follow_the_sign_of_the_step():
    src = generated(loops)
    body = src[:src.index("struct Args")]
    headers = loop_headers(body)
    assert len(headers) == 3
    assert re.search(r"_it\d+ > _stop\d+", headers[0])  # constant negative step
    assert re.search(r"_it\d+ < _stop\d+", headers[1])  # constant positive step
    assert "? " in headers[2]  # step of unknown sign: tested at run time
    assert 'printf("i=%d s=%d\\n", (v_i), (v_s));' in body  # the user's format, untouched


def test_loops_run():
    out = wp.zeros(2, dtype=wp.int32)
    wp.launch(loops, dim=2, inputs=[7, out])
    assert out.numpy().tolist() == [30 + 21 + 2] * 2


def test_source_kept_next_to_the_library():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4)
    wp.launch(saxpy, dim=4, inputs=[2.0, x, y])
    assert y.numpy().tolist() == [0.0, 2.0, 4.0, 6.0]
    inst = saxpy.get_instance(saxpy.concrete_types())
    entry = cache.entry_dir(inst.key())
    assert os.path.isfile(os.path.join(entry, cache.LIBRARY))
    with open(os.path.join(entry, cache.SOURCE)) as f:
        assert f.read() == generated(saxpy)


def test_structs_and_tuples_are_declared():
    @wp.struct
    class Pair:
        a: float
        b: wp.vec2d

    @wp.func
    def split(x: int):
        return x // 2, x % 2

    @wp.kernel
    def uses(p: Pair, out: wp.array(dtype=int)):
        i = wp.tid()
        q, r = split(i)
        out[i] = q * 10 + r + int(p.a)

    src = generated(uses)
    assert re.search(r"struct S_Pair_\w+ \{\n    float m_a;\n    bw::vec<2, double> m_b;\n\};", src)
    assert re.search(r"struct tuple_\w+ \{\n    int32_t f0;\n    int32_t f1;\n\};", src)
    assert src.index("struct tuple_") < src.index("split")  # declared before use
    out = wp.zeros(5, dtype=wp.int32)
    wp.launch(uses, dim=5, inputs=[Pair(a=3.0), out])
    assert out.numpy().tolist() == [3, 4, 13, 14, 23]


@pytest.mark.parametrize("value, t, text", [
    (float(np.float32(0.1)), wp.float32, "0x1.99999a0000000p-4f"),
    (0.1, wp.float64, "0x1.999999999999ap-4"),
    (-2.0, wp.float64, "-0x1.0000000000000p+1"),
    (float("inf"), wp.float32, "bw::inf<float>()"),
    (float("-inf"), wp.float64, "-bw::inf<double>()"),
    (float("nan"), wp.float32, "bw::nan<float>()"),
    (1.5, wp.float16, "bw::half::from_bits(15872)"),
    (-2**63, wp.int64, "INT64_MIN"),
    (2**40, wp.int64, "int64_t(1099511627776LL)"),
    (7, wp.uint32, "uint32_t(7U)"),
    (-3, wp.int8, "int8_t(-3)"),
    (True, wp.bool, "true"),
])
def test_exact_constants(value, t, text):
    assert c_constant(value, t) == text


def test_c_types():
    assert c_type(wp.float16) == "bw::half"
    assert c_type(wp.vec3d) == "bw::vec<3, double>"
    assert c_type(wp.matrix((2, 3), wp.float32)) == "bw::mat<2, 3, float>"
    assert c_type(wp.quath) == "bw::quat<bw::half>"
    assert c_type(wp.array3d[wp.uint8]) == "bw::array_t<uint8_t, 3>"


def test_generation_is_deterministic():
    assert generated(loops) == generated(loops)


@wp.kernel
def eager_logic(x: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    v = x[i]
    ok = v > 0.0 and wp.isfinite(v * 2.0)
    bad = v < -1.0 or not wp.isfinite(v)
    out[i] = wp.where(ok, 1.0, 0.0) + wp.where(bad, 10.0, 0.0)


@wp.kernel
def guarded_logic(n: int, x: wp.array(dtype=wp.float32), out: wp.array(dtype=int)):
    i = wp.tid()
    j = i + 2
    if j < n and x[j] > 0.0:  # the second operand reads x: only where the first holds
        out[i] = 1


def test_and_or_of_pure_operands_render_without_branches():
    """`and`/`or` whose second operand can neither fault nor write evaluate both sides (`&`, `|`):
    no branch, so loops that test several conditions stay vector loops."""
    text = generated(eager_logic)
    body = text[text.index("static inline __attribute__((always_inline)) void body"):]
    assert "&&" not in body and "||" not in body
    assert ") & bw::truth(" in body and ") | bw::truth(" in body
    x = np.array([1.0, -0.5, -2.0, np.inf, np.nan, 0.0, 3.0, -np.inf, 3e38], dtype=np.float32)
    out = wp.zeros(len(x), dtype=wp.float32)
    wp.launch(eager_logic, dim=len(x), inputs=[wp.array(x, dtype=wp.float32), out])
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (x > 0) & np.isfinite(x * np.float32(2))
        bad = (x < -1) | ~np.isfinite(x)
    np.testing.assert_array_equal(out.numpy(), np.where(ok, 1.0, 0.0) + np.where(bad, 10.0, 0.0))


def test_and_whose_second_operand_reads_memory_short_circuits(monkeypatch):
    """The read of ``x[j]`` stays behind ``j < n``: bounds-checked, no access past the end."""
    from brickwork import config

    text = generated(guarded_logic)
    assert "&&" in text[text.index("static inline __attribute__((always_inline)) void body"):]
    monkeypatch.setattr(config, "mode", "debug")
    x = wp.array(np.array([1.0, -1.0, 2.0, 3.0]), dtype=wp.float32)
    out = wp.zeros(4, dtype=int)
    wp.launch(guarded_logic, dim=4, inputs=[4, x, out])
    np.testing.assert_array_equal(out.numpy(), [1, 1, 0, 0])


def test_units_carry_no_target_pragma():
    """The vector width is a compiler flag (``compiler_probe.tuning_flags``): a ``#pragma GCC target`` in
    the unit made g++ re-process every header function under new target options."""
    text = generated(saxpy)
    assert "#pragma GCC target" not in text
    assert text.splitlines()[1] == '#include "brickwork.h"'
