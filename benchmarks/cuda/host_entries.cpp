// The CUDA references on the CPU (host_shim.h): bw_shim_launch(name, geo, params) runs kernel
// `name` over the grid and blocks of geo with its argument struct copied from params, as
// cuLaunchKernel would. Built by benchmarks/cuda_peers.py (HostRunner) for the tests.
#include "host_shim.h"

#include <cstring>

#include "hydro_kh.cu"
#include "kernels.cu"

namespace {

template <class Args>
void run(void (*kernel)(Args), const long long* geo, const void* params, bool barriers) {
    Args args;
    std::memcpy(&args, params, sizeof args);
    bw_shim_run(geo, barriers, [&] { kernel(args); });
}

}  // namespace

extern "C" int bw_shim_launch(const char* name, const long long* geo, const void* params) {
    struct Entry {
        const char* name;
        void (*launch)(const long long*, const void*);
    };
    static const Entry entries[] = {
        {"laplacian3d_f32", [](const long long* g, const void* p) { run(laplacian3d_f32, g, p, false); }},
        {"recon_flux_f64", [](const long long* g, const void* p) { run(recon_flux_f64, g, p, false); }},
        {"kh_ghosts_x", [](const long long* g, const void* p) { run(kh_ghosts_x, g, p, false); }},
        {"kh_ghosts_y", [](const long long* g, const void* p) { run(kh_ghosts_y, g, p, false); }},
        {"kh_primitives", [](const long long* g, const void* p) { run(kh_primitives, g, p, false); }},
        {"kh_dt_partial", [](const long long* g, const void* p) { run(kh_dt_partial, g, p, true); }},
        {"kh_dt_final", [](const long long* g, const void* p) { run(kh_dt_final, g, p, true); }},
        {"kh_fluxes_x", [](const long long* g, const void* p) { run(kh_fluxes_x, g, p, false); }},
        {"kh_fluxes_y", [](const long long* g, const void* p) { run(kh_fluxes_y, g, p, false); }},
        {"kh_update", [](const long long* g, const void* p) { run(kh_update, g, p, false); }},
    };
    for (const Entry& e : entries)
        if (std::strcmp(e.name, name) == 0) {
            e.launch(geo, params);
            return 0;
        }
    return 1;  // no such kernel
}
