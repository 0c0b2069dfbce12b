// brickwork runtime: sampling of textures (wp.Texture1D/2D/3D) and its derivatives. A separate header,
// included only by generated units that call texture_sample.
//
// The host (runtime/texture.py, texture_data.py) owns one buffer per texture: the descriptor below, whose
// address is the struct's `tex` field, then every mip level's texels (channels interleaved, x fastest).
// Sampling is software on every target: a CUDA kernel reads the same buffer from global memory, so the
// GPU gives the CPU's values (Warp's CPU sampler's rules, which this follows step by step):
//   - coordinates: WRAP and MIRROR reduce the coordinate modulo its period first (1, or the base extent
//     for texel coordinates; twice that for MIRROR); texel coordinates are divided by the base extent;
//   - LINEAR: t = coord * level_extent - 0.5 (CLAMP: clamped to [0, n - 1]; BORDER: to [-2, n]), the two
//     neighbours floor(t) and floor(t) + 1 addressed by the mode (wrapped, clamped, reflected; BORDER reads
//     zero outside), blended with the fraction t - floor(t), x then y then z;
//   - CLOSEST: floor of the coordinate scaled to the level, in double, addressed as LINEAR's neighbours;
//   - levels: a negative lod reads level 0; otherwise lod is clamped to the chain, CLOSEST mip filtering
//     takes the nearest level, LINEAR blends floor(lod) and the next by the fraction;
//   - texels: uint8/uint16 divided by 255/65535, int8/int16 by 127/32767 (at least -1), 32-bit integers
//     converted, float16 widened, float32 as stored; channels past the texture's read zero.
#pragma once
#include "brickwork.h"

// The samplers are large (every filter, address mode and level); forced inline at each call site, NVRTC took
// 90 s and 1.3 GB for a kernel of ten samples and their gradients (22 s called). The CPU keeps them inline,
// but not one level's sample (BW_TEXTURE_LEVEL), which a sample repeats for every level and channel it may
// read and a gradient for the lod's differences: inline at each, g++ took 21 s of CPU for a kernel of one
// 2-D sample with a lod and its gradient (benchmarks/jit_texture_sampling.py), called 2 s, with the same
// launch times. The pieces take the axis count as a template argument, so each holds only its axes' code.
// A level's sample is `pure` (it reads memory only): a backward kernel's replay of a sample whose value no
// gradient needs is still removed, as it was inline.
#ifdef BW_DEVICE
#define BW_SAMPLER __noinline__
#define BW_TEXTURE_LEVEL BW_INLINE
#else
#define BW_SAMPLER BW_INLINE
#define BW_TEXTURE_LEVEL __attribute__((noinline, pure))
#endif

namespace bw {

// The layout runtime/texture_data.py writes (368 bytes).
struct texture_data {
    int32_t ndim, num_levels, num_channels, dtype;
    int32_t filter_mode, mip_filter_mode, normalized, pad0;
    int32_t address[3], pad1;
    int32_t width[16], height[16], depth[16];
    uint64_t level[16];
};

namespace texture_detail {

enum { WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3 };
enum { U8 = 0, U16 = 1, F32 = 2, I8 = 3, I16 = 4, F16 = 5, U32 = 6, I32 = 7 };

BW_INLINE float half_bits_to_float(uint32_t h) {
    const uint32_t sign = (h >> 15) << 31;
    int32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0 && mantissa == 0) {
        bits = sign;
    } else if (exponent == 0) {  // subnormal: shift the mantissa up to an implicit leading one
        exponent = 1;
        while (!(mantissa & 0x400)) { mantissa <<= 1; --exponent; }
        bits = sign | (uint32_t(exponent + 112) << 23) | ((mantissa & 0x3ff) << 13);
    } else if (exponent == 31) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else {
        bits = sign | (uint32_t(exponent + 112) << 23) | (mantissa << 13);
    }
    return bit_cast<float>(bits);
}

BW_INLINE float decode(const texture_data* t, int level, int64_t index) {
    const void* p = (const void*)(uintptr_t)t->level[level];
    switch (t->dtype) {
    case U8: return ((const uint8_t*)p)[index] / 255.0f;
    case U16: return ((const uint16_t*)p)[index] / 65535.0f;
    case U32: return float(((const uint32_t*)p)[index]);
    case I8: { const float v = ((const int8_t*)p)[index] / 127.0f; return v < -1.0f ? -1.0f : v; }
    case I16: { const float v = ((const int16_t*)p)[index] / 32767.0f; return v < -1.0f ? -1.0f : v; }
    case I32: return float(((const int32_t*)p)[index]);
    case F16: return half_bits_to_float(((const uint16_t*)p)[index]);
    default: return ((const float*)p)[index];
    }
}

// One channel of texel (x, y, z) of a level; zero outside it (BORDER) or past the texture's channels.
BW_INLINE float fetch(const texture_data* t, int level, int64_t x, int64_t y, int64_t z, int channel) {
    const int32_t w = t->width[level], h = t->height[level], d = t->depth[level];
    if (x < 0 || x >= w || y < 0 || y >= h || z < 0 || z >= d || channel >= t->num_channels) return 0.0f;
    return decode(t, level, ((z * h + y) * w + x) * t->num_channels + channel);
}

// An integer texel index addressed by the axis's mode (BORDER leaves it, fetch reads zero outside).
BW_INLINE int64_t address(int64_t i, int32_t n, int mode) {
    if (mode == WRAP) {
        const int64_t m = i % n;
        return m < 0 ? m + n : m;
    }
    if (mode == CLAMP) return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == MIRROR) {
        const int64_t period = 2 * int64_t(n);
        int64_t m = i % period;
        if (m < 0) m += period;
        return m >= n ? period - m - 1 : m;
    }
    return i;
}

