// brickwork runtime header: the types and builtins that generated C++ kernels use.
// Kept small on purpose: every kernel instance compiles it, so its size is compile time. Math uses
// the compiler's __builtin_* functions instead of <cmath>, which alone costs ~0.1 s per compile.
#pragma once
#ifndef BW_DEVICE  // NVRTC (no C++ standard library): brickwork_cuda.h provides these, then includes this file
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#define BW_EXPORT __attribute__((visibility("default")))
#define BW_INLINE inline __attribute__((always_inline))
#define BW_MATH(name) __builtin_##name  // math through the compiler's builtins (no <cmath>)
// The launch function of a kernel whose loops are the rows of blocks with short rows (la spaces with
// rows under la.outer's SHORT_ROW cells): 256-bit vectors where g++ on x86 is told to prefer 512
// (a row of a few dozen cells is a few 512-bit vectors and a remainder; see the loop abstraction's
// guide; the attribute exists from g++ 8 on). Other compilers and CPUs: the command line's choice.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __GNUC__ >= 8
#define BW_SHORT_ROWS __attribute__((target("prefer-vector-width=256")))
#else
#define BW_SHORT_ROWS
#endif
#endif

namespace bw {

struct launch_header {
    int64_t dim[4];
    int32_t parallel;
    int32_t nthreads;
    int32_t unit_inner;
    int32_t reserved;
};

// wp.cast: the bytes of a value read as another type of the same size (no conversion)
template <class To, class From> BW_INLINE To bit_cast(const From& x) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast: source and destination must have the same size");
    To r;
    std::memcpy(&r, &x, sizeof(To));
    return r;
}

// ---- float16: stored as bits; every operation computes in float and rounds (like __hadd) ----
BW_INLINE uint16_t float_to_half_bits(float f) {
#if defined(__FLT16_MAX__) && !defined(BW_SOFT_HALF)
    _Float16 h = (_Float16)f;  // IEEE round-to-nearest-even, same bits as the software path
    uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
#elif defined(BW_DEVICE)
    return __half_as_ushort(__float2half_rn(f));  // cvt.rn.f16.f32
#else
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {
        if (a < 0x33000000u) return (uint16_t)sign;
        uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
        return (uint16_t)(sign | r);
    }
    uint32_t r = a - 0x38000000u, h = r >> 13, rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return (uint16_t)(sign | h);
#endif
}

BW_INLINE float half_bits_to_float(uint16_t h) {
#if defined(__FLT16_MAX__) && !defined(BW_SOFT_HALF)
    _Float16 v;
    std::memcpy(&v, &h, 2);
    return (float)v;
#elif defined(BW_DEVICE)
    return __half2float(__ushort_as_half(h));
#else
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        float f = (float)m * 5.9604644775390625e-8f;
        std::memcpy(&x, &f, 4);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
#endif
}

struct half {
    uint16_t bits;
    half() = default;
    constexpr half(const half&) = default;
    half& operator=(const half&) = default;
    explicit BW_INLINE half(float f) : bits(float_to_half_bits(f)) {}
    static BW_INLINE half from_bits(uint16_t b) { half h; h.bits = b; return h; }
    explicit BW_INLINE operator float() const { return half_bits_to_float(bits); }
};
#define BW_HALF_BINOP(op) \
    BW_INLINE half operator op(half a, half b) { return half(float(a) op float(b)); }
BW_HALF_BINOP(+) BW_HALF_BINOP(-) BW_HALF_BINOP(*) BW_HALF_BINOP(/)
#define BW_HALF_CMP(op) \
    BW_INLINE bool operator op(half a, half b) { return float(a) op float(b); }
BW_HALF_CMP(<) BW_HALF_CMP(<=) BW_HALF_CMP(>) BW_HALF_CMP(>=) BW_HALF_CMP(==) BW_HALF_CMP(!=)
BW_INLINE half operator-(half a) { return half::from_bits((uint16_t)(a.bits ^ 0x8000u)); }

// ---- bfloat16: the upper half of a float; operations compute in float, round to nearest even ----
struct bhalf {
    uint16_t bits;
    bhalf() = default;
    constexpr bhalf(const bhalf&) = default;
    bhalf& operator=(const bhalf&) = default;
    explicit BW_INLINE bhalf(float f) {
        uint32_t x;
        std::memcpy(&x, &f, 4);
        bits = (x & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((x >> 16) | 0x40u)
                                               : (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
    }
    static BW_INLINE bhalf from_bits(uint16_t b) { bhalf h; h.bits = b; return h; }
    explicit BW_INLINE operator float() const {
        uint32_t x = (uint32_t)bits << 16;
        float f;
        std::memcpy(&f, &x, 4);
        return f;
    }
};
#define BW_BHALF_BINOP(op) \
    BW_INLINE bhalf operator op(bhalf a, bhalf b) { return bhalf(float(a) op float(b)); }
BW_BHALF_BINOP(+) BW_BHALF_BINOP(-) BW_BHALF_BINOP(*) BW_BHALF_BINOP(/)
#define BW_BHALF_CMP(op) \
    BW_INLINE bool operator op(bhalf a, bhalf b) { return float(a) op float(b); }
BW_BHALF_CMP(<) BW_BHALF_CMP(<=) BW_BHALF_CMP(>) BW_BHALF_CMP(>=) BW_BHALF_CMP(==) BW_BHALF_CMP(!=)
BW_INLINE bhalf operator-(bhalf a) { return bhalf::from_bits((uint16_t)(a.bits ^ 0x8000u)); }
template <class T> struct is_half_like : std::integral_constant<bool, std::is_same<T, half>::value ||
                                                                         std::is_same<T, bhalf>::value> {};

template <class T> BW_INLINE T inf() { return T(BW_MATH(huge_valf)()); }
template <class T> BW_INLINE T nan() { return T(BW_MATH(nanf)("")); }
template <> BW_INLINE half inf<half>() { return half::from_bits(0x7c00); }
template <> BW_INLINE half nan<half>() { return half::from_bits(0x7e00); }
template <> BW_INLINE bhalf inf<bhalf>() { return bhalf::from_bits(0x7f80); }
template <> BW_INLINE bhalf nan<bhalf>() { return bhalf::from_bits(0x7fc0); }

// ---- composite types ------------------------------------------------------------------------
template <int N, class T> struct vec { T c[N]; };
template <int R, int C, class T> struct mat { vec<C, T> r[R]; };
#ifdef BW_DEVICE  // an empty slice's value (vec0, mat00): NVRTC has no zero-length arrays (g++ has them)
template <class T> struct vec<0, T> { T c[1]; };
template <int C, class T> struct mat<0, C, T> { vec<C, T> r[1]; };
#endif
template <class T> struct quat { T c[4]; };
template <class T> struct transform { T c[7]; };  // p (3), then q (4)

template <class V> struct comp_of { using type = V; static constexpr int n = 1; };
template <int N, class T> struct comp_of<vec<N, T>> { using type = T; static constexpr int n = N; };
template <int R, int C, class T> struct comp_of<mat<R, C, T>> { using type = T; static constexpr int n = R * C; };
template <class T> struct comp_of<quat<T>> { using type = T; static constexpr int n = 4; };
template <class T> struct comp_of<transform<T>> { using type = T; static constexpr int n = 7; };

template <class V, class... A> BW_INLINE V make(A... a) {
    V v;
    typename comp_of<V>::type* p = reinterpret_cast<typename comp_of<V>::type*>(&v);
    int i = 0;
    ((p[i++] = a), ...);
    return v;
}
template <class V> BW_INLINE V make_filled(typename comp_of<V>::type x) {
    V v;
    typename comp_of<V>::type* p = reinterpret_cast<typename comp_of<V>::type*>(&v);
    for (int i = 0; i < comp_of<V>::n; ++i) p[i] = x;
    return v;
}
template <class V> BW_INLINE typename comp_of<V>::type component(const V& v, int k) {
    return reinterpret_cast<const typename comp_of<V>::type*>(&v)[k];
}

// ---- casts ----------------------------------------------------------------------------------
// A float converts to an integer type by truncation toward zero, saturating out of range and NaN to 0
// (as CUDA's cvt.rzi.sat): C++ leaves the other cases undefined, and g++ folds a constant differently
// from what the hardware gives at run time.
template <class T, class S> BW_INLINE T float_to_int(S x) {
    using U = typename std::make_unsigned<T>::type;
    constexpr U tmax = std::is_signed<T>::value ? U(U(~U(0)) >> 1) : U(~U(0));
    constexpr S hi = S(tmax / 2 + 1) * S(2), lo = std::is_signed<T>::value ? -hi : S(0);  // exact powers of 2
    return x >= lo ? (x < hi ? T(x) : T(tmax)) : (x < lo ? T(std::is_signed<T>::value ? -T(tmax) - 1 : 0) : T(0));
}
template <class T> struct caster {
    template <class S> static BW_INLINE T go(S x) {
        if constexpr (std::is_integral<T>::value && std::is_floating_point<S>::value) return float_to_int<T>(x);
        else if constexpr (std::is_floating_point<T>::value && std::is_integral<S>::value) {
            // an integer has no negative zero, but with -fno-trapping-math g++ folds float(int(x)) into
            // trunc(x), which keeps x's sign: float(int(-0.5)) was -0.0 (1 / it -inf). The select is a
            // compare and a blend, and undoes it.
            const T r = (T)x;
            return r == T(0) ? T(0) : r;
        } else return (T)x;
    }
    static BW_INLINE T go(half x) { return go(float(x)); }
    static BW_INLINE T go(bhalf x) { return go(float(x)); }
};
template <> struct caster<half> {
    template <class S> static BW_INLINE half go(S x) { return half(caster<float>::go(x)); }
    static BW_INLINE half go(half x) { return x; }
};
template <> struct caster<bhalf> {
    template <class S> static BW_INLINE bhalf go(S x) { return bhalf(caster<float>::go(x)); }
    static BW_INLINE bhalf go(bhalf x) { return x; }
};
template <> struct caster<bool> {
    template <class S> static BW_INLINE bool go(S x) { return x != S(0); }
    static BW_INLINE bool go(half x) { return float(x) != 0.0f; }
    static BW_INLINE bool go(bhalf x) { return float(x) != 0.0f; }
};
template <int N, class T> struct caster<vec<N, T>> {
    template <class S> static BW_INLINE vec<N, T> go(const vec<N, S>& x) {
        vec<N, T> r;
        for (int i = 0; i < N; ++i) r.c[i] = caster<T>::go(x.c[i]);
        return r;
    }
    // a quaternion's (or a transform's) components as a vector of as many, as Warp's constructors take them
    template <class S> static BW_INLINE vec<N, T> go(const quat<S>& x) {
        static_assert(N == 4, "a quaternion converts to a 4-vector");
        return go(vec<4, S>{{x.c[0], x.c[1], x.c[2], x.c[3]}});
    }
    template <class S> static BW_INLINE vec<N, T> go(const transform<S>& x) {
        static_assert(N == 7, "a transform converts to a 7-vector");
        vec<7, S> v;
        for (int i = 0; i < 7; ++i) v.c[i] = x.c[i];
        return go(v);
    }
};
template <int R, int C, class T> struct caster<mat<R, C, T>> {
    template <class S> static BW_INLINE mat<R, C, T> go(const mat<R, C, S>& x) {
        mat<R, C, T> r;
        for (int i = 0; i < R; ++i) r.r[i] = caster<vec<C, T>>::go(x.r[i]);
        return r;
    }
};
template <class T> struct caster<quat<T>> {
    template <class S> static BW_INLINE quat<T> go(const quat<S>& x) {
        quat<T> r;
        for (int i = 0; i < 4; ++i) r.c[i] = caster<T>::go(x.c[i]);
        return r;
    }
    template <class S> static BW_INLINE quat<T> go(const vec<4, S>& x) {
        quat<T> r;
        for (int i = 0; i < 4; ++i) r.c[i] = caster<T>::go(x.c[i]);
        return r;
    }
};
template <class T> struct caster<transform<T>> {
    template <class S> static BW_INLINE transform<T> go(const transform<S>& x) {
        transform<T> r;
        for (int i = 0; i < 7; ++i) r.c[i] = caster<T>::go(x.c[i]);
        return r;
    }
};
template <class T, class S> BW_INLINE T cast(const S& x) { return caster<T>::go(x); }

template <class T> BW_INLINE bool truth(T x) { return x != T(0); }
BW_INLINE bool truth(bool x) { return x; }
BW_INLINE bool truth(half x) { return float(x) != 0.0f; }
BW_INLINE bool truth(bhalf x) { return float(x) != 0.0f; }

// c ? a : b for a float or double, in bit operations: g++ turns a ?: whose arms it can sink into the
// taken side back into a branch, mispredicted when c is data (select_branches' conditional accumulate)
template <class T> BW_INLINE T blend(bool c, T a, T b) {
    using U = typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type;
    static_assert(sizeof(T) == sizeof(U), "blend: a float or a double");
    const U mask = U(0) - U(c);
    return bit_cast<T>(U((bit_cast<U>(a) & mask) | (bit_cast<U>(b) & ~mask)));
}

// ---- elementwise lifting over vec / mat / quat ------------------------------------------------
#define BW_LIFT1(name)                                                                              \
    template <int N, class T> BW_INLINE vec<N, T> name(const vec<N, T>& a) {                        \
        vec<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = name(a.c[i]); return r; }                   \
    template <int R, int C, class T> BW_INLINE mat<R, C, T> name(const mat<R, C, T>& a) {           \
        mat<R, C, T> r; for (int i = 0; i < R; ++i) r.r[i] = name(a.r[i]); return r; }                \
    template <class T> BW_INLINE quat<T> name(const quat<T>& a) {                                   \
        quat<T> r; for (int i = 0; i < 4; ++i) r.c[i] = name(a.c[i]); return r; }                     \
    template <class T> BW_INLINE transform<T> name(const transform<T>& a) {                         \
        transform<T> r; for (int i = 0; i < 7; ++i) r.c[i] = name(a.c[i]); return r; }
#define BW_LIFT2(name)                                                                              \
    template <int N, class T> BW_INLINE vec<N, T> name(const vec<N, T>& a, const vec<N, T>& b) {    \
        vec<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = name(a.c[i], b.c[i]); return r; }           \
    template <int R, int C, class T>                                                                \
    BW_INLINE mat<R, C, T> name(const mat<R, C, T>& a, const mat<R, C, T>& b) {                     \
        mat<R, C, T> r; for (int i = 0; i < R; ++i) r.r[i] = name(a.r[i], b.r[i]); return r; }        \
    template <class T> BW_INLINE quat<T> name(const quat<T>& a, const quat<T>& b) {                 \
        quat<T> r; for (int i = 0; i < 4; ++i) r.c[i] = name(a.c[i], b.c[i]); return r; }           \
    template <class T> BW_INLINE transform<T> name(const transform<T>& a, const transform<T>& b) {   \
        transform<T> r; for (int i = 0; i < 7; ++i) r.c[i] = name(a.c[i], b.c[i]); return r; }

// ---- arithmetic ----------------------------------------------------------------------------
// Narrow and unsigned integers wrap around on overflow, as in numpy: computed in an unsigned type at
// least as wide as int (unsigned short promoted to int could overflow). For int32 and int64 these
// are plain signed operations, used where brickwork proved the result cannot overflow (loop and
// index arithmetic: the compiler then sees i + 1 as affine and vectorizes stencils); arithmetic
// that may overflow uses the wrapping_* operations below.
template <class T, bool = std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                          !(std::is_signed<T>::value && sizeof(T) >= 4)>
struct wrap_of {
    using type = T;
};
template <class T> struct wrap_of<T, true> {
    using type = typename std::conditional<(sizeof(T) < 4), uint32_t, typename std::make_unsigned<T>::type>::type;
};
template <class T> using wrap_t = typename wrap_of<T>::type;

template <class T> BW_INLINE T add(T a, T b) { return T(wrap_t<T>(a) + wrap_t<T>(b)); }
template <class T> BW_INLINE T sub(T a, T b) { return T(wrap_t<T>(a) - wrap_t<T>(b)); }
template <class T> BW_INLINE T neg(T a) {
    if constexpr (std::is_integral<T>::value) return T(wrap_t<T>(0) - wrap_t<T>(a));
    else return T(-a);
}
template <class T> BW_INLINE T pos(T a) { return a; }
// Scalars only: for two square matrices this template and the matrix product below would be
// equally specialized, and the call ambiguous.
template <class T, typename std::enable_if<comp_of<T>::n == 1, int>::type = 0>
BW_INLINE T mul(T a, T b) { return T(wrap_t<T>(a) * wrap_t<T>(b)); }
template <class T> BW_INLINE T cw_mul(T a, T b) { return mul(a, b); }
template <class T> BW_INLINE T cw_div(T a, T b);
BW_LIFT2(add) BW_LIFT2(sub) BW_LIFT1(neg) BW_LIFT2(cw_mul) BW_LIFT2(cw_div)

// User arithmetic on int32/int64 wraps around (two's complement), as documented: the compiler
// proves most index arithmetic cannot overflow and keeps the plain (vectorizable) operations
// above for it; what it cannot prove renders as these, computed in the unsigned type.
template <class T> struct uint_of { using type = T; };
template <> struct uint_of<int32_t> { using type = uint32_t; };
template <> struct uint_of<int64_t> { using type = uint64_t; };
template <class T> using uint_t = typename uint_of<T>::type;
template <class T> BW_INLINE T wrapping_add(T a, T b) { return T(uint_t<T>(a) + uint_t<T>(b)); }
template <class T> BW_INLINE T wrapping_sub(T a, T b) { return T(uint_t<T>(a) - uint_t<T>(b)); }
template <class T> BW_INLINE T wrapping_mul(T a, T b) { return T(uint_t<T>(a) * uint_t<T>(b)); }
template <class T> BW_INLINE T wrapping_neg(T a) { return T(uint_t<T>(0) - uint_t<T>(a)); }
BW_LIFT2(wrapping_add) BW_LIFT2(wrapping_sub) BW_LIFT1(wrapping_neg)

// Integer division by zero gives 0 (as in Warp) and by -1 negates with wrap-around: neither traps.
template <class T> BW_INLINE T div(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        if (b == T(0)) return T(0);
        if (std::is_signed<T>::value && b == T(-1)) return wrapping_neg(a);
        return T(a / b);
    } else {
        return T(a / b);
    }
}
template <class T> BW_INLINE T cw_div(T a, T b) { return div(a, b); }
template <class T> BW_INLINE T floordiv(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        if (b == T(0)) return T(0);
        if (std::is_signed<T>::value && b == T(-1)) return wrapping_neg(a);
        T q = T(a / b);
        return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
    } else {
        return T(BW_MATH(floorf)(float(a / b)));
    }
}
BW_INLINE double floordiv(double a, double b) { return BW_MATH(floor)(a / b); }
template <class T> BW_INLINE T mod(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        if (b == T(0) || (std::is_signed<T>::value && b == T(-1))) return T(0);
        return T(a % b);
    } else {
        return T(BW_MATH(fmodf)(float(a), float(b)));
    }
}
BW_INLINE double mod(double a, double b) { return BW_MATH(fmod)(a, b); }

