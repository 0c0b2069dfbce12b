// brickwork runtime: derivatives of texture_sample (brickwork_texture.h includes this) with respect to the
// coordinates and the lod, as Warp 1.19's CPU adjoint computes them (no gradient reaches the texels).
//
// LINEAR filtering: the interpolation cell of each axis is found as the forward sampler finds it (the
// coordinate reduced, scaled, clamped to [-1, n - 1] for CLAMP and [-2, n] for BORDER), its corners read
// with the axis's addressing, and each coordinate's derivative is the interpolated difference of the
// corners along that axis, times d(texel)/d(coord) (the level's extent; for texel coordinates the level's
// extent over the base's). Differences are taken before interpolating, so a small slope on a large offset
// survives. Each channel's product with the seed is skipped where the seed is zero. With a LINEAR mip
// filter and an unclamped lod in [0, levels - 1), the lod's derivative is sample(level1) - sample(level0);
// it is zero elsewhere, and CLOSEST filtering has no coordinate derivative.
#pragma once

namespace bw {
namespace texture_detail {

BW_INLINE float seed_dot(float seed, float delta) { return seed == 0.0f ? 0.0f : seed * delta; }

template <class T> BW_INLINE float seed_dot_all(const T& seed, const float* delta) {
    float s = 0.0f;
    for (int c = 0; c < channels<T>::n; ++c) s += seed_dot(channel_of(seed, c), delta[c]);
    return s;
}

BW_INLINE float lerpf(float a, float b, float t) { return a * (1.0f - t) + b * t; }

// The interpolation cell of an axis for derivatives: its lower corner and fraction.
BW_INLINE int64_t grad_cell(const texture_data* t, float c, int32_t base, int32_t n, int mode, float& f) {
    c = normalized_coord(c, t->normalized, base, mode);
    float p = c * float(n) - 0.5f;
    if (mode == CLAMP) p = p < -1.0f ? -1.0f : (p > float(n - 1) ? float(n - 1) : p);
    else if (mode == BORDER) p = p < -2.0f ? -2.0f : (p > float(n) ? float(n) : p);
    const float cell = BW_MATH(floorf)(p);
    f = p - cell;
    return int64_t(cell);
}

BW_INLINE float corner(const texture_data* t, int level, int64_t x, int64_t y, int64_t z, int ch) {
    return fetch(t, level, address(x, t->width[level], t->address[0]), address(y, t->height[level], t->address[1]),
                 address(z, t->depth[level], t->address[2]), ch);
}

// Adds weight * d(sample at `level`)/d(coords) . seed into adj[0..ndim), and returns the sample at the level
// as its corner anchor and interpolated residual (per channel), for the lod's difference.
template <int ndim, class T>
BW_INLINE void grad_level(const texture_data* t, const float* c, int level, float weight, const T& seed,
                          float* adj, float* anchor, float* residual) {
    constexpr int N = channels<T>::n;
    const int32_t base[3] = {t->width[0], t->height[0], t->depth[0]};
    const int32_t n[3] = {t->width[level], t->height[level], t->depth[level]};
    int64_t i[3] = {0, 0, 0};
    float f[3] = {0.0f, 0.0f, 0.0f}, s[3];
    for (int a = 0; a < ndim; ++a) {
        i[a] = grad_cell(t, c[a], base[a], n[a], t->address[a], f[a]);
        s[a] = t->normalized ? float(n[a]) : float(n[a]) / float(base[a]);
    }
    // corners v[z][y][x] per channel (axes past ndim read their single index 0)
    float v[2][2][2][4];
    for (int z = 0; z < (ndim > 2 ? 2 : 1); ++z)
        for (int y = 0; y < (ndim > 1 ? 2 : 1); ++y)
            for (int x = 0; x < 2; ++x)
                for (int ch = 0; ch < N; ++ch) v[z][y][x][ch] = corner(t, level, i[0] + x, i[1] + y, i[2] + z, ch);
    float d[4];
    const float fu = f[0], fv = f[1], fw = f[2];
    if (ndim == 1) {
        if (weight != 0.0f) {
            for (int ch = 0; ch < N; ++ch) d[ch] = v[0][0][1][ch] - v[0][0][0][ch];
            adj[0] += weight * s[0] * seed_dot_all(seed, d);
        }
        for (int ch = 0; ch < N; ++ch) {
            anchor[ch] = v[0][0][0][ch];
            residual[ch] = (v[0][0][1][ch] - v[0][0][0][ch]) * fu;
        }
        return;
    }
    if (ndim == 2) {
        if (weight != 0.0f) {
            float d0[4], d1[4];
            for (int ch = 0; ch < N; ++ch) {
                d0[ch] = v[0][0][1][ch] - v[0][0][0][ch];
                d1[ch] = v[0][1][1][ch] - v[0][1][0][ch];
            }
            adj[0] += weight * s[0] * lerpf(seed_dot_all(seed, d0), seed_dot_all(seed, d1), fv);
            for (int ch = 0; ch < N; ++ch) {
                d0[ch] = v[0][1][0][ch] - v[0][0][0][ch];
                d1[ch] = v[0][1][1][ch] - v[0][0][1][ch];
            }
            adj[1] += weight * s[1] * lerpf(seed_dot_all(seed, d0), seed_dot_all(seed, d1), fu);
        }
        for (int ch = 0; ch < N; ++ch) {
            const float o = v[0][0][0][ch];
            anchor[ch] = o;
            residual[ch] = lerpf((v[0][0][1][ch] - o) * fu, lerpf(v[0][1][0][ch] - o, v[0][1][1][ch] - o, fu), fv);
        }
        return;
    }
    if (weight != 0.0f) {
        float a[2][2];
        float d0[4];
        // along x: the differences of each (y, z) edge
        for (int z = 0; z < 2; ++z)
            for (int y = 0; y < 2; ++y) {
                for (int ch = 0; ch < N; ++ch) d0[ch] = v[z][y][1][ch] - v[z][y][0][ch];
                a[z][y] = seed_dot_all(seed, d0);
            }
        adj[0] += weight * s[0] * lerpf(lerpf(a[0][0], a[0][1], fv), lerpf(a[1][0], a[1][1], fv), fw);
        for (int z = 0; z < 2; ++z)
            for (int x = 0; x < 2; ++x) {
                for (int ch = 0; ch < N; ++ch) d0[ch] = v[z][1][x][ch] - v[z][0][x][ch];
                a[z][x] = seed_dot_all(seed, d0);
            }
        adj[1] += weight * s[1] * lerpf(lerpf(a[0][0], a[0][1], fu), lerpf(a[1][0], a[1][1], fu), fw);
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
                for (int ch = 0; ch < N; ++ch) d0[ch] = v[1][y][x][ch] - v[0][y][x][ch];
                a[y][x] = seed_dot_all(seed, d0);
            }
        adj[2] += weight * s[2] * lerpf(lerpf(a[0][0], a[0][1], fu), lerpf(a[1][0], a[1][1], fu), fv);
    }
    for (int ch = 0; ch < N; ++ch) {
        const float o = v[0][0][0][ch];
        const float lower = lerpf((v[0][0][1][ch] - o) * fu, lerpf(v[0][1][0][ch] - o, v[0][1][1][ch] - o, fu), fv);
        const float upper = lerpf(lerpf(v[1][0][0][ch] - o, v[1][0][1][ch] - o, fu),
                                  lerpf(v[1][1][0][ch] - o, v[1][1][1][ch] - o, fu), fv);
        anchor[ch] = o;
        residual[ch] = lerpf(lower, upper, fw);
    }
}

BW_INLINE bool finite_value(float x) { return x - x == 0.0f; }

// d(sample)/d(u, v, w, lod) . seed, as a vec4 (u, v, w, lod; the axes past the texture's are zero).
template <int ndim, class T> BW_SAMPLER vec<4, float> sample_vjp(uint64_t id, float u, float v, float w, float lod,
                                                               const T& seed) {
    vec<4, float> out{};
    if (id == 0) return out;
    constexpr int N = channels<T>::n;
    const texture_data* t = (const texture_data*)(uintptr_t)id;
    const float c[3] = {u, v, w};
    float adj[3] = {0.0f, 0.0f, 0.0f};
    float anchor0[4], residual0[4], anchor1[4], residual1[4];
    const bool mipmapped = t->num_levels > 1 && lod >= 0.0f;
    const bool grad_lod = mipmapped && t->mip_filter_mode == 1 && lod < float(t->num_levels - 1);
    const int level0 = grad_lod ? int(BW_MATH(floorf)(lod)) : 0;
    if (t->filter_mode == 1) {
        if (grad_lod) {
            const float fl = lod - float(level0);
            grad_level<ndim>(t, c, level0, 1.0f - fl, seed, adj, anchor0, residual0);
            grad_level<ndim>(t, c, level0 + 1, fl, seed, adj, anchor1, residual1);
            float diff[4];
            for (int ch = 0; ch < N; ++ch) {
                diff[ch] = (anchor1[ch] - anchor0[ch]) + (residual1[ch] - residual0[ch]);
                if (!finite_value(diff[ch]))  // opposite-sign extremes: the difference of the two samples
                    diff[ch] = sample_channel<ndim>(t, u, v, w, ch, float(level0 + 1)) -
                               sample_channel<ndim>(t, u, v, w, ch, float(level0));
            }
            out.c[3] = seed_dot_all(seed, diff);
        } else if (!mipmapped) {
            grad_level<ndim>(t, c, 0, 1.0f, seed, adj, anchor0, residual0);
        } else {  // the levels the forward pass reads, with their weights
            const float max_lod = float(t->num_levels - 1);
            const float clamped = lod > max_lod ? max_lod : lod;
            if (t->mip_filter_mode == 0) {
                int nearest = int(BW_MATH(floorf)(clamped + 0.5f));
                if (nearest >= t->num_levels) nearest = t->num_levels - 1;
                grad_level<ndim>(t, c, nearest, 1.0f, seed, adj, anchor0, residual0);
            } else {
                const int l0 = int(BW_MATH(floorf)(clamped));
                const int l1 = l0 + 1 >= t->num_levels ? t->num_levels - 1 : l0 + 1;
                const float fl = clamped - float(l0);
                grad_level<ndim>(t, c, l0, 1.0f - fl, seed, adj, anchor0, residual0);
                if (l1 != l0 && fl != 0.0f) grad_level<ndim>(t, c, l1, fl, seed, adj, anchor1, residual1);
            }
        }
    } else if (grad_lod) {  // CLOSEST: only the lod moves the value
        float diff[4];
        for (int ch = 0; ch < N; ++ch)
            diff[ch] = sample_channel<ndim>(t, u, v, w, ch, float(level0 + 1)) -
                       sample_channel<ndim>(t, u, v, w, ch, float(level0));
        out.c[3] = seed_dot_all(seed, diff);
    }
    out.c[0] = adj[0];
    out.c[1] = adj[1];
    out.c[2] = adj[2];
    return out;
}

}  // namespace texture_detail

