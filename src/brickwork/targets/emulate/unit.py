"""The translation unit of a GPU-mapped instance on the emulation target.

Functions the kernel calls render as on the CPU; the kernel becomes ``run_block`` (one thread block:
per-thread locals, static shared buffers, phases between barriers, see ``render.py``), and
``run`` calls it for every block of the grid that ``IRFunction.gpu_launch`` describes (blocks
run in parallel with OpenMP, as independent blocks may on a GPU). The entry point and the packed
argument buffer are the CPU target's, so the host launches it unchanged.
"""

from __future__ import annotations

from ... import ir
from ...types.type_sizes import type_size_in_bytes
from ..cpu.cnames import c_type
from ..cpu.render import CppRenderer, local
from ..cpu.unit import UnitScan, _entry, _function, struct_declarations
from ..cuda.geometry import POINT_TILES_CPP, ROW_GRID_CPP, SLICE_GRID_CPP
from .render import EmulationRenderer

OVERFLOW_SYMBOL = "bw_emu_scratch_overflow"  # the first scratch allocation beyond a block's arena, if any

# The block's scratch arena and what allocates from it. One OS thread runs a block at a time, so a
# thread-local buffer is the block's; every thread of the block gets the same arena, as every GPU
# thread sees the same shared memory.
_PRELUDE = r"""
namespace bwemu {
struct arena_buffer {
    char* data = nullptr;
    int64_t capacity = 0;
    ~arena_buffer() { __builtin_free(data); }
};
inline bw::team arena(int64_t bytes, int64_t shared_limit) {
    (void)shared_limit;  // shared or global memory on a GPU: the same on the CPU
    static thread_local arena_buffer buffer;
    if (bytes > buffer.capacity) {
        __builtin_free(buffer.data);
        buffer.capacity = (bytes + 4095) & ~(int64_t)4095;
        buffer.data = static_cast<char*>(__builtin_malloc((size_t)buffer.capacity));
    }
    return bw::team{buffer.data, 0, bytes};
}
// Scratch beyond the arena: on a GPU the arena is all a block has (a team's is the bytes par_for_outer
// requests). The first overflow is recorded and reported after the launch; the thread goes on in a
// private buffer so that the launch ends.
struct overflow_state {
    int set = 0;
    long long need = 0, capacity = 0;
};
inline overflow_state g_overflow;
template <class T, int D, class... N> inline bw::array_t<T, D> scratch(bw::team& m, N... n) {
    const int64_t dims[D] = {(int64_t)n...};
    const int64_t nbytes = bw::pad_bytes<T>(dims);  // sizes past 2**61 bytes stop here, as on the CPU
    constexpr int64_t align = (int64_t)alignof(T);  // as the CUDA mapping places pieces (brickwork_cuda.h)
    int64_t end = ((m.used + align - 1) & ~(align - 1)) + nbytes;
    if (end > m.capacity) {
        #pragma omp critical(bwemu_overflow)
        if (!g_overflow.set) g_overflow = overflow_state{1, (long long)end, (long long)m.capacity};
        bw::team spill = bw::team_begin(nbytes);
        return bw::team_alloc<T, D, align>(spill, n...);
    }
    return bw::team_alloc<T, D, align>(m, n...);
}
// A block of a launch in tiles (targets/cuda/geometry.py): its index, its shape and the grid's; the
// block's threads are numbered x fastest, as CUDA numbers them.
struct grid3 {
    int32_t block[3];
    int32_t block_dim[3];
    int32_t grid_dim[3];
    int32_t thread(int d, int32_t t) const {
        return d == 0 ? t % block_dim[0] : d == 1 ? t / block_dim[0] % block_dim[1] : t / (block_dim[0] * block_dim[1]);
    }
};
%s
// the block `blk` of a launch: a tile or a slice where `t` is a 3-D grid, else block `blk` of `nblk` rows of
// `threads` points (or of one slice each)
inline grid3 launch_block(bool tiled, const tiles& t, int64_t blk, int64_t nblk, int32_t threads) {
    if (!tiled) return grid3{{(int32_t)blk, 0, 0}, {threads, 1, 1}, {(int32_t)nblk, 1, 1}};
    const int64_t gx = t.grid[0], gy = t.grid[1];
    return grid3{{(int32_t)(blk % gx), (int32_t)(blk / gx % gy), (int32_t)(blk / (gx * gy))},
                 {t.block[0], t.block[1], t.block[2]}, {(int32_t)gx, (int32_t)gy, (int32_t)t.grid[2]}};
}
// a break out of a loop that encloses a block barrier taken by some threads of the block and not others: on a
// GPU the others would wait at a barrier the leavers never reach (undefined); here the process stops
[[noreturn]] inline void divergent_break() {
    std::fprintf(stderr, "brickwork (cuda-emulation): a break out of a loop that encloses a block barrier was taken "
                         "by some threads of a block and not by others (undefined on a GPU)\n");
    std::fflush(stderr);
    __builtin_abort();
}
template <class T> inline bw::array_t<T, 1> view(T* data, int64_t count) {
    bw::array_t<T, 1> a;
    a.data = data;
    a.shape[0] = count;
    a.strides[0] = 1;
    return a;
}
}  // namespace bwemu
"""
PRELUDE = _PRELUDE.replace("%s", POINT_TILES_CPP + SLICE_GRID_CPP + ROW_GRID_CPP)