#define BW_SCALE(op)                                                                                  \
    template <int N, class T> BW_INLINE vec<N, T> op(const vec<N, T>& a, T s) {                        \
        vec<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = op(a.c[i], s); return r; }                    \
    template <int R, int C, class T> BW_INLINE mat<R, C, T> op(const mat<R, C, T>& a, T s) {           \
        mat<R, C, T> r; for (int i = 0; i < R; ++i) r.r[i] = op(a.r[i], s); return r; }                 \
    template <class T> BW_INLINE quat<T> op(const quat<T>& a, T s) {                                   \
        quat<T> r; for (int i = 0; i < 4; ++i) r.c[i] = op(a.c[i], s); return r; }                       \
    template <class T> BW_INLINE transform<T> op(const transform<T>& a, T s) {                         \
        transform<T> r; for (int i = 0; i < 7; ++i) r.c[i] = op(a.c[i], s); return r; }
BW_SCALE(mul) BW_SCALE(div)
template <int N, class T> BW_INLINE vec<N, T> mul(T s, const vec<N, T>& a) { return mul(a, s); }
template <int R, int C, class T> BW_INLINE mat<R, C, T> mul(T s, const mat<R, C, T>& a) { return mul(a, s); }
template <class T> BW_INLINE quat<T> mul(T s, const quat<T>& a) { return mul(a, s); }
template <class T> BW_INLINE transform<T> mul(T s, const transform<T>& a) { return mul(a, s); }
template <int N, class T> BW_INLINE vec<N, T> div(T s, const vec<N, T>& a) {
    vec<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = div(s, a.c[i]); return r;
}
template <int R, int C, class T> BW_INLINE mat<R, C, T> div(T s, const mat<R, C, T>& a) {
    mat<R, C, T> r; for (int i = 0; i < R; ++i) r.r[i] = div(s, a.r[i]); return r;
}
template <class T> BW_INLINE quat<T> div(T s, const quat<T>& a) {
    quat<T> r; for (int i = 0; i < 4; ++i) r.c[i] = div(s, a.c[i]); return r;
}

template <class T> BW_INLINE T dot(const vec<2, T>& a, const vec<2, T>& b) { return a.c[0] * b.c[0] + a.c[1] * b.c[1]; }
template <int N, class T> BW_INLINE T dot(const vec<N, T>& a, const vec<N, T>& b) {
    T s = T(a.c[0] * b.c[0]);
    for (int i = 1; i < N; ++i) s = T(s + a.c[i] * b.c[i]);
    return s;
}
template <class T> BW_INLINE T dot(const quat<T>& a, const quat<T>& b) {
    return dot(*reinterpret_cast<const vec<4, T>*>(&a), *reinterpret_cast<const vec<4, T>*>(&b));
}
// c + a * b rounded once for float and double (a fused multiply-add, as Warp's matrix products and ddot
// compute in every build), twice for the half types
template <class T> BW_INLINE T muladd(T a, T b, T c) { return T(c + a * b); }
template <> BW_INLINE float muladd(float a, float b, float c) { return BW_MATH(fmaf)(a, b, c); }
template <> BW_INLINE double muladd(double a, double b, double c) { return BW_MATH(fma)(a, b, c); }
template <int R, int K, int C, class T> BW_INLINE mat<R, C, T> mul(const mat<R, K, T>& a, const mat<K, C, T>& b) {
    mat<R, C, T> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            T s = T(0);
            for (int k = 0; k < K; ++k) s = muladd(a.r[i].c[k], b.r[k].c[j], s);
            r.r[i].c[j] = s;
        }
    return r;
}
template <int R, int C, class T> BW_INLINE vec<R, T> mul(const mat<R, C, T>& a, const vec<C, T>& v) {
    vec<R, T> r;
    for (int i = 0; i < R; ++i) r.c[i] = dot(a.r[i], v);
    return r;
}
template <int R, int C, class T> BW_INLINE vec<C, T> mul(const vec<R, T>& v, const mat<R, C, T>& a) {
    vec<C, T> r;
    for (int j = 0; j < C; ++j) {
        T s = T(v.c[0] * a.r[0].c[j]);
        for (int i = 1; i < R; ++i) s = T(s + v.c[i] * a.r[i].c[j]);
        r.c[j] = s;
    }
    return r;
}
template <class T> BW_INLINE quat<T> mul(const quat<T>& a, const quat<T>& b) {  // Hamilton product, w last
    const T *p = a.c, *q = b.c;
    // Warp's order of the terms, so that products agree bit for bit
    return quat<T>{{T(p[3] * q[0] + q[3] * p[0] + p[1] * q[2] - q[1] * p[2]),
                    T(p[3] * q[1] + q[3] * p[1] + p[2] * q[0] - q[2] * p[0]),
                    T(p[3] * q[2] + q[3] * p[2] + p[0] * q[1] - q[0] * p[1]),
                    T(p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2])}};
}
template <class A, class B> BW_INLINE auto matmul(const A& a, const B& b) { return mul(a, b); }

// ---- bitwise, comparisons -------------------------------------------------------------------
template <class T> BW_INLINE T bit_and(T a, T b) { return T(a & b); }
template <class T> BW_INLINE T bit_or(T a, T b) { return T(a | b); }
template <class T> BW_INLINE T bit_xor(T a, T b) { return T(a ^ b); }
// The shift count is taken modulo the width the operand computes in (32 bits for narrower types, which
// C promotes to int; 64 for 64-bit ones), as x86 and Warp on the CPU do: a count past the width is
// otherwise undefined, and vector shifts (0 past the width) then disagree with scalar ones.
template <class T> BW_INLINE int shift_count(T b) { return int(b) & int(sizeof(+b) * 8 - 1); }
template <class T> BW_INLINE T lshift(T a, T b) { return T(wrap_t<T>(a) << shift_count(b)); }
template <class T> BW_INLINE T rshift(T a, T b) { return T(a >> shift_count(b)); }
template <class T> BW_INLINE T wrapping_lshift(T a, T b) { return T(uint_t<wrap_t<T>>(a) << shift_count(b)); }
template <class T> BW_INLINE T invert(T a) { return T(~a); }
// componentwise on integer vectors and matrices (and % on vectors), as Warp's operators are
BW_LIFT2(bit_and) BW_LIFT2(bit_or) BW_LIFT2(bit_xor) BW_LIFT2(lshift) BW_LIFT2(rshift) BW_LIFT1(invert)
BW_LIFT2(wrapping_lshift) BW_LIFT2(mod)
template <class T> BW_INLINE bool lt(T a, T b) { return a < b; }
template <class T> BW_INLINE bool le(T a, T b) { return a <= b; }
template <class T> BW_INLINE bool gt(T a, T b) { return a > b; }
template <class T> BW_INLINE bool ge(T a, T b) { return a >= b; }
template <class T> BW_INLINE bool eq(const T& a, const T& b) {
    if constexpr (std::is_same<typename comp_of<T>::type, T>::value) {  // a scalar (vec1: a composite)
        return a == b;
    } else {
        for (int i = 0; i < comp_of<T>::n; ++i)
            if (!(component(a, i) == component(b, i))) return false;
        return true;
    }
}
template <class T> BW_INLINE bool ne(const T& a, const T& b) { return !eq(a, b); }

