"""A numpy sampler of textures with Warp 1.19's rules (the tests' reference), one sample at a time in float32."""

import math

import numpy as np

WRAP, CLAMP, MIRROR, BORDER = range(4)
f32 = np.float32


def decode(values: np.ndarray) -> np.ndarray:
    """Texels as float32: 8/16-bit integers normalized (signed at least -1), others converted."""
    kind, dt = values.dtype.kind, values.dtype
    if dt in (np.uint8, np.uint16):
        return values.astype(np.float32) / f32(np.iinfo(dt).max)
    if dt in (np.int8, np.int16):
        return np.maximum(values.astype(np.float32) / f32(np.iinfo(dt).max), f32(-1))
    assert kind in "fiu"
    return values.astype(np.float32)


def address(i: int, n: int, mode: int):
    if mode == WRAP:
        return i % n
    if mode == CLAMP:
        return min(max(i, 0), n - 1)
    if mode == MIRROR:
        m = i % (2 * n)
        return 2 * n - m - 1 if m >= n else m
    return i if 0 <= i < n else None  # BORDER: None reads zero


def _reduced(c, normalized, base, mode):
    c = f32(c)
    if mode in (WRAP, MIRROR):
        period = f32((1.0 if normalized else base) * (2.0 if mode == MIRROR else 1.0))
        c = f32(math.fmod(c, period))
        if c < 0:
            c = f32(c + period)
    return c if normalized else f32(c / f32(base))


def linear_axis(c, normalized, base, n, mode):
    """The two neighbours (addressed) and the fraction of LINEAR filtering along one axis."""
    t = f32(_reduced(c, normalized, base, mode) * f32(n) - f32(0.5))
    if mode == CLAMP:
        t = min(max(t, f32(0)), f32(n - 1))
    elif mode == BORDER:
        t = min(max(t, f32(-2)), f32(n))
    i0 = math.floor(t)
    return address(i0, n, mode), address(i0 + 1, n, mode), f32(t - f32(i0))


def nearest_axis(c, normalized, base, n, mode):
    r = float(f32(c))
    if mode in (WRAP, MIRROR):
        r = math.fmod(r, (1.0 if normalized else base) * (2.0 if mode == MIRROR else 1.0))
    t = r * n if normalized else r * n / base
    if mode in (CLAMP, BORDER):
        t = min(max(t, -1.0), float(n))
    return address(math.floor(t), n, mode)


def sample(levels, coords, linear=True, modes=(CLAMP,) * 3, normalized=True, channels=1):
    """The sample of level 0 (``levels[0]``: decoded float32 texels, numpy layout with a channel axis last) at
    ``coords`` (u[, v[, w]]), ``channels`` of it."""
    data = levels[0]
    ndim = data.ndim - 1
    extents = data.shape[:ndim][::-1]  # (width[, height[, depth]])

    def fetch(idx):
        if any(i is None for i in idx):
            return np.zeros(channels, np.float32)
        out = np.zeros(channels, np.float32)
        k = min(channels, data.shape[-1])
        out[:k] = data[tuple(reversed(idx))][:k]
        return out

    if not linear:
        return fetch([nearest_axis(coords[a], normalized, extents[a], extents[a], modes[a]) for a in range(ndim)])
    axes = [linear_axis(coords[a], normalized, extents[a], extents[a], modes[a]) for a in range(ndim)]

    def row(iy, iz):  # x first, then y, then z: Warp's order of the blends
        idx = [axes[a][(0, iy, iz)[a]] for a in range(1, ndim)]
        fx = axes[0][2]
        return fetch([axes[0][0], *idx]) * (f32(1) - fx) + fetch([axes[0][1], *idx]) * fx

    if ndim == 1:
        return row(0, 0)
    fy = axes[1][2]

    def plane(iz):
        return row(0, iz) * (f32(1) - fy) + row(1, iz) * fy

    if ndim == 2:
        return plane(0)
    fz = axes[2][2]
    return plane(0) * (f32(1) - fz) + plane(1) * fz
