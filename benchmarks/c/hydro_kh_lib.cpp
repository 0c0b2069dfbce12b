// hydro_kh.cpp as a shared library, so that the benchmark harness can time one step at a time in
// the same process as brickwork (benchmarks/cases.py, case hydro_kh_step). Built by cnative.py
// with the hydro flags: `g++ -O3 -march=native -fopenmp -fno-math-errno -shared -fPIC`.
#define main hydro_kh_main
#include "hydro_kh.cpp"
#undef main

extern "C" {

void* hydro_kh_create(int n) {
    Grid* g = new Grid;
    g->n = n;
    g->nt = n + 2 * NG;
    g->dx = 1.0 / n;
    size_t total = size_t(5) * g->nt * g->nt;
    g->u.assign(total, 1.0);
    g->u0.assign(total, 0.0);
    g->w.assign(total, 0.0);
    g->fx.assign(total, 0.0);
    g->fy.assign(total, 0.0);
    initial(*g);
    return g;
}

double hydro_kh_step(void* grid) { return step(*static_cast<Grid*>(grid)); }

// The interior density, n*n doubles, row-major.
void hydro_kh_density(void* grid, double* out) {
    Grid& g = *static_cast<Grid*>(grid);
    for (int j = NG; j < NG + g.n; ++j)
        for (int i = 0; i < g.n; ++i) out[size_t(j - NG) * g.n + i] = g.U(0)[size_t(j) * g.nt + NG + i];
}

void hydro_kh_destroy(void* grid) { delete static_cast<Grid*>(grid); }

}  // extern "C"