// ---- math -----------------------------------------------------------------------------------
#define BW_MATH1(name, fexpr, dexpr)                                                                \
    BW_INLINE float name(float x) { return fexpr; }                                                 \
    BW_INLINE double name(double x) { return dexpr; }                                               \
    BW_INLINE half name(half h) { float x = float(h); return half(fexpr); }                          \
    BW_INLINE bhalf name(bhalf h) { float x = float(h); return bhalf(fexpr); }                       \
    BW_LIFT1(name)
#define BW_MATH1B(name) BW_MATH1(name, BW_MATH(name##f)(x), BW_MATH(name)(x))
BW_MATH1B(sqrt) BW_MATH1B(cbrt) BW_MATH1B(exp) BW_MATH1B(exp2) BW_MATH1B(log) BW_MATH1B(log2)
BW_MATH1B(log10) BW_MATH1B(sin) BW_MATH1B(cos) BW_MATH1B(tan)
BW_MATH1B(atan) BW_MATH1B(sinh) BW_MATH1B(cosh) BW_MATH1B(tanh) BW_MATH1B(floor) BW_MATH1B(ceil)
BW_MATH1B(round) BW_MATH1B(trunc) BW_MATH1(rint, BW_MATH(nearbyintf)(x), BW_MATH(nearbyint)(x))
BW_MATH1(frac, x - BW_MATH(truncf)(x), x - BW_MATH(trunc)(x))
// float: the product in double, rounded once (as Warp)
BW_MATH1(degrees, float(double(x) * 57.29577951308232), x * 57.29577951308232)
BW_MATH1(radians, float(double(x) * 0.017453292519943295), x * 0.017453292519943295)
BW_MATH1B(erf) BW_MATH1B(erfc)
// erfinv: Newton steps on erf from a rational first guess, in double; erfinv(+-1) = +-inf, outside: NaN.
BW_INLINE double erfinv_d(double y) {
    if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? BW_MATH(inf)() : y == -1.0 ? -BW_MATH(inf)() : BW_MATH(nan)("");
    const double w = -BW_MATH(log)((1.0 - y) * (1.0 + y));
    double x = w < 5.0 ? y * (0.886226925452758 + w * (0.1 + 0.02 * w)) : (y > 0 ? 1.0 : -1.0) * BW_MATH(sqrt)(w - BW_MATH(log)(w));
    for (int i = 0; i < 60; ++i) {
        const double step = (BW_MATH(erf)(x) - y) / (1.1283791670955126 * BW_MATH(exp)(-x * x));
        x -= step;
        if (BW_MATH(fabs)(step) <= 1e-17 * BW_MATH(fabs)(x)) break;
    }
    return x;
}
BW_MATH1(erfinv, float(erfinv_d(double(x))), erfinv_d(x))
BW_MATH1(erfcinv, float(erfinv_d(1.0 - double(x))), erfinv_d(1.0 - x))
BW_INLINE float copysign(float a, float b) { return BW_MATH(copysignf)(a, b); }
BW_INLINE double copysign(double a, double b) { return BW_MATH(copysign)(a, b); }
BW_INLINE half copysign(half a, half b) { return half::from_bits(uint16_t((a.bits & 0x7fffu) | (b.bits & 0x8000u))); }
BW_INLINE bhalf copysign(bhalf a, bhalf b) { return bhalf::from_bits(uint16_t((a.bits & 0x7fffu) | (b.bits & 0x8000u))); }
BW_LIFT2(copysign)
template <class T> BW_INLINE int32_t bit_count(T x) {
    using U = typename std::make_unsigned<T>::type;
    return sizeof(T) == 8 ? BW_MATH(popcountll)((unsigned long long)(U)x) : BW_MATH(popcount)((unsigned)(U)x);
}

BW_INLINE float atan2(float y, float x) { return BW_MATH(atan2f)(y, x); }
BW_INLINE double atan2(double y, double x) { return BW_MATH(atan2)(y, x); }
BW_INLINE half atan2(half y, half x) { return half(BW_MATH(atan2f)(float(y), float(x))); }
BW_INLINE bhalf atan2(bhalf y, bhalf x) { return bhalf(BW_MATH(atan2f)(float(y), float(x))); }
BW_INLINE float pow(float a, float b) { return BW_MATH(powf)(a, b); }
BW_INLINE double pow(double a, double b) { return BW_MATH(pow)(a, b); }
BW_INLINE half pow(half a, half b) { return half(BW_MATH(powf)(float(a), float(b))); }
BW_INLINE bhalf pow(bhalf a, bhalf b) { return bhalf(BW_MATH(powf)(float(a), float(b))); }
BW_LIFT2(pow)

// abs of the most negative integer wraps to itself, as the documented arithmetic does (a plain negation
// would be undefined, and g++ then assumed the result non-negative: x < 0 false, x // 7 positive)
template <class T> BW_INLINE T abs(T x) { return x < T(0) ? wrapping_neg(x) : x; }
BW_INLINE float abs(float x) { return BW_MATH(fabsf)(x); }
BW_INLINE double abs(double x) { return BW_MATH(fabs)(x); }
BW_INLINE half abs(half x) { return half::from_bits((uint16_t)(x.bits & 0x7fffu)); }
BW_INLINE bhalf abs(bhalf x) { return bhalf::from_bits((uint16_t)(x.bits & 0x7fffu)); }
template <class T> BW_INLINE T sign(T x) { return x < T(0) ? T(-1) : T(1); }
BW_INLINE half sign(half x) { return half(float(x) < 0.0f ? -1.0f : 1.0f); }
BW_INLINE bhalf sign(bhalf x) { return bhalf(float(x) < 0.0f ? -1.0f : 1.0f); }
template <class T> BW_INLINE T min(T a, T b) { return b < a ? b : a; }
template <class T> BW_INLINE T max(T a, T b) { return a < b ? b : a; }
// Floats: a NaN operand yields the other one (IEEE minNum, numpy's fmin/fmax, Warp's min/max), so
// clamp(NaN, lo, hi) is lo. Written as compare-and-select rather than std::fmin so that it vectorizes;
// the inner select is exactly x86 min/max (the second operand when unordered), so the NaN check is
// one compare and one blend more (the one-expression form cost g++ three mask operations more).
#define BW_FMINMAX(T)                                                                               \
    BW_INLINE T min(T a, T b) { T m = b < a ? b : a; return a != a ? b : m; }                       \
    BW_INLINE T max(T a, T b) { T m = a < b ? b : a; return a != a ? b : m; }
BW_FMINMAX(float) BW_FMINMAX(double) BW_FMINMAX(half) BW_FMINMAX(bhalf)
// max(lo, x), not max(x, lo): between zeros of two signs the result is Warp's (clamp(-0.0, 0.0, 0.0) is 0.0)
template <class T> BW_INLINE T clamp(T x, T lo, T hi) { return min(max(lo, x), hi); }
// asin/acos clamp to [-1, 1] first, as Warp's do: acos(dot(a, b)) of unit vectors whose dot rounds to
// 1.0000001 is 0, not NaN (and NaN clamps to -1, as clamp does)
#define BW_MATH1_CLAMPED(name) \
    BW_MATH1(name, BW_MATH(name##f)(clamp(x, -1.0f, 1.0f)), BW_MATH(name)(clamp(x, -1.0, 1.0)))
BW_MATH1_CLAMPED(asin) BW_MATH1_CLAMPED(acos)
BW_LIFT1(abs) BW_LIFT1(sign) BW_LIFT2(min) BW_LIFT2(max)
template <int N, class T> BW_INLINE vec<N, T> clamp(const vec<N, T>& x, const vec<N, T>& lo, const vec<N, T>& hi) {
    return min(max(lo, x), hi);
}
template <int N, class T> BW_INLINE T min_element(const vec<N, T>& v) {
    T m = v.c[0];
    for (int i = 1; i < N; ++i) m = min(m, v.c[i]);
    return m;
}
template <int N, class T> BW_INLINE T max_element(const vec<N, T>& v) {
    T m = v.c[0];
    for (int i = 1; i < N; ++i) m = max(m, v.c[i]);
    return m;
}
// a (1 - t) + b t, as Warp: exact at both ends and finite for infinite a with t < 1 (a + (b - a) t is NaN there)
template <class T> BW_INLINE T lerp(T a, T b, T t) { return T(a * (T(1) - t) + b * t); }
// Warp's step is 1 below zero and 0 from zero on; nonzero is 1 for any non-zero value (NaN included).
template <class T> BW_INLINE T step(T x) { return x < T(0) ? T(1) : T(0); }
template <class T> BW_INLINE T nonzero(T x) { return x != T(0) ? T(1) : T(0); }
template <class T> BW_INLINE T smoothstep(T a, T b, T x) {
    T t = clamp(T((x - a) / (b - a)), T(0), T(1));
    return T(t * t * (T(3) - T(2) * t));
}
template <class V, class T> BW_INLINE V lerp(const V& a, const V& b, T t) { return add(mul(a, T(T(1) - t)), mul(b, t)); }

template <class T> BW_INLINE bool isnan(T x) {
    if constexpr (std::is_floating_point<T>::value) return BW_MATH(isnan)(x);
    else if constexpr (is_half_like<T>::value) return BW_MATH(isnan)(float(x));
    else if constexpr (comp_of<T>::n > 1) {
        for (int i = 0; i < comp_of<T>::n; ++i) if (isnan(component(x, i))) return true;
        return false;
    } else return false;
}
template <class T> BW_INLINE bool isinf(T x) {
    if constexpr (std::is_floating_point<T>::value) return BW_MATH(isinf)(x);
    else if constexpr (is_half_like<T>::value) return BW_MATH(isinf)(float(x));
    else if constexpr (comp_of<T>::n > 1) {
        for (int i = 0; i < comp_of<T>::n; ++i) if (isinf(component(x, i))) return true;
        return false;
    } else return false;
}
template <class T> BW_INLINE bool isfinite(T x) {
    // one test, no branch: a loop that checks isfinite stays a vector loop
    if constexpr (std::is_floating_point<T>::value) return !(BW_MATH(isnan)(x) | BW_MATH(isinf)(x));
    else return !isnan(x) && !isinf(x);
}

// ---- linear algebra ------------------------------------------------------------------------
template <class V> BW_INLINE auto length_sq(const V& v) { return dot(v, v); }
template <class V> BW_INLINE auto length(const V& v) { return sqrt(dot(v, v)); }
template <class V> BW_INLINE V normalize(const V& v) {
    auto l = length(v);
    using T = typename comp_of<V>::type;
    return l > T(0) ? div(v, l) : V{};
}
// a zero quaternion normalizes to the identity rotation, as in Warp (a zero vector stays zero)
template <class T> BW_INLINE quat<T> normalize(const quat<T>& q) {
    T l = length(q);  // times the reciprocal, as Warp (not a division per component)
    return l > T(0) ? mul(q, T(T(1) / l)) : quat<T>{{T(0), T(0), T(0), T(1)}};
}
template <class T> BW_INLINE vec<3, T> cross(const vec<3, T>& a, const vec<3, T>& b) {
    return vec<3, T>{{T(a.c[1] * b.c[2] - a.c[2] * b.c[1]), T(a.c[2] * b.c[0] - a.c[0] * b.c[2]),
                      T(a.c[0] * b.c[1] - a.c[1] * b.c[0])}};
}
template <int R, int C, class T> BW_INLINE mat<R, C, T> outer(const vec<R, T>& a, const vec<C, T>& b) {
    mat<R, C, T> m;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) m.r[i].c[j] = T(a.c[i] * b.c[j]);
    return m;
}
template <int R, int C, class T> BW_INLINE mat<C, R, T> transpose(const mat<R, C, T>& a) {
    mat<C, R, T> m;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) m.r[j].c[i] = a.r[i].c[j];
    return m;
}
template <int N, class T> BW_INLINE T trace(const mat<N, N, T>& a) {
    T s = a.r[0].c[0];
    for (int i = 1; i < N; ++i) s = T(s + a.r[i].c[i]);
    return s;
}
template <int R, int C, class T> BW_INLINE T ddot(const mat<R, C, T>& a, const mat<R, C, T>& b) {
    T s = T(0);
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) s = muladd(a.r[i].c[j], b.r[i].c[j], s);
    return s;
}
template <int N, class T> BW_INLINE mat<N, N, T> diag(const vec<N, T>& v) {
    mat<N, N, T> m{};
    for (int i = 0; i < N; ++i) m.r[i].c[i] = v.c[i];
    return m;
}
template <class T> BW_INLINE mat<3, 3, T> skew(const vec<3, T>& v) {
    T z = T(0);
    return make<mat<3, 3, T>>(z, T(-v.c[2]), v.c[1], v.c[2], z, T(-v.c[0]), T(-v.c[1]), v.c[0], z);
}
template <class T> BW_INLINE T det2(T a, T b, T c, T d) { return T(a * d - b * c); }
template <class T> BW_INLINE T determinant(const mat<1, 1, T>& m) { return m.r[0].c[0]; }
template <class T> BW_INLINE T determinant(const mat<2, 2, T>& m) {
    return det2(m.r[0].c[0], m.r[0].c[1], m.r[1].c[0], m.r[1].c[1]);
}
template <int N, class T> BW_INLINE mat<N - 1, N - 1, T> minor_of(const mat<N, N, T>& m, int row, int col) {
    mat<N - 1, N - 1, T> s;
    for (int i = 0, si = 0; i < N; ++i) {
        if (i == row) continue;
        for (int j = 0, sj = 0; j < N; ++j) {
            if (j == col) continue;
            s.r[si].c[sj++] = m.r[i].c[j];
        }
        ++si;
    }
    return s;
}
template <int N, class T> BW_INLINE T determinant_cofactors(const mat<N, N, T>& m) {
    T s = T(0);
    for (int j = 0; j < N; ++j) {
        T term = T(m.r[0].c[j] * determinant(minor_of(m, 0, j)));
        s = (j % 2) ? T(s - term) : T(s + term);
    }
    return s;
}
// 3x3 and larger determinants of float, half and bfloat16 matrices are expanded in double and rounded
// once (the cancellations of a float expansion make finite differences of it noise).
template <int N, class T> BW_INLINE T determinant(const mat<N, N, T>& m) {
    if constexpr (std::is_same<T, double>::value || !std::is_floating_point<T>::value && !is_half_like<T>::value) {
        return determinant_cofactors(m);
    } else {
        mat<N, N, double> w;
        for (int i = 0; i < N; ++i) for (int j = 0; j < N; ++j) w.r[i].c[j] = cast<double>(m.r[i].c[j]);
        return cast<T>(determinant_cofactors(w));
    }
}
template <int N, class T> BW_INLINE mat<N, N, T> inverse_cofactors(const mat<N, N, T>& m) {
    T d = determinant(m);
    mat<N, N, T> r;
    if (d == T(0)) {  // singular: zero matrix, as Warp does
        r = mat<N, N, T>{};
        return r;
    }
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            T cof = determinant(minor_of(m, j, i));
            r.r[i].c[j] = T(((i + j) % 2 ? T(-cof) : cof) / d);
        }
    return r;
}
// Inverses of float, half and bfloat16 matrices are computed in double and rounded once, so that an
// ill-conditioned float32 4x4 matrix keeps the accuracy of Warp's (float) one or better.
template <int N, class T> BW_INLINE mat<N, N, T> inverse(const mat<N, N, T>& m) {
    if constexpr (std::is_same<T, double>::value) {
        return inverse_cofactors(m);
    } else {
        mat<N, N, double> w;
        for (int i = 0; i < N; ++i) for (int j = 0; j < N; ++j) w.r[i].c[j] = cast<double>(m.r[i].c[j]);
        const mat<N, N, double> wi = inverse_cofactors(w);
        mat<N, N, T> r;
        for (int i = 0; i < N; ++i) for (int j = 0; j < N; ++j) r.r[i].c[j] = cast<T>(wi.r[i].c[j]);
        return r;
    }
}
template <class T> BW_INLINE mat<1, 1, T> inverse(const mat<1, 1, T>& m) {
    return make<mat<1, 1, T>>(T(T(1) / m.r[0].c[0]));
}