def render_translation_unit(kernel: ir.IRFunction, callees: list, label: str, general_strides: bool = False) -> str:
    """C++ source of one GPU-mapped kernel instance, its functions and structs (the unit-stride body
    only unless ``general_strides``: see ``cpu.unit._entry``)."""
    launch = kernel.gpu_launch
    if launch is None:
        raise ValueError(f"{label}: the kernel was not mapped to a GPU grid (run the GPU pass list first)")
    scan = UnitScan([*callees, kernel])
    out = [f"// brickwork kernel instance {label} (cuda-emulation)", '#include "brickwork.h"', "#include <cstdio>",
           "#include <cstdlib>", *scan.includes, "namespace {", PRELUDE]
    out.extend(struct_declarations(scan))
    cpu = CppRenderer()
    for fn in callees:
        out.extend(_function(cpu, fn, id(fn) in scan.taped))
    out.extend(_kernel(kernel, launch))
    out.append("}  // namespace")
    out.extend(_entry(kernel, scan.slices_arrays, general_strides))
    out += [f'extern "C" BW_EXPORT int {OVERFLOW_SYMBOL}(long long* need, long long* capacity) {{',
            "    if (!bwemu::g_overflow.set) return 0;",
            "    *need = bwemu::g_overflow.need; *capacity = bwemu::g_overflow.capacity;",
            "    bwemu::g_overflow.set = 0;", "    return 1;", "}"]
    if scan.checked:
        from ..cpu import BOUNDS_SYMBOL

        out += [f'extern "C" BW_EXPORT int {BOUNDS_SYMBOL}(char* out, int size) {{',
                "    return bw::take_bounds_error(out, size);", "}"]
    return "\n".join(out) + "\n"


#: Bytes of per-thread arrays a block keeps on its OS thread's stack; a larger frame (the many locals of a
#: big backward kernel, times the block size, overflowed an 8 MiB stack) is allocated on the heap per block.
FRAME_STACK_LIMIT = 1 << 20


def _frame_bytes(fn: ir.IRFunction, block: int) -> int:
    """An upper estimate of the bytes of a block's per-thread arrays (a type without a known size counts 256)."""
    def size(t) -> int:
        try:
            return type_size_in_bytes(t)
        except (TypeError, AttributeError, KeyError):
            return 256
    total = sum(size(t) for t in fn.locals.values()) + sum(size(t) for _, t in fn.params)
    total += sum(size(dt) * count for dt, count in fn.buffers.values())
    if ir.contains(fn.body, ir.IRPush):
        total += 528
    return total * block


