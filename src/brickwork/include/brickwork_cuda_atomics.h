// Device atomics of brickwork.h (included inside namespace bw under BW_DEVICE); each returns the old
// value. Native CUDA atomics where the hardware has them, a compare-and-swap loop otherwise: on the
// element's own 16/32/64-bit word, or on the aligned 32-bit word around an 8-bit element.
template <int S> struct atomic_word;
template <> struct atomic_word<2> { using type = unsigned short; };
template <> struct atomic_word<4> { using type = unsigned int; };
template <> struct atomic_word<8> { using type = unsigned long long; };

template <class T, class F> BW_INLINE T atomic_update(T* p, T v, F f) {
    T old;
    if constexpr (sizeof(T) == 1) {
        unsigned int* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
        const unsigned int shift = 8u * (unsigned int)(reinterpret_cast<uintptr_t>(p) & 3u);
        unsigned int seen = *reinterpret_cast<volatile unsigned int*>(word), assumed;
        do {
            assumed = seen;
            const uint8_t old_byte = (uint8_t)(assumed >> shift);
            memcpy(&old, &old_byte, 1);
            const T nv = f(old, v);
            uint8_t new_byte;
            memcpy(&new_byte, &nv, 1);
            seen = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | ((unsigned int)new_byte << shift));
        } while (seen != assumed);
    } else {
        using U = typename atomic_word<sizeof(T)>::type;
        U* up = reinterpret_cast<U*>(p);
        U seen = *reinterpret_cast<volatile U*>(up), assumed;
        do {
            assumed = seen;
            memcpy(&old, &assumed, sizeof(T));
            const T nv = f(old, v);
            U new_bits;
            memcpy(&new_bits, &nv, sizeof(T));
            seen = atomicCAS(up, assumed, new_bits);
        } while (seen != assumed);
    }
    return old;
}
// The integer types CUDA's atomics take: int32, uint32 and uint64 as they are; int64 through uint64
// (two's complement add/sub/and/or/xor/exch give the same bits).
template <class T> struct native_int {
    static constexpr bool value = std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                                  std::is_same<T, uint64_t>::value || std::is_same<T, int64_t>::value;
};
template <class T> using native_int_t =
    typename std::conditional<std::is_same<T, int64_t>::value, unsigned long long, T>::type;
template <class T> BW_INLINE native_int_t<T>* native_ptr(T* p) { return reinterpret_cast<native_int_t<T>*>(p); }

// A kernel's local (fixed-size) arrays live in the thread's local memory, where CUDA's atomics are
// undefined (the launch fails): there the update is a plain one, the memory being the thread's own.
#define BW_IF_LOCAL(update)          \
    if (__isLocal(p)) {              \
        const T old = *p;            \
        *p = (update);               \
        return old;                  \
    }
template <class T> BW_INLINE T atomic_add(T* p, T v) {
    BW_IF_LOCAL(add(old, v))
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) return atomicAdd(p, v);
    else if constexpr (std::is_same<T, half>::value)
        return half::from_bits(__half_as_ushort(atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.bits))));
    else if constexpr (native_int<T>::value) return T(atomicAdd(native_ptr(p), native_int_t<T>(v)));
    else return atomic_update(p, v, [](T a, T b) { return add(a, b); });
}
template <class T> BW_INLINE T atomic_sub(T* p, T v) {
    BW_IF_LOCAL(sub(old, v))
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) return atomicAdd(p, -v);
    else if constexpr (native_int<T>::value)
        return T(atomicAdd(native_ptr(p), native_int_t<T>(0) - native_int_t<T>(v)));
    else return atomic_update(p, v, [](T a, T b) { return sub(a, b); });
}
// min/max of int32/uint32/int64/uint64 are native (signed compare for int64); floats keep brickwork's
// min/max semantics (NaN handling) through the CAS loop.
template <class T> BW_INLINE T atomic_min(T* p, T v) {
    BW_IF_LOCAL(min(old, v))
    if constexpr (std::is_same<T, int64_t>::value) return T(atomicMin(reinterpret_cast<long long*>(p), (long long)v));
    else if constexpr (native_int<T>::value) return atomicMin(p, v);
    else return atomic_update(p, v, [](T a, T b) { return min(a, b); });
}
template <class T> BW_INLINE T atomic_max(T* p, T v) {
    BW_IF_LOCAL(max(old, v))
    if constexpr (std::is_same<T, int64_t>::value) return T(atomicMax(reinterpret_cast<long long*>(p), (long long)v));
    else if constexpr (native_int<T>::value) return atomicMax(p, v);
    else return atomic_update(p, v, [](T a, T b) { return max(a, b); });
}
#define BW_ATOMIC_BITS(name, cuda, op)                                                              \
    template <class T> BW_INLINE T name(T* p, T v) {                                                \
        BW_IF_LOCAL(T(old op v))                                                                    \
        if constexpr (native_int<T>::value) return T(cuda(native_ptr(p), native_int_t<T>(v)));     \
        else return atomic_update(p, v, [](T a, T b) { return T(a op b); });                        \
    }
BW_ATOMIC_BITS(atomic_and, atomicAnd, &) BW_ATOMIC_BITS(atomic_or, atomicOr, |) BW_ATOMIC_BITS(atomic_xor, atomicXor, ^)
#undef BW_ATOMIC_BITS
template <class T> BW_INLINE T atomic_exch(T* p, T v) {
    BW_IF_LOCAL(v)
    if constexpr (std::is_same<T, float>::value) return atomicExch(p, v);
    else if constexpr (native_int<T>::value) return T(atomicExch(native_ptr(p), native_int_t<T>(v)));
    else return atomic_update(p, v, [](T, T b) { return b; });
}
// Store v if *p equals `compare` (as values, as on the CPU); the old value either way.
template <class T> BW_INLINE T atomic_cas(T* p, T compare, T v) {
    BW_IF_LOCAL(old == compare ? v : old)
    using U = typename atomic_word<sizeof(T)>::type;
    U* up = reinterpret_cast<U*>(p);
    U seen = *reinterpret_cast<volatile U*>(up), desired;
    memcpy(&desired, &v, sizeof(T));
    T old;
    for (;;) {
        memcpy(&old, &seen, sizeof(T));
        if (!(old == compare)) return old;
        const U assumed = seen;
        seen = atomicCAS(up, assumed, desired);
        if (seen == assumed) return old;
    }
}
#undef BW_IF_LOCAL