template <class T> BW_INLINE quat<T> quat_inverse(const quat<T>& q) { return quat<T>{{T(-q.c[0]), T(-q.c[1]), T(-q.c[2]), q.c[3]}}; }
// Warp's formulas, also for quaternions that are not unit ones: p (2 w^2 - 1) +- 2 w (v x p) + 2 v (v . p),
// which equals q p q* only when |q| = 1; the axis of quat_from_axis_angle is used as given.
template <class T> BW_INLINE vec<3, T> quat_rotate_signed(const quat<T>& q, const vec<3, T>& p, T sign) {
    const T w = q.c[3];
    const vec<3, T> v{{q.c[0], q.c[1], q.c[2]}};
    const vec<3, T> c = cross(v, p);
    const T a = T(T(2) * w * w - T(1));
    const T b = T(sign * T(2) * w);
    const T d = T(T(2) * dot(v, p));
    vec<3, T> r;  // summed in Warp's order, for Warp's bits: (p a + v d) + (v x p) 2w
    for (int i = 0; i < 3; ++i) r.c[i] = T(T(p.c[i] * a + v.c[i] * d) + c.c[i] * b);
    return r;
}
template <class T> BW_INLINE vec<3, T> quat_rotate(const quat<T>& q, const vec<3, T>& p) {
    return quat_rotate_signed(q, p, T(1));
}
template <class T> BW_INLINE vec<3, T> quat_rotate_inv(const quat<T>& q, const vec<3, T>& p) {
    return quat_rotate_signed(q, p, T(-1));
}
// The shortest rotation taking the direction of a onto that of b, as Warp defines it (opposite
// directions: no defined rotation, as in Warp).
template <class T> BW_INLINE quat<T> quat_between_vectors(const vec<3, T>& a, const vec<3, T>& b) {
    const vec<3, T> an = normalize(a), bn = normalize(b);
    const vec<3, T> axis = cross(an, bn);
    return normalize(quat<T>{{axis.c[0], axis.c[1], axis.c[2], T(T(1) + dot(an, bn))}});
}
template <class T> BW_INLINE quat<T> quat_from_axis_angle(const vec<3, T>& axis, T angle) {
    T h = T(angle * T(0.5));
    T s = sin(h);
    return quat<T>{{T(axis.c[0] * s), T(axis.c[1] * s), T(axis.c[2] * s), cos(h)}};
}
// Vector norms and helpers as Warp defines them (pseudo-Huber norm: sqrt(|v|^2 + delta^2)).
template <int N, class T> BW_INLINE T norm_l1(const vec<N, T>& v) {
    T s = abs(v.c[0]); for (int i = 1; i < N; ++i) s = T(s + abs(v.c[i])); return s;
}
template <int N, class T> BW_INLINE T norm_l2(const vec<N, T>& v) { return length(v); }
template <int N, class T> BW_INLINE T norm_huber(const vec<N, T>& v, T delta = T(1)) {
    T a = length(v);
    return a <= delta ? T(T(0.5) * a * a) : T(delta * (a - T(0.5) * delta));
}
template <int N, class T> BW_INLINE T norm_pseudo_huber(const vec<N, T>& v, T delta = T(1)) {
    return sqrt(T(length_sq(v) + delta * delta));
}
template <int N, class T> BW_INLINE vec<N, T> smooth_normalize(const vec<N, T>& v, T delta = T(1)) {
    return div(v, norm_pseudo_huber(v, delta));
}
// argmin/argmax skip NaN components (the first extremum of the others; 0 when all are NaN), as Warp's
template <int N, class T> BW_INLINE uint32_t first_number(const vec<N, T>& v) {
    int k = 0;
    while (k < N && isnan(v.c[k])) ++k;
    return uint32_t(k);
}
template <int N, class T> BW_INLINE uint32_t argmin(const vec<N, T>& v) {
    uint32_t k = first_number(v);
    if (k == uint32_t(N)) return 0;
    for (int i = int(k) + 1; i < N; ++i) if (v.c[i] < v.c[k]) k = uint32_t(i);
    return k;
}
template <int N, class T> BW_INLINE uint32_t argmax(const vec<N, T>& v) {
    uint32_t k = first_number(v);
    if (k == uint32_t(N)) return 0;
    for (int i = int(k) + 1; i < N; ++i) if (v.c[i] > v.c[k]) k = uint32_t(i);
    return k;
}
template <int N, class T> BW_INLINE vec<N, T> get_diag(const mat<N, N, T>& m) {
    vec<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = m.r[i].c[i]; return r;
}
template <int N, class T, class... V> BW_INLINE mat<N, 1 + sizeof...(V), T> matrix_from_cols(const vec<N, T>& c0, const V&... cs) {
    const vec<N, T> cols[] = {c0, cs...};
    mat<N, 1 + sizeof...(V), T> m;
    for (int i = 0; i < N; ++i) for (int j = 0; j < 1 + int(sizeof...(V)); ++j) m.r[i].c[j] = cols[j].c[i];
    return m;
}
template <int N, class T, class... V> BW_INLINE mat<1 + sizeof...(V), N, T> matrix_from_rows(const vec<N, T>& r0, const V&... rs) {
    return mat<1 + sizeof...(V), N, T>{{r0, rs...}};
}

// Random numbers with Warp's generator: a PCG hash of a uint32 state, which randi/randu/randf/randn
// advance in place (an rvalue state, as in randf(rand_init(seed)), is advanced and dropped).
BW_INLINE uint32_t rand_pcg(uint32_t s) {
    s = s * 747796405u + 2891336453u;
    uint32_t w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}
BW_INLINE uint32_t rand_init(int32_t seed) { return rand_pcg(uint32_t(seed)); }
BW_INLINE uint32_t rand_init(int32_t seed, int32_t offset) { return rand_pcg(uint32_t(seed) + rand_pcg(uint32_t(offset))); }
BW_INLINE uint32_t randu(uint32_t& s) { s = rand_pcg(s); return s; }
BW_INLINE uint32_t randu(uint32_t& s, uint32_t lo, uint32_t hi) { return lo + randu(s) % (hi - lo); }
BW_INLINE int32_t randi(uint32_t& s) { return int32_t(randu(s)); }
BW_INLINE int32_t randi(uint32_t& s, int32_t lo, int32_t hi) { return lo + int32_t(randu(s) % uint32_t(hi - lo)); }
BW_INLINE float randf(uint32_t& s) { return float(randu(s) >> 8) * (1.0f / 16777216.0f); }
BW_INLINE float randf(uint32_t& s, float lo, float hi) { return lo + (hi - lo) * randf(s); }
BW_INLINE float randn(uint32_t& s) {
    // Box-Muller in float32 steps through logf and cosf, as Warp 1.19's CPU computes it (its bits with glibc's
    // logf/cosf); u1 is moved into (0, 1) by Warp's 5.96e-8f (randf can give 0, whose log is -inf).
    float u1 = randf(s) + 5.96e-8f, u2 = randf(s);
    return BW_MATH(sqrtf)(-2.0f * BW_MATH(logf)(u1)) * BW_MATH(cosf)(2.0f * 3.14159265358979f * u2);
}
// Samplers with Warp's draws and formulas (u0, u1, u2 in the order drawn).
BW_INLINE vec<2, float> sample_unit_square(uint32_t& s) { float x = randf(s) - 0.5f; return vec<2, float>{{x, randf(s) - 0.5f}}; }
BW_INLINE vec<3, float> sample_unit_cube(uint32_t& s) {
    float x = randf(s) - 0.5f, y = randf(s) - 0.5f; return vec<3, float>{{x, y, randf(s) - 0.5f}};
}
BW_INLINE vec<2, float> sample_unit_ring(uint32_t& s) {
    const float t = 2.0f * 3.14159265358979f * randf(s); return vec<2, float>{{BW_MATH(cosf)(t), BW_MATH(sinf)(t)}};
}
BW_INLINE vec<2, float> sample_unit_disk(uint32_t& s) {
    const float r = BW_MATH(sqrtf)(randf(s)), t = 2.0f * 3.14159265358979f * randf(s);
    return vec<2, float>{{r * BW_MATH(cosf)(t), r * BW_MATH(sinf)(t)}};
}
BW_INLINE vec<2, float> sample_triangle(uint32_t& s) {  // barycentric coordinates (b0, b1)
    const float su0 = BW_MATH(sqrtf)(randf(s)); return vec<2, float>{{1.0f - su0, randf(s) * su0}};
}
// Warp goes through the polar angle: phi = acos(1 - 2 u0) (hemisphere: acos(1 - u0)), z = cos(phi).
BW_INLINE vec<3, float> sample_polar(float phi, float theta) {
    const float sp = BW_MATH(sinf)(phi);
    return vec<3, float>{{BW_MATH(cosf)(theta) * sp, BW_MATH(sinf)(theta) * sp, BW_MATH(cosf)(phi)}};
}
BW_INLINE vec<3, float> sample_unit_sphere_surface(uint32_t& s) {
    const float phi = BW_MATH(acosf)(1.0f - 2.0f * randf(s));
    return sample_polar(phi, 2.0f * 3.14159265358979f * randf(s));
}
BW_INLINE vec<3, float> sample_unit_hemisphere_surface(uint32_t& s) {
    const float phi = BW_MATH(acosf)(1.0f - randf(s));
    return sample_polar(phi, 2.0f * 3.14159265358979f * randf(s));
}
// A point in the ball: the radius powf(u, 1/3) applied first, (r cos(theta)) sin(phi), as Warp's (its bits; a cube
// root and the direction scaled after were an ulp apart in half of the points).
BW_INLINE vec<3, float> sample_in_ball(float phi, float theta, float u) {
    const float r = BW_MATH(powf)(u, 1.0f / 3.0f), sp = BW_MATH(sinf)(phi);
    return vec<3, float>{{r * BW_MATH(cosf)(theta) * sp, r * BW_MATH(sinf)(theta) * sp, r * BW_MATH(cosf)(phi)}};
}
BW_INLINE vec<3, float> sample_unit_sphere(uint32_t& s) {
    const float phi = BW_MATH(acosf)(1.0f - 2.0f * randf(s)), theta = 2.0f * 3.14159265358979f * randf(s);
    return sample_in_ball(phi, theta, randf(s));
}
BW_INLINE vec<3, float> sample_unit_hemisphere(uint32_t& s) {
    const float phi = BW_MATH(acosf)(1.0f - randf(s)), theta = 2.0f * 3.14159265358979f * randf(s);
    return sample_in_ball(phi, theta, randf(s));
}
#define BW_SAMPLER_RVALUE(name) BW_INLINE auto name(uint32_t&& s) { return name(s); }
BW_SAMPLER_RVALUE(sample_unit_square) BW_SAMPLER_RVALUE(sample_unit_cube) BW_SAMPLER_RVALUE(sample_unit_ring)
BW_SAMPLER_RVALUE(sample_unit_disk) BW_SAMPLER_RVALUE(sample_triangle) BW_SAMPLER_RVALUE(sample_unit_sphere_surface)
BW_SAMPLER_RVALUE(sample_unit_hemisphere_surface) BW_SAMPLER_RVALUE(sample_unit_sphere)
BW_SAMPLER_RVALUE(sample_unit_hemisphere)
template <class... A> BW_INLINE auto randu(uint32_t&& s, A... a) { return randu(s, a...); }
template <class... A> BW_INLINE auto randi(uint32_t&& s, A... a) { return randi(s, a...); }
template <class... A> BW_INLINE auto randf(uint32_t&& s, A... a) { return randf(s, a...); }
BW_INLINE float randn(uint32_t&& s) { return randn(s); }

