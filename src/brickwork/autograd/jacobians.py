"""Jacobians of a kernel or a Python function of kernels: by the backward pass and by finite differences."""

from __future__ import annotations

import numpy as np

from ..runtime.tape import Tape
from ..types.arrays import array
from .metadata import components, jacobian_pairs
from .state import ArrayState
from .target import Target


def _limit(total: int, maximum: int) -> int:
    return total if maximum is None or maximum <= 0 else min(total, maximum)


def _flat(a: array) -> np.ndarray:
    return a.numpy().reshape(-1)


def _as_jacobian(matrix: np.ndarray, x: array, device) -> array:
    """A (rows, x.size) array of x's dtype holding ``matrix`` (rows, x's scalar count)."""
    data = matrix.reshape((matrix.shape[0], x.size) + x.numpy().shape[x.ndim:])
    return array(data.astype(x.numpy().dtype), dtype=x.dtype, device=device)


def _empty_matrices(pairs, inputs, outputs) -> dict:
    return {(i, j): np.full((outputs[j].size * components(outputs[j]), inputs[i].size * components(inputs[i])),
                            np.nan) for i, j in pairs}


def jacobian_ad(target: Target, mask, max_outputs_per_var: int, restore_inputs: bool, metadata=None):
    """The Jacobians by the backward pass and the metadata; rows past ``max_outputs_per_var`` are NaN."""
    if target.is_kernel:
        target.check_backward()
    state = ArrayState(target.inputs + (target.outputs or []))
    try:
        state.zero_grads()
        tape = Tape()
        with tape:
            outputs = target.run()
        target.check_backward(tape.launches)
        meta = target.metadata(metadata)
        pairs = jacobian_pairs(meta, target.inputs, outputs, mask)
        matrices = _empty_matrices(pairs, target.inputs, outputs)
        for j in sorted({j for _, j in pairs}):
            out = outputs[j]
            tape.zero()
            for row in range(_limit(out.size * components(out), max_outputs_per_var)):
                seed = np.zeros(out.grad.numpy().shape, dtype=out.grad.numpy().dtype)
                seed.reshape(-1)[row] = 1
                out.grad.assign(seed)
                tape.backward()
                for i, _ in (p for p in pairs if p[1] == j):
                    matrices[i, j][row] = _flat(target.inputs[i].grad)
                tape.zero()
                out.grad.zero_()
    finally:
        state.restore(values=restore_inputs)
    return {key: _as_jacobian(m, target.inputs[key[0]], target.device) for key, m in matrices.items()}, meta


def _evaluate(target: Target, state: ArrayState, restore_inputs: bool, x: array, index: int, delta: float):
    """The outputs' scalars (a flat copy each) with component ``index`` of ``x`` moved by ``delta``: from the saved
    values when ``restore_inputs``, else from x's current value (the component is moved back afterwards)."""
    if restore_inputs:
        state.restore_values()
    values = x.numpy().copy()
    flat = values.reshape(-1)
    before = flat[index]
    flat[index] = before + flat.dtype.type(delta)
    x.assign(values)
    outputs = target.run()
    result = [_flat(o).copy() for o in outputs]
    if not restore_inputs:
        values = x.numpy().copy()
        values.reshape(-1)[index] = before
        x.assign(values)
    return result


def jacobian_finite_differences(target: Target, mask, max_inputs_per_var: int, eps: float, restore_inputs: bool,
                                metadata=None):
    """The Jacobians by central differences and the metadata; columns past ``max_inputs_per_var`` are NaN."""
    state = ArrayState(target.inputs + (target.outputs or []))
    try:
        if restore_inputs:
            state.restore_values()
        outputs = target.run()
        meta = target.metadata(metadata)
        pairs = jacobian_pairs(meta, target.inputs, outputs, mask)
        matrices = _empty_matrices(pairs, target.inputs, outputs)
        for i in sorted({i for i, _ in pairs}):
            x = target.inputs[i]
            for column in range(_limit(x.size * components(x), max_inputs_per_var)):
                plus = _evaluate(target, state, restore_inputs, x, column, eps)
                minus = _evaluate(target, state, restore_inputs, x, column, -eps)
                for _, j in (p for p in pairs if p[0] == i):
                    # the quotient in the output's precision, as the outputs are
                    step = plus[j].dtype.type(2.0 * eps)
                    matrices[i, j][:, column] = (plus[j] - minus[j]) / step
    finally:
        state.restore(values=restore_inputs)
    return {key: _as_jacobian(m, target.inputs[key[0]], target.device) for key, m in matrices.items()}, meta
