// Hand-written C++/OpenMP reference for benchmarks/bench_hydro.py: 2-D Kelvin-Helmholtz with the
// scheme of brickwork.apps.hydro (PLM with the MC limiter on primitive variables, HLLC with
// Einfeldt's wave speeds, SSP-RK2, CFL time step), float64, periodic, one global array with two
// ghost layers (the natural way to write it by hand).
//
//   g++ -O3 -march=native -fopenmp -fno-math-errno hydro_kh.cpp -o hydro_kh
//
// -fno-math-errno (brickwork builds its kernels with it too): without it g++ keeps errno for sqrt
// and cannot vectorize the Riemann solver's loops.
//   ./hydro_kh N STEPS [OUT.bin]     -> prints "zone_cycles_per_s <x> dt <first dt> mass <total>"
//
// The initial state is the one of brickwork's kelvin_helmholtz problem (defaults), so both codes
// compute the same thing; with OUT.bin the final density (N*N doubles, row-major) is written.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int NG = 2;
constexpr double GAMMA = 5.0 / 3.0;
constexpr double CFL = 0.4;

struct Grid {
    int n, nt;  // interior cells per side, total with ghosts
    double dx;
    std::vector<double> u, u0, w, fx, fy;  // [5][nt][nt]
    double* U(int v) { return u.data() + size_t(v) * nt * nt; }
    double* U0(int v) { return u0.data() + size_t(v) * nt * nt; }
    double* W(int v) { return w.data() + size_t(v) * nt * nt; }
    double* FX(int v) { return fx.data() + size_t(v) * nt * nt; }
    double* FY(int v) { return fy.data() + size_t(v) * nt * nt; }
};

__attribute__((always_inline)) inline double mc(double dl, double dr) {
    double c = 0.5 * (dl + dr);
    double m = std::min(std::min(2.0 * std::fabs(dl), 2.0 * std::fabs(dr)), std::fabs(c));
    return dl * dr > 0.0 ? (c < 0.0 ? -m : m) : 0.0;
}

__attribute__((always_inline)) inline void hllc(double rl, double ul, double vl, double wl, double pl, double rr, double ur, double vr, double wr,
                 double pr, double& f0, double& f1, double& f2, double& f3, double& f4) {
    const double gm1 = GAMMA - 1.0;
    double el = pl / gm1 + 0.5 * rl * (ul * ul + vl * vl + wl * wl);
    double er = pr / gm1 + 0.5 * rr * (ur * ur + vr * vr + wr * wr);
    double cl = std::sqrt(GAMMA * pl / rl), cr = std::sqrt(GAMMA * pr / rr);
    double sql = std::sqrt(rl), sqr = std::sqrt(rr), inv = 1.0 / (sql + sqr);
    double ub = (sql * ul + sqr * ur) * inv, vb = (sql * vl + sqr * vr) * inv, wb = (sql * wl + sqr * wr) * inv;
    double hb = (sql * (el + pl) / rl + sqr * (er + pr) / rr) * inv;
    double cb = std::sqrt(std::max(gm1 * (hb - 0.5 * (ub * ub + vb * vb + wb * wb)), 0.0));
    double sl = std::min(ul - cl, ub - cb), sr = std::max(ur + cr, ub + cb);
    double ml = rl * (sl - ul), mr = rr * (sr - ur);
    double sm = (pr - pl + ml * ul - mr * ur) / (ml - mr);
    // both sides' flux and star state, then select (branch-free so the loop vectorizes)
    double fl0 = rl * ul, fl1 = rl * ul * ul + pl, fl2 = rl * ul * vl, fl3 = rl * ul * wl, fl4 = (el + pl) * ul;
    double fr0 = rr * ur, fr1 = rr * ur * ur + pr, fr2 = rr * ur * vr, fr3 = rr * ur * wr, fr4 = (er + pr) * ur;
    double rsl = ml / (sl - sm), psl = pl + ml * (sm - ul), esl = (el * (sl - ul) + psl * sm - pl * ul) / (sl - sm);
    double rsr = mr / (sr - sm), psr = pr + mr * (sm - ur), esr = (er * (sr - ur) + psr * sm - pr * ur) / (sr - sm);
    double a0 = fl0 + sl * (rsl - rl), a1 = fl1 + sl * (rsl * sm - rl * ul), a2 = fl2 + sl * (rsl * vl - rl * vl),
           a3 = fl3 + sl * (rsl * wl - rl * wl), a4 = fl4 + sl * (esl - el);
    double b0 = fr0 + sr * (rsr - rr), b1 = fr1 + sr * (rsr * sm - rr * ur), b2 = fr2 + sr * (rsr * vr - rr * vr),
           b3 = fr3 + sr * (rsr * wr - rr * wr), b4 = fr4 + sr * (esr - er);
    bool L = sl >= 0.0, R = sr <= 0.0, SL = sm >= 0.0;
    f0 = L ? fl0 : R ? fr0 : SL ? a0 : b0;
    f1 = L ? fl1 : R ? fr1 : SL ? a1 : b1;
    f2 = L ? fl2 : R ? fr2 : SL ? a2 : b2;
    f3 = L ? fl3 : R ? fr3 : SL ? a3 : b3;
    f4 = L ? fl4 : R ? fr4 : SL ? a4 : b4;
}

