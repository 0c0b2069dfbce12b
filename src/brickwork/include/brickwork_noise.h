// brickwork runtime: gradient noise with Warp's values (noise, pnoise, curlnoise) and the derivatives their
// adjoints use. A separate header, included only by generated units that call one of them.
//
// The noise of a point is Perlin's construction: a pseudo-random gradient at each integer lattice point,
// the dot products of the corner gradients with the offsets to the corners, blended with the quintic fade
// 6t^5 - 15t^4 + 10t^3. A corner's gradient comes from the generator state hashed with the corner's
// integer coordinates (spatial-hash primes); in 1-D it is a randf in [-1, 1), in 2-D to 4-D the normalized
// point of randf - 0.5 per axis. These choices and constants reproduce Warp's numbers.
#pragma once
#include "brickwork.h"

namespace bw {
namespace noise_detail {

// The generator state of the lattice corner `c` (N coordinates) for the noise state `s`.
template <int N> BW_INLINE uint32_t corner_state(uint32_t s, const int32_t* c) {
    if (N == 1) return uint32_t(c[0]) * 73856093u + s;
    if (N == 2) return (uint32_t(c[0]) * 73856093u) ^ (uint32_t(c[1]) * 19349663u + s);
    if (N == 3) return (uint32_t(c[0]) * 73856093u) ^ (uint32_t(c[1]) * 19349663u) ^ (uint32_t(c[2]) * 53471161u + s);
    return (uint32_t(c[0]) * 73856093u) ^ (uint32_t(c[1]) * 19349663u) ^ (uint32_t(c[2]) * 53471161u) ^
           (uint32_t(c[3]) * 10000019u + s);
}

template <int N> BW_INLINE void corner_gradient(uint32_t s, const int32_t* c, float* g) {
    uint32_t h = corner_state<N>(s, c);
    if (N == 1) {
        g[0] = randf(h) * 2.0f - 1.0f;
        return;
    }
    float len2 = 0.0f;
    for (int i = 0; i < N; ++i) {
        g[i] = randf(h) - 0.5f;
        len2 += g[i] * g[i];
    }
    const float len = BW_MATH(sqrtf)(len2);
    if (len > 0.0f)
        for (int i = 0; i < N; ++i) g[i] = g[i] / len;
}

BW_INLINE float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
BW_INLINE float fade_d(float t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }
BW_INLINE float fade_dd(float t) { return 60.0f * t * (t - 1.0f) * (2.0f * t - 1.0f); }

// C's remainder (a negative index stays negative), as Warp wraps the lattice of pnoise.
BW_INLINE int32_t wrap(int32_t i, int32_t period) { return period != 0 ? i % period : i; }

// The noise at `p` (N floats), and when asked its gradient `grad` (N) and Hessian `hess` (N*N, row-major).
// `period` (N ints, or null) wraps the lattice coordinates as pnoise does.
template <int N>
BW_INLINE float eval(uint32_t s, const float* p, const int32_t* period, float* grad, float* hess) {
    int32_t base[N];
    float d[N], w1[N], dw[N], ddw[N];
    for (int i = 0; i < N; ++i) {
        const float f = BW_MATH(floorf)(p[i]);
        base[i] = int32_t(f);
        d[i] = p[i] - f;
        w1[i] = fade(d[i]);
        dw[i] = fade_d(d[i]);
        ddw[i] = fade_dd(d[i]);
    }
    if (grad)
        for (int i = 0; i < N; ++i) grad[i] = 0.0f;
    if (hess)
        for (int i = 0; i < N * N; ++i) hess[i] = 0.0f;
    float vals[1 << N];  // the corner values, corner bit i = the upper corner along axis i
    for (int corner = 0; corner < (1 << N); ++corner) {
        int32_t c[N];
        float off[N], g[N], w[N], wd[N], wdd[N];
        for (int i = 0; i < N; ++i) {
            const int bit = (corner >> i) & 1;
            // pnoise wraps the lower corner, then its successor: (wrap(i0) + 1) wrapped again.
            c[i] = period ? wrap(wrap(base[i], period[i]) + bit, period[i]) : base[i] + bit;
            off[i] = d[i] - float(bit);
            w[i] = bit ? w1[i] : 1.0f - w1[i];     // the weight along axis i
            wd[i] = bit ? dw[i] : -dw[i];          // its derivative
            wdd[i] = bit ? ddw[i] : -ddw[i];
        }
        corner_gradient<N>(s, c, g);
        float v = 0.0f, weight = 1.0f;
        for (int i = 0; i < N; ++i) {
            v += g[i] * off[i];
            weight *= w[i];
        }
        vals[corner] = v;
        if (!grad && !hess) continue;
        // Products of the weights with axis j (and k) replaced by derivatives.
        for (int j = 0; j < N; ++j) {
            float wj = 1.0f;
            for (int i = 0; i < N; ++i) wj *= i == j ? wd[i] : w[i];
            if (grad) grad[j] += weight * g[j] + wj * v;
            if (!hess) continue;
            for (int k = 0; k < N; ++k) {
                float wk = 1.0f, wjk = 1.0f;
                for (int i = 0; i < N; ++i) {
                    wk *= i == k ? wd[i] : w[i];
                    wjk *= (i == j && i == k) ? wdd[i] : (i == j || i == k) ? wd[i] : w[i];
                }
                hess[j * N + k] += wk * g[j] + wj * g[k] + wjk * v;
            }
        }
    }
    // The value blends the corners axis by axis, x first, as Warp does ((v1 - v0) * fade + v0): the weighted
    // sum of the corners in exact arithmetic, and Warp's bits in floating point.
    for (int i = 0, n = 1 << N; i < N; ++i, n >>= 1)
        for (int c = 0; c < n / 2; ++c) vals[c] = (vals[2 * c + 1] - vals[2 * c]) * w1[i] + vals[2 * c];
    return vals[0];
}

template <int N> BW_INLINE vec<N, float> as_vec(const float* a) {
    vec<N, float> r;
    for (int i = 0; i < N; ++i) r.c[i] = a[i];
    return r;
}

// The curl of the noise potential of a 2-D point over octaves (gradient (gx, gy) -> (-gy, gx)), and its
// vector-Jacobian product with `adj` (the adjoint of p).
BW_INLINE vec<2, float> curl2(uint32_t s, vec<2, float> p, uint32_t octaves, float lacunarity, float gain,
                              const vec<2, float>* adj, vec<2, float>* adj_p) {
    float gx = 0.0f, gy = 0.0f, ax = 0.0f, ay = 0.0f, freq = 1.0f, amp = 1.0f;
    for (uint32_t o = 0; o < octaves; ++o) {
        const float q[2] = {freq * p.c[0], freq * p.c[1]};
        float g[2], h[4];
        eval<2>(s, q, nullptr, g, adj ? h : nullptr);
        gx += amp * g[0];
        gy += amp * g[1];
        if (adj) {  // d(-gy, gx)/dp = amp * freq * (-H[1, :], H[0, :])
            const float ux = -adj->c[0], uy = adj->c[1];
            ax += amp * freq * (ux * h[2] + uy * h[0]);
            ay += amp * freq * (ux * h[3] + uy * h[1]);
        }
        amp *= gain;
        freq *= lacunarity;
    }
    if (adj_p) *adj_p = vec<2, float>{{ax, ay}};
    return vec<2, float>{{-gy, gx}};
}

// The curl of a vector potential of three noise fields over octaves, for a 3-D point or a 4-D one (x, y, z, t:
// the curl is taken in x, y, z), and its vector-Jacobian product with `adj` (the adjoint of p, N floats).
// The three fields of an octave are noise with the states s1, s2 = rand_pcg(s1 + 3663297698) and
// s3 = rand_pcg(s2 + 574884670); the next octave starts from s1 = s3 (s1 = s in the first). These constants and
// this chaining reproduce Warp's numbers.
template <int N>
BW_INLINE vec<3, float> curl3(uint32_t s, const float* p, uint32_t octaves, float lacunarity, float gain,
                              const vec<3, float>* adj, float* adj_p) {
    float sum[3] = {0.0f, 0.0f, 0.0f}, freq = 1.0f, amp = 1.0f;
    if (adj_p)
        for (int j = 0; j < N; ++j) adj_p[j] = 0.0f;
    for (uint32_t o = 0; o < octaves; ++o) {
        const uint32_t s2 = rand_pcg(s + 3663297698u);
        const uint32_t states[3] = {s, s2, rand_pcg(s2 + 574884670u)};
        s = states[2];
        float q[N], g[3][N], h[3][N * N];
        for (int j = 0; j < N; ++j) q[j] = freq * p[j];
        for (int k = 0; k < 3; ++k) eval<N>(states[k], q, nullptr, g[k], adj ? h[k] : nullptr);
        // curl = (d psi3/dy - d psi2/dz, d psi1/dz - d psi3/dx, d psi2/dx - d psi1/dy)
        sum[0] += amp * (g[2][1] - g[1][2]);
        sum[1] += amp * (g[0][2] - g[2][0]);
        sum[2] += amp * (g[1][0] - g[0][1]);
        if (adj) {  // the same combination of Hessian rows, times d(freq p)/dp
            const float ax = adj->c[0], ay = adj->c[1], az = adj->c[2];
            for (int j = 0; j < N; ++j)
                adj_p[j] += amp * freq *
                            (ax * (h[2][1 * N + j] - h[1][2 * N + j]) + ay * (h[0][2 * N + j] - h[2][0 * N + j]) +
                             az * (h[1][0 * N + j] - h[0][1 * N + j]));
        }
        amp *= gain;
        freq *= lacunarity;
    }
    return vec<3, float>{{sum[0], sum[1], sum[2]}};
}

}  // namespace noise_detail

// noise(state, p): gradient noise of a 1-D to 4-D point.
BW_INLINE float noise(uint32_t s, float x) { return noise_detail::eval<1>(s, &x, nullptr, nullptr, nullptr); }
template <int N> BW_INLINE float noise(uint32_t s, const vec<N, float>& p) {
    return noise_detail::eval<N>(s, p.c, nullptr, nullptr, nullptr);
}

// pnoise(state, p, px[, py[, pz[, pt]]]): noise whose lattice repeats with the given integer periods.
BW_INLINE float pnoise(uint32_t s, float x, int32_t px) {
    return noise_detail::eval<1>(s, &x, &px, nullptr, nullptr);
}
BW_INLINE float pnoise(uint32_t s, const vec<2, float>& p, int32_t px, int32_t py) {
    const int32_t per[2] = {px, py};
    return noise_detail::eval<2>(s, p.c, per, nullptr, nullptr);
}
BW_INLINE float pnoise(uint32_t s, const vec<3, float>& p, int32_t px, int32_t py, int32_t pz) {
    const int32_t per[3] = {px, py, pz};
    return noise_detail::eval<3>(s, p.c, per, nullptr, nullptr);
}
BW_INLINE float pnoise(uint32_t s, const vec<4, float>& p, int32_t px, int32_t py, int32_t pz, int32_t pt) {
    const int32_t per[4] = {px, py, pz, pt};
    return noise_detail::eval<4>(s, p.c, per, nullptr, nullptr);
}

// curlnoise(state, p[, octaves, lacunarity, gain]) of a 2-D point.
BW_INLINE vec<2, float> curlnoise(uint32_t s, const vec<2, float>& p, uint32_t octaves = 1u,
                                  float lacunarity = 2.0f, float gain = 0.5f) {
    return noise_detail::curl2(s, p, octaves, lacunarity, gain, nullptr, nullptr);
}

// curlnoise of a 3-D point, or of a 4-D one (x, y, z, t) whose curl is taken in x, y, z: a vec3f either way.
template <int N>
BW_INLINE vec<3, float> curlnoise(uint32_t s, const vec<N, float>& p, uint32_t octaves = 1u, float lacunarity = 2.0f,
                                  float gain = 0.5f) {
    static_assert(N == 3 || N == 4, "curlnoise takes a vec2f, vec3f or vec4f point");
    return noise_detail::curl3<N>(s, p.c, octaves, lacunarity, gain, nullptr, nullptr);
}

// The derivatives the adjoints use: the gradient of noise and pnoise at p, and the adjoint of p of
// curlnoise for the adjoint `adj` of its result.
BW_INLINE float noise_grad(uint32_t s, float x) {
    float g;
    noise_detail::eval<1>(s, &x, nullptr, &g, nullptr);
    return g;
}
template <int N> BW_INLINE vec<N, float> noise_grad(uint32_t s, const vec<N, float>& p) {
    float g[N];
    noise_detail::eval<N>(s, p.c, nullptr, g, nullptr);
    return noise_detail::as_vec<N>(g);
}
template <int N, class... P> BW_INLINE vec<N, float> pnoise_grad(uint32_t s, const vec<N, float>& p, P... periods) {
    const int32_t per[N] = {int32_t(periods)...};
    float g[N];
    noise_detail::eval<N>(s, p.c, per, g, nullptr);
    return noise_detail::as_vec<N>(g);
}
BW_INLINE float pnoise_grad(uint32_t s, float x, int32_t px) {
    float g;
    noise_detail::eval<1>(s, &x, &px, &g, nullptr);
    return g;
}
BW_INLINE vec<2, float> curlnoise_vjp(uint32_t s, const vec<2, float>& p, const vec<2, float>& adj,
                                      uint32_t octaves = 1u, float lacunarity = 2.0f, float gain = 0.5f) {
    vec<2, float> adj_p;
    noise_detail::curl2(s, p, octaves, lacunarity, gain, &adj, &adj_p);
    return adj_p;
}
template <int N>
BW_INLINE vec<N, float> curlnoise_vjp(uint32_t s, const vec<N, float>& p, const vec<3, float>& adj,
                                      uint32_t octaves = 1u, float lacunarity = 2.0f, float gain = 0.5f) {
    static_assert(N == 3 || N == 4, "curlnoise takes a vec2f, vec3f or vec4f point");
    float adj_p[N];
    noise_detail::curl3<N>(s, p.c, octaves, lacunarity, gain, &adj, adj_p);
    return noise_detail::as_vec<N>(adj_p);
}

}  // namespace bw
