"""The benchmark cases: one kernel, its inputs, and one implementation per peer family.

A case maps a *family* name to a factory ``factory(ctx, inputs) -> Bound``:

- ``"kernel"``: the kernel-language version (``ctx`` is a :class:`peers.KernelLanguage`, used by
  both the brickwork and the Warp peers),
- ``"c"``: the hand-written C++ reference (``ctx`` is a :class:`cnative.CLibrary`),
- ``"numpy"``: plain numpy (``ctx`` is unused),
- ``"numba"``: ``njit(parallel=True)`` kernels (``ctx`` is a :class:`peers.NumbaPeer`).

A factory keyed by a peer's own name (``"brickwork"``) wins over its family's. Results are checked
against the case's ``reference`` family (numpy, or C where there is no numpy version).

A factory copies the inputs it needs (so each peer starts from the same state) and returns a
:class:`Bound`: ``run()`` does one full call, synchronised, and ``result()`` returns the arrays
that are compared with numpy's. To add a case, write its factories and append it to ``CASES``;
to add a peer family, add its factory to the cases that have one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from cnative import ptr


@dataclass
class Bound:
    """One implementation bound to its own copy of a case's inputs."""

    run: Callable[[], None]
    result: Callable[[], dict[str, np.ndarray]]


Factory = Callable[[Any, dict], Bound]


@dataclass(frozen=True)
class Case:
    """A benchmark case: inputs, a size label, bytes moved per call, a target and implementations."""

    name: str
    make_inputs: Callable[[bool], dict]  # quick -> inputs
    size_label: Callable[[dict], str]
    bytes_moved: Callable[[dict], int]  # nominal DRAM traffic of one call (reads + writes)
    impls: dict[str, Factory] = field(default_factory=dict)
    target: float = 0.9  # minimum (C time / primary time)
    rtol: float = 1e-5
    atol: float = 1e-5
    reference: str = "numpy"  # the family whose results the others are checked against


def _rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def _n_label(inputs: dict) -> str:
    return f"n={inputs['x'].size:.0e}".replace("e+0", "e")


# --- scale: x[i] = s * x[i] ---------------------------------------------------------------------


def _scale_inputs(dtype) -> Callable[[bool], dict]:
    def make(quick: bool) -> dict:
        n = 100_000 if quick else 10_000_000
        return {"x": _rng().random(n).astype(dtype), "s": 0.999}

    return make


def _scale_kernel(kernel_name: str) -> Factory:
    def factory(kl, inputs: dict) -> Bound:
        x = kl.array(inputs["x"])
        kernel = getattr(kl.kernels, kernel_name)
        s = inputs["s"]
        n = inputs["x"].size
        return Bound(lambda: kl.launch(kernel, n, [x, s]), lambda: {"x": x.numpy()})

    return factory


def _scale_c(kernel_name: str) -> Factory:
    def factory(lib, inputs: dict) -> Bound:
        x = inputs["x"].copy()
        fn, p, s, n = getattr(lib, kernel_name), ptr(x), inputs["s"], x.size
        return Bound(lambda: fn(p, s, n), lambda: {"x": x})

    return factory


def _scale_numpy(_, inputs: dict) -> Bound:
    x = inputs["x"].copy()
    s = x.dtype.type(inputs["s"])

    def run() -> None:
        x[...] *= s

    return Bound(run, lambda: {"x": x})


def _scale_numba(nb, inputs: dict) -> Bound:
    x = inputs["x"].copy()
    s, fn = x.dtype.type(inputs["s"]), nb.kernels.scale
    return Bound(lambda: fn(x, s), lambda: {"x": x})


def _scale_case(name: str, dtype, rtol: float) -> Case:
    itemsize = np.dtype(dtype).itemsize
    impls = {"kernel": _scale_kernel(name), "c": _scale_c(name), "numpy": _scale_numpy}
    if dtype != np.float16:  # numba has no float16 on the CPU
        impls["numba"] = _scale_numba
    return Case(
        name=name,
        make_inputs=_scale_inputs(dtype),
        size_label=_n_label,
        bytes_moved=lambda inp: 2 * itemsize * inp["x"].size,
        impls=impls,
        rtol=rtol,
        atol=0.0,
    )


# --- saxpy: y[i] = a * x[i] + y[i] -----------------------------------------------------------------


def _saxpy_inputs(quick: bool) -> dict:
    n = 100_000 if quick else 10_000_000
    rng = _rng()
    return {"x": rng.random(n, dtype=np.float32), "y": rng.random(n, dtype=np.float32), "a": 0.5}


