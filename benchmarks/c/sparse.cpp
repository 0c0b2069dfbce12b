// Hand-written OpenMP references for benchmarks/bench_sparse.py: CSR and 3x3-block BSR matrix-vector
// products, COO triplet assembly (duplicates summed in input order), the product A @ A (Gustavson), the
// transpose, and Jacobi-preconditioned conjugate gradients and BiCGSTAB for a fixed iteration count.
// Built by bench_sparse.py with: g++ -O3 -march=native -fopenmp -shared -fPIC sparse.cpp
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

template <class T, int B>
void bsr_mv(int64_t nrow, const int32_t* off, const int32_t* col, const T* val, const T* x, T* y) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < nrow; ++r) {
        T acc[B] = {};
        for (int32_t k = off[r]; k < off[r + 1]; ++k) {
            const T* blk = val + (int64_t)k * B * B;
            const T* xc = x + (int64_t)col[k] * B;
            for (int i = 0; i < B; ++i)
                for (int j = 0; j < B; ++j) acc[i] += blk[i * B + j] * xc[j];
        }
        for (int i = 0; i < B; ++i) y[r * B + i] = acc[i];
    }
}

// Triplets -> compact BSR: a stable counting sort by row (per-thread chunk histograms), then each row's
// entries sorted by column (stable insertion sort: rows are short) and duplicates summed in input order.
// Writes off (nrow + 1), col and val (room for n blocks); returns the block count.
template <class T, int B>
int64_t bsr_from_triplets(int64_t nrow, int64_t ncol, int64_t n, const int32_t* rows, const int32_t* cols,
                          const T* vals, int32_t* off, int32_t* col, T* val) {
    const int nt = omp_get_max_threads();
    std::vector<int64_t> counts((size_t)nt * (nrow + 1), 0);
    std::vector<int32_t> perm(n), pcol(n), width(nrow + 1);
    std::vector<int64_t> start(nrow + 1);
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        int64_t* c = counts.data() + (size_t)t * (nrow + 1);
        for (int64_t i = lo; i < hi; ++i)
            if (rows[i] >= 0 && rows[i] < nrow && cols[i] >= 0 && cols[i] < ncol) ++c[rows[i]];
#pragma omp barrier
#pragma omp single
        {
            int64_t total = 0;
            for (int64_t r = 0; r < nrow; ++r) {
                start[r] = total;
                for (int u = 0; u < nt; ++u) {
                    const int64_t k = counts[(size_t)u * (nrow + 1) + r];
                    counts[(size_t)u * (nrow + 1) + r] = total;
                    total += k;
                }
            }
            start[nrow] = total;
        }
        for (int64_t i = lo; i < hi; ++i)
            if (rows[i] >= 0 && rows[i] < nrow && cols[i] >= 0 && cols[i] < ncol) {
                const int64_t p = c[rows[i]]++;
                perm[p] = (int32_t)i;
                pcol[p] = cols[i];
            }
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t r = 0; r < nrow; ++r) {
            const int64_t a = start[r], b = start[r + 1];
            for (int64_t i = a + 1; i < b; ++i) {  // stable insertion sort by column
                const int32_t c0 = pcol[i], p0 = perm[i];
                int64_t j = i;
                for (; j > a && pcol[j - 1] > c0; --j) {
                    pcol[j] = pcol[j - 1];
                    perm[j] = perm[j - 1];
                }
                pcol[j] = c0;
                perm[j] = p0;
            }
            int32_t w = 0;
            for (int64_t i = a; i < b; ++i) w += (i == a || pcol[i] != pcol[i - 1]);
            width[r] = w;
        }
#pragma omp single
        {
            int32_t total = 0;
            for (int64_t r = 0; r < nrow; ++r) {
                off[r] = total;
                total += width[r];
            }
            off[nrow] = total;
        }
#pragma omp for schedule(static)
        for (int64_t r = 0; r < nrow; ++r) {
            int64_t k = (int64_t)off[r] - 1;
            for (int64_t i = start[r]; i < start[r + 1]; ++i) {
                const T* v = vals + (int64_t)perm[i] * B * B;
                if (i == start[r] || pcol[i] != pcol[i - 1]) {
                    ++k;
                    col[k] = pcol[i];
                    for (int e = 0; e < B * B; ++e) val[k * B * B + e] = v[e];
                } else {
                    for (int e = 0; e < B * B; ++e) val[k * B * B + e] += v[e];
                }
            }
        }
    }
    return off[nrow];
}

