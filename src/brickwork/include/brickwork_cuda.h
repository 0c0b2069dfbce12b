// brickwork CUDA device runtime: what NVRTC lacks for brickwork.h, then brickwork.h itself.
// NVRTC compiles with --device-as-default-execution-space, so every function of brickwork.h is a
// __device__ function; NVRTC has no C++ standard library, so this file provides the few fixed-width
// integer types and type traits brickwork.h uses, and maps its math onto CUDA's device math.
#pragma once
#define BW_DEVICE 1
#include <cuda_fp16.h>  // native __half conversions and atomicAdd(__half*)

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
// <stdint.h>'s limit the generated code spells (the int64 constant -2**63: cnames.py)
#ifndef INT64_MIN
#define INT64_MIN (-9223372036854775807LL - 1)
#endif

// The type traits brickwork.h uses (NVRTC ships no <type_traits>).
namespace std {
template <class T, T v> struct integral_constant { static constexpr T value = v; };
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;
template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <bool C, class A, class B> struct conditional { using type = A; };
template <class A, class B> struct conditional<false, A, B> { using type = B; };
template <bool C, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <class T> struct remove_cv { using type = T; };
template <class T> struct remove_cv<const T> { using type = T; };
template <class T> struct remove_cv<volatile T> { using type = T; };
template <class T> struct remove_cv<const volatile T> { using type = T; };
template <class T> struct is_integral_base : false_type {};
#define BW_INTEGRAL(T) template <> struct is_integral_base<T> : true_type {};
BW_INTEGRAL(bool) BW_INTEGRAL(char) BW_INTEGRAL(signed char) BW_INTEGRAL(unsigned char) BW_INTEGRAL(short)
BW_INTEGRAL(unsigned short) BW_INTEGRAL(int) BW_INTEGRAL(unsigned int) BW_INTEGRAL(long) BW_INTEGRAL(unsigned long)
BW_INTEGRAL(long long) BW_INTEGRAL(unsigned long long)
#undef BW_INTEGRAL
template <class T> struct is_integral : is_integral_base<typename remove_cv<T>::type> {};
template <class T> struct is_floating_point
    : integral_constant<bool, is_same<typename remove_cv<T>::type, float>::value ||
                                  is_same<typename remove_cv<T>::type, double>::value> {};
template <class T, bool = is_integral<T>::value || is_floating_point<T>::value> struct is_signed_base : false_type {};
template <class T> struct is_signed_base<T, true> : integral_constant<bool, T(-1) < T(0)> {};
template <class T> struct is_signed : is_signed_base<typename remove_cv<T>::type> {};
template <class T> struct make_unsigned { using type = T; };
template <> struct make_unsigned<char> { using type = unsigned char; };
template <> struct make_unsigned<signed char> { using type = unsigned char; };
template <> struct make_unsigned<short> { using type = unsigned short; };
template <> struct make_unsigned<int> { using type = unsigned int; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <> struct make_unsigned<long long> { using type = unsigned long long; };
__forceinline__ void* memcpy(void* dst, const void* src, unsigned long n) { return ::memcpy(dst, src, n); }
}  // namespace std

#define BW_EXPORT
#define BW_INLINE __forceinline__
#define BW_MATH(name) ::bw_cuda_math::name

// brickwork.h spells its math as the compiler's builtins; on the device they are CUDA's math functions.
namespace bw_cuda_math {
using ::acos; using ::acosf; using ::asin; using ::asinf; using ::atan; using ::atanf; using ::atan2; using ::atan2f;
using ::cbrt; using ::cbrtf; using ::ceil; using ::ceilf; using ::copysign; using ::copysignf; using ::cos;
using ::cosf; using ::cosh; using ::coshf; using ::erf; using ::erff; using ::erfc; using ::erfcf; using ::exp;
using ::expf; using ::exp2; using ::exp2f; using ::fabs; using ::fabsf; using ::floor; using ::floorf; using ::fma; using ::fmaf; using ::fmod;
using ::fmodf; using ::hypot; using ::log; using ::logf; using ::log2; using ::log2f; using ::log10; using ::log10f;
using ::nan; using ::nanf; using ::nearbyint; using ::nearbyintf; using ::pow; using ::powf; using ::round;
using ::roundf; using ::sin; using ::sinf; using ::sinh; using ::sinhf; using ::sqrt; using ::sqrtf; using ::tan;
using ::tanf; using ::tanh; using ::tanhf; using ::trunc; using ::truncf; using ::lgamma; using ::lgammaf;
__forceinline__ float huge_valf() { return __int_as_float(0x7f800000); }
__forceinline__ double inf() { return __longlong_as_double(0x7ff0000000000000LL); }
__forceinline__ bool isnan(float x) { return x != x; }
__forceinline__ bool isnan(double x) { return x != x; }
__forceinline__ bool isinf(float x) { return ::fabsf(x) == huge_valf(); }
__forceinline__ bool isinf(double x) { return ::fabs(x) == inf(); }
__forceinline__ int popcount(unsigned int x) { return __popc(x); }
__forceinline__ int popcountll(unsigned long long x) { return __popcll(x); }
}  // namespace bw_cuda_math

#include "brickwork.h"

// ---- the GPU mapping: a thread block's scratch arena and static shared buffers ---------------
// A loop-abstraction slice or a par_for_outer team is one thread block; its scratch comes from the
// block's arena: the dynamic shared memory of the launch when the arena fits the shared-memory
// limit, else the block's part of a global buffer the host allocates (an arena per block, each
// rounded up to 64 bytes). A kernel with an arena has an entry for each (unit.py) and the host
// launches the one that fits, so that the body, compiled once for each kind of arena, addresses
// its scratch with shared-memory instructions (LDS/STS) in the first: a base chosen at run time
// would make every scratch access a generic one. Every thread of the block allocates the same
// pieces in the same order, so each thread's team_alloc returns the same addresses.
namespace bw {
struct gpu_shared_arena {  // the arena fits: the launch's dynamic shared memory
    unsigned char* shared;
};
struct gpu_global_arena {  // it does not: the launch's global scratch buffer
    char* global;
};
__forceinline__ team gpu_arena(const gpu_shared_arena& b, int64_t bytes) {
    return team{reinterpret_cast<char*>(b.shared), 0, bytes};
}
__forceinline__ team gpu_arena(const gpu_global_arena& b, int64_t bytes) {
    // the block's place in the grid (x fastest): a grid of slices has y and z (targets/cuda/geometry.py)
    const int64_t block =
        (int64_t)blockIdx.x + (int64_t)gridDim.x * ((int64_t)blockIdx.y + (int64_t)gridDim.y * blockIdx.z);
    return team{b.global + block * ((bytes + 63) & ~(int64_t)63), 0, bytes};
}
// A piece starts at its element's alignment (no more): pads of one type fill exactly the bytes a team
// requests (two pads of 3 float64: 48 bytes), as the host's arena size assumes.
// A pad's bytes are counted as the CPU's bw::pad_bytes counts them: sizes whose product passes 2**61 bytes (the
// host checks the sizes it knows before the launch; these depend on the team) stop the launch with its message,
// since a wrapped-around count would be a small pad that in-range indices write past.
// A pack value passed to a @func, loaded where the call's arguments are evaluated (targets/cuda/render.py
// call_argument): the empty asm takes the value there, so NVVM cannot sink the load to its first use past a
// division's slow-path branch; ptxas sees no instruction and still waits for the load only at that use.
template <class T> __forceinline__ T issued(T v) { return v; }
__forceinline__ double issued(double v) {
    asm volatile("" : "+d"(v));
    return v;
}
__forceinline__ float issued(float v) {
    asm volatile("" : "+f"(v));
    return v;
}
// The sizes by value (D of them, up to 4): an array passed by reference to this out-of-line function lived in
// local memory, which every team then stored its sizes into at its start (ptxas: a stack frame, STL per thread).
template <class T, int D> __device__ __noinline__ void pad_too_large(int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    static_assert(D >= 1 && D <= 4, "a pad has 1 to 4 sizes");
    if (threadIdx.x == 0) {
        const int64_t dims[4] = {n0, n1, n2, n3};
        printf("brickwork: a team's scratch pad of sizes (");
        for (int d = 0; d < D; ++d) printf(d ? ", %lld" : "%lld", (long long)dims[d]);
        printf(") of %d-byte elements needs more than 2**61 bytes\n", (int)sizeof(T));
    }
    __trap();
}
template <int D> __forceinline__ int64_t size_or_zero(const int64_t (&dims)[D], int d) { return d < D ? dims[d] : 0; }
template <class T, int D> __forceinline__ int64_t pad_bytes(const int64_t (&dims)[D]) {
    int64_t bytes = (int64_t)sizeof(T);
    bool over = false;
    for (int d = 0; d < D; ++d) {
        const uint64_t n = dims[d] > 0 ? (uint64_t)dims[d] : 0, product = (uint64_t)bytes * n;
        over |= __umul64hi((uint64_t)bytes, n) != 0 || (int64_t)product < 0;  // past int64 (no division)
        bytes = (int64_t)product;
    }
    if (over || bytes > ((int64_t)1 << 61))
        pad_too_large<T, D>(dims[0], size_or_zero(dims, 1), size_or_zero(dims, 2), size_or_zero(dims, 3));
    return bytes;
}
template <class T, int D, class... N> __forceinline__ array_t<T, D> team_alloc(team& m, N... n) {
    int64_t dims[D] = {(int64_t)n...};
    int64_t offset = (m.used + (int64_t)alignof(T) - 1) & ~((int64_t)alignof(T) - 1);
    // one size of 32 bits (every loop-abstraction scratch) cannot pass 2**61 bytes: counted without the test
    constexpr bool bounded = D == 1 && (true && ... && (sizeof(N) <= 4));
    int64_t end = offset + (bounded ? arena_count(dims) * (int64_t)sizeof(T) : pad_bytes<T>(dims));
    if (end > m.capacity) {  // a block cannot grow its arena (the CPU's can): the launch stops here
        if (threadIdx.x == 0)
            printf("brickwork: a team allocated %lld bytes of scratch, beyond its arena of %lld bytes\n",
                   (long long)end, (long long)m.capacity);
        __trap();
    }
    m.used = end;
    return arena_view<T>(m.base + offset, dims);
}
// The value of the lane `delta` above in the warp (every lane takes part; a lane whose partner is past
// the warp keeps its own): a block reduction's last rounds. Any trivially copyable T (a float, a
// MinLoc's value and cell), 4 bytes at a time, so the bits arrive unchanged.
template <class T> __forceinline__ T shuffle_down(const T& v, unsigned delta) {
    constexpr int words = (int)((sizeof(T) + 3) / 4);
    unsigned w[words] = {};
    ::memcpy(w, &v, sizeof(T));
    for (int i = 0; i < words; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta);
    T out = v;
    ::memcpy(&out, w, sizeof(T));
    return out;
}
template <class T> __forceinline__ array_t<T, 1> shared_array(T* data, int64_t count) {
    array_t<T, 1> a;
    a.data = data;
    a.shape[0] = count;
    a.strides[0] = 1;
    return a;
}
}  // namespace bw
