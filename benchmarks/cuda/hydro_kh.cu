// Hand-written CUDA reference for the hydro row of benchmarks/bench_cuda.py: the 2-D
// Kelvin-Helmholtz step of benchmarks/c/hydro_kh.cpp (PLM with the MC limiter on primitive
// variables, HLLC with Einfeldt's wave speeds, SSP-RK2, CFL time step; float64, periodic, one
// global array per variable with two ghost layers), ported the way a CUDA programmer would: one
// thread per cell or face for every pass of the C++ code, the CFL minimum by a shared-memory tree
// per block and a second one-block kernel, the time step left on the device for the updates.
//
// The passes of one step (benchmarks/cuda_peers.py launches them): ghosts_x, ghosts_y, primitives,
// dt_partial, dt_final, copy U -> U0, fluxes_x, fluxes_y, update(0, 1); ghosts_x, ghosts_y,
// primitives, fluxes_x, fluxes_y, update(1/2, 1/2). Every kernel takes one KHArgs by value.

#define KH_NG 2
#define KH_GAMMA (5.0 / 3.0)
#define KH_REDUCE_THREADS 256

struct KHArgs {
    double* u;        // [5][nt][nt] conserved: density, x/y/z momentum, energy
    double* u0;       // the state at the start of the step
    double* w;        // [5][nt][nt] primitives: density, velocity x/y/z, pressure
    double* fx;       // [5][nt][nt] fluxes through the x faces (face i: lower face of cell i)
    double* fy;       // [5][nt][nt] fluxes through the y faces
    double* partial;  // one CFL minimum per block of dt_partial
    double* dt;       // [1] the step's time step
    long long n, nt, npartial;
    double dx, cfl, a, b;  // update: u = a * u0 + b * (u - dt/dx * divergence)
};

__device__ __forceinline__ double kh_min(double a, double b) { return b < a ? b : a; }
__device__ __forceinline__ double kh_max(double a, double b) { return a < b ? b : a; }

__device__ __forceinline__ double kh_mc(double dl, double dr) {
    const double c = 0.5 * (dl + dr);
    const double m = kh_min(kh_min(2.0 * fabs(dl), 2.0 * fabs(dr)), fabs(c));
    return dl * dr > 0.0 ? (c < 0.0 ? -m : m) : 0.0;
}

// x ghosts of the interior rows: thread (v, j, q) copies both sides' column q
extern "C" __global__ void kh_ghosts_x(KHArgs p) {
    const int n = int(p.n), nt = int(p.nt);
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 5 * n * KH_NG) return;
    const int q = t % KH_NG;
    t /= KH_NG;
    const int j = KH_NG + t % n, v = t / n;
    double* row = p.u + (v * nt + j) * nt;
    row[q] = row[q + n];
    row[KH_NG + n + q] = row[KH_NG + q];
}

// y ghosts, whole rows (corners included, after the x ghosts): thread (v, q, i)
extern "C" __global__ void kh_ghosts_y(KHArgs p) {
    const int n = int(p.n), nt = int(p.nt);
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 5 * KH_NG * nt) return;
    const int i = t % nt;
    t /= nt;
    const int q = t % KH_NG, v = t / KH_NG;
    double* a = p.u + v * nt * nt;
    a[q * nt + i] = a[(q + n) * nt + i];
    a[(KH_NG + n + q) * nt + i] = a[(KH_NG + q) * nt + i];
}

// primitives of every cell, ghosts included
extern "C" __global__ void kh_primitives(KHArgs p) {
    const int nt = int(p.nt), plane = nt * nt;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= plane) return;
    const double r = p.u[c], inv = 1.0 / r;
    const double u = p.u[plane + c] * inv, v = p.u[2 * plane + c] * inv, w = p.u[3 * plane + c] * inv;
    p.w[c] = r;
    p.w[plane + c] = u;
    p.w[2 * plane + c] = v;
    p.w[3 * plane + c] = w;
    p.w[4 * plane + c] = (KH_GAMMA - 1.0) * (p.u[4 * plane + c] - 0.5 * r * (u * u + v * v + w * w));
}

// the CFL minimum over the interior: each thread over a grid-stride set of cells, then a tree in
// shared memory; block b writes partial[b] (blockDim.x == KH_REDUCE_THREADS)
extern "C" __global__ void kh_dt_partial(KHArgs p) {
    __shared__ double best[KH_REDUCE_THREADS];
    const int n = int(p.n), nt = int(p.nt), plane = nt * nt;
    double m = 1e300;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n * n; t += gridDim.x * blockDim.x) {
        const int c = (KH_NG + t / n) * nt + KH_NG + t % n;
        const double cs = sqrt(KH_GAMMA * p.w[4 * plane + c] / p.w[c]);
        m = kh_min(m, kh_min(p.dx / (fabs(p.w[plane + c]) + cs), p.dx / (fabs(p.w[2 * plane + c]) + cs)));
    }
    best[threadIdx.x] = m;
    __syncthreads();
    for (int s = KH_REDUCE_THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) best[threadIdx.x] = kh_min(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) p.partial[blockIdx.x] = best[0];
}