// Spatial algebra as Warp writes it: a 6-vector is (angular top, linear bottom).
template <class T> BW_INLINE vec<3, T> spatial_top(const vec<6, T>& a) { return vec<3, T>{{a.c[0], a.c[1], a.c[2]}}; }
template <class T> BW_INLINE vec<3, T> spatial_bottom(const vec<6, T>& a) { return vec<3, T>{{a.c[3], a.c[4], a.c[5]}}; }
template <class T> BW_INLINE vec<6, T> spatial_join(const vec<3, T>& w, const vec<3, T>& v) {
    return vec<6, T>{{w.c[0], w.c[1], w.c[2], v.c[0], v.c[1], v.c[2]}};
}
template <class T> BW_INLINE T spatial_dot(const vec<6, T>& a, const vec<6, T>& b) { return dot(a, b); }
template <class T> BW_INLINE vec<6, T> spatial_cross(const vec<6, T>& a, const vec<6, T>& b) {
    const vec<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_join(cross(wa, wb), add(cross(wa, vb), cross(va, wb)));
}
template <class T> BW_INLINE vec<6, T> spatial_cross_dual(const vec<6, T>& a, const vec<6, T>& b) {
    const vec<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_join(add(cross(wa, wb), cross(va, vb)), cross(wa, vb));
}
template <class T> BW_INLINE vec<3, T> velocity_at_point(const vec<6, T>& qd, const vec<3, T>& r) {
    return add(cross(spatial_top(qd), r), spatial_bottom(qd));
}
template <class T> BW_INLINE mat<6, 6, T> spatial_adjoint(const mat<3, 3, T>& r, const mat<3, 3, T>& s) {
    mat<6, 6, T> m{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            m.r[i].c[j] = r.r[i].c[j];
            m.r[i + 3].c[j] = s.r[i].c[j];
            m.r[i + 3].c[j + 3] = r.r[i].c[j];
        }
    return m;
}

// Quaternion conversions (w last). quat_to_matrix has the rotated axes as columns (Warp's formula, so a
// non-unit q gives Warp's matrix); quat_from_matrix branches on the trace, then on the largest diagonal
// entry, and normalizes.
template <class T> BW_INLINE mat<3, 3, T> quat_to_matrix(const quat<T>& q) {
    return matrix_from_cols(quat_rotate(q, vec<3, T>{{T(1), T(0), T(0)}}), quat_rotate(q, vec<3, T>{{T(0), T(1), T(0)}}),
                            quat_rotate(q, vec<3, T>{{T(0), T(0), T(1)}}));
}
template <class T> BW_INLINE quat<T> quat_from_matrix(const mat<3, 3, T>& m) {
    const T m00 = m.r[0].c[0], m11 = m.r[1].c[1], m22 = m.r[2].c[2];
    const T tr = T(m00 + m11 + m22);
    T x, y, z, w, h;
    if (tr >= T(0)) {
        h = sqrt(T(tr + T(1))); w = T(T(0.5) * h); h = T(T(0.5) / h);
        x = T((m.r[2].c[1] - m.r[1].c[2]) * h); y = T((m.r[0].c[2] - m.r[2].c[0]) * h); z = T((m.r[1].c[0] - m.r[0].c[1]) * h);
    } else if (m00 >= m11 && m00 >= m22) {
        h = sqrt(T(m00 - (m11 + m22) + T(1))); x = T(T(0.5) * h); h = T(T(0.5) / h);
        y = T((m.r[0].c[1] + m.r[1].c[0]) * h); z = T((m.r[2].c[0] + m.r[0].c[2]) * h); w = T((m.r[2].c[1] - m.r[1].c[2]) * h);
    } else if (m11 >= m22) {
        h = sqrt(T(m11 - (m22 + m00) + T(1))); y = T(T(0.5) * h); h = T(T(0.5) / h);
        z = T((m.r[1].c[2] + m.r[2].c[1]) * h); x = T((m.r[0].c[1] + m.r[1].c[0]) * h); w = T((m.r[0].c[2] - m.r[2].c[0]) * h);
    } else {
        h = sqrt(T(m22 - (m00 + m11) + T(1))); z = T(T(0.5) * h); h = T(T(0.5) / h);
        x = T((m.r[2].c[0] + m.r[0].c[2]) * h); y = T((m.r[1].c[2] + m.r[2].c[1]) * h); w = T((m.r[1].c[0] - m.r[0].c[1]) * h);
    }
    return normalize(quat<T>{{x, y, z, w}});
}
template <class T> BW_INLINE quat<T> quat_from_matrix(const mat<4, 4, T>& m) {  // its upper-left 3x3 block
    mat<3, 3, T> r;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) r.r[i].c[j] = m.r[i].c[j];
    return quat_from_matrix(r);
}
template <class T> BW_INLINE quat<T> quat_rpy(T roll, T pitch, T yaw) {
    const T cy = cos(T(yaw * T(0.5))), sy = sin(T(yaw * T(0.5))), cr = cos(T(roll * T(0.5))), sr = sin(T(roll * T(0.5)));
    const T cp = cos(T(pitch * T(0.5))), sp = sin(T(pitch * T(0.5)));
    // the products in Warp's order, for Warp's bits
    return quat<T>{{T(cy * sr * cp - sy * cr * sp), T(cy * cr * sp + sy * sr * cp), T(sy * cr * cp - cy * sr * sp),
                    T(cy * cr * cp + sy * sr * sp)}};
}
template <class T> BW_INLINE vec<3, T> quat_to_rpy(const quat<T>& q) {
    const T x = q.c[0], y = q.c[1], z = q.c[2], w = q.c[3];
    const T roll = atan2(T(T(2) * (w * x + y * z)), T(T(1) - T(2) * (x * x + y * y)));
    const T pitch = T(asin(clamp(T(T(2) * (w * y - z * x)), T(-1), T(1))));
    const T yaw = atan2(T(T(2) * (w * z + x * y)), T(T(1) - T(2) * (y * y + z * z)));
    return vec<3, T>{{roll, pitch, yaw}};
}
// Euler angles (Warp's convention): rotations about the fixed axes i, j, k in that order, e indexed by axis;
// for i == k, e[i] gives the first and the third angle. Computed in double, rounded once.
BW_INLINE void bw_axis_rotation(int axis, double angle, double r[3][3]) {
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;
    for (int u = 0; u < 3; ++u) for (int v = 0; v < 3; ++v) r[u][v] = u == v ? 1.0 : 0.0;
    r[a][a] = r[b][b] = BW_MATH(cos)(angle);
    r[b][a] = BW_MATH(sin)(angle);
    r[a][b] = -r[b][a];
}
template <class T> BW_INLINE quat<T> quat_from_euler(const vec<3, T>& e, int32_t i, int32_t j, int32_t k) {
    double q[4] = {0, 0, 0, 1};
    const int axes[3] = {i, j, k};
    for (int n = 0; n < 3; ++n) {  // q = r * q with r the rotation about axes[n]
        const double h = 0.5 * cast<double>(e.c[axes[n]]), s = BW_MATH(sin)(h), c = BW_MATH(cos)(h);
        double v[3] = {0, 0, 0};
        v[axes[n]] = s;
        const double x = c * q[0] + q[3] * v[0] + v[1] * q[2] - v[2] * q[1];
        const double y = c * q[1] + q[3] * v[1] + v[2] * q[0] - v[0] * q[2];
        const double z = c * q[2] + q[3] * v[2] + v[0] * q[1] - v[1] * q[0];
        q[3] = c * q[3] - (v[0] * q[0] + v[1] * q[1] + v[2] * q[2]);
        q[0] = x, q[1] = y, q[2] = z;
    }
    return quat<T>{{T(q[0]), T(q[1]), T(q[2]), T(q[3])}};
}
// Inverse of quat_from_euler for i != k; the first angle is 0 at gimbal lock. For i == k the third angle is
// stored in e[3 - i - j] (as Warp does).
template <class T> BW_INLINE vec<3, T> quat_to_euler(const quat<T>& qt, int32_t i, int32_t j, int32_t k) {
    const double x = cast<double>(qt.c[0]), y = cast<double>(qt.c[1]), z = cast<double>(qt.c[2]), w = cast<double>(qt.c[3]);
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    const double s = j == (i + 1) % 3 ? 1.0 : -1.0;
    const int m = i != k ? k : 3 - i - j;  // the slot of the third angle
    double alpha, beta;
    if (i != k) {
        const double t = -s * R[k][i];
        beta = BW_MATH(asin)(t > 1 ? 1 : t < -1 ? -1 : t);
        alpha = BW_MATH(hypot)(R[k][j], R[k][k]) < 1e-6 ? 0.0 : BW_MATH(atan2)(s * R[k][j], R[k][k]);
    } else {
        const double t = R[i][i];
        beta = BW_MATH(acos)(t > 1 ? 1 : t < -1 ? -1 : t);
        alpha = BW_MATH(hypot)(R[i][j], R[i][m]) < 1e-6 ? 0.0 : BW_MATH(atan2)(R[i][j], s * R[i][m]);
    }
    // the third rotation is what is left: R Ri(-alpha) Rj(-beta)
    double ri[3][3], rj[3][3], t1[3][3], n[3][3];
    bw_axis_rotation(i, -alpha, ri);
    bw_axis_rotation(j, -beta, rj);
    for (int u = 0; u < 3; ++u) for (int v = 0; v < 3; ++v) t1[u][v] = R[u][0] * ri[0][v] + R[u][1] * ri[1][v] + R[u][2] * ri[2][v];
    for (int u = 0; u < 3; ++u) for (int v = 0; v < 3; ++v) n[u][v] = t1[u][0] * rj[0][v] + t1[u][1] * rj[1][v] + t1[u][2] * rj[2][v];
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    double e[3] = {0, 0, 0};
    e[i] = alpha, e[j] = beta, e[m] = BW_MATH(atan2)(n[b][a], n[a][a]);
    return vec<3, T>{{T(e[0]), T(e[1]), T(e[2])}};
}
// Swing-twist: the twist of q about a unit axis, and its angle (2 atan2(|q.xyz . axis|, w), signed: without |.|).
template <class T> BW_INLINE T bw_twist_dot(const vec<3, T>& axis, const quat<T>& q) {
    return T(T(q.c[0] * axis.c[0]) + T(q.c[1] * axis.c[1]) + T(q.c[2] * axis.c[2]));
}
template <class T> BW_INLINE quat<T> quat_twist(const vec<3, T>& axis, const quat<T>& q) {
    const double d = cast<double>(bw_twist_dot(axis, q)), w = cast<double>(q.c[3]);
    double p[3] = {d * cast<double>(axis.c[0]), d * cast<double>(axis.c[1]), d * cast<double>(axis.c[2])};
    const double len = BW_MATH(sqrt)(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + w * w);
    if (len == 0.0) return quat<T>{{T(0), T(0), T(0), T(1)}};
    return quat<T>{{T(p[0] / len), T(p[1] / len), T(p[2] / len), T(w / len)}};
}
template <class T> BW_INLINE T quat_twist_angle(const vec<3, T>& axis, const quat<T>& q) {
    return T(2.0 * BW_MATH(atan2)(BW_MATH(fabs)(cast<double>(bw_twist_dot(axis, q))), cast<double>(q.c[3])));
}
template <class T> BW_INLINE T quat_twist_angle_signed(const vec<3, T>& axis, const quat<T>& q) {
    return T(2.0 * BW_MATH(atan2)(cast<double>(bw_twist_dot(axis, q)), cast<double>(q.c[3])));
}
template <class T> BW_INLINE quat<T> quat_slerp(const quat<T>& q0, const quat<T>& q1, T t) {
    // the rotation from q0 to q1 as axis and angle, scaled by t
    const quat<T> d = mul(quat_inverse(q0), q1);
    vec<3, T> v{{d.c[0], d.c[1], d.c[2]}};
    const T angle = T(T(2) * atan2(length(v), abs(d.c[3])));
    v = normalize(v);
    if (d.c[3] < T(0)) v = neg(v);
    return mul(q0, quat_from_axis_angle(v, T(t * angle)));
}

