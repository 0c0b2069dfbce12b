// Hand-written CUDA references for benchmarks/bench_cuda.py: the 7-point Laplacian of
// benchmarks/c/kernels.cpp and the reconstruction-to-flux kernel of benchmarks/c/la_kernels.cpp
// (PLM with minmod, then the HLL flux of Burgers' equation), written the way a CUDA programmer
// would: one thread per output point, int index arithmetic, __restrict__ pointers, neighbours read
// through the caches (no shared memory: on Hopper's 256 KiB L1 a stencil's reuse stays cached).
//
// Every kernel takes its arguments as one struct passed by value (benchmarks/cuda_peers.py packs
// it; 8-byte fields only, so there is no padding to agree on). NVRTC compiles this file for the
// device's architecture; tests/benchmarks/test_cuda_peers.py runs it on the CPU (host_shim.h).

struct LaplacianArgs {
    const float* a;
    float* out;
    long long nz, ny, nx;
};

// out[k, j, i] for 1 <= k, j, i < n - 1; a 3-D grid of blocks over the interior
extern "C" __global__ void laplacian3d_f32(LaplacianArgs p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int k = blockIdx.z * blockDim.z + threadIdx.z + 1;
    const int nx = int(p.nx), ny = int(p.ny), nz = int(p.nz);
    if (i >= nx - 1 || j >= ny - 1 || k >= nz - 1) return;
    const int sy = nx, sz = nx * ny, c = k * sz + j * sy + i;
    const float* __restrict__ a = p.a;
    p.out[c] = a[c - sz] + a[c + sz] + a[c - sy] + a[c + sy] + a[c - 1] + a[c + 1] - 6.0f * a[c];
}

struct ReconFluxArgs {
    const double* q;    // (nb, nk, nj, ni) cells, ng ghosts on every side
    double* flux;       // flux of block b starts flux_block_stride elements after block b-1's
    long long nb, nk, nj, ni, ng, flux_block_stride;
};

__device__ __forceinline__ double minmod(double a, double b) {
    return a * b > 0.0 ? (fabs(a) < fabs(b) ? a : b) : 0.0;
}

__device__ __forceinline__ double hll_burgers(double ul, double ur) {
    const double fl = 0.5 * ul * ul, fr = 0.5 * ur * ur;
    const double lo = ur < ul ? ur : ul, hi = ul < ur ? ur : ul;
    const double sl = 0.0 < lo ? 0.0 : lo, sr = hi < 0.0 ? 0.0 : hi;  // the C reference's selects, signed zeros too
    return sr - sl > 0.0 ? (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl) : 0.0;
}

// One thread per interior x1 face: faces i = ng .. ni-ng of the rows k, j in [ng, n-ng) of every
// block (face i is the lower face of cell i). The left state is cell i-1's plus side, the right
// state cell i's minus side, each reconstructed from the three cells around it.
extern "C" __global__ void recon_flux_f64(ReconFluxArgs p) {
    const int ng = int(p.ng), ni = int(p.ni), nj = int(p.nj), nk = int(p.nk);
    const int nf = ni - 2 * ng + 1, rows_j = nj - 2 * ng, rows_k = nk - 2 * ng;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= int(p.nb) * rows_k * rows_j * nf) return;
    const int i = ng + t % nf;
    t /= nf;
    const int j = ng + t % rows_j;
    t /= rows_j;
    const int k = ng + t % rows_k;
    const int b = t / rows_k;
    const int row = (k * nj + j) * ni;
    const double* __restrict__ q = p.q + (long long)b * nk * nj * ni + row;
    const double qm2 = q[i - 2], qm1 = q[i - 1], q0 = q[i], qp1 = q[i + 1];
    const double plus = qm1 + 0.5 * minmod(qm1 - qm2, q0 - qm1);  // cell i-1, upper side
    const double minus = q0 - 0.5 * minmod(q0 - qm1, qp1 - q0);   // cell i, lower side
    p.flux[b * p.flux_block_stride + row + i] = hll_burgers(plus, minus);
}