// A coordinate reduced by its period (WRAP, MIRROR) and made normalized.
BW_INLINE float normalized_coord(float c, int normalized, int32_t base, int mode) {
    if (mode == WRAP || mode == MIRROR) {
        const float period = (normalized ? 1.0f : float(base)) * (mode == MIRROR ? 2.0f : 1.0f);
        c = BW_MATH(fmodf)(c, period);
        if (c < 0.0f) c += period;
    }
    return normalized ? c : c / float(base);
}

// LINEAR's texel-space position on a level of extent n.
BW_INLINE float texel_position(float c, int32_t n, int mode) {
    float t = c * float(n) - 0.5f;
    // upper bound first, written so that a NaN takes it (as Warp's fmin): a NaN coordinate reads the last texel
    // (CLAMP) or the border, as in Warp, not a blend of NaN weights
    if (mode == CLAMP) {
        if (!(t < float(n - 1))) t = float(n - 1);
        if (t < 0.0f) t = 0.0f;
    } else if (mode != WRAP && mode != MIRROR) {
        if (!(t < float(n))) t = float(n);
        if (t < -2.0f) t = -2.0f;
    }
    return t;
}

// CLOSEST's texel index on a level of extent n (base extent `base`), in double as Warp's CPU sampler.
BW_INLINE int64_t nearest_index(float c, int normalized, int32_t base, int32_t n, int mode) {
    double r = double(c);
    if (mode == WRAP || mode == MIRROR) {
        const double period = (normalized ? 1.0 : double(base)) * (mode == MIRROR ? 2.0 : 1.0);
        r = BW_MATH(fmod)(r, period);
    }
    double texel = normalized ? r * double(n) : r * double(n) / double(base);
    if (mode != WRAP && mode != MIRROR) {  // a NaN takes the upper bound, as above (its int64 conversion is undefined)
        if (!(texel < double(n))) texel = double(n);
        if (texel < -1.0) texel = -1.0;
    }
    return address(int64_t(BW_MATH(floor)(texel)), n, mode);
}

struct axis_cell { int64_t i0, i1; float f; };

BW_INLINE axis_cell linear_cell(const texture_data* t, float c, int32_t base, int32_t n, int mode) {
    const float p = texel_position(normalized_coord(c, t->normalized, base, mode), n, mode);
    const float cell = BW_MATH(floorf)(p);
    axis_cell out;
    out.i0 = int64_t(cell);
    out.f = p - float(out.i0);
    out.i1 = address(out.i0 + 1, n, mode);
    out.i0 = address(out.i0, n, mode);
    return out;
}