void ghosts(Grid& g) {
    const int n = g.n, nt = g.nt;
    #pragma omp parallel for collapse(2)
    for (int v = 0; v < 5; ++v)
        for (int j = NG; j < NG + n; ++j) {
            double* row = g.U(v) + size_t(j) * nt;
            for (int q = 0; q < NG; ++q) {
                row[q] = row[q + n];
                row[NG + n + q] = row[NG + q];
            }
        }
    #pragma omp parallel for collapse(2)
    for (int v = 0; v < 5; ++v)
        for (int q = 0; q < NG; ++q) {
            double* a = g.U(v);
            std::copy(a + size_t(q + n) * nt, a + size_t(q + n + 1) * nt, a + size_t(q) * nt);
            std::copy(a + size_t(NG + q) * nt, a + size_t(NG + q + 1) * nt, a + size_t(NG + n + q) * nt);
        }
}

void primitives(Grid& g) {
    const int nt = g.nt;
    double *r = g.U(0), *mx = g.U(1), *my = g.U(2), *mz = g.U(3), *e = g.U(4);
    double *wr = g.W(0), *wu = g.W(1), *wv = g.W(2), *ww = g.W(3), *wpr = g.W(4);
    #pragma omp parallel for
    for (int j = 0; j < nt; ++j) {
        #pragma omp simd
        for (int i = j * nt; i < (j + 1) * nt; ++i) {
            double inv = 1.0 / r[i], u = mx[i] * inv, v = my[i] * inv, w = mz[i] * inv;
            wr[i] = r[i];
            wu[i] = u;
            wv[i] = v;
            ww[i] = w;
            wpr[i] = (GAMMA - 1.0) * (e[i] - 0.5 * r[i] * (u * u + v * v + w * w));
        }
    }
}

// Fluxes through the faces normal to x (DIR 0, stride 1) or y (DIR 1, stride nt): the face at
// index i is the lower face of cell i. Per row of faces: reconstruct into row buffers (simd), then
// solve every face of the row (simd).
template <int DIR>
void fluxes(Grid& g) {
    const int n = g.n, nt = g.nt;
    const int s = DIR == 0 ? 1 : nt;
    constexpr int VN = DIR == 0 ? 1 : 2, VT = DIR == 0 ? 2 : 1;
    double* __restrict F0 = DIR == 0 ? g.FX(0) : g.FY(0);
    double* __restrict FN = DIR == 0 ? g.FX(VN) : g.FY(VN);
    double* __restrict FT = DIR == 0 ? g.FX(VT) : g.FY(VT);
    double* __restrict F3 = DIR == 0 ? g.FX(3) : g.FY(3);
    double* __restrict F4 = DIR == 0 ? g.FX(4) : g.FY(4);
    const int jhi = DIR == 0 ? NG + n : NG + n + 1;  // y faces: n + 1 rows
    #pragma omp parallel
    {
        std::vector<double> buf(size_t(10) * nt);
        // left states (upper face of the cell below/left) and right states (lower face of the cell)
        double* __restrict L[5];
        double* __restrict R[5];
        for (int v = 0; v < 5; ++v) {
            L[v] = buf.data() + size_t(v) * nt;
            R[v] = buf.data() + size_t(5 + v) * nt;
        }
        const int ilo = NG, ihi = DIR == 0 ? NG + n + 1 : NG + n;
        #pragma omp for schedule(static)
        for (int j = NG; j < jhi; ++j) {
            const int base = j * nt;
            for (int v = 0; v < 5; ++v) {
                const double* __restrict q = g.W(v) + base;
                double* __restrict l = L[v];
                double* __restrict r = R[v];
                #pragma omp simd
                for (int i = ilo; i < ihi; ++i) {
                    double dm = 0.5 * mc(q[i - s] - q[i - 2 * s], q[i] - q[i - s]);  // the cell below the face
                    double d0 = 0.5 * mc(q[i] - q[i - s], q[i + s] - q[i]);          // the cell above
                    l[i] = q[i - s] + dm;
                    r[i] = q[i] - d0;
                }
            }
            #pragma omp simd
            for (int i = ilo; i < ihi; ++i) {
                double f0, f1, f2, f3, f4;
                hllc(L[0][i], L[VN][i], L[VT][i], L[3][i], L[4][i], R[0][i], R[VN][i], R[VT][i], R[3][i], R[4][i], f0, f1,
                     f2, f3, f4);
                F0[base + i] = f0;
                FN[base + i] = f1;
                FT[base + i] = f2;
                F3[base + i] = f3;
                F4[base + i] = f4;
            }
        }
    }
}