// C = A @ A for a square CSR matrix: a symbolic pass (row widths with a per-thread marker), a scan, then the
// numeric pass with a per-thread dense accumulator; each row's columns sorted. C's arrays: room for cap blocks.
template <class T>
int64_t csr_mm(int64_t n, const int32_t* off, const int32_t* col, const T* val, int32_t* coff, int32_t* ccol,
               T* cval, int64_t cap) {
    std::vector<int32_t> width(n);
#pragma omp parallel
    {
        std::vector<int32_t> mark(n, -1);
#pragma omp for schedule(static)
        for (int64_t r = 0; r < n; ++r) {
            int32_t w = 0;
            for (int32_t k = off[r]; k < off[r + 1]; ++k)
                for (int32_t l = off[col[k]]; l < off[col[k] + 1]; ++l)
                    if (mark[col[l]] != r) {
                        mark[col[l]] = (int32_t)r;
                        ++w;
                    }
            width[r] = w;
        }
    }
    int64_t total = 0;
    for (int64_t r = 0; r < n; ++r) {
        coff[r] = (int32_t)total;
        total += width[r];
    }
    coff[n] = (int32_t)total;
    if (total > cap) return -total;
#pragma omp parallel
    {
        std::vector<int32_t> mark(n, -1);
        std::vector<T> acc(n);
#pragma omp for schedule(static)
        for (int64_t r = 0; r < n; ++r) {
            int32_t* out = ccol + coff[r];
            int32_t w = 0;
            for (int32_t k = off[r]; k < off[r + 1]; ++k) {
                const T a = val[k];
                for (int32_t l = off[col[k]]; l < off[col[k] + 1]; ++l) {
                    const int32_t c = col[l];
                    if (mark[c] != r) {
                        mark[c] = (int32_t)r;
                        acc[c] = a * val[l];
                        out[w++] = c;
                    } else {
                        acc[c] += a * val[l];
                    }
                }
            }
            std::sort(out, out + w);
            for (int32_t i = 0; i < w; ++i) cval[coff[r] + i] = acc[out[i]];
        }
    }
    return total;
}

// The transpose of an nrow x ncol CSR matrix: a column histogram, a scan, and a scatter in row order (so each
// output row's columns come out ascending); the scatter is serial, as the usual hand code is.
template <class T>
void csr_transpose(int64_t nrow, int64_t ncol, const int32_t* off, const int32_t* col, const T* val, int32_t* toff,
                   int32_t* tcol, T* tval) {
    const int64_t nnz = off[nrow];
    std::vector<int32_t> next(ncol + 1, 0);
    for (int64_t k = 0; k < nnz; ++k) ++next[col[k] + 1];
    for (int64_t c = 0; c < ncol; ++c) next[c + 1] += next[c];
    std::memcpy(toff, next.data(), sizeof(int32_t) * (ncol + 1));
    for (int64_t r = 0; r < nrow; ++r)
        for (int32_t k = off[r]; k < off[r + 1]; ++k) {
            const int32_t p = next[col[k]]++;
            tcol[p] = (int32_t)r;
            tval[p] = val[k];
        }
}

// `iters` iterations of Jacobi-preconditioned CG on A x = b from x; work: 4 n entries. Returns |r|^2.
template <class T>
double csr_cg(int64_t n, const int32_t* off, const int32_t* col, const T* val, const T* b, T* x, int iters,
              T* work) {
    T *r = work, *z = work + n, *p = work + 2 * n, *q = work + 3 * n;
    std::vector<T> inv(n);
    T rz = 0;
#pragma omp parallel for schedule(static) reduction(+ : rz)
    for (int64_t i = 0; i < n; ++i) {
        T ax = 0, d = 0;
        for (int32_t k = off[i]; k < off[i + 1]; ++k) {
            ax += val[k] * x[col[k]];
            if (col[k] == i) d = val[k];
        }
        inv[i] = d != T(0) ? T(1) / d : T(1);
        r[i] = b[i] - ax;
        z[i] = inv[i] * r[i];
        p[i] = z[i];
        rz += r[i] * z[i];
    }
    for (int it = 0; it < iters; ++it) {
        T pq = 0;
#pragma omp parallel for schedule(static) reduction(+ : pq)
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;
            for (int32_t k = off[i]; k < off[i + 1]; ++k) s += val[k] * p[col[k]];
            q[i] = s;
            pq += p[i] * s;
        }
        const T alpha = pq != T(0) ? rz / pq : T(0);
        T rz_new = 0;
#pragma omp parallel for schedule(static) reduction(+ : rz_new)
        for (int64_t i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = inv[i] * r[i];
            rz_new += r[i] * z[i];
        }
        const T beta = rz != T(0) ? rz_new / rz : T(0);
        rz = rz_new;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
    double rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr)
    for (int64_t i = 0; i < n; ++i) rr += (double)r[i] * r[i];
    return rr;
}