// dt = cfl * min(partial): one block of KH_REDUCE_THREADS threads
extern "C" __global__ void kh_dt_final(KHArgs p) {
    __shared__ double best[KH_REDUCE_THREADS];
    double m = 1e300;
    for (int t = threadIdx.x; t < int(p.npartial); t += blockDim.x) m = kh_min(m, p.partial[t]);
    best[threadIdx.x] = m;
    __syncthreads();
    for (int s = KH_REDUCE_THREADS / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) best[threadIdx.x] = kh_min(best[threadIdx.x], best[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) p.dt[0] = p.cfl * best[0];
}

// HLLC flux with Einfeldt's speeds of the states (r, un, ut, w, p) left and right of a face; the
// arithmetic of hydro_kh.cpp's hllc() in the same order
__device__ __forceinline__ void kh_hllc(const double* L, const double* R, double* f) {
    const double gm1 = KH_GAMMA - 1.0;
    const double rl = L[0], ul = L[1], vl = L[2], wl = L[3], pl = L[4];
    const double rr = R[0], ur = R[1], vr = R[2], wr = R[3], pr = R[4];
    const double el = pl / gm1 + 0.5 * rl * (ul * ul + vl * vl + wl * wl);
    const double er = pr / gm1 + 0.5 * rr * (ur * ur + vr * vr + wr * wr);
    const double cl = sqrt(KH_GAMMA * pl / rl), cr = sqrt(KH_GAMMA * pr / rr);
    const double sql = sqrt(rl), sqr = sqrt(rr), inv = 1.0 / (sql + sqr);
    const double ub = (sql * ul + sqr * ur) * inv, vb = (sql * vl + sqr * vr) * inv, wb = (sql * wl + sqr * wr) * inv;
    const double hb = (sql * (el + pl) / rl + sqr * (er + pr) / rr) * inv;
    const double cb = sqrt(kh_max(gm1 * (hb - 0.5 * (ub * ub + vb * vb + wb * wb)), 0.0));
    const double sl = kh_min(ul - cl, ub - cb), sr = kh_max(ur + cr, ub + cb);
    const double ml = rl * (sl - ul), mr = rr * (sr - ur);
    const double sm = (pr - pl + ml * ul - mr * ur) / (ml - mr);
    if (sl >= 0.0) {
        f[0] = rl * ul; f[1] = rl * ul * ul + pl; f[2] = rl * ul * vl; f[3] = rl * ul * wl; f[4] = (el + pl) * ul;
    } else if (sr <= 0.0) {
        f[0] = rr * ur; f[1] = rr * ur * ur + pr; f[2] = rr * ur * vr; f[3] = rr * ur * wr; f[4] = (er + pr) * ur;
    } else if (sm >= 0.0) {
        const double rs = ml / (sl - sm), ps = pl + ml * (sm - ul), es = (el * (sl - ul) + ps * sm - pl * ul) / (sl - sm);
        f[0] = rl * ul + sl * (rs - rl);
        f[1] = rl * ul * ul + pl + sl * (rs * sm - rl * ul);
        f[2] = rl * ul * vl + sl * (rs * vl - rl * vl);
        f[3] = rl * ul * wl + sl * (rs * wl - rl * wl);
        f[4] = (el + pl) * ul + sl * (es - el);
    } else {
        const double rs = mr / (sr - sm), ps = pr + mr * (sm - ur), es = (er * (sr - ur) + ps * sm - pr * ur) / (sr - sm);
        f[0] = rr * ur + sr * (rs - rr);
        f[1] = rr * ur * ur + pr + sr * (rs * sm - rr * ur);
        f[2] = rr * ur * vr + sr * (rs * vr - rr * vr);
        f[3] = rr * ur * wr + sr * (rs * wr - rr * wr);
        f[4] = (er + pr) * ur + sr * (es - er);
    }
}

// one thread per face normal to x (DIR 0: faces i = NG .. NG+n of the interior rows) or y
// (DIR 1: rows j = NG .. NG+n of the interior columns): MC-limited states of the two cells
// beside the face, then the flux, rotated so that the face's normal velocity comes first
template <int DIR>
__device__ __forceinline__ void kh_fluxes(const KHArgs& p) {
    const int n = int(p.n), nt = int(p.nt), plane = nt * nt;
    const int ni = DIR == 0 ? n + 1 : n;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ni * (DIR == 0 ? n : n + 1)) return;
    const int i = KH_NG + t % ni, j = KH_NG + t / ni;
    const int c = j * nt + i, s = DIR == 0 ? 1 : nt;
    const int order[5] = {0, DIR == 0 ? 1 : 2, DIR == 0 ? 2 : 1, 3, 4};  // normal, then tangential
    double L[5], R[5], f[5];
    for (int k = 0; k < 5; ++k) {
        const double* q = p.w + order[k] * plane + c;
        const double dm = 0.5 * kh_mc(q[-s] - q[-2 * s], q[0] - q[-s]);  // the cell below the face
        const double d0 = 0.5 * kh_mc(q[0] - q[-s], q[s] - q[0]);        // the cell above
        L[k] = q[-s] + dm;
        R[k] = q[0] - d0;
    }
    kh_hllc(L, R, f);
    double* F = DIR == 0 ? p.fx : p.fy;
    for (int k = 0; k < 5; ++k) F[order[k] * plane + c] = f[k];
}

extern "C" __global__ void kh_fluxes_x(KHArgs p) { kh_fluxes<0>(p); }
extern "C" __global__ void kh_fluxes_y(KHArgs p) { kh_fluxes<1>(p); }

// u = a u0 + b (u - dt/dx (fx[i+1] - fx[i] + fy[j+1] - fy[j])) on the interior: thread (v, j, i)
extern "C" __global__ void kh_update(KHArgs p) {
    const int n = int(p.n), nt = int(p.nt);
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 5 * n * n) return;
    const int i = KH_NG + t % n;
    t /= n;
    const int j = KH_NG + t % n, v = t / n;
    const int c = (v * nt + j) * nt + i;
    const double k = p.dt[0] / p.dx;
    const double d = k * (p.fx[c + 1] - p.fx[c]) + k * (p.fy[c + nt] - p.fy[c]);
    p.u[c] = p.a * p.u0[c] + p.b * (p.u[c] - d);
}