void update(Grid& g, double a, double b, double dt) {
    const int n = g.n, nt = g.nt;
    const double c = dt / g.dx;
    #pragma omp parallel for collapse(2)
    for (int v = 0; v < 5; ++v)
        for (int j = NG; j < NG + n; ++j) {
            double *u = g.U(v) + size_t(j) * nt, *u0 = g.U0(v) + size_t(j) * nt;
            const double *fx = g.FX(v) + size_t(j) * nt, *fy = g.FY(v) + size_t(j) * nt;
            #pragma omp simd
            for (int i = NG; i < NG + n; ++i) {
                double d = c * (fx[i + 1] - fx[i]) + c * (fy[i + nt] - fy[i]);
                u[i] = a * u0[i] + b * (u[i] - d);
            }
        }
}

double new_dt(Grid& g) {
    const int n = g.n, nt = g.nt;
    double best = 1e300;
    #pragma omp parallel for reduction(min : best)
    for (int j = NG; j < NG + n; ++j) {
        const double *r = g.W(0) + size_t(j) * nt, *u = g.W(1) + size_t(j) * nt, *v = g.W(2) + size_t(j) * nt,
                     *p = g.W(4) + size_t(j) * nt;
        #pragma omp simd reduction(min : best)
        for (int i = NG; i < NG + n; ++i) {
            double cs = std::sqrt(GAMMA * p[i] / r[i]);
            best = std::min(best, std::min(g.dx / (std::fabs(u[i]) + cs), g.dx / (std::fabs(v[i]) + cs)));
        }
    }
    return CFL * best;
}

void stage(Grid& g, double a, double b, double dt) {
    ghosts(g);
    primitives(g);
    fluxes<0>(g);
    fluxes<1>(g);
    update(g, a, b, dt);
}

double step(Grid& g) {
    ghosts(g);
    primitives(g);
    double dt = new_dt(g);
    g.u0 = g.u;
    fluxes<0>(g);
    fluxes<1>(g);
    update(g, 0.0, 1.0, dt);
    stage(g, 0.5, 0.5, dt);
    return dt;
}

// brickwork's kelvin_helmholtz defaults (see src/brickwork/apps/hydro/problems/kelvin_helmholtz.py)
void initial(Grid& g) {
    const double pi = 3.14159265358979323846;
    const double drho = 1.0, shear = 0.5, a = 0.025, sigma = 0.1, amp = 0.01, p0 = 2.5, mode = 2.0;
    for (int j = NG; j < NG + g.n; ++j)
        for (int i = NG; i < NG + g.n; ++i) {
            double x = (i - NG + 0.5) * g.dx, y = (j - NG + 0.5) * g.dx;
            double prof = std::tanh((y - 0.25) / a) - std::tanh((y - 0.75) / a);
            double rho = 1.0 + drho * 0.5 * prof;
            double vx = shear * (prof - 1.0);
            double vy = amp * std::sin(2.0 * pi * mode * x) *
                        (std::exp(-(y - 0.25) * (y - 0.25) / (sigma * sigma)) +
                         std::exp(-(y - 0.75) * (y - 0.75) / (sigma * sigma)));
            size_t k = size_t(j) * g.nt + i;
            g.U(0)[k] = rho;
            g.U(1)[k] = rho * vx;
            g.U(2)[k] = rho * vy;
            g.U(3)[k] = 0.0;
            g.U(4)[k] = p0 / (GAMMA - 1.0) + 0.5 * rho * (vx * vx + vy * vy);
        }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s N STEPS [OUT.bin]\n", argv[0]);
        return 2;
    }
    Grid g;
    g.n = std::atoi(argv[1]);
    g.nt = g.n + 2 * NG;
    g.dx = 1.0 / g.n;
    size_t total = size_t(5) * g.nt * g.nt;
    g.u.assign(total, 1.0);
    g.u0.assign(total, 0.0);
    g.w.assign(total, 0.0);
    g.fx.assign(total, 0.0);
    g.fy.assign(total, 0.0);
    initial(g);
    int steps = std::atoi(argv[2]);
    double first = step(g);  // warm-up (pages, threads)
    auto t0 = std::chrono::steady_clock::now();
    for (int s = 1; s < steps; ++s) step(g);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double mass = 0.0;
    for (int j = NG; j < NG + g.n; ++j)
        for (int i = NG; i < NG + g.n; ++i) mass += g.U(0)[size_t(j) * g.nt + i];
    std::printf("zone_cycles_per_s %.6e dt %.17g mass %.17g\n", double(g.n) * g.n * (steps - 1) / secs, first,
                mass * g.dx * g.dx);
    if (argc > 3) {
        FILE* f = std::fopen(argv[3], "wb");
        for (int j = NG; j < NG + g.n; ++j) std::fwrite(g.U(0) + size_t(j) * g.nt + NG, sizeof(double), g.n, f);
        std::fclose(f);
    }
    return 0;
}