def _saxpy_kernel(kl, inputs: dict) -> Bound:
    x, y = kl.array(inputs["x"]), kl.array(inputs["y"])
    kernel, a, n = kl.kernels.saxpy_f32, inputs["a"], inputs["x"].size
    return Bound(lambda: kl.launch(kernel, n, [x, y, a]), lambda: {"y": y.numpy()})


def _saxpy_c(lib, inputs: dict) -> Bound:
    x, y = inputs["x"].copy(), inputs["y"].copy()
    px, py, a, n = ptr(x), ptr(y), inputs["a"], x.size
    return Bound(lambda: lib.saxpy_f32(px, py, a, n), lambda: {"y": y})


def _saxpy_numpy(_, inputs: dict) -> Bound:
    x, y = inputs["x"].copy(), inputs["y"].copy()
    a = np.float32(inputs["a"])

    def run() -> None:
        y[...] += a * x

    return Bound(run, lambda: {"y": y})


def _saxpy_numba(nb, inputs: dict) -> Bound:
    x, y = inputs["x"].copy(), inputs["y"].copy()
    a, fn = np.float32(inputs["a"]), nb.kernels.saxpy
    return Bound(lambda: fn(x, y, a), lambda: {"y": y})


# --- 3D 7-point Laplacian on the interior ----------------------------------------------------------


def _laplacian_inputs(quick: bool) -> dict:
    n = 32 if quick else 256
    return {"a": _rng().random((n, n, n), dtype=np.float32)}


def _laplacian_kernel(kl, inputs: dict) -> Bound:
    a = kl.array(inputs["a"])
    out = kl.zeros(inputs["a"].shape, kl.wp.float32)
    kernel, shape = kl.kernels.laplacian3d_f32, inputs["a"].shape
    return Bound(lambda: kl.launch(kernel, shape, [a, out]), lambda: {"out": out.numpy()})


def _laplacian_c(lib, inputs: dict) -> Bound:
    a = inputs["a"].copy()
    out = np.zeros_like(a)
    pa, po, (nz, ny, nx) = ptr(a), ptr(out), a.shape
    return Bound(lambda: lib.laplacian3d_f32(pa, po, nz, ny, nx), lambda: {"out": out})


def _laplacian_numpy(_, inputs: dict) -> Bound:
    a = inputs["a"].copy()
    out = np.zeros_like(a)
    six = np.float32(6.0)

    def run() -> None:
        out[1:-1, 1:-1, 1:-1] = (
            a[:-2, 1:-1, 1:-1]
            + a[2:, 1:-1, 1:-1]
            + a[1:-1, :-2, 1:-1]
            + a[1:-1, 2:, 1:-1]
            + a[1:-1, 1:-1, :-2]
            + a[1:-1, 1:-1, 2:]
            - six * a[1:-1, 1:-1, 1:-1]
        )

    return Bound(run, lambda: {"out": out})


def _laplacian_numba(nb, inputs: dict) -> Bound:
    a = inputs["a"].copy()
    out = np.zeros_like(a)
    fn = nb.kernels.laplacian3d
    return Bound(lambda: fn(a, out), lambda: {"out": out})


CASES: list[Case] = [
    _scale_case("scale_f16", np.float16, rtol=1e-3),
    _scale_case("scale_f32", np.float32, rtol=1e-6),
    _scale_case("scale_f64", np.float64, rtol=1e-14),
    Case(
        name="saxpy_f32",
        make_inputs=_saxpy_inputs,
        size_label=_n_label,
        bytes_moved=lambda inp: 3 * 4 * inp["x"].size,
        impls={"kernel": _saxpy_kernel, "c": _saxpy_c, "numpy": _saxpy_numpy, "numba": _saxpy_numba},
        rtol=1e-6,
        atol=1e-6,
    ),
    Case(
        name="laplacian3d_f32",
        make_inputs=_laplacian_inputs,
        size_label=lambda inp: "x".join(str(d) for d in inp["a"].shape),
        bytes_moved=lambda inp: 2 * inp["a"].nbytes,
        impls={"kernel": _laplacian_kernel, "c": _laplacian_c, "numpy": _laplacian_numpy,
               "numba": _laplacian_numba},
    ),
]

# The loop-abstraction cases (la_cases.py takes Bound, Case and the Laplacian's factories from
# this module inside its functions, so either module can be imported first).
from la_cases import la_cases  # noqa: E402

CASES += la_cases()

# The hydro step and the Sum reduction (app_cases.py, same import pattern).
from app_cases import app_cases  # noqa: E402

CASES += app_cases()

# The neighbour-search cases with wp.HashGrid (hash_grid_cases.py, same import pattern).
from hash_grid_cases import hash_grid_cases  # noqa: E402

CASES += hash_grid_cases()
