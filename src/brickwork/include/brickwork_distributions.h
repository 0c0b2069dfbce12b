// brickwork runtime: poisson, sample_cdf and lower_bound (Warp's names and results). A separate header,
// included only by generated units that call one of them.
#pragma once
#include "brickwork.h"

namespace bw {

// The first index in [begin, end) whose element is not below `value`, or end - 1 when none is (Warp's
// lower_bound: the search stops at the last element). Elements ascending.
template <class T> BW_INLINE int32_t lower_bound(const array_t<T, 1>& a, int32_t begin, int32_t end, T value) {
    int32_t lo = begin, hi = end - 1;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (a.data[int64_t(mid) * a.strides[0]] < value) lo = mid + 1; else hi = mid;
    }
    return lo;
}
template <class T> BW_INLINE int32_t lower_bound(const array_t<T, 1>& a, T value) {
    return lower_bound(a, 0, int32_t(a.shape[0]), value);
}

// An index drawn with the probabilities of an ascending cumulative distribution `cdf` (last entry 1).
BW_INLINE int32_t sample_cdf(uint32_t& s, const array_t<float, 1>& cdf) { return lower_bound(cdf, randf(s)); }
BW_INLINE int32_t sample_cdf(uint32_t&& s, const array_t<float, 1>& cdf) { return sample_cdf(s, cdf); }

// A Poisson-distributed count with mean `lam`: Knuth's product of uniforms below 10, above it the
// transformed rejection sampler PTRS (Hoermann 1993, as numpy), which rejects negative candidates.
BW_INLINE uint32_t poisson(uint32_t& s, float lam) {
    if (!(lam > 0.0f)) return 0;
    if (lam < 10.0f) {
        const double limit = BW_MATH(exp)(-double(lam));
        double p = 1.0;
        uint32_t k = 0;
        for (;;) {
            p *= double(randf(s));
            if (p <= limit) return k;
            ++k;
        }
    }
    const double l = lam, slam = BW_MATH(sqrt)(l), loglam = BW_MATH(log)(l);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        const double u = double(randf(s)) - 0.5, v = double(randf(s));
        const double us = 0.5 - BW_MATH(fabs)(u);
        const double k = BW_MATH(floor)((2.0 * a / us + b) * u + l + 0.43);
        if (us >= 0.07 && v <= vr && k >= 0) return uint32_t(k);
        if (k < 0 || (us < 0.013 && v > us)) continue;
        if (BW_MATH(log)(v) + BW_MATH(log)(invalpha) - BW_MATH(log)(a / (us * us) + b) <=
            -l + k * loglam - BW_MATH(lgamma)(k + 1.0))
            return uint32_t(k);
    }
}
BW_INLINE uint32_t poisson(uint32_t&& s, float lam) { return poisson(s, lam); }

}  // namespace bw