// The vector-Jacobian products of texture_sample: (d/du, d/dv, d/dw, d/dlod) . seed.
template <class D, class T> BW_INLINE vec<4, float> texture_sample_1d_vjp(const D& d, float u, float lod, T g) {
    return texture_detail::sample_vjp<1>(d.m_tex, u, 0.0f, 0.0f, lod, g);
}
template <class D, class T>
BW_INLINE vec<4, float> texture_sample_2d_vjp(const D& d, float u, float v, float lod, T g) {
    return texture_detail::sample_vjp<2>(d.m_tex, u, v, 0.0f, lod, g);
}
template <class D, class T> BW_INLINE vec<4, float> texture_sample_2d_vjp(const D& d, vec<2, float> uv, float lod, T g) {
    return texture_detail::sample_vjp<2>(d.m_tex, uv.c[0], uv.c[1], 0.0f, lod, g);
}
template <class D, class T>
BW_INLINE vec<4, float> texture_sample_3d_vjp(const D& d, float u, float v, float w, float lod, T g) {
    return texture_detail::sample_vjp<3>(d.m_tex, u, v, w, lod, g);
}
template <class D, class T>
BW_INLINE vec<4, float> texture_sample_3d_vjp(const D& d, vec<3, float> uvw, float lod, T g) {
    return texture_detail::sample_vjp<3>(d.m_tex, uvw.c[0], uvw.c[1], uvw.c[2], lod, g);
}

}  // namespace bw