// Rigid transforms: x -> p + rotate(q, x); products and inverses as in Warp (q need not be unit).
template <class T> BW_INLINE vec<3, T> transform_get_translation(const transform<T>& t) {
    return vec<3, T>{{t.c[0], t.c[1], t.c[2]}};
}
template <class T> BW_INLINE quat<T> transform_get_rotation(const transform<T>& t) {
    return quat<T>{{t.c[3], t.c[4], t.c[5], t.c[6]}};
}
template <class T> BW_INLINE transform<T> transform_from(const vec<3, T>& p, const quat<T>& q) {
    return transform<T>{{p.c[0], p.c[1], p.c[2], q.c[0], q.c[1], q.c[2], q.c[3]}};
}
template <class T> BW_INLINE vec<3, T> transform_vector(const transform<T>& t, const vec<3, T>& x) {
    return quat_rotate(transform_get_rotation(t), x);
}
template <class T> BW_INLINE vec<3, T> transform_point(const transform<T>& t, const vec<3, T>& x) {
    return add(transform_get_translation(t), transform_vector(t, x));
}
// A 4x4 matrix on homogeneous coordinates: w = 1 for a point, w = 0 for a vector (no division by w).
template <class T> BW_INLINE vec<3, T> transform_vector(const mat<4, 4, T>& m, const vec<3, T>& x) {
    vec<3, T> r;
    for (int i = 0; i < 3; ++i) r.c[i] = T(T(m.r[i].c[0] * x.c[0]) + T(m.r[i].c[1] * x.c[1]) + T(m.r[i].c[2] * x.c[2]));
    return r;
}
template <class T> BW_INLINE vec<3, T> transform_point(const mat<4, 4, T>& m, const vec<3, T>& x) {
    vec<3, T> r = transform_vector(m, x);
    for (int i = 0; i < 3; ++i) r.c[i] = T(r.c[i] + m.r[i].c[3]);
    return r;
}
template <class T> BW_INLINE transform<T> transform_multiply(const transform<T>& a, const transform<T>& b) {
    return transform_from(transform_point(a, transform_get_translation(b)),
                          mul(transform_get_rotation(a), transform_get_rotation(b)));
}
template <class T> BW_INLINE transform<T> mul(const transform<T>& a, const transform<T>& b) {
    return transform_multiply(a, b);
}
template <class T> BW_INLINE vec<6, T> transform_twist(const transform<T>& t, const vec<6, T>& x) {
    const quat<T> q = transform_get_rotation(t);
    const vec<3, T> w = quat_rotate(q, spatial_top(x));
    return spatial_join(w, add(quat_rotate(q, spatial_bottom(x)), cross(transform_get_translation(t), w)));
}
template <class T> BW_INLINE vec<6, T> transform_wrench(const transform<T>& t, const vec<6, T>& x) {
    const quat<T> q = transform_get_rotation(t);
    const vec<3, T> v = quat_rotate(q, spatial_bottom(x));
    return spatial_join(add(quat_rotate(q, spatial_top(x)), cross(transform_get_translation(t), v)), v);
}
template <class T> BW_INLINE mat<4, 4, T> transform_compose(const vec<3, T>& p, const quat<T>& q, const vec<3, T>& s) {
    const mat<3, 3, T> r = quat_to_matrix(q);
    mat<4, 4, T> m{};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) m.r[i].c[j] = T(r.r[i].c[j] * s.c[j]);
        m.r[i].c[3] = p.c[i];
    }
    m.r[3].c[3] = T(1);
    return m;
}
template <class T> BW_INLINE mat<4, 4, T> transform_to_matrix(const transform<T>& t) {
    return transform_compose(transform_get_translation(t), transform_get_rotation(t), vec<3, T>{{T(1), T(1), T(1)}});
}
template <class T> BW_INLINE transform<T> transform_from_matrix(const mat<4, 4, T>& m) {
    mat<3, 3, T> r;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) r.r[i].c[j] = m.r[i].c[j];
    return transform_from(vec<3, T>{{m.r[0].c[3], m.r[1].c[3], m.r[2].c[3]}}, quat_from_matrix(r));
}
template <class T> BW_INLINE transform<T> transform_inverse(const transform<T>& t) {
    quat<T> qi = quat_inverse(transform_get_rotation(t));
    return transform_from(neg(quat_rotate(qi, transform_get_translation(t))), qi);
}

// ---- arrays ---------------------------------------------------------------------------------
template <class T, int D> struct array_t {
    T* data;
    int64_t shape[D];
    int64_t strides[D];  // in elements
};
#ifndef BW_DEVICE
template <bool U, class T> BW_INLINE T& at(const array_t<T, 1>& a, int64_t i) { return a.data[U ? i : i * a.strides[0]]; }
template <bool U, class T> BW_INLINE T& at(const array_t<T, 2>& a, int64_t i, int64_t j) {
    return a.data[i * a.strides[0] + (U ? j : j * a.strides[1])];
}
template <bool U, class T> BW_INLINE T& at(const array_t<T, 3>& a, int64_t i, int64_t j, int64_t k) {
    return a.data[i * a.strides[0] + j * a.strides[1] + (U ? k : k * a.strides[2])];
}
template <bool U, class T> BW_INLINE T& at(const array_t<T, 4>& a, int64_t i, int64_t j, int64_t k, int64_t l) {
    return a.data[i * a.strides[0] + j * a.strides[1] + k * a.strides[2] + (U ? l : l * a.strides[3])];
}
#else
// On a GPU the unit-stride variant also says that every array of the launch spans fewer than 2**31
// elements (DeviceArray._unit_inner), so an element's offset is 32-bit arithmetic: one multiply-add
// per index instead of a 64-bit multiplication's three (a stencil's address arithmetic halves).
template <bool U, class T> BW_INLINE T& at(const array_t<T, 1>& a, int64_t i) {
    return U ? a.data[(int32_t)i] : a.data[i * a.strides[0]];
}
template <bool U, class T> BW_INLINE T& at(const array_t<T, 2>& a, int64_t i, int64_t j) {
    if (U) return a.data[(int32_t)i * (int32_t)a.strides[0] + (int32_t)j];
    return a.data[i * a.strides[0] + j * a.strides[1]];
}
template <bool U, class T> BW_INLINE T& at(const array_t<T, 3>& a, int64_t i, int64_t j, int64_t k) {
    if (U) return a.data[(int32_t)i * (int32_t)a.strides[0] + (int32_t)j * (int32_t)a.strides[1] + (int32_t)k];
    return a.data[i * a.strides[0] + j * a.strides[1] + k * a.strides[2]];
}
template <bool U, class T> BW_INLINE T& at(const array_t<T, 4>& a, int64_t i, int64_t j, int64_t k, int64_t l) {
    if (U)
        return a.data[(int32_t)i * (int32_t)a.strides[0] + (int32_t)j * (int32_t)a.strides[1] +
                      (int32_t)k * (int32_t)a.strides[2] + (int32_t)l];
    return a.data[i * a.strides[0] + j * a.strides[1] + k * a.strides[2] + l * a.strides[3]];
}
// at(a, i + ci, j + cj, ...) with the indices' constant terms apart (the CUDA renderer's form for
// stencils): the variable part's offset is the same expression for every neighbour, so it is computed
// once and each neighbour adds a uniform constant offset. Unsigned 32-bit arithmetic wraps, so the
// sum is the element's offset modulo 2**32 even where the variable part alone (the centre of a
// stencil outside the array) would overflow int32; it fits int32 whenever the element is in bounds.
template <bool U, class T> BW_INLINE T& at_split(const array_t<T, 2>& a, int64_t i, int64_t j, int32_t ci, int32_t cj) {
    if (U) {
        const uint32_t s0 = (uint32_t)a.strides[0];
        return a.data[(int32_t)(((uint32_t)i * s0 + (uint32_t)j) + ((uint32_t)ci * s0 + (uint32_t)cj))];
    }
    return at<false>(a, i + ci, j + cj);
}
template <bool U, class T>
BW_INLINE T& at_split(const array_t<T, 3>& a, int64_t i, int64_t j, int64_t k, int32_t ci, int32_t cj, int32_t ck) {
    if (U) {
        const uint32_t s0 = (uint32_t)a.strides[0], s1 = (uint32_t)a.strides[1];
        return a.data[(int32_t)(((uint32_t)i * s0 + (uint32_t)j * s1 + (uint32_t)k) +
                                ((uint32_t)ci * s0 + (uint32_t)cj * s1 + (uint32_t)ck))];
    }
    return at<false>(a, i + ci, j + cj, k + ck);
}
template <bool U, class T>
BW_INLINE T& at_split(const array_t<T, 4>& a, int64_t i, int64_t j, int64_t k, int64_t l, int32_t ci, int32_t cj,
                      int32_t ck, int32_t cl) {
    if (U) {
        const uint32_t s0 = (uint32_t)a.strides[0], s1 = (uint32_t)a.strides[1], s2 = (uint32_t)a.strides[2];
        return a.data[(int32_t)(((uint32_t)i * s0 + (uint32_t)j * s1 + (uint32_t)k * s2 + (uint32_t)l) +
                                ((uint32_t)ci * s0 + (uint32_t)cj * s1 + (uint32_t)ck * s2 + (uint32_t)cl))];
    }
    return at<false>(a, i + ci, j + cj, k + ck, l + cl);
}
#endif

// a[i] of an array with more dimensions: the view of the remaining ones (same memory)
template <class T, int D> BW_INLINE array_t<T, D - 1> subarray(const array_t<T, D>& a, int64_t i) {
    array_t<T, D - 1> r;
    r.data = a.data + i * a.strides[0];
    for (int d = 1; d < D; ++d) {
        r.shape[d - 1] = a.shape[d];
        r.strides[d - 1] = a.strides[d];
    }
    return r;
}
// wp.array(ptr=p, shape=(...), dtype=T) in a kernel: a contiguous array over memory the caller owns
template <class A, int K> BW_INLINE A array_from_ptr(uint64_t ptr, const int64_t (&shape)[K]) {
    A r;
    r.data = reinterpret_cast<decltype(r.data)>(static_cast<uintptr_t>(ptr));
    int64_t stride = 1;
    for (int d = K - 1; d >= 0; --d) {
        r.shape[d] = shape[d];
        r.strides[d] = stride;
        stride *= shape[d];
    }
    return r;
}
// brickwork's own array over an address known to be global device memory (the box copies of the ghost
// exchange: the fields' memory). On a GPU said so, NVRTC loads and stores it with LDG/STG rather than
// the generic LD/ST that wp.array(ptr=...) needs (its address may be a local's: wp.address_of).
template <class A, int K> BW_INLINE A array_from_global_ptr(uint64_t ptr, const int64_t (&shape)[K]) {
    A r = array_from_ptr<A>(ptr, shape);
#ifdef BW_DEVICE
    r.data = static_cast<decltype(r.data)>(__cvta_global_to_generic(static_cast<size_t>(ptr)));
#endif
    return r;
}

constexpr int64_t slice_unset = -9223372036854775807LL - 1;  // INT64_MIN (NVRTC has no <climits>)
// a slice whose step is zero at run time (`a[i:j:s]` with s == 0): as in Python, an error. It is recorded
// as a bounds error is (n = -1: the loader raises "slice step cannot be zero at <where>", the kernel's
// file and line) and the view is empty (shape 0, stride 0), so the rest of the launch touches no memory
// through it. `where` is a release build's "+N" line: the cached library names no file.
#ifndef BW_DEVICE
inline void record_oob(const char* where, int n, const int64_t* index, const int64_t* shape);
#else
__device__ inline void record_oob(const char* where, int n, const int64_t* index, const int64_t* shape);
#endif
// a[...] with slices (frontend/array_slices.py): bit d of `mask` says position d is a slice (start,
// stop, step follow in v) or an index (one value); INT64_MIN is a bound left out. Python's clamping;
// a zero step is recorded as an error (record_oob, n = -1). The view's innermost stride need not be 1:
// a unit that slices runs its general-stride instance only (targets/cpu/unit.py).
template <int M, class T, int D, int K>
inline array_t<T, M> array_slice(const array_t<T, D>& a, int64_t mask, const int64_t (&v)[K], const char* where) {
    array_t<T, M> r;
    r.data = a.data;
    int k = 0, m = 0;
    for (int d = 0; d < D; ++d) {
        const int64_t n = a.shape[d];
        if (k >= K) {  // positions left out are kept
            r.shape[m] = n;
            r.strides[m++] = a.strides[d];
        } else if (!(mask >> d & 1)) {
            const int64_t i = v[k] < 0 ? v[k] + n : v[k];
            r.data += i * a.strides[d];
            ++k;
        } else {
            const int64_t step = v[k + 2] == slice_unset ? 1 : v[k + 2];
            if (step == 0) record_oob(where, -1, nullptr, nullptr);  // zero step: empty, recorded
            const int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
            int64_t start = v[k], stop = v[k + 1];
            start = start == slice_unset ? (step < 0 ? hi : lo) : (start < 0 ? (start + n < lo ? lo : start + n) : (start > hi ? hi : start));
            stop = stop == slice_unset ? (step < 0 ? lo : hi) : (stop < 0 ? (stop + n < lo ? lo : stop + n) : (stop > hi ? hi : stop));
            int64_t len = 0;
            if (step > 0 && stop > start) len = (stop - start + step - 1) / step;
            if (step < 0 && start > stop) len = (start - stop - step - 1) / -step;
            r.data += (len > 0 ? start : 0) * a.strides[d];
            r.shape[m] = len;
            r.strides[m++] = a.strides[d] * step;
            k += 3;
        }
    }
    return r;
}
template <class T, int D, class... I> BW_INLINE auto subarray(const array_t<T, D>& a, int64_t i, int64_t j, I... rest) {
    return subarray(subarray(a, i), j, rest...);
}

