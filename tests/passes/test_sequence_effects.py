"""sequence_effects: operands run left to right where the order can be seen (``passes/sequence_effects.py``).

C++ evaluates the arguments of a call in no set order (g++ on x86-64: right to left); these kernels
give Python's (and Warp's) results on the CPU and on the emulation of the GPU mapping.
"""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, ir, pipeline
from brickwork.passes import SequenceEffects

TARGETS = ["cpu", "cuda-emulation"]


@wp.kernel
def draws(out: wp.array(dtype=wp.vec3), seq: wp.array(dtype=float)):
    s = wp.rand_init(42)
    out[0] = wp.vec3(wp.randf(s), wp.randf(s), wp.randf(s))
    out[1] = wp.vec3(wp.randf(s) - wp.randf(s), 0.0, 0.0)
    t = wp.rand_init(42)
    for i in range(5):
        seq[i] = wp.randf(t)


@pytest.mark.parametrize("target", TARGETS)
def test_random_draws_in_one_expression_come_in_the_order_written(target):
    out, seq = wp.zeros(2, dtype=wp.vec3), wp.zeros(5, dtype=float)
    with config.override(target=target):
        wp.launch(draws, dim=1, inputs=[out, seq])
    r = seq.numpy()
    np.testing.assert_array_equal(out.numpy()[0], r[:3])
    assert out.numpy()[1, 0] == np.float32(r[3] - r[4])


@wp.kernel
def poisson_draws(out: wp.array(dtype=float)):
    s = wp.rand_init(7)
    v = wp.vec2(float(wp.poisson(s, 3.0)), wp.randf(s))
    out[0] = v[0]
    out[1] = v[1]
    t = wp.rand_init(7)
    out[2] = float(wp.poisson(t, 3.0))
    out[3] = wp.randf(t)


@pytest.mark.parametrize("target", TARGETS)
def test_poisson_advances_the_state_like_the_other_draws(target):
    out = wp.zeros(4, dtype=float)
    with config.override(target=target):
        wp.launch(poisson_draws, dim=1, inputs=[out])
    got = out.numpy()
    assert got[:2].tolist() == got[2:].tolist()


@wp.func
def bump(a: wp.array(dtype=float)) -> float:
    a[0] = a[0] + 5.0
    return 1.0


@wp.kernel
def reads_around_effects(c: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i == 0:
        out[0] = wp.atomic_add(c, 0, 1.0) + c[0] + c[0]  # the reads follow the increment
    if i == 1:
        out[1] = c[1] + wp.atomic_add(c, 1, 1.0)  # the read precedes it
    if i == 2:
        out[2] = bump(c[2:3]) * 10.0 + c[2]  # a function that writes an array
    if i == 3:
        out[3] = c[3] * 10.0 + bump(c[3:4])
    if i == 4:
        out[4] = c[4] if c[4] > 0.0 else wp.atomic_add(c, 4, 1.0) + c[4]  # inside a branch that runs


@pytest.mark.parametrize("target", TARGETS)
def test_memory_reads_see_the_effects_that_come_before_them_and_not_those_after(target):
    c, out = wp.zeros(5, dtype=float), wp.zeros(5, dtype=float)
    with config.override(target=target):
        wp.launch(reads_around_effects, dim=5, inputs=[c, out])
    assert out.numpy().tolist() == [2.0, 0.0, 15.0, 1.0, 1.0]
    assert c.numpy().tolist() == [1.0, 1.0, 5.0, 5.0, 1.0]


@wp.kernel
def no_effects(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.sin(a[i]) + a[i] * 2.0


@wp.kernel
def effect_alone(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, a[i] * 2.0 + 1.0)  # nothing else in its expression can see when it runs


def test_code_without_a_mix_of_effects_and_reads_is_left_as_it_is():
    for kernel in (no_effects, effect_alone):
        typed, _ = pipeline.type_instance(kernel, kernel.concrete_types(), kernel.key)
        out = SequenceEffects().run(typed)
        assert not any(name.startswith("_seq") for name in out.locals)
        assert ir.format_function(out) == ir.format_function(typed)


def test_operands_are_computed_into_locals_in_evaluation_order():
    typed, _ = pipeline.type_instance(draws, draws.concrete_types(), "draws")
    out = SequenceEffects().run(typed)
    text = ir.format_function(out)
    first = [line.strip() for line in text.splitlines() if line.strip().startswith("_seq")][:3]
    assert [line.split(" = ")[1] for line in first] == ["randf(s)"] * 3
    assert [line.split(" = ")[0] for line in first] == ["_seq1", "_seq2", "_seq3"]
    assert "vec3(_seq1, _seq2, _seq3)" in text.replace("float32", "").replace("[", "(").replace("]", ")") or \
        "_seq1, _seq2, _seq3" in text


@wp.func
def take(c: wp.array(dtype=int)) -> int:
    return wp.atomic_add(c, 0, 1)


@wp.func
def twice(x: int) -> int:
    return 2 * x


@wp.kernel
def chained(c: wp.array(dtype=int), out: wp.array(dtype=int)):
    out[0] = wp.where(0 <= c[0] < 5, 1, 0) + wp.where(0 <= twice(c[0]) < 1, 10, 0)  # pure middles: fine


@wp.kernel
def range_bounds(c: wp.array(dtype=int), out: wp.array(dtype=int)):
    n = 0
    for i in range(take(c), take(c) + 3):  # start, then stop: range(0, 4)
        n += i
    out[0] = n


@pytest.mark.parametrize("target", TARGETS)
def test_range_bounds_run_in_the_order_written(target):
    c, out = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    with config.override(target=target):
        wp.launch(range_bounds, dim=1, inputs=[c, out])
    assert out.numpy()[0] == 0 + 1 + 2 + 3 and c.numpy()[0] == 2


@wp.kernel
def chained_effect(c: wp.array(dtype=int), out: wp.array(dtype=int)):
    if 0 <= take(c) < 5:
        out[0] = 1


def test_a_chained_comparison_whose_middle_has_an_effect_is_refused_and_a_pure_one_runs():
    c, out = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(chained, dim=1, inputs=[c, out])
    assert out.numpy()[0] == 11
    with pytest.raises(wp.KernelSyntaxError) as info:
        wp.launch(chained_effect, dim=1, inputs=[c, out])
    text = str(info.value)
    assert "test_sequence_effects.py" in text and "if 0 <= take(c) < 5:" in text
    assert "middle operand of a chained comparison has an effect" in text and "would run twice" in text
    assert c.numpy()[0] == 0 and out.numpy()[0] == 11  # nothing ran
