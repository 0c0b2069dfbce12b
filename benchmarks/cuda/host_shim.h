// Enough of CUDA's kernel dialect for g++ to run benchmarks/cuda/*.cu on the CPU (the tests check
// the hand-written CUDA references against numpy and the C++ references on machines without a
// GPU). A launch runs the blocks one after another; a kernel without barriers runs its threads as
// a loop, one with __syncthreads() runs them as std::threads meeting at a std::barrier, and
// __shared__ arrays are statics (one block runs at a time, so its threads share them).
#pragma once
#include <math.h>

#include <barrier>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<>* bw_shim_barrier = nullptr;

inline void __syncthreads() { bw_shim_barrier->arrive_and_wait(); }

// geo: grid x, y, z, then block x, y, z
template <class Body>
void bw_shim_run(const long long* geo, bool barriers, Body body) {
    gridDim = {unsigned(geo[0]), unsigned(geo[1]), unsigned(geo[2])};
    blockDim = {unsigned(geo[3]), unsigned(geo[4]), unsigned(geo[5])};
    const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
    for (unsigned bz = 0; bz < gridDim.z; ++bz)
        for (unsigned by = 0; by < gridDim.y; ++by)
            for (unsigned bx = 0; bx < gridDim.x; ++bx) {
                const dim3 block{bx, by, bz};
                auto thread = [&](unsigned t) {
                    blockIdx = block;
                    threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
                    body();
                };
                if (!barriers) {
                    for (unsigned t = 0; t < nthreads; ++t) thread(t);
                    continue;
                }
                std::barrier<> meet(nthreads);
                bw_shim_barrier = &meet;
                std::vector<std::thread> team;
                for (unsigned t = 0; t < nthreads; ++t) team.emplace_back(thread, t);
                for (auto& member : team) member.join();
            }
}
