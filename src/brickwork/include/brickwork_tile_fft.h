// brickwork runtime: the twiddle factors of tile_fft / tile_ifft (frontend/tile_fft.py). A separate header,
// included only by generated units that transform tiles.
//
// Twiddle m of an N-point transform is (cos a, sign sin a) with a = m (2 pi / N), computed in double and
// rounded to the element type. On the CPU the table of a transform's COUNT twiddles (N/2 for the radix-2
// form, N for the direct sum) is computed once, when the compiled unit is loaded (a dynamically initialized
// variable), not once per tile as before: the same operations on the same values, so the same bits. On a
// GPU (NVRTC) a twiddle is computed where it is read.
#pragma once
#include "brickwork.h"

namespace bw {

template <class V> struct fft_component;
template <class T> struct fft_component<vec<2, T>> { using type = T; };

// the angle's factor is rounded as Python's 2.0 * math.pi / n (the frontend's former per-tile form)
template <class V> BW_INLINE V fft_twiddle_value(int32_t m, int32_t n, int sign) {
    const double step = 2.0 * 3.141592653589793 / double(n);
    using S = typename fft_component<V>::type;
    const double a = double(m) * step;
    const double s = sin(a);
    return V{{cast<S>(cos(a)), cast<S>(sign < 0 ? -s : s)}};
}

#ifdef BW_DEVICE
template <class V, int COUNT, int N, int SIGN> BW_INLINE V fft_twiddle(int32_t m) {
    return fft_twiddle_value<V>(m, N, SIGN);
}
#else
template <class V, int COUNT, int N, int SIGN> struct fft_twiddle_table {
    V w[COUNT];
    fft_twiddle_table() {
        for (int32_t m = 0; m < COUNT; ++m) w[m] = fft_twiddle_value<V>(m, N, SIGN);
    }
};
template <class V, int COUNT, int N, int SIGN>
inline const fft_twiddle_table<V, COUNT, N, SIGN> fft_twiddles{};

template <class V, int COUNT, int N, int SIGN> BW_INLINE V fft_twiddle(int32_t m) {
    return fft_twiddles<V, COUNT, N, SIGN>.w[m];
}
#endif

}  // namespace bw
