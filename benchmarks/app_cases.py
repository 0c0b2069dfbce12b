"""Two application-level cases, appended to ``cases.CASES``:

- ``sum_f64``: the Sum reduction of ``bench_la_sum.py``: a float64 field of 512 blocks of 32³
  cells with 2 ghost layers (256³ interior cells); brickwork ``la.outer_reduce`` (bvoi +
  logical_flat, the best tag pair of bench_la_sum.py here) vs numpy ``.sum()`` of the strided
  interior view, a Numba ``prange`` sum and C (OpenMP ``reduction(+)``, simd inner loop).
- ``hydro_kh_step``: one step of ``brickwork.apps.hydro`` (2-D Kelvin-Helmholtz, PLM/MC + HLLC
  + SSP-RK2, float64, 512² cells in 64² blocks; see ``bench_hydro.py``) against the hand-written
  C++ of ``c/hydro_kh.cpp`` built as a library (``c/hydro_kh_lib.cpp``), one step per call, in the
  same process. There is no numpy or Numba hydro: the C++ is the reference, and both codes must
  agree on the density after the first step to 1e-10. Each call advances the state, so later
  calls time later steps of the same run (the same for both codes).
"""

from __future__ import annotations

from importlib import import_module

import numpy as np
from cnative import ptr

SUM_BLOCKS, SUM_N, SUM_G = 512, 32, 2
HYDRO_N, HYDRO_BLOCK, HYDRO_QUICK = 512, 64, (64, 32)


# --- Sum reduction --------------------------------------------------------------------------------


def _sum_inputs(quick: bool) -> dict:
    nb, n, g = (8 if quick else SUM_BLOCKS), SUM_N, SUM_G
    m = n + 2 * g
    return {"data": np.random.default_rng(0).random((nb, m, m, m)), "g": g}


def _interior(inputs: dict) -> np.ndarray:
    g = inputs["g"]
    return inputs["data"][:, g:-g, g:-g, g:-g]


def _sum_numpy(_, inputs: dict):
    from cases import Bound

    data = inputs["data"].copy()
    g = inputs["g"]
    view, box = data[:, g:-g, g:-g, g:-g], {}

    def run() -> None:
        box["sum"] = view.sum()

    return Bound(run, lambda: {"sum": np.array(box["sum"])})


def _sum_brickwork(kl, inputs: dict):
    from cases import Bound

    wp = kl.wp
    la = import_module(wp.__name__ + ".la")
    data = inputs["data"].copy()
    nb, m, g = data.shape[0], data.shape[1], inputs["g"]
    n = m - 2 * g
    values = wp.array(data, dtype=wp.float64, copy=False)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, nb, n, n, n, g).with_reducer(la.Sum(wp.float64))

    def body(rng, b):
        la.inner_reduce(rng, lambda k, j, i: values[b, k, j, i])

    box = {}

    def run() -> None:
        box["sum"] = la.outer_reduce(space, body)

    return Bound(run, lambda: {"sum": np.array(box["sum"])})


def _sum_c(lib, inputs: dict):
    from cases import Bound

    data = inputs["data"].copy()
    p, (nb, m), g, box = ptr(data), data.shape[:2], inputs["g"], {}

    def run() -> None:
        box["sum"] = lib.sum_interior_f64(p, nb, m, g)

    return Bound(run, lambda: {"sum": np.array(box["sum"])})


def _sum_numba(nbp, inputs: dict):
    from cases import Bound

    data, g, fn, box = inputs["data"].copy(), inputs["g"], nbp.kernels.sum_interior, {}

    def run() -> None:
        box["sum"] = fn(data, g)

    return Bound(run, lambda: {"sum": np.array(box["sum"])})


# --- one hydro step -------------------------------------------------------------------------------


def _hydro_inputs(quick: bool) -> dict:
    n, block = HYDRO_QUICK if quick else (HYDRO_N, HYDRO_BLOCK)
    return {"n": n, "block": block}


def _hydro_brickwork(kl, inputs: dict):
    from cases import Bound

    hydro = import_module(kl.wp.__name__ + ".apps.hydro")
    n, block = inputs["n"], inputs["block"]
    cfg = hydro.build_config({
        "problem": {"name": "kelvin_helmholtz"},
        "mesh": {"nx": [n, n], "block_nx": [block, block]},
        "hydro": {"reconstruction": "plm", "limiter": "mc", "riemann": "hllc", "integrator": "rk2",
                  "dtype": "float64", "cfl": 0.4},
    }, source="benchmarks")
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    return Bound(lambda: sim.step(sim.check()),
                 lambda: {"density": np.asarray(sim.to_global(sim.primitive("density"))[0])})


def _hydro_c(lib, inputs: dict):
    from cases import Bound

    h = lib.hydro()
    n = inputs["n"]
    grid = h.hydro_kh_create(n)
    out = np.zeros((n, n))

    def result() -> dict:
        h.hydro_kh_density(grid, ptr(out))
        return {"density": out.copy()}

    return Bound(lambda: h.hydro_kh_step(grid), result)


def app_cases() -> list:
    from cases import Case

    return [
        Case(
            name="sum_f64",
            make_inputs=_sum_inputs,
            size_label=lambda inp: f"{inp['data'].shape[0]} x {SUM_N}³ (+{SUM_G} ghosts)",
            bytes_moved=lambda inp: _interior(inp).nbytes,
            impls={"brickwork": _sum_brickwork, "c": _sum_c, "numpy": _sum_numpy, "numba": _sum_numba},
            target=0.9,
            rtol=1e-10,
            atol=0.0,
        ),
        Case(
            name="hydro_kh_step",
            make_inputs=_hydro_inputs,
            size_label=lambda inp: f"{inp['n']}² in {inp['block']}² blocks",
            bytes_moved=lambda inp: 0,  # not a streaming kernel: no GB/s
            impls={"brickwork": _hydro_brickwork, "c": _hydro_c},
            target=1.5,  # the project's goal: 1.5x the hand-written C++ (same passes, same arithmetic)
            rtol=0.0,
            atol=1e-10,
            reference="c",
        ),
    ]