// ---- raw storage (mesh packs: base addresses passed as int64) ------------------------------
#ifdef BW_DEVICE
// A pack's storage is device memory: said so, NVRTC loads and stores it with LDG/STG (global) rather than
// LD/ST (generic, which may be shared memory), also in a kernel that has shared memory of its own.
template <class T> BW_INLINE T& raw(int64_t address, int64_t offset) {
    T* p = reinterpret_cast<T*>(address) + offset;
    __builtin_assume(__isGlobal(p));
    return *p;
}
#else
template <class T> BW_INLINE T& raw(int64_t address, int64_t offset) { return reinterpret_cast<T*>(address)[offset]; }
#endif

// ---- debug mode: bounds-checked accesses ------------------------------------------------------
// An access out of bounds records itself (the first one of a launch wins) and touches a per-thread
// dummy element instead of memory; after the launch the loader asks bw_bounds_error for the record.
struct bounds_error {
    int set;
    const char* where;
    int n;
    int64_t index[4];
    int64_t shape[4];
};
#ifndef BW_DEVICE
inline bounds_error g_bounds_error{};
inline void record_oob(const char* where, int n, const int64_t* index, const int64_t* shape) {
    if (__atomic_exchange_n(&g_bounds_error.set, 1, __ATOMIC_ACQ_REL)) return;
    g_bounds_error.where = where;
    g_bounds_error.n = n;
    for (int d = 0; d < n; ++d) {
        g_bounds_error.index[d] = index[d];
        g_bounds_error.shape[d] = shape[d];
    }
}
template <class T> BW_INLINE T& oob_sink() {
    static thread_local T sink{};
    return sink;
}
#else  // the device: one record per module (the host reads and clears it after a launch), a shared sink
extern "C" {  // unmangled: the loader reads it by name
__device__ bounds_error bw_bounds_record;
}
__device__ inline void record_oob(const char* where, int n, const int64_t* index, const int64_t* shape) {
    if (atomicExch(&bw_bounds_record.set, 1)) return;
    bw_bounds_record.where = where;
    bw_bounds_record.n = n;
    for (int d = 0; d < n; ++d) {
        bw_bounds_record.index[d] = index[d];
        bw_bounds_record.shape[d] = shape[d];
    }
}
template <class T> BW_INLINE T& oob_sink() {  // out-of-bounds accesses land here (its value is garbage)
    static T sink;
    return sink;
}
#endif
// a vector's or matrix's component index computed at run time: a negative one counts from the end, as a
// constant one does (and as Warp does); in debug mode one past either end is recorded as a bounds error
// and reads component 0
template <class I> BW_INLINE I component_index(I i, I n) { return i < 0 ? I(i + n) : i; }
template <class I> BW_INLINE I component_index_checked(I i, I n, const char* where) {
    const I k = component_index(i, n);
    if (k < 0 || k >= n) {
        const int64_t index[1] = {int64_t(i)}, shape[1] = {int64_t(n)};
        record_oob(where, 1, index, shape);
        return I(0);
    }
    return k;
}
template <bool U, class T, int D, class... I> BW_INLINE T& at_checked(const array_t<T, D>& a, const char* where, I... i) {
    const int64_t index[D] = {int64_t(i)...};
    for (int d = 0; d < D; ++d)
        if (index[d] < 0 || index[d] >= a.shape[d]) {
            record_oob(where, D, index, a.shape);
            return oob_sink<T>();
        }
    return at<U>(a, int64_t(i)...);
}
template <class T, class... B> BW_INLINE T& raw_checked(int64_t address, int64_t offset, const char* where, B... b) {
    const int64_t pairs[] = {int64_t(b)...};
    constexpr int n = int(sizeof...(B)) / 2;
    int64_t index[n], shape[n];
    for (int d = 0; d < n; ++d) {
        index[d] = pairs[2 * d];
        shape[d] = pairs[2 * d + 1];
    }
    for (int d = 0; d < n; ++d)
        if (index[d] < 0 || index[d] >= shape[d]) {
            record_oob(where, n, index, shape);
            return oob_sink<T>();
        }
    return raw<T>(address, offset);
}
// ---- indexed arrays (types/indexed_arrays.py) -----------------------------------------------
// The base's data and strides, the indexed shape, and one index array per dimension (null: that
// dimension is not indexed). Element (i, j, ..) is base[idx0[i], j, ..]; the unit-stride flag U of
// plain arrays does not apply (the elements are gathered).
template <class T, int D> struct indexedarray_t {
    T* data;
    int64_t shape[D];
    int64_t strides[D];  // the base's, in elements
    const int32_t* indices[D];
};
template <class T, int D> BW_INLINE int64_t indexed_offset(const indexedarray_t<T, D>& a, int d, int64_t i) {
    return (a.indices[d] ? int64_t(a.indices[d][i]) : i) * a.strides[d];
}
template <bool U, class T> BW_INLINE T& at(const indexedarray_t<T, 1>& a, int64_t i) {
    return a.data[indexed_offset(a, 0, i)];
}
template <bool U, class T> BW_INLINE T& at(const indexedarray_t<T, 2>& a, int64_t i, int64_t j) {
    return a.data[indexed_offset(a, 0, i) + indexed_offset(a, 1, j)];
}
template <bool U, class T> BW_INLINE T& at(const indexedarray_t<T, 3>& a, int64_t i, int64_t j, int64_t k) {
    return a.data[indexed_offset(a, 0, i) + indexed_offset(a, 1, j) + indexed_offset(a, 2, k)];
}
template <bool U, class T> BW_INLINE T& at(const indexedarray_t<T, 4>& a, int64_t i, int64_t j, int64_t k, int64_t l) {
    return a.data[indexed_offset(a, 0, i) + indexed_offset(a, 1, j) + indexed_offset(a, 2, k) + indexed_offset(a, 3, l)];
}
// an array as a condition (`if a:`, `not a`, frontend/array_truth.py): true when it has memory and
// elements (Warp's test is "not null"; a None argument and an empty array are null there)
template <class A> BW_INLINE bool array_truth(const A& a) {
    if (a.data == nullptr) return false;
    for (int64_t n : a.shape)
        if (n <= 0) return false;
    return true;
}
// a[i] of an indexed array with more dimensions: the indexed view of the remaining ones
template <class T, int D> BW_INLINE indexedarray_t<T, D - 1> subarray(const indexedarray_t<T, D>& a, int64_t i) {
    indexedarray_t<T, D - 1> r;
    r.data = a.data + indexed_offset(a, 0, i);
    for (int d = 1; d < D; ++d) {
        r.shape[d - 1] = a.shape[d];
        r.strides[d - 1] = a.strides[d];
        r.indices[d - 1] = a.indices[d];
    }
    return r;
}
template <class T, int D, class... I>
BW_INLINE auto subarray(const indexedarray_t<T, D>& a, int64_t i, int64_t j, I... rest) {
    return subarray(subarray(a, i), j, rest...);
}
template <bool U, class T, int D, class... I>
BW_INLINE T& at_checked(const indexedarray_t<T, D>& a, const char* where, I... i) {
    const int64_t index[D] = {int64_t(i)...};
    for (int d = 0; d < D; ++d)
        if (index[d] < 0 || index[d] >= a.shape[d]) {
            record_oob(where, D, index, a.shape);
            return oob_sink<T>();
        }
    return at<U>(a, int64_t(i)...);
}

// ---- fabric arrays (types/fabric_arrays.py) -------------------------------------------------
// One logical 1-D array over buckets of memory: bucket b holds elements [start, end) at data. D = 2: an
// array of arrays, each element a pointer to its own values (lengths: each one's count).
struct fabric_bucket {
    int64_t start, end;
    void* data;
    const uint64_t* lengths;
};
template <class T, int D> struct fabricarray_t {
    const fabric_bucket* buckets;
    int64_t nbuckets;
    int64_t shape[D];  // the number of elements (shape[1] = 0: the inner arrays' lengths vary)
};
template <class T, int D> struct indexedfabricarray_t {
    fabricarray_t<T, D> fa;
    const int32_t* indices;
    int64_t shape[D];
};
// the bucket of element i: the first whose end is past i (binary search; empty buckets are skipped)
template <class T, int D> BW_INLINE const fabric_bucket& fabric_bucket_of(const fabricarray_t<T, D>& a, int64_t i) {
    int64_t lo = 0, hi = a.nbuckets - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a.buckets[mid].end <= i) lo = mid + 1;
        else hi = mid;
    }
    return a.buckets[lo];
}
template <bool U, class T> BW_INLINE T& at(const fabricarray_t<T, 1>& a, int64_t i) {
    const fabric_bucket& b = fabric_bucket_of(a, i);
    return static_cast<T*>(b.data)[i - b.start];
}
template <class T> BW_INLINE array_t<T, 1> subarray(const fabricarray_t<T, 2>& a, int64_t i) {
    const fabric_bucket& b = fabric_bucket_of(a, i);
    array_t<T, 1> r;
    r.data = static_cast<T**>(b.data)[i - b.start];
    r.shape[0] = int64_t(b.lengths[i - b.start]);
    r.strides[0] = 1;
    return r;
}
template <bool U, class T> BW_INLINE T& at(const fabricarray_t<T, 2>& a, int64_t i, int64_t j) {
    return subarray(a, i).data[j];
}
template <bool U, class T> BW_INLINE T& at(const indexedfabricarray_t<T, 1>& a, int64_t i) {
    return at<U>(a.fa, int64_t(a.indices[i]));
}
template <class T> BW_INLINE array_t<T, 1> subarray(const indexedfabricarray_t<T, 2>& a, int64_t i) {
    return subarray(a.fa, int64_t(a.indices[i]));
}
template <bool U, class T> BW_INLINE T& at(const indexedfabricarray_t<T, 2>& a, int64_t i, int64_t j) {
    return subarray(a, i).data[j];
}
template <class T, int D> BW_INLINE bool array_truth(const fabricarray_t<T, D>& a) { return a.shape[0] > 0; }
template <class T, int D> BW_INLINE bool array_truth(const indexedfabricarray_t<T, D>& a) { return a.shape[0] > 0; }
// debug mode: the element's index checked against the size (and an inner array's length)
template <bool U, class A, class... I> BW_INLINE auto& fabric_at_checked(const A& a, const char* where, int64_t i,
                                                                         I... j) {
    using T = std::remove_reference_t<decltype(at<U>(a, i, int64_t(j)...))>;
    int64_t index[2] = {i, 0}, shape[2] = {a.shape[0], 0};
    if (i < 0 || i >= a.shape[0]) {
        record_oob(where, 1 + int(sizeof...(I)), index, shape);
        return oob_sink<T>();
    }
    if constexpr (sizeof...(I) == 1) {
        index[1] = int64_t(j...);
        shape[1] = subarray(a, i).shape[0];
        if (index[1] < 0 || index[1] >= shape[1]) {
            record_oob(where, 2, index, shape);
            return oob_sink<T>();
        }
    }
    return at<U>(a, i, int64_t(j)...);
}
template <bool U, class T, int D, class... I>
BW_INLINE T& at_checked(const fabricarray_t<T, D>& a, const char* where, I... i) {
    return fabric_at_checked<U>(a, where, int64_t(i)...);
}
template <bool U, class T, int D, class... I>
BW_INLINE T& at_checked(const indexedfabricarray_t<T, D>& a, const char* where, I... i) {
    return fabric_at_checked<U>(a, where, int64_t(i)...);
}

// a checked view of an array or an indexed array (debug mode)
template <class A, class... I> BW_INLINE auto subarray_checked(const A& a, const char* where, I... i) {
    constexpr int n = int(sizeof...(I));
    const int64_t index[n] = {int64_t(i)...};
    for (int d = 0; d < n; ++d)
        if (index[d] < 0 || index[d] >= a.shape[d]) {
            record_oob(where, n, index, a.shape);
            decltype(subarray(a, int64_t(i)...)) empty{};
            return empty;  // a view of nothing: its own accesses are out of bounds too
        }
    return subarray(a, int64_t(i)...);
}

#ifndef BW_DEVICE
inline int take_bounds_error(char* out, int size) {
    if (!__atomic_load_n(&g_bounds_error.set, __ATOMIC_ACQUIRE)) return 0;
    const bounds_error& e = g_bounds_error;
    if (e.n < 0) {  // a slice's zero step (array_slice)
        snprintf(out, size, "slice step cannot be zero at %s", e.where);
        __atomic_store_n(&g_bounds_error.set, 0, __ATOMIC_RELEASE);
        return 1;
    }
    int len = snprintf(out, size, "index (");
    for (int d = 0; d < e.n && len < size; ++d) len += snprintf(out + len, size - len, d ? ", %lld" : "%lld", (long long)e.index[d]);
    if (len < size) len += snprintf(out + len, size - len, ") is out of bounds for shape (");
    for (int d = 0; d < e.n && len < size; ++d) len += snprintf(out + len, size - len, d ? ", %lld" : "%lld", (long long)e.shape[d]);
    if (len < size) snprintf(out + len, size - len, ") at %s", e.where);
    __atomic_store_n(&g_bounds_error.set, 0, __ATOMIC_RELEASE);
    return 1;
}
#endif