// One channel at one level, for a texture of `ndim` axes (the coordinates past them are unused).
template <int ndim>
BW_TEXTURE_LEVEL float sample_level(const texture_data* t, int level, float u, float v, float w, int ch) {
    const float c[3] = {u, v, w};
    const int32_t base[3] = {t->width[0], t->height[0], t->depth[0]};
    const int32_t n[3] = {t->width[level], t->height[level], t->depth[level]};
    if (t->filter_mode == 0) {
        int64_t i[3] = {0, 0, 0};
        for (int a = 0; a < ndim; ++a) i[a] = nearest_index(c[a], t->normalized, base[a], n[a], t->address[a]);
        return fetch(t, level, i[0], i[1], i[2], ch);
    }
    axis_cell x = linear_cell(t, u, base[0], n[0], t->address[0]);
    if (ndim == 1) {
        const float v0 = fetch(t, level, x.i0, 0, 0, ch), v1 = fetch(t, level, x.i1, 0, 0, ch);
        return v0 * (1.0f - x.f) + v1 * x.f;
    }
    axis_cell y = linear_cell(t, v, base[1], n[1], t->address[1]);
    if (ndim == 2) {
        const float a0 = fetch(t, level, x.i0, y.i0, 0, ch) * (1.0f - x.f) + fetch(t, level, x.i1, y.i0, 0, ch) * x.f;
        const float a1 = fetch(t, level, x.i0, y.i1, 0, ch) * (1.0f - x.f) + fetch(t, level, x.i1, y.i1, 0, ch) * x.f;
        return a0 * (1.0f - y.f) + a1 * y.f;
    }
    axis_cell z = linear_cell(t, w, base[2], n[2], t->address[2]);
    float planes[2];
    for (int k = 0; k < 2; ++k) {
        const int64_t zk = k ? z.i1 : z.i0;
        const float a0 = fetch(t, level, x.i0, y.i0, zk, ch) * (1.0f - x.f) + fetch(t, level, x.i1, y.i0, zk, ch) * x.f;
        const float a1 = fetch(t, level, x.i0, y.i1, zk, ch) * (1.0f - x.f) + fetch(t, level, x.i1, y.i1, zk, ch) * x.f;
        planes[k] = a0 * (1.0f - y.f) + a1 * y.f;
    }
    return planes[0] * (1.0f - z.f) + planes[1] * z.f;
}

// One channel with the level selection of `lod` (negative: level 0 as it is).
template <int ndim> BW_INLINE float sample_channel(const texture_data* t, float u, float v, float w, int ch, float lod) {
    if (lod < 0.0f) return sample_level<ndim>(t, 0, u, v, w, ch);
    const float max_lod = float(t->num_levels - 1);
    const float clamped = lod > max_lod ? max_lod : lod;
    if (t->num_levels <= 1 || t->mip_filter_mode == 0) {
        int nearest = int(BW_MATH(floorf)(clamped + 0.5f));
        if (nearest >= t->num_levels) nearest = t->num_levels - 1;
        return sample_level<ndim>(t, nearest, u, v, w, ch);
    }
    const int level0 = int(BW_MATH(floorf)(clamped));
    const int level1 = level0 + 1 >= t->num_levels ? t->num_levels - 1 : level0 + 1;
    const float fl = clamped - float(level0);
    const float v0 = sample_level<ndim>(t, level0, u, v, w, ch);
    if (level1 == level0 || fl == 0.0f) return v0;
    return v0 * (1.0f - fl) + sample_level<ndim>(t, level1, u, v, w, ch) * fl;
}

template <class T> struct channels { static constexpr int n = comp_of<T>::n; };

template <class T> BW_INLINE float& channel(T& v, int c) { return v.c[c]; }
template <> BW_INLINE float& channel<float>(float& v, int) { return v; }
template <class T> BW_INLINE float channel_of(const T& v, int c) { return v.c[c]; }
template <> BW_INLINE float channel_of<float>(const float& v, int) { return v; }

template <int ndim, class T> BW_SAMPLER T sample(uint64_t id, float u, float v, float w, float lod) {
    T out{};
    if (id == 0) return out;
    const texture_data* t = (const texture_data*)(uintptr_t)id;
    for (int c = 0; c < channels<T>::n; ++c) channel(out, c) = sample_channel<ndim>(t, u, v, w, c, lod);
    return out;
}

}  // namespace texture_detail

// texture_sample: the struct of a Texture1D/2D/3D, the coordinates, the lod, a zero of the result type
// (float, vec2f or vec4f: the channels read).
template <class D, class T> BW_INLINE T texture_sample_1d(const D& d, float u, float lod, T) {
    return texture_detail::sample<1, T>(d.m_tex, u, 0.0f, 0.0f, lod);
}
template <class D, class T> BW_INLINE T texture_sample_2d(const D& d, float u, float v, float lod, T) {
    return texture_detail::sample<2, T>(d.m_tex, u, v, 0.0f, lod);
}
template <class D, class T> BW_INLINE T texture_sample_2d(const D& d, vec<2, float> uv, float lod, T) {
    return texture_detail::sample<2, T>(d.m_tex, uv.c[0], uv.c[1], 0.0f, lod);
}
template <class D, class T> BW_INLINE T texture_sample_3d(const D& d, float u, float v, float w, float lod, T) {
    return texture_detail::sample<3, T>(d.m_tex, u, v, w, lod);
}
template <class D, class T> BW_INLINE T texture_sample_3d(const D& d, vec<3, float> uvw, float lod, T) {
    return texture_detail::sample<3, T>(d.m_tex, uvw.c[0], uvw.c[1], uvw.c[2], lod);
}

}  // namespace bw

#include "brickwork_texture_grad.h"
