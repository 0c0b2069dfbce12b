// Hand-written C++ references for the loop-abstraction benchmarks (benchmarks/la_cases.py).
//
// Compiled together with kernels.cpp by benchmarks/cnative.py (same flags, same thread count).
// Written the way a performance-aware C++ programmer would: restrict pointers, OpenMP over the
// outer loops, `#pragma omp simd` on the contiguous i loops, and a per-thread pencil buffer
// for the reconstructed states (as AthenaPK does with ScratchPad2D).
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// Compare-and-select min/max (std::fmin/fmax are library calls that block vectorization).
inline double dmin(double a, double b) { return b < a ? b : a; }
inline double dmax(double a, double b) { return a < b ? b : a; }

inline double minmod(double a, double b) {
    return a * b > 0.0 ? (std::fabs(a) < std::fabs(b) ? a : b) : 0.0;
}

// HLL flux of Burgers' equation, f(u) = u^2 / 2, with the wave speeds bounded by 0.
inline double hll_burgers(double ul, double ur) {
    const double fl = 0.5 * ul * ul;
    const double fr = 0.5 * ur * ur;
    const double sl = dmin(dmin(ul, ur), 0.0);
    const double sr = dmax(dmax(ul, ur), 0.0);
    return sr - sl > 0.0 ? (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl) : 0.0;
}

}  // namespace

extern "C" {

// x1 sweep over blocks of (nk, nj, ni) cells with ng ghosts: PLM (minmod) reconstruction of q
// into plus/minus states on cells [ng-1, ni-ng], then the HLL flux on faces [ng, ni-ng] (the
// face i is the lower x1 face of cell i). k and j run over the interior. flux[b] starts
// flux_block_stride elements after flux[b-1] (so the x1 slot of a (nb, 3, nk, nj, ni) array works).
void la_recon_flux_f64(const double* __restrict q, double* __restrict flux, int64_t nb, int64_t nk,
                       int64_t nj, int64_t ni, int64_t ng, int64_t flux_block_stride) {
    const int64_t plane = nj * ni;
    const int64_t block = nk * plane;
#pragma omp parallel
    {
        std::vector<double> buf(2 * ni);
        double* __restrict plus = buf.data();
        double* __restrict minus = buf.data() + ni;
#pragma omp for collapse(2) schedule(static)
        for (int64_t b = 0; b < nb; ++b) {
            for (int64_t k = ng; k < nk - ng; ++k) {
                for (int64_t j = ng; j < nj - ng; ++j) {
                    const double* __restrict row = q + b * block + k * plane + j * ni;
                    double* __restrict f = flux + b * flux_block_stride + k * plane + j * ni;
#pragma omp simd
                    for (int64_t i = ng - 1; i <= ni - ng; ++i) {
                        const double c = row[i];
                        const double slope = minmod(c - row[i - 1], row[i + 1] - c);
                        plus[i] = c + 0.5 * slope;
                        minus[i] = c - 0.5 * slope;
                    }
#pragma omp simd
                    for (int64_t i = ng; i <= ni - ng; ++i) f[i] = hll_burgers(plus[i - 1], minus[i]);
                }
            }
        }
    }
}

}  // extern "C"
