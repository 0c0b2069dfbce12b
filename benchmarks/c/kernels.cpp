// Hand-written C++ reference kernels for the brickwork benchmarks.
//
// Written the way a performance-aware C programmer would write them: restrict pointers,
// `#pragma omp parallel for` on the outer loop, `#pragma omp simd` on the innermost one.
// Compiled at run time by benchmarks/cnative.py with `g++ -O3 -march=native -fopenmp -shared -fPIC`.
#include <cstdint>
#include <omp.h>

extern "C" {

// Set the OpenMP thread count used by every kernel below.
void bench_set_threads(int n) { omp_set_num_threads(n); }

// Report the thread count a parallel region actually gets.
int bench_get_threads(void) {
    int n = 0;
#pragma omp parallel
    {
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
}

// x[i] = s * x[i]
void scale_f32(float* __restrict x, float s, int64_t n) {
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) x[i] = s * x[i];
}

void scale_f64(double* __restrict x, double s, int64_t n) {
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) x[i] = s * x[i];
}

// float16: _Float16 storage and arithmetic (GCC >= 12 on x86-64; with AVX512-FP16 the multiply is
// native, otherwise g++ converts through float, which rounds the same for one multiply).
void scale_f16(_Float16* __restrict x, float s, int64_t n) {
    const _Float16 h = (_Float16)s;
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) x[i] = h * x[i];
}

// y[i] = a * x[i] + y[i]
void saxpy_f32(const float* __restrict x, float* __restrict y, float a, int64_t n) {
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

// 7-point Laplacian on the interior of a C-ordered (nz, ny, nx) grid; boundary cells untouched.
void laplacian3d_f32(const float* __restrict a, float* __restrict out, int64_t nz, int64_t ny,
                     int64_t nx) {
    const int64_t sy = nx;
    const int64_t sz = nx * ny;
#pragma omp parallel for
    for (int64_t k = 1; k < nz - 1; ++k) {
        for (int64_t j = 1; j < ny - 1; ++j) {
            const float* __restrict c = a + k * sz + j * sy;
            float* __restrict o = out + k * sz + j * sy;
#pragma omp simd
            for (int64_t i = 1; i < nx - 1; ++i) {
                o[i] = c[i - sz] + c[i + sz] + c[i - sy] + c[i + sy] + c[i - 1] + c[i + 1]
                       - 6.0f * c[i];
            }
        }
    }
}

// Sum of the interior of nb blocks of m^3 float64 cells with g ghost layers on every side.
double sum_interior_f64(const double* __restrict data, int64_t nb, int64_t m, int64_t g) {
    const int64_t n = m - 2 * g;
    double total = 0.0;
#pragma omp parallel for collapse(2) reduction(+ : total)
    for (int64_t b = 0; b < nb; ++b) {
        for (int64_t k = 0; k < n; ++k) {
            const double* __restrict plane = data + ((b * m + k + g) * m + g) * m + g;
            double acc = 0.0;
            for (int64_t j = 0; j < n; ++j) {
#pragma omp simd reduction(+ : acc)
                for (int64_t i = 0; i < n; ++i) acc += plane[j * m + i];
            }
            total += acc;
        }
    }
    return total;
}

}  // extern "C"