def _kernel(fn: ir.IRFunction, launch: dict) -> list[str]:
    block, dims = launch["block"], fn.tid_dims
    counts = ir.assignment_counts(fn.body)
    assigned = {n for n, _ in fn.params if counts.get(n, 0)}
    per_thread = set(fn.locals) | set(fn.buffers) | assigned
    tiles = bool(launch.get("tiles"))
    slices = launch["grid"] == "slices" and dims >= 2  # a grid of slices (cuda/geometry.slice_grid)
    grid3 = ", const bwemu::grid3& _g" if tiles or slices else ""
    r = EmulationRenderer(per_thread, block, tiles, slices).begin(fn)
    params = [(local(n), c_type(t), n in assigned) for n, t in fn.params]
    lines = ["struct Args {"]
    lines += [f"    {t} {n};" for n, t, _ in params] or ["    char unused;"]
    lines += ["};", "", f"constexpr int32_t BW_BLOCK = {block};", "", "template <bool UNIT>",
              "static void run_block(const Args& a, " + "".join(f"const int32_t n{d}, " for d in range(dims))
              + "const int64_t _blk, const int64_t _nblk" + grid3 + ") {"]
    frame = []  # (declaration, name): the per-thread arrays of the block
    frame += [(f"{t} {n}[BW_BLOCK];", n) for n, t, mine in params if mine]  # an assigned parameter: per thread
    frame += [(f"{c_type(t)} {local(n)}[BW_BLOCK]{{}};", local(n)) for n, t in fn.locals.items()]
    frame += [(f"bw::local_buf<{c_type(dt)}, {count}> {local(n)}[BW_BLOCK]{{}};", local(n))
              for n, (dt, count) in fn.buffers.items()]
    if ir.contains(fn.body, ir.IRPush):  # a backward kernel's saves: one stack per thread
        frame.append(("bw::tape_stack bw_tape[BW_BLOCK];", "bw_tape"))
    on_heap = _frame_bytes(fn, block) > FRAME_STACK_LIMIT
    if on_heap:  # too large for a thread's stack (a big backward kernel): one heap frame per block
        lines += ["    struct Frame {"] + ["        " + decl for decl, _ in frame] + ["    };",
                  "    struct FrameOwner { Frame* p; ~FrameOwner() { delete p; } } _frame{new Frame()};"]
        lines += [f"    auto& {n} = _frame.p->{n};" for _, n in frame]
    for n, t, mine in params:
        if mine:  # an assigned parameter is a local of each thread
            lines += [] if on_heap else [f"    {t} {n}[BW_BLOCK];"]
            lines.append(f"    for (int32_t _u = 0; _u < BW_BLOCK; ++_u) {n}[_u] = a.{n};")
        else:
            lines.append(f"    const {t} {n} = a.{n};")
    if not on_heap:  # the assigned parameters' arrays are declared above
        lines += ["    " + decl for decl, n in frame if n not in {p for p, _, mine in params if mine}]
    shared = {}
    for node in ir.walk(fn.body):
        if isinstance(node, ir.IRSharedBuffer):
            shared[node.name] = node
    lines += [f"    {c_type(b.type.dtype)} sh_{n}[{b.count}];" for n, b in shared.items()]
    lines += ["    int32_t _off[BW_BLOCK] = {};  // a thread that returned (1) or left a region (its id)",
              "    int32_t _t = 0;", "    (void)_blk; (void)_nblk;" + (" (void)_g;" if tiles or slices else "")]
    lines += [f"    (void)n{d};" for d in range(dims)]
    lines += r.body(fn.body, 4)
    lines += ["}", "", "template <bool UNIT>", "static void run(const bw::launch_header& h, const Args& a) {"]
    lines += [f"    const int32_t n{d} = (int32_t)h.dim[{d}];" for d in range(dims)]
    points = " * ".join(f"(int64_t)n{d}" for d in range(dims))
    per_block = "BW_BLOCK" + (f" * {launch['per_thread']}" if launch.get("per_thread", 1) > 1 else "")
    grid = f"({points} + {per_block} - 1) / ({per_block})" if launch["grid"] == "points" else points
    args = "".join(f"n{d}, " for d in range(dims))
    if not tiles and not slices:
        lines += [f"    const int64_t nblk = {grid};",
                  "    #pragma omp parallel for if(h.parallel) num_threads(h.nthreads) schedule(static)",
                  f"    for (int64_t blk = 0; blk < nblk; ++blk) run_block<UNIT>(a, {args}blk, nblk);", "}", ""]
        return lines
    extents = ", ".join(f"(int64_t)n{d}" for d in range(dims))
    lines += [f"    const int64_t extents[] = {{{extents}}};", "    bwemu::tiles t{};"]
    if slices and launch.get("rows") and dims == 2:  # a bovi i_pencil launch: a grid of rows where it can
        js, je = (f"(int64_t)a.{local(n)}" for n in launch["rows"])
        lines += ["    int64_t rows = 0;",
                  f"    const bool tiled = bwemu::row_grid(extents, {je} - {js} + 1, BW_BLOCK, t, rows);"]
    elif slices:  # a grid of slices: a block past the rows of slices returns at once on a GPU, so it is not run
        lines += ["    int64_t rows = 0;",
                  f"    const bool tiled = bwemu::slice_grid(extents, {dims}, BW_BLOCK, t, rows);"]
    else:
        lines += [f"    const bool tiled = bwemu::point_tiles(extents, {dims}, BW_BLOCK, t);"]
    lines += [f"    const int64_t nblk = tiled ? t.grid[0] * t.grid[1] * t.grid[2] : {grid};",
              "    #pragma omp parallel for if(h.parallel) num_threads(h.nthreads) schedule(static)",
              "    for (int64_t blk = 0; blk < nblk; ++blk) {",
              "        const bwemu::grid3 g = bwemu::launch_block(tiled, t, blk, nblk, BW_BLOCK);"]
    if slices:
        lines += ["        if (tiled && g.block[1] + (int64_t)g.grid_dim[1] * g.block[2] >= rows) continue;"]
    lines += [f"        run_block<UNIT>(a, {args}blk, nblk, g);", "    }", "}", ""]
    return lines


__all__ = ["render_translation_unit"]
