"""Gradient noise as in Warp: ``noise``, ``pnoise`` (periodic) and ``curlnoise`` of float32 points,
seeded by a uint32 generator state (``rand_init``), which they read and do not advance.

``noise_grad``, ``pnoise_grad`` and ``curlnoise_vjp`` are internal: the derivatives the adjoint rules use.
"""

from __future__ import annotations

from ..types.composite import vector
from ..types.scalars import float32, int32, uint32
from .registry import builtin, names, need

_POINTS = {1: float32, 2: vector(2, float32), 3: vector(3, float32), 4: vector(4, float32)}


def _dims(p) -> int:
    """The dimension of a noise point (float32, vec2f, vec3f or vec4f)."""
    for n, t in _POINTS.items():
        if p is t:
            return n
    return 0


def _state_point(state, p, *rest):
    need(state is uint32 and _dims(p) > 0, f"needs a uint32 state from rand_init() and a float32 point "
         f"(float32, vec2f, vec3f or vec4f), got {names(state, p, *rest)}")


@builtin("noise")
def _noise(state, p):
    _state_point(state, p)
    return float32


@builtin("pnoise")
def _pnoise(state, p, *periods):
    _state_point(state, p, *periods)
    n = _dims(p)
    need(len(periods) == n and all(t is int32 for t in periods),
         f"needs one int32 period per dimension of the point ({n} for {names(p)}), got {names(state, p, *periods)}")
    return float32


def _curl_options(state, p, options):
    _state_point(state, p, *options)
    expected = (uint32, float32, float32)
    need(len(options) <= 3 and all(t is e for t, e in zip(options, expected)),
         f"needs (state, point[, octaves: uint32, lacunarity: float32, gain: float32]), got "
         f"{names(state, p, *options)}")
    need(_dims(p) >= 2, f"curlnoise takes a vec2f, vec3f or vec4f point, got {names(p)}")


def _curl_result(p):
    """A curl noise's type: the point's for vec2f and vec3f, vec3f for a vec4f point (x, y, z, t)."""
    return _POINTS[3] if _dims(p) == 4 else p


@builtin("curlnoise")
def _curlnoise(state, p, *options):
    _curl_options(state, p, options)
    return _curl_result(p)


@builtin("noise_grad")
def _noise_grad(state, p):
    _state_point(state, p)
    return p


@builtin("pnoise_grad")
def _pnoise_grad(state, p, *periods):
    _pnoise(state, p, *periods)
    return p


@builtin("curlnoise_vjp")
def _curlnoise_vjp(state, p, adj, *options):
    _curl_options(state, p, options)
    need(adj is _curl_result(p), f"needs the adjoint of the result ({names(_curl_result(p))}), got {names(adj)}")
    return p
