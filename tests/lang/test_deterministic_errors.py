"""Deterministic mode's limits: ``WarpDeterminismError`` for a backward pass that would replay an atomic's
result, ``config.deterministic_max_records``, and ``load_module`` of a unique kernel's module."""

import numpy as np
import pytest

import brickwork as wp

_RUN_TO_RUN = {"deterministic": wp.DeterministicMode.RUN_TO_RUN}


@wp.kernel(module="unique", module_options=_RUN_TO_RUN)
def _counter_slots(data: wp.array(dtype=wp.float32), counter: wp.array(dtype=wp.int32),
                   output: wp.array(dtype=wp.float32)):
    slot = wp.atomic_add(counter, 0, 1)
    output[slot] = data[wp.tid()]


@wp.func
def _claim(counter: wp.array(dtype=wp.int32)) -> int:
    return wp.atomic_add(counter, 0, 1)


@wp.kernel(module="unique", module_options=_RUN_TO_RUN)
def _counter_in_func(data: wp.array(dtype=wp.float32), counter: wp.array(dtype=wp.int32),
                     output: wp.array(dtype=wp.float32)):
    output[_claim(counter)] = data[wp.tid()]


@wp.func
def _claim_saved(counter: wp.array(dtype=wp.int32), slots: wp.array(dtype=wp.int32), tid: int) -> int:
    slot = wp.atomic_add(counter, 0, 1)
    slots[tid] = slot
    return slot


@wp.func_replay(_claim_saved)
def _claim_saved_replay(counter: wp.array(dtype=wp.int32), slots: wp.array(dtype=wp.int32), tid: int) -> int:
    return slots[tid]


@wp.kernel(module="unique", module_options=_RUN_TO_RUN)
def _counter_replayed(data: wp.array(dtype=wp.float32), counter: wp.array(dtype=wp.int32),
                      slots: wp.array(dtype=wp.int32), output: wp.array(dtype=wp.float32)):
    tid = wp.tid()
    output[_claim_saved(counter, slots, tid)] = 2.0 * data[tid]


@wp.kernel(module="unique", module_options=_RUN_TO_RUN)
def _weighted_sum(data: wp.array(dtype=wp.float32), total: wp.array(dtype=wp.float32)):
    tid = wp.tid()
    wp.atomic_add(total, 0, float(tid + 1) * data[tid])  # a bare statement: its result is not used


def _counter_launch(kernel, n=8):
    data = wp.array(np.arange(n, dtype=np.float32), requires_grad=True)
    counter = wp.zeros(1, dtype=wp.int32)
    output = wp.zeros(n, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, n, inputs=[data, counter], outputs=[output])
    return tape, data, counter, output


def test_warp_name_of_the_error():
    assert wp.WarpDeterminismError is wp.DeterminismError
    assert issubclass(wp.DeterminismError, RuntimeError) and issubclass(wp.DeterminismError, wp.BrickworkError)


@pytest.mark.parametrize("kernel", [_counter_slots, _counter_in_func])
def test_backward_of_a_used_atomic_result_is_refused(kernel):
    tape, data, counter, output = _counter_launch(kernel)
    # the forward pass is fine: one thread, in thread order, so thread i gets slot i
    np.testing.assert_array_equal(output.numpy(), np.arange(8, dtype=np.float32))
    assert counter.numpy()[0] == 8
    with pytest.raises(wp.WarpDeterminismError, match=rf"cannot differentiate kernel '{kernel.key}' automatically: "
                       r"the forward pass uses the value returned by atomic_add\(\) \(.*test_deterministic_errors"):
        tape.backward(grads={output: wp.ones_like(output)})
    np.testing.assert_array_equal(data.grad.numpy(), np.zeros(8))  # nothing ran


def test_manual_adjoint_launch_is_refused_too():
    data = wp.array(np.ones(4, dtype=np.float32))
    counter = wp.zeros(1, dtype=wp.int32)
    output = wp.zeros(4, dtype=wp.float32)
    grads = [wp.zeros(4, dtype=wp.float32), None, wp.ones(4, dtype=wp.float32)]
    with pytest.raises(wp.WarpDeterminismError, match="_counter_slots"):
        wp.launch(_counter_slots, 4, inputs=[data, counter], outputs=[output], adj_inputs=grads[:2],
                  adj_outputs=grads[2:], adjoint=True)


def test_a_func_replay_that_reads_saved_slots_differentiates():
    n = 6
    data = wp.array(np.arange(n, dtype=np.float32), requires_grad=True)
    counter = wp.zeros(1, dtype=wp.int32)
    slots = wp.zeros(n, dtype=wp.int32)
    output = wp.zeros(n, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_counter_replayed, n, inputs=[data, counter, slots], outputs=[output])
    tape.backward(grads={output: wp.array(np.arange(1, n + 1, dtype=np.float32))})
    np.testing.assert_array_equal(output.numpy(), 2.0 * np.arange(n))
    np.testing.assert_array_equal(data.grad.numpy(), 2.0 * np.arange(1, n + 1))


def test_bare_atomics_differentiate():
    n = 5
    data = wp.array(np.ones(n, dtype=np.float32), requires_grad=True)
    total = wp.zeros(1, dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_weighted_sum, n, inputs=[data, total])
    tape.backward(grads={total: wp.array([1.0], dtype=wp.float32)})
    assert total.numpy()[0] == 15.0
    np.testing.assert_array_equal(data.grad.numpy(), np.arange(1, n + 1, dtype=np.float32))


def test_config_max_records_is_captured_when_the_module_is_made():
    assert wp.config.deterministic_max_records == 0
    with wp.config.override(deterministic_max_records=7):
        @wp.kernel(module="unique")
        def captured(out: wp.array(dtype=wp.float32)):
            out[0] = 1.0
    assert captured.module.options["deterministic_max_records"] == 7


@pytest.mark.parametrize("setting, error, message", [
    ({"deterministic_max_records": -1}, ValueError, "config.deterministic_max_records must be non-negative, got -1"),
    ({"deterministic_max_records": 2.0}, TypeError, "config.deterministic_max_records must be a non-negative int"),
    ({"deterministic": True}, ValueError, "config.deterministic must be a brickwork.DeterministicMode value, got True"),
    ({"deterministic": "run_to_run"}, ValueError, "DeterministicMode value, got 'run_to_run'"),
])
def test_bad_config_values_are_refused_when_a_module_is_made(setting, error, message):
    with wp.config.override(**setting), pytest.raises(error, match=message):
        @wp.kernel(module="unique")
        def refused(out: wp.array(dtype=wp.float32)):
            out[0] = 1.0


def test_load_module_of_a_unique_kernel_defined_in_a_function():
    def make():
        @wp.kernel(module="unique", module_options=_RUN_TO_RUN)
        def local_fill(out: wp.array(dtype=wp.int32)):
            out[wp.tid()] = wp.tid() * 3
        return local_fill

    k = make()
    wp.load_module(module=k.module, device="cpu")
    assert all(inst.loaded for inst in k.instances.values()) and k.instances
    out = wp.zeros(4, dtype=wp.int32)
    wp.launch(k, 4, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [0, 3, 6, 9])