// `iters` iterations of BiCGSTAB with a Jacobi preconditioner on the right (y = M p, z = M r) on A x = b from x;
// work: 7 n entries. Each loop computes the inner products of what it writes, as brickwork's fused iteration.
// Returns |r|^2.
template <class T>
double csr_bicgstab(int64_t n, const int32_t* off, const int32_t* col, const T* val, const T* b, T* x, int iters,
                    T* work) {
    T *r = work, *r0 = work + n, *p = work + 2 * n, *v = work + 3 * n, *t = work + 4 * n, *y = work + 5 * n,
      *z = work + 6 * n;
    std::vector<T> inv(n);
    T rho = 0;
#pragma omp parallel for schedule(static) reduction(+ : rho)
    for (int64_t i = 0; i < n; ++i) {
        T ax = 0, d = 0;
        for (int32_t k = off[i]; k < off[i + 1]; ++k) {
            ax += val[k] * x[col[k]];
            if (col[k] == i) d = val[k];
        }
        inv[i] = d != T(0) ? T(1) / d : T(1);
        r[i] = r0[i] = p[i] = b[i] - ax;
        y[i] = inv[i] * p[i];
        rho += r[i] * r[i];
    }
    T rr = rho;
    for (int it = 0; it < iters; ++it) {
        T r0v = 0;
#pragma omp parallel for schedule(static) reduction(+ : r0v)
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;
            for (int32_t k = off[i]; k < off[i + 1]; ++k) s += val[k] * y[col[k]];
            v[i] = s;
            r0v += r0[i] * s;
        }
        const T alpha = r0v != T(0) ? rho / r0v : T(0);
        rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr)
        for (int64_t i = 0; i < n; ++i) {
            x[i] += alpha * y[i];
            r[i] -= alpha * v[i];
            z[i] = inv[i] * r[i];
            rr += r[i] * r[i];
        }
        T st = 0, tt = 0;
#pragma omp parallel for schedule(static) reduction(+ : st, tt)
        for (int64_t i = 0; i < n; ++i) {
            T s = 0;
            for (int32_t k = off[i]; k < off[i + 1]; ++k) s += val[k] * z[col[k]];
            t[i] = s;
            st += r[i] * s;
            tt += s * s;
        }
        const T omega = tt != T(0) ? st / tt : T(0);
        T rho_new = 0;
        rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr, rho_new)
        for (int64_t i = 0; i < n; ++i) {
            x[i] += omega * z[i];
            r[i] -= omega * t[i];
            rr += r[i] * r[i];
            rho_new += r0[i] * r[i];
        }
        const T beta = (r0v * st) != T(0) ? rho_new * tt / (r0v * st) : T(0);
        const T beta_omega = r0v != T(0) ? rho_new / r0v : T(0);
        rho = rho_new;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; ++i) {
            p[i] = r[i] + beta * p[i] - beta_omega * v[i];
            y[i] = inv[i] * p[i];
        }
    }
    return rr;
}

}  // namespace

extern "C" {
void sp_set_threads(int n) { omp_set_num_threads(n); }

#define SP_TYPED(S, T)                                                                                              \
    void sp_csr_mv_##S(int64_t nrow, const int32_t* off, const int32_t* col, const T* val, const T* x, T* y) {     \
        bsr_mv<T, 1>(nrow, off, col, val, x, y);                                                                    \
    }                                                                                                               \
    void sp_bsr3_mv_##S(int64_t nrow, const int32_t* off, const int32_t* col, const T* val, const T* x, T* y) {    \
        bsr_mv<T, 3>(nrow, off, col, val, x, y);                                                                    \
    }                                                                                                               \
    int64_t sp_csr_triplets_##S(int64_t nrow, int64_t ncol, int64_t n, const int32_t* rows, const int32_t* cols,  \
                                const T* vals, int32_t* off, int32_t* col, T* val) {                               \
        return bsr_from_triplets<T, 1>(nrow, ncol, n, rows, cols, vals, off, col, val);                             \
    }                                                                                                               \
    int64_t sp_bsr3_triplets_##S(int64_t nrow, int64_t ncol, int64_t n, const int32_t* rows, const int32_t* cols, \
                                 const T* vals, int32_t* off, int32_t* col, T* val) {                              \
        return bsr_from_triplets<T, 3>(nrow, ncol, n, rows, cols, vals, off, col, val);                             \
    }                                                                                                               \
    int64_t sp_csr_mm_##S(int64_t n, const int32_t* off, const int32_t* col, const T* val, int32_t* coff,         \
                          int32_t* ccol, T* cval, int64_t cap) {                                                    \
        return csr_mm<T>(n, off, col, val, coff, ccol, cval, cap);                                                  \
    }                                                                                                               \
    void sp_csr_transpose_##S(int64_t nrow, int64_t ncol, const int32_t* off, const int32_t* col, const T* val,   \
                              int32_t* toff, int32_t* tcol, T* tval) {                                              \
        csr_transpose<T>(nrow, ncol, off, col, val, toff, tcol, tval);                                              \
    }                                                                                                               \
    double sp_csr_cg_##S(int64_t n, const int32_t* off, const int32_t* col, const T* val, const T* b, T* x,        \
                         int iters, T* work) {                                                                      \
        return csr_cg<T>(n, off, col, val, b, x, iters, work);                                                      \
    }                                                                                                               \
    double sp_csr_bicgstab_##S(int64_t n, const int32_t* off, const int32_t* col, const T* val, const T* b, T* x,  \
                               int iters, T* work) {                                                                \
        return csr_bicgstab<T>(n, off, col, val, b, x, iters, work);                                                \
    }

SP_TYPED(f32, float)
SP_TYPED(f64, double)
}
