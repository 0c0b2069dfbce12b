"""Characteristic reconstruction (``hydro.characteristic = true``; Athena++'s xorder = 2c / 3c; WENO5 too):
characteristic.py.

The eigenvectors (L R = I to round-off; R's columns are eigenvectors of the primitive equations' matrix, against
numpy), the face states (a constant stencil comes back exactly, a mirrored stencil gives the mirrored faces bit for
bit, a face that would not be physical falls back to the cell's state); whole runs: a periodic wave conserves to
round-off with the fused and the split stages giving the same bits, the 2-D fused stage conserves, the GPU mapping
(emulation target) gives the CPU's result and its passes compile for CUDA; bad settings are ConfigErrors. Elsewhere:
the mirrored shock tube and the restart (bit for bit) in test_hydro_ppm_roe.py, Sod's L1 errors in test_hydro_sod.py,
the sound wave's convergence in test_hydro_convergence.py, two ranks in tests/mpi/test_mpi_ppm_roe.py.

Every run is PPM with Roe (the pair whose mirrored runs are bit for bit) in 1-D blocks of 32 cells, so they share one
set of kernels with test_hydro_sod's and test_hydro_convergence's characteristic PPM runs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hydro_conservation import KH_2D, drift
from test_hydro_ppm_roe import PPM_CHAR_ROE as KEYS
from test_hydro_ppm_roe import WENO5_CHAR_ROE, sod_state

import brickwork as wp
from brickwork import config
from brickwork.apps.hydro import ConfigError
from brickwork.apps.hydro.characteristic import characteristic_faces, from_characteristic, to_characteristic
from brickwork.apps.hydro.reconstruction import plm_mc, ppm, weno5

GAMMA = 1.4
ppm_faces = characteristic_faces(ppm)
plm_faces = characteristic_faces(plm_mc)
weno5_faces = characteristic_faces(weno5)


@wp.kernel
def eigenvectors(states: wp.array2d(dtype=wp.float64), gamma: wp.float64, out: wp.array4d(dtype=wp.float64)):
    """For the state (rho, p) = states[:, i]: out[i, 0] = R (columns: R e_k through from_characteristic), out[i, 1] =
    L R (to_characteristic of those columns), with the coefficients characteristic_faces computes."""
    i = wp.tid()
    r0 = states[0, i]
    p0 = states[1, i]
    asq = gamma * p0 / r0
    a = wp.sqrt(asq)
    half_rho_over_a = wp.float64(0.5) * r0 / a
    half_over_asq = wp.float64(0.5) / asq
    zero = wp.float64(0.0)
    for k in range(3):
        e0 = wp.where(k == 0, wp.float64(1.0), zero)
        e1 = wp.where(k == 1, wp.float64(1.0), zero)
        e2 = wp.where(k == 2, wp.float64(1.0), zero)
        dr, du, dp = from_characteristic(zero, zero, zero, a / r0, asq, e0, e1, e2)
        out[i, 0, 0, k] = dr
        out[i, 0, 1, k] = du
        out[i, 0, 2, k] = dp
        out[i, 1, 0, k], out[i, 1, 1, k], out[i, 1, 2, k] = to_characteristic(dr, du, dp, half_rho_over_a,
                                                                             half_over_asq)


@wp.kernel
def faces(q: wp.array2d(dtype=wp.float64), gamma: wp.float64, out: wp.array4d(dtype=wp.float64)):
    """out[method, mirrored, 0:6, i]: characteristic PPM's (method 0), PLM-MC's (1) and WENO5's (2) face states
    (rho_lo, rho_hi, u_lo, u_hi, p_lo, p_hi) of the stencils q[0:15, i] (rho, u, p at cells i-2..i+2), and of the
    mirrored stencil (cells reversed, u negated)."""
    i = wp.tid()
    out[0, 0, 0, i], out[0, 0, 1, i], out[0, 0, 2, i], out[0, 0, 3, i], out[0, 0, 4, i], out[0, 0, 5, i] = ppm_faces(
        q[0, i], q[1, i], q[2, i], q[3, i], q[4, i], q[5, i], q[6, i], q[7, i], q[8, i], q[9, i],
        q[10, i], q[11, i], q[12, i], q[13, i], q[14, i], gamma)
    out[0, 1, 0, i], out[0, 1, 1, i], out[0, 1, 2, i], out[0, 1, 3, i], out[0, 1, 4, i], out[0, 1, 5, i] = ppm_faces(
        q[4, i], q[3, i], q[2, i], q[1, i], q[0, i], -q[9, i], -q[8, i], -q[7, i], -q[6, i], -q[5, i],
        q[14, i], q[13, i], q[12, i], q[11, i], q[10, i], gamma)
    out[1, 0, 0, i], out[1, 0, 1, i], out[1, 0, 2, i], out[1, 0, 3, i], out[1, 0, 4, i], out[1, 0, 5, i] = plm_faces(
        q[0, i], q[1, i], q[2, i], q[3, i], q[4, i], q[5, i], q[6, i], q[7, i], q[8, i], q[9, i],
        q[10, i], q[11, i], q[12, i], q[13, i], q[14, i], gamma)
    out[1, 1, 0, i], out[1, 1, 1, i], out[1, 1, 2, i], out[1, 1, 3, i], out[1, 1, 4, i], out[1, 1, 5, i] = plm_faces(
        q[4, i], q[3, i], q[2, i], q[1, i], q[0, i], -q[9, i], -q[8, i], -q[7, i], -q[6, i], -q[5, i],
        q[14, i], q[13, i], q[12, i], q[11, i], q[10, i], gamma)
    out[2, 0, 0, i], out[2, 0, 1, i], out[2, 0, 2, i], out[2, 0, 3, i], out[2, 0, 4, i], out[2, 0, 5, i] = weno5_faces(
        q[0, i], q[1, i], q[2, i], q[3, i], q[4, i], q[5, i], q[6, i], q[7, i], q[8, i], q[9, i],
        q[10, i], q[11, i], q[12, i], q[13, i], q[14, i], gamma)
    out[2, 1, 0, i], out[2, 1, 1, i], out[2, 1, 2, i], out[2, 1, 3, i], out[2, 1, 4, i], out[2, 1, 5, i] = weno5_faces(
        q[4, i], q[3, i], q[2, i], q[1, i], q[0, i], -q[9, i], -q[8, i], -q[7, i], -q[6, i], -q[5, i],
        q[14, i], q[13, i], q[12, i], q[11, i], q[10, i], gamma)


def face_states(stencils) -> np.ndarray:
    q = np.ascontiguousarray(np.asarray(stencils, dtype=np.float64).reshape(-1, 15).T)
    out = wp.zeros((3, 2, 6, q.shape[1]), dtype=wp.float64)
    wp.launch(faces, dim=q.shape[1], inputs=[wp.array(q), GAMMA, out])
    return out.numpy()


def test_the_eigenvectors_are_inverse_and_eigenvectors_of_the_primitive_equations():
    """L R is the identity to a few units of round-off, for densities and pressures over six decades; R's columns
    solve A r = lambda r with A the primitive equations' matrix ((u, rho, 0), (0, u, 1/rho), (0, gamma p, u)) and
    lambda = u - a, u, u + a (u = 0: the projection never sees the velocity itself)."""
    rng = np.random.default_rng(7)
    states = 10.0 ** rng.uniform(-3, 3, size=(2, 200))
    out = wp.zeros((200, 2, 3, 3), dtype=wp.float64)
    wp.launch(eigenvectors, dim=200, inputs=[wp.array(states), GAMMA, out])
    right, product = out.numpy()[:, 0], out.numpy()[:, 1]
    np.testing.assert_allclose(product, np.broadcast_to(np.eye(3), product.shape), rtol=0, atol=4e-16)
    for (rho, p), r in zip(states.T, right):
        a = np.sqrt(GAMMA * p / rho)
        matrix = np.array([[0.0, rho, 0.0], [0.0, 0.0, 1.0 / rho], [0.0, GAMMA * p, 0.0]])
        np.testing.assert_allclose(matrix @ r, r * np.array([-a, 0.0, a]), rtol=0, atol=1e-13 * np.abs(r).max() * a)


def test_a_constant_stencil_comes_back_and_a_lone_vacuum_falls_back_to_the_cell():
    """A uniform stencil gives the cell's state at both faces exactly (its differences are 0); a cell next to a
    near vacuum whose projected faces would have a negative density takes its own state at both faces."""
    state = [1.3] * 5 + [-0.7] * 5 + [2.1] * 5
    out = face_states([state])
    for method in (0, 1, 2):
        np.testing.assert_array_equal(out[method, 0, :, 0], [1.3, 1.3, -0.7, -0.7, 2.1, 2.1])
    # a strong pressure jump into a thin gas moving apart: primitive PLM keeps rho > 0, the projection does not
    vacuum = [1e-3, 1e-3, 1e-3, 1e-3, 1e-3] + [-2.0, -2.0, 0.0, 2.0, 2.0] + [1e-4, 1e-4, 1e-4, 10.0, 10.0]
    out = face_states([vacuum])
    np.testing.assert_array_equal(out[1, 0, :, 0], [1e-3, 1e-3, 0.0, 0.0, 1e-4, 1e-4])


positive = st.floats(1e-2, 1e2)
velocity = st.floats(-10.0, 10.0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(*[positive] * 5, *[velocity] * 5, *[positive] * 5), min_size=1, max_size=30))
def test_a_mirrored_stencil_gives_the_mirrored_faces_bit_for_bit(stencils):
    """Cells reversed and the normal velocity negated: the lower and upper faces swap, density and pressure the
    same bits, the velocity negated bits (what a mirrored run needs); every face is physical."""
    out = face_states(stencils)
    for method in (0, 1, 2):
        plain, mirrored = out[method, 0], out[method, 1]
        np.testing.assert_array_equal(mirrored[[1, 0, 5, 4]], plain[[0, 1, 4, 5]])
        np.testing.assert_array_equal(mirrored[[3, 2]], -plain[[2, 3]])
        assert (plain[[0, 1, 4, 5]] > 0).all()


def test_a_periodic_wave_conserves_and_the_split_stage_gives_the_fused_bits(run_hydro):
    raw = {"problem": {"name": "linear_wave", "amplitude": 0.1}, "mesh": {"nx": [64], "block_nx": [32]},
           "time": {"tlim": 0.5}, "output": {"history": True}}
    fused = run_hydro(dict(raw, hydro=KEYS))
    change, _ = drift(fused)
    assert max(change.values()) < 2e-14, change
    split = run_hydro(dict(raw, hydro=dict(KEYS, stage="split")))
    assert split.cycle == fused.cycle > 20 and not split.hydro.fused
    for a, b in zip(sod_state(split), sod_state(fused)):
        np.testing.assert_array_equal(a, b)


def test_kelvin_helmholtz_on_the_cpu_and_the_gpu_mapping(run_hydro):
    """The 2-D fused stage (faces normal to x2 project with v2 as the normal velocity) conserves to round-off; the
    GPU mapping (emulation target: split passes, the faces across rows solved face by face in row_fluxes.py) gives
    the same densities to rounding, and its flux passes compile for CUDA (NVRTC, sm_90) where NVRTC is."""
    import gpu_compile

    raw = dict(KH_2D, hydro=KEYS, time={"nlim": 6, "tlim": 10.0}, output={"history": True})
    cpu = run_hydro(raw)
    change, _ = drift(cpu)
    assert max(change.values()) < 2e-14, change
    with config.override(target="cuda-emulation"), gpu_compile.recording() as used:
        emu = run_hydro(raw)
    assert emu.time == cpu.time > 0 and not emu.hydro.fused
    rho = [r.hydro.to_global(r.hydro.primitive("density")) for r in (cpu, emu)]
    np.testing.assert_allclose(rho[1], rho[0], rtol=1e-13, atol=0)
    vy = cpu.hydro.to_global(cpu.hydro.primitive("velocity_2"))
    assert np.abs(vy).max() > 1e-3  # the shear layer moved
    passes = [inst for inst in used if inst.label.startswith("fluxes")]
    assert len(passes) == 2, [inst.label for inst in used]  # x1's faces, and the faces across rows
    if gpu_compile.available():
        assert all("sqrt" in text for text in gpu_compile.compile_for_cuda(passes))


def test_weno5_on_the_gpu_mapping_gives_the_cpus_wave(run_hydro):
    """Characteristic WENO5 in 1-D (the kernels of test_hydro_ppm_roe's weno5_char_roe runs on the CPU): the GPU
    mapping (emulation target, split passes) gives the CPU's densities to rounding, and its flux pass compiles for
    CUDA (NVRTC, sm_90) where NVRTC is."""
    import gpu_compile

    raw = {"problem": {"name": "linear_wave", "amplitude": 0.1}, "mesh": {"nx": [64], "block_nx": [32]},
           "hydro": WENO5_CHAR_ROE, "time": {"nlim": 6, "tlim": 10.0}}
    cpu = run_hydro(raw)
    with config.override(target="cuda-emulation"), gpu_compile.recording() as used:
        emu = run_hydro(raw)
    assert emu.time == cpu.time > 0 and emu.cycle == 6 and not emu.hydro.fused
    rho = [r.hydro.to_global(r.hydro.primitive("density")) for r in (cpu, emu)]
    np.testing.assert_allclose(rho[1], rho[0], rtol=1e-13, atol=0)
    initial = cpu.hydro.cfg.problem.initial((np.arange(64) + 0.5) / 64, 0.0, 0.0, cpu.hydro.cfg["problem"],
                                            cpu.hydro.gamma, xmin=(0.0,), xmax=(1.0,))[0]
    assert np.abs(rho[0][0, 0] - initial).max() > 1e-3  # the wave moved
    passes = [inst for inst in used if inst.label.startswith("fluxes")]
    assert len(passes) == 1, [inst.label for inst in used]
    if gpu_compile.available():
        assert all("sqrt" in text for text in gpu_compile.compile_for_cuda(passes))


def test_a_bad_setting_names_the_key_and_the_allowed_values(make_config):
    with pytest.raises(ConfigError, match="^" + re.escape("hydro.characteristic: expected true or false")):
        make_config({"problem": {"name": "sod"}}, ["hydro.characteristic=yes"])


def test_athena_xorder_names_the_characteristic_key(make_config):
    with pytest.raises(ConfigError, match=r"xorder = 2c / 3c: the same with hydro.characteristic = true"):
        make_config({"problem": {"name": "sod"}}, ["hydro.xorder=3c"])