// ---- fixed-size arrays local to a kernel (types/fixed_arrays.py): wp.zeros(shape=(S...)) in a kernel ----
// The elements inline (zero-initialized by `{}`), the shape as array_t has it; element access, views
// and slices go through view(), an array_t over the same elements (so a @func parameter sees them).
template <class T, int64_t... S> struct fixedarray_t {
    static constexpr int D = int(sizeof...(S));
    T data[(S * ...)];
    int64_t shape[D] = {S...};
    operator array_t<T, D>() const { return view(*this); }
    friend BW_INLINE array_t<T, D> view(const fixedarray_t& a) {
        array_t<T, D> r;
        r.data = const_cast<T*>(a.data);  // a temporary's elements are read within its expression only
        int64_t stride = 1;
        for (int d = D - 1; d >= 0; --d) {
            r.shape[d] = a.shape[d];
            r.strides[d] = stride;
            stride *= a.shape[d];
        }
        return r;
    }
};
template <bool U, class T, int64_t... S, class... I> BW_INLINE T& at(const fixedarray_t<T, S...>& a, I... i) {
    return at<U>(view(a), int64_t(i)...);
}
template <bool U, class T, int64_t... S, class... I>
BW_INLINE T& at_checked(const fixedarray_t<T, S...>& a, const char* where, I... i) {
    return at_checked<U>(view(a), where, i...);
}
template <class T, int64_t... S, class... I> BW_INLINE auto subarray(const fixedarray_t<T, S...>& a, I... i) {
    return subarray(view(a), int64_t(i)...);
}
template <int M, class T, int64_t... S, int K>
BW_INLINE array_t<T, M> array_slice(const fixedarray_t<T, S...>& a, int64_t mask, const int64_t (&v)[K],
                                     const char* where) {
    return array_slice<M>(view(a), mask, v, where);
}

// ---- fixed-size local scratch (boiv: a halo box per point, no arena) -------------------------
template <class T, int N> struct local_buf {
    T data[N];
};
template <class T, int N> BW_INLINE array_t<T, 1> local_array(local_buf<T, N>& b) {
    array_t<T, 1> a;
    a.data = b.data;
    a.shape[0] = N;
    a.strides[0] = 1;
    return a;
}

// ---- team arenas: a team's scratch pieces, 64-byte aligned, in allocation order -----------------
// Shared by the CPU (below) and the GPU (brickwork_cuda.h); they differ only in where an arena
// lives and in what happens when a piece does not fit.
struct team {
    char* base;
    int64_t used;
    int64_t capacity;
};
template <int D> BW_INLINE int64_t arena_count(const int64_t (&dims)[D]) {
    int64_t count = 1;
    for (int d = 0; d < D; ++d) count *= dims[d] > 0 ? dims[d] : 0;
    return count;
}
template <class T, int D> BW_INLINE array_t<T, D> arena_view(char* at, const int64_t (&dims)[D]) {
    array_t<T, D> a;
    a.data = reinterpret_cast<T*>(at);
    int64_t stride = 1;
    for (int d = D - 1; d >= 0; --d) { a.shape[d] = dims[d]; a.strides[d] = stride; stride *= dims[d]; }
    return a;
}

#ifndef BW_DEVICE
// ---- teams of nested parallelism: a per-thread scratch arena, reset for every team ----------
// A team is one outer iteration run by one thread; its inner loops are simd loops. The arena
// grows on demand: an outgrown buffer stays alive until the thread's next team begins, so pads
// already handed out remain valid.
struct arena_state {
    char* buffer = nullptr;
    int64_t capacity = 0;
    char* retired[8] = {};
    int nretired = 0;
    ~arena_state() {
        for (int i = 0; i < nretired; ++i) __builtin_free(retired[i]);
        __builtin_free(buffer);
    }
};
inline arena_state& thread_arena() {
    static thread_local arena_state state;
    return state;
}
// A buffer of `wanted` bytes (room to grow into), or of the `needed` bytes alone when that many cannot be had:
// a pad of most of the memory fits where twice its size does not.
inline char* grow_arena(int64_t wanted, int64_t needed) {
    arena_state& a = thread_arena();
    if (a.buffer != nullptr) {
        if (a.nretired == 8) { for (int i = 0; i < 8; ++i) __builtin_free(a.retired[i]); a.nretired = 0; }
        a.retired[a.nretired++] = a.buffer;
    }
    a.capacity = (wanted + 4095) & ~(int64_t)4095;
    a.buffer = static_cast<char*>(__builtin_malloc((size_t)a.capacity));
    if (a.buffer == nullptr && needed < wanted) {
        a.capacity = (needed + 4095) & ~(int64_t)4095;
        a.buffer = static_cast<char*>(__builtin_malloc((size_t)a.capacity));
    }
    if (a.buffer == nullptr) {  // the team cannot run without it: stop with a message
        a.capacity = 0;
        std::fprintf(stderr, "brickwork: out of memory: a team's scratch of %lld bytes could not be allocated\n",
                     (long long)needed);
        std::fflush(stderr);
        __builtin_abort();
    }
    return a.buffer;
}
BW_INLINE team team_begin(int64_t bytes) {
    arena_state& a = thread_arena();
    for (int i = 0; i < a.nretired; ++i) __builtin_free(a.retired[i]);
    a.nretired = 0;
    if (bytes > a.capacity || a.buffer == nullptr) {
        int64_t at_least = bytes > 4096 ? bytes : 4096;
        grow_arena(at_least, at_least);
    }
    return team{a.buffer, 0, a.capacity};
}
// A pad's bytes. Sizes whose product passes 2**61 bytes (a 2**32 x 2**32 pad) stop the program with a message, as
// an arena that cannot grow does: wrapped around, the product was a small pad that in-range indices wrote past.
// The report is out of line and the loop has no branch: team_alloc sits in loop-abstraction loops that must stay
// vector loops.
[[noreturn]] __attribute__((noinline, cold)) inline void pad_too_large(const int64_t* dims, int n, int size) {
    std::fprintf(stderr, "brickwork: a team's scratch pad of sizes (");
    for (int e = 0; e < n; ++e) std::fprintf(stderr, e ? ", %lld" : "%lld", (long long)dims[e]);
    std::fprintf(stderr, ") of %d-byte elements needs more than 2**61 bytes\n", size);
    std::fflush(stderr);
    __builtin_abort();
}
template <class T, int D> inline int64_t pad_bytes(const int64_t (&dims)[D]) {
    int64_t bytes = (int64_t)sizeof(T);
    bool over = false;
    for (int d = 0; d < D; ++d) over |= __builtin_mul_overflow(bytes, dims[d] > 0 ? dims[d] : 0, &bytes);
    if (__builtin_expect(over || bytes > ((int64_t)1 << 61), 0)) pad_too_large(dims, D, (int)sizeof(T));
    return bytes;
}
// Each piece starts at a multiple of Align bytes: a cache line on the CPU (whose arena grows); the GPU
// mapping asks for the element's own alignment, so pads of the bytes a team requests fit in it.
template <class T, int D, int64_t Align = 64, class... N> BW_INLINE array_t<T, D> team_alloc(team& m, N... n) {
    int64_t dims[D] = {(int64_t)n...};
    int64_t bytes = pad_bytes<T>(dims);
    int64_t offset = (m.used + Align - 1) & ~(Align - 1);
    if (offset + bytes > m.capacity) {  // outgrown: continue in a bigger buffer
        m.base = grow_arena(2 * (offset + bytes), bytes);
        m.capacity = thread_arena().capacity;
        offset = 0;
    }
    m.used = offset + bytes;
    return arena_view<T>(m.base + offset, dims);
}
#endif  // BW_DEVICE

// ---- atomics (return the old value) -------------------------------------------------------
#ifndef BW_DEVICE
template <class T, class F> BW_INLINE T atomic_update(T* p, T v, F f) {
    using U = typename std::conditional<sizeof(T) == 8, uint64_t,
              typename std::conditional<sizeof(T) == 4, uint32_t,
              typename std::conditional<sizeof(T) == 2, uint16_t, uint8_t>::type>::type>::type;
    U* up = reinterpret_cast<U*>(p);
    U old_bits = __atomic_load_n(up, __ATOMIC_RELAXED), new_bits;
    T old;
    do {
        std::memcpy(&old, &old_bits, sizeof(T));
        T nv = f(old, v);
        std::memcpy(&new_bits, &nv, sizeof(T));
    } while (!__atomic_compare_exchange_n(up, &old_bits, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
}
template <class T> BW_INLINE T atomic_add(T* p, T v) {
    if constexpr (std::is_integral<T>::value) return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    else return atomic_update(p, v, [](T a, T b) { return add(a, b); });
}
template <class T> BW_INLINE T atomic_sub(T* p, T v) {
    if constexpr (std::is_integral<T>::value) return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
    else return atomic_update(p, v, [](T a, T b) { return sub(a, b); });
}
template <class T> BW_INLINE T atomic_min(T* p, T v) { return atomic_update(p, v, [](T a, T b) { return min(a, b); }); }
template <class T> BW_INLINE T atomic_max(T* p, T v) { return atomic_update(p, v, [](T a, T b) { return max(a, b); }); }
template <class T> BW_INLINE T atomic_and(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T> BW_INLINE T atomic_or(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T> BW_INLINE T atomic_xor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }
template <class T> BW_INLINE T atomic_exch(T* p, T v) { return atomic_update(p, v, [](T, T b) { return b; }); }
// Store v if *p equals `compare` (as values: 0.0 matches -0.0, as Warp's CPU atomic_cas); the old value
// either way. A float element equal to `compare` with other bits is exchanged on its own bits.
template <class T> BW_INLINE T atomic_cas(T* p, T compare, T v) {
    using U = typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type;
    U* up = reinterpret_cast<U*>(p);
    U seen = __atomic_load_n(up, __ATOMIC_SEQ_CST), desired;
    std::memcpy(&desired, &v, sizeof(T));
    T old;
    for (;;) {
        std::memcpy(&old, &seen, sizeof(T));
        if (!(old == compare)) return old;
        if (__atomic_compare_exchange_n(up, &seen, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
    }
}
#else
#include "brickwork_cuda_atomics.h"
#endif
// Vectors, matrices and quaternions: each component atomically (the element as a whole is not).
#define BW_ATOMIC_COMPOSITE(op)                                                                     \
    template <int N, class T> BW_INLINE vec<N, T> op(vec<N, T>* p, vec<N, T> v) {            \
        vec<N, T> old; for (int i = 0; i < N; ++i) old.c[i] = op(&p->c[i], v.c[i]); return old; }     \
    template <int R, int C, class T> BW_INLINE mat<R, C, T> op(mat<R, C, T>* p, mat<R, C, T> v) { \
        mat<R, C, T> old; for (int i = 0; i < R; ++i) old.r[i] = op(&p->r[i], v.r[i]); return old; }  \
    template <class T> BW_INLINE quat<T> op(quat<T>* p, quat<T> v) {                          \
        quat<T> old; for (int i = 0; i < 4; ++i) old.c[i] = op(&p->c[i], v.c[i]); return old; }     \
    template <class T> BW_INLINE transform<T> op(transform<T>* p, transform<T> v) {          \
        transform<T> old; for (int i = 0; i < 7; ++i) old.c[i] = op(&p->c[i], v.c[i]); return old; }
BW_ATOMIC_COMPOSITE(atomic_add) BW_ATOMIC_COMPOSITE(atomic_sub)
BW_ATOMIC_COMPOSITE(atomic_min) BW_ATOMIC_COMPOSITE(atomic_max)
BW_ATOMIC_COMPOSITE(atomic_and) BW_ATOMIC_COMPOSITE(atomic_or) BW_ATOMIC_COMPOSITE(atomic_xor)

// ---- reverse-mode autodiff: a thread's stack of saved values (loop-carried values, trip counts) ----
// 512 bytes inline, then the heap: loops with dynamic bounds save as much as they run.
#ifdef BW_DEVICE
#define BW_TAPE_MALLOC(n) malloc(n)
#define BW_TAPE_FREE(p) free(p)
#define BW_TAPE_TRAP() __trap()
#else
#define BW_TAPE_MALLOC(n) __builtin_malloc(n)
#define BW_TAPE_FREE(p) __builtin_free(p)
#define BW_TAPE_TRAP() __builtin_trap()
#endif
struct tape_stack {
    unsigned char inline_buf[512];
    unsigned char* data = inline_buf;
    int64_t top = 0, capacity = 512;
    tape_stack() = default;
    tape_stack(const tape_stack&) = delete;
    tape_stack& operator=(const tape_stack&) = delete;
    ~tape_stack() { if (data != inline_buf) BW_TAPE_FREE(data); }
    template <class T> BW_INLINE void push(const T& v) {
        if (top + (int64_t)sizeof(T) > capacity) grow((int64_t)sizeof(T));
        std::memcpy(data + top, &v, sizeof(T));
        top += sizeof(T);
    }
    template <class T> BW_INLINE T pop() {
        T v;
        top -= sizeof(T);
        std::memcpy(&v, data + top, sizeof(T));
        return v;
    }
    void grow(int64_t need) {
        int64_t cap = capacity * 2;
        while (cap < top + need) cap *= 2;
        unsigned char* p = (unsigned char*)BW_TAPE_MALLOC((size_t)cap);
        if (!p) BW_TAPE_TRAP();
        std::memcpy(p, data, (size_t)top);
        if (data != inline_buf) BW_TAPE_FREE(data);
        data = p;
        capacity = cap;
    }
};

}  // namespace bw
