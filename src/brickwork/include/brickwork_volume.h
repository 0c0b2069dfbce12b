// brickwork runtime: sparse volumes (wp.Volume), NanoVDB grids read in kernels. A separate header,
// included only by generated units that call a volume builtin.
//
// A volume's id is the address of its grid buffer on the kernel's device: the GridData header (672
// bytes, with the index-to-world map), the TreeData header (64 bytes, node offsets and counts), then
// the root (background value and a list of tiles keyed by their coordinates >> 12), the upper nodes
// (32^3 children of 128^3 voxels each), the lower nodes (16^3 children of 8^3 voxels) and the leaves
// (8^3 voxels). A coordinate's value is the leaf's voxel, else the value of the tile covering it at
// the level where the tree stops (lower, upper or root tile), else the background. Offsets inside
// the nodes depend on the grid's value type (the table in `layout_of`, which runtime/nanovdb/layout.py
// states for the host).
//
// Semantics as Warp 1.19: a sampler whose value type differs from the grid's returns zero (and a
// store does nothing); CLOSEST rounds half away from zero; LINEAR weights the 8 corners in float. An id
// of 0 reads as an empty grid (zero, index -1) instead of faulting.
#pragma once
#include "brickwork.h"

namespace bw {

namespace volume_detail {

constexpr int32_t CLOSEST = 0;
constexpr int32_t LINEAR = 1;
constexpr uint32_t GRID_OFF_MAP = 296, GRID_OFF_TYPE = 636, GRID_SIZE = 672;
constexpr uint32_t TREE_OFF_LEAF = 0, TREE_OFF_ROOT = 24, TREE_OFF_LEAF_COUNT = 32, TREE_OFF_VOXEL_COUNT = 56;
constexpr uint32_t ROOT_OFF_TILE_COUNT = 24, TILE_OFF_CHILD = 8;
constexpr uint32_t UPPER_OFF_CHILD_MASK = 4128, LOWER_OFF_CHILD_MASK = 544, LEAF_OFF_VALUE_MASK = 16;
enum : uint32_t { FLOAT = 1, DOUBLE = 2, INT32 = 4, INT64 = 5, VEC3F = 6, VEC3D = 7, UINT32 = 10, VEC4F = 17,
                  VEC4D = 18, INDEX = 19, ONINDEX = 20, INDEXMASK = 21, ONINDEXMASK = 22 };

// Where a grid type keeps things (bytes): the root's background value and size, a root tile's value
// and size, the first table entry of an upper, lower and leaf node, a leaf value's bits, a node
// table entry's size, a leaf's size. valid is false for the types kernels do not read.
struct layout {
    uint32_t background, root_size, tile_value, tile_size, upper_table, lower_table, leaf_table, value_bits,
        table_stride, leaf_size;
    bool valid;
};

BW_INLINE layout layout_of(uint32_t type) {
    switch (type) {
    case FLOAT: case INT32: case UINT32: return {28, 64, 20, 32, 8256, 1088, 96, 32, 8, 2144, true};
    case DOUBLE: case INT64: return {32, 96, 24, 32, 8256, 1088, 128, 64, 8, 4224, true};
    case VEC3F: return {28, 96, 20, 32, 8256, 1088, 128, 96, 16, 6272, true};
    case VEC3D: return {32, 128, 24, 64, 8288, 1120, 160, 192, 24, 12448, true};
    case VEC4F: return {28, 96, 20, 64, 8288, 1120, 128, 128, 16, 8320, true};
    case VEC4D: return {32, 160, 24, 64, 8320, 1152, 160, 256, 32, 16544, true};
    case INDEX: case ONINDEX: return {32, 96, 24, 32, 8256, 1088, 80, 0, 8, 96, true};
    case INDEXMASK: case ONINDEXMASK: return {32, 96, 24, 32, 8256, 1088, 80, 0, 8, 160, true};
    default: return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false};
    }
}

// The grid type whose values are T (0: none).
template <class T> struct grid_type_of { static constexpr uint32_t value = 0; };
template <> struct grid_type_of<float> { static constexpr uint32_t value = FLOAT; };
template <> struct grid_type_of<double> { static constexpr uint32_t value = DOUBLE; };
template <> struct grid_type_of<int32_t> { static constexpr uint32_t value = INT32; };
template <> struct grid_type_of<int64_t> { static constexpr uint32_t value = INT64; };
template <> struct grid_type_of<uint32_t> { static constexpr uint32_t value = UINT32; };
template <> struct grid_type_of<vec<3, float>> { static constexpr uint32_t value = VEC3F; };
template <> struct grid_type_of<vec<3, double>> { static constexpr uint32_t value = VEC3D; };
template <> struct grid_type_of<vec<4, float>> { static constexpr uint32_t value = VEC4F; };
template <> struct grid_type_of<vec<4, double>> { static constexpr uint32_t value = VEC4D; };

template <class T> BW_INLINE T load(const uint8_t* p) { return *reinterpret_cast<const T*>(p); }

BW_INLINE uint32_t grid_type(const uint8_t* g) { return g == nullptr ? 0u : load<uint32_t>(g + GRID_OFF_TYPE); }
BW_INLINE const uint8_t* tree(const uint8_t* g) { return g + GRID_SIZE; }
BW_INLINE const uint8_t* root(const uint8_t* g) { return tree(g) + load<uint64_t>(tree(g) + TREE_OFF_ROOT); }

#ifdef BW_DEVICE
BW_INLINE uint32_t popcount(uint64_t x) { return (uint32_t)__popcll(x); }
#else
BW_INLINE uint32_t popcount(uint64_t x) { return (uint32_t)__builtin_popcountll(x); }
#endif

BW_INLINE bool bit(const uint8_t* mask, uint32_t n) { return (load<uint64_t>(mask + 8 * (n >> 6)) >> (n & 63)) & 1; }

// The last leaf, lower and upper node a walk passed through, with a coordinate each covers (Warp's read
// accessor): the 8 corners of a trilinear sample mostly share a leaf, so only the first walks from the root.
// A null node is not cached.
struct accessor {
    const uint8_t* leaf = nullptr;
    const uint8_t* lower = nullptr;
    const uint8_t* upper = nullptr;
    int32_t leaf_at[3], lower_at[3], upper_at[3];
};

// Whether (i, j, k) lies in the same node of 2^bits voxels per side as `at`.
template <int bits> BW_INLINE bool same_node(const int32_t* at, int32_t i, int32_t j, int32_t k) {
    return ((uint32_t(i ^ at[0]) | uint32_t(j ^ at[1]) | uint32_t(k ^ at[2])) >> bits) == 0;
}

BW_INLINE void remember(int32_t* at, int32_t i, int32_t j, int32_t k) { at[0] = i; at[1] = j; at[2] = k; }

// The address of the value the tree holds for voxel (i, j, k) and the level it was found at: 0 a leaf's
// voxel, 1 a lower node's tile, 2 an upper node's tile, 3 a root tile, 4 the background. The walk starts
// at the deepest node of `acc` holding the voxel and leaves the nodes it reached there.
template <class Layout>
BW_INLINE const uint8_t* value_address(const uint8_t* g, const Layout& L, accessor& acc, int32_t i, int32_t j,
                                       int32_t k, uint32_t& level) {
    const uint32_t voxel = (uint32_t(i & 7) << 6) | (uint32_t(j & 7) << 3) | uint32_t(k & 7);
    if (acc.leaf != nullptr && same_node<3>(acc.leaf_at, i, j, k)) {
        level = 0;
        return acc.leaf + L.leaf_table + ((L.value_bits * voxel) >> 3);
    }
    const uint8_t* lower = acc.lower;
    if (lower == nullptr || !same_node<7>(acc.lower_at, i, j, k)) {
        const uint8_t* upper = acc.upper;
        if (upper == nullptr || !same_node<12>(acc.upper_at, i, j, k)) {
            const uint8_t* r = root(g);
            const uint64_t key = uint64_t(uint32_t(k) >> 12) | (uint64_t(uint32_t(j) >> 12) << 21) |
                                 (uint64_t(uint32_t(i) >> 12) << 42);
            const uint32_t tiles = load<uint32_t>(r + ROOT_OFF_TILE_COUNT);
            const uint8_t* tile = r + L.root_size;
            uint32_t t = 0;
            for (; t < tiles; ++t, tile += L.tile_size)
                if (load<uint64_t>(tile) == key) break;
            if (t == tiles) {
                level = 4;
                return r + L.background;
            }
            const int64_t child = load<int64_t>(tile + TILE_OFF_CHILD);
            if (child == 0) {
                level = 3;
                return tile + L.tile_value;
            }
            upper = r + child;
            acc.upper = upper;
            remember(acc.upper_at, i, j, k);
        }
        const uint32_t n = (uint32_t((i & 4095) >> 7) << 10) | (uint32_t((j & 4095) >> 7) << 5) |
                           uint32_t((k & 4095) >> 7);
        const uint8_t* entry = upper + L.upper_table + L.table_stride * n;
        if (!bit(upper + UPPER_OFF_CHILD_MASK, n)) {
            level = 2;
            return entry;
        }
        lower = upper + load<int64_t>(entry);
        acc.lower = lower;
        remember(acc.lower_at, i, j, k);
    }
    const uint32_t n = (uint32_t((i & 127) >> 3) << 8) | (uint32_t((j & 127) >> 3) << 4) | uint32_t((k & 127) >> 3);
    const uint8_t* entry = lower + L.lower_table + L.table_stride * n;
    if (!bit(lower + LOWER_OFF_CHILD_MASK, n)) {
        level = 1;
        return entry;
    }
    const uint8_t* leaf = lower + load<int64_t>(entry);
    acc.leaf = leaf;
    remember(acc.leaf_at, i, j, k);
    level = 0;
    return leaf + L.leaf_table + ((L.value_bits * voxel) >> 3);
}

// The same walk from the root.
template <class Layout>
BW_INLINE const uint8_t* value_address(const uint8_t* g, const Layout& L, int32_t i, int32_t j, int32_t k,
                                       uint32_t& level) {
    accessor acc;
    return value_address(g, L, acc, i, j, k, level);
}

// The 1-based index of a leaf voxel (0: none) from the address value_address gave, as NanoVDB numbers
// them: index grids store each leaf's first index (OnIndex grids count active voxels only); other
// grids number every voxel of every leaf in leaf order.
BW_INLINE uint64_t voxel_index(const uint8_t* g, uint32_t type, const layout& L, const uint8_t* address,
                               int32_t i, int32_t j, int32_t k) {
    const uint32_t n = (uint32_t(i & 7) << 6) | (uint32_t(j & 7) << 3) | uint32_t(k & 7);
    switch (type) {
    case INDEX: case INDEXMASK: return load<uint64_t>(address) + n;
    case ONINDEX: case ONINDEXMASK: {
        const uint8_t* leaf = address - L.leaf_table;
        const uint32_t word = n >> 6;
        const uint64_t mask = load<uint64_t>(leaf + LEAF_OFF_VALUE_MASK + 8 * word);
        const uint64_t one = uint64_t(1) << (n & 63);
        if (!(mask & one)) return 0;
        uint32_t sum = popcount(mask & (one - 1));
        if (word > 0) sum += uint32_t(load<uint64_t>(address + 8) >> (9 * (word - 1))) & 511u;
        return load<uint64_t>(address) + sum;
    }
    default: {
        const uint8_t* leaf = address - L.leaf_table - ((L.value_bits * n) >> 3);
        const uint8_t* first = tree(g) + load<uint64_t>(tree(g) + TREE_OFF_LEAF);
        return uint64_t(leaf - first) / L.leaf_size * 512 + n + 1;
    }
    }
}

// Values of T as N components of scalar S (vec<N, S> or a scalar).
template <class T> struct parts { using S = T; static constexpr int n = 1; };
template <int N, class S_> struct parts<vec<N, S_>> { using S = S_; static constexpr int n = N; };
template <class T> BW_INLINE typename parts<T>::S* comps(T& v) { return reinterpret_cast<typename parts<T>::S*>(&v); }
template <class T> BW_INLINE const typename parts<T>::S* comps(const T& v) {
    return reinterpret_cast<const typename parts<T>::S*>(&v);
}

// The gradient of a T with respect to a point: vec3 of S for a scalar, an N x 3 matrix for vec<N, S>.
template <class T> struct grad_of { using type = vec<3, T>; };
template <int N, class S> struct grad_of<vec<N, S>> { using type = mat<N, 3, S>; };

// Reads the grid's own values (the grid type must be T's).
template <class T> struct leaf_reader {
    const uint8_t* g;
    layout L;
    BW_INLINE bool valid() const { return L.valid && g != nullptr && grid_type(g) == grid_type_of<T>::value; }
    BW_INLINE T read(accessor& acc, int32_t i, int32_t j, int32_t k) const {
        uint32_t level;
        return load<T>(value_address(g, L, acc, i, j, k, level));
    }
    BW_INLINE T read(int32_t i, int32_t j, int32_t k) const {
        accessor acc;
        return read(acc, i, j, k);
    }
    // The 2x2x2 voxels from c (v[4 x + 2 y + z]). When they share a leaf (about 2 in 3 random points) one walk
    // finds them all: the leaf's 8 voxels, or the one tile value above it that covers all 8.
    BW_INLINE void corners(const int32_t* c, T* v) const {
        accessor acc;
        if ((c[0] & 7) != 7 && (c[1] & 7) != 7 && (c[2] & 7) != 7) {
            uint32_t level;
            const uint8_t* a = value_address(g, L, acc, c[0], c[1], c[2], level);
            if (level != 0) {
                const T t = load<T>(a);
                for (int o = 0; o < 8; ++o) v[o] = t;
                return;
            }
            for (int o = 0; o < 8; ++o) {
                const uint32_t n = uint32_t(((o >> 2) << 6) | (((o >> 1) & 1) << 3) | (o & 1));
                v[o] = load<T>(a + ((L.value_bits * n) >> 3));
            }
            return;
        }
        for (int o = 0; o < 8; ++o) v[o] = read(acc, c[0] + (o >> 2), c[1] + ((o >> 1) & 1), c[2] + (o & 1));
    }
};

// Reads values from an array indexed by the grid's voxel indices (any grid type); the background where
// a coordinate has no voxel.
template <class T> struct index_reader {
    const uint8_t* g;
    layout L;
    uint32_t type;
    array_t<T, 1> data;
    T background;
    BW_INLINE bool valid() const { return g != nullptr && L.valid; }
    BW_INLINE int64_t index(accessor& acc, int32_t i, int32_t j, int32_t k) const {
        uint32_t level;
        const uint8_t* a = value_address(g, L, acc, i, j, k, level);
        if (level != 0) return -1;
        return int64_t(voxel_index(g, type, L, a, i, j, k)) - 1;
    }
    BW_INLINE int64_t index(int32_t i, int32_t j, int32_t k) const {
        accessor acc;
        return index(acc, i, j, k);
    }
    BW_INLINE T read(accessor& acc, int32_t i, int32_t j, int32_t k) const {
        const int64_t n = index(acc, i, j, k);
        return n >= 0 ? data.data[n * data.strides[0]] : background;
    }
    BW_INLINE T read(int32_t i, int32_t j, int32_t k) const {
        accessor acc;
        return read(acc, i, j, k);
    }
    // The 2x2x2 values from c as leaf_reader's; corners sharing a leaf take their indices from one walk.
    BW_INLINE void corners(const int32_t* c, T* v) const {
        accessor acc;
        if ((c[0] & 7) != 7 && (c[1] & 7) != 7 && (c[2] & 7) != 7) {
            uint32_t level;
            const uint8_t* a = value_address(g, L, acc, c[0], c[1], c[2], level);
            if (level != 0) {
                for (int o = 0; o < 8; ++o) v[o] = background;
                return;
            }
            const uint32_t n0 = (uint32_t(c[0] & 7) << 6) | (uint32_t(c[1] & 7) << 3) | uint32_t(c[2] & 7);
            const uint8_t* leaf = a - L.leaf_table - ((L.value_bits * n0) >> 3);
            for (int o = 0; o < 8; ++o) {
                const int32_t i = c[0] + (o >> 2), j = c[1] + ((o >> 1) & 1), k = c[2] + (o & 1);
                const uint32_t n = (uint32_t(i & 7) << 6) | (uint32_t(j & 7) << 3) | uint32_t(k & 7);
                const int64_t x = int64_t(voxel_index(g, type, L, leaf + L.leaf_table + ((L.value_bits * n) >> 3),
                                                      i, j, k)) - 1;
                v[o] = x >= 0 ? data.data[x * data.strides[0]] : background;
            }
            return;
        }
        for (int o = 0; o < 8; ++o) v[o] = read(acc, c[0] + (o >> 2), c[1] + ((o >> 1) & 1), c[2] + (o & 1));
    }
};

// The layout is T's grid type's (a constant): valid() reads no other grid.
template <class T> BW_INLINE leaf_reader<T> leaf_reader_of(uint64_t id) {
    return {(const uint8_t*)(uintptr_t)id, layout_of(grid_type_of<T>::value)};
}

template <class T> BW_INLINE index_reader<T> index_reader_of(uint64_t id, const array_t<T, 1>& data, const T& bg) {
    const uint8_t* g = (const uint8_t*)(uintptr_t)id;
    const uint32_t type = grid_type(g);
    return {g, layout_of(type), type, data, bg};
}

BW_INLINE int32_t round_coord(float x) { return (int32_t)BW_MATH(roundf)(x); }

// The cell of a point for trilinear weights: its lower corner and the fractions along each axis.
struct cell {
    int32_t c[3];
    float w[3][2];   // w[a][o]: the weight of corner offset o along axis a
};

BW_INLINE cell cell_of(const vec<3, float>& uvw) {
    cell out;
    for (int a = 0; a < 3; ++a) {
        const float base = BW_MATH(floorf)(uvw.c[a]);
        const float f = uvw.c[a] - base;
        out.c[a] = (int32_t)base;
        out.w[a][0] = 1.0f - f;
        out.w[a][1] = f;
    }
    return out;
}

// value (and gradient) of a reader at uvw; grad may be null.
template <class T, class R>
BW_INLINE T sample(const R& r, const vec<3, float>& uvw, int32_t mode, typename grad_of<T>::type* grad) {
    using S = typename parts<T>::S;
    constexpr int N = parts<T>::n;
    T val{};
    if (grad) *grad = typename grad_of<T>::type{};
    if (!r.valid()) return val;
    if (mode == CLOSEST) return r.read(round_coord(uvw.c[0]), round_coord(uvw.c[1]), round_coord(uvw.c[2]));
    if (mode != LINEAR) return val;
    const cell q = cell_of(uvw);
    S* out = comps(val);
    T vs[8];
    r.corners(q.c, vs);
    for (int o = 0; o < 8; ++o) {
        const int ox = o >> 2, oy = (o >> 1) & 1, oz = o & 1;
        const S* vc = comps(vs[o]);
        const S w = S(q.w[0][ox] * q.w[1][oy] * q.w[2][oz]);
        for (int c = 0; c < N; ++c) out[c] = out[c] + w * vc[c];
        if (grad) {
            const S dw[3] = {S(float(2 * ox - 1) * q.w[1][oy] * q.w[2][oz]),
                             S(float(2 * oy - 1) * q.w[0][ox] * q.w[2][oz]),
                             S(float(2 * oz - 1) * q.w[0][ox] * q.w[1][oy])};
            S* gc = reinterpret_cast<S*>(grad);  // N rows of 3
            for (int c = 0; c < N; ++c)
                for (int a = 0; a < 3; ++a) gc[3 * c + a] = gc[3 * c + a] + vc[c] * dw[a];
        }
    }
    return val;
}

// The adjoint of uvw for sample's value adjoint gv and gradient adjoint gg (null: none). Zero for CLOSEST.
template <class T, class R>
BW_INLINE vec<3, float> sample_vjp(const R& r, const vec<3, float>& uvw, int32_t mode, const T& gv,
                                   const typename grad_of<T>::type* gg) {
    using S = typename parts<T>::S;
    constexpr int N = parts<T>::n;
    vec<3, float> adj{};
    if (!r.valid() || mode != LINEAR) return adj;
    const cell q = cell_of(uvw);
    const S* g = comps(gv);
    const S* G = reinterpret_cast<const S*>(gg);
    T vs[8];
    r.corners(q.c, vs);
    for (int o = 0; o < 8; ++o) {
        const int off[3] = {o >> 2, (o >> 1) & 1, o & 1};
        const float sg[3] = {float(2 * off[0] - 1), float(2 * off[1] - 1), float(2 * off[2] - 1)};
        const S* vc = comps(vs[o]);
        S vg = S(0);
        for (int c = 0; c < N; ++c) vg = vg + vc[c] * g[c];
        const float wx = q.w[0][off[0]], wy = q.w[1][off[1]], wz = q.w[2][off[2]];
        const S dw[3] = {S(sg[0] * wy * wz), S(sg[1] * wx * wz), S(sg[2] * wx * wy)};
        for (int a = 0; a < 3; ++a) adj.c[a] += float(vg * dw[a]);
        if (G) {  // d/duvw of the gradient: the weights' mixed second derivatives (zero on the diagonal)
            const float w1[3] = {wx, wy, wz};
            for (int a = 0; a < 3; ++a) {
                S acc = S(0);
                for (int b = 0; b < 3; ++b) {
                    if (a == b) continue;
                    const int other = 3 - a - b;
                    const S h = S(sg[a] * sg[b] * w1[other]);
                    for (int c = 0; c < N; ++c) acc = acc + vc[c] * G[3 * c + b] * h;
                }
                adj.c[a] += float(acc);
            }
        }
    }
    return adj;
}

}  // namespace volume_detail

// ---- values stored in the grid --------------------------------------------------------------------

template <class T> BW_INLINE T volume_sample_t(uint64_t id, const vec<3, float>& uvw, int32_t mode) {
    return volume_detail::sample<T>(volume_detail::leaf_reader_of<T>(id), uvw, mode, nullptr);
}
template <class T>
BW_INLINE T volume_sample_typed(uint64_t id, const vec<3, float>& uvw, int32_t mode, const T&) {
    return volume_sample_t<T>(id, uvw, mode);
}
BW_INLINE float volume_sample_f(uint64_t id, const vec<3, float>& uvw, int32_t mode) {
    return volume_sample_t<float>(id, uvw, mode);
}
BW_INLINE vec<3, float> volume_sample_v(uint64_t id, const vec<3, float>& uvw, int32_t mode) {
    return volume_sample_t<vec<3, float>>(id, uvw, mode);
}
BW_INLINE int32_t volume_sample_i(uint64_t id, const vec<3, float>& uvw) {
    return volume_sample_t<int32_t>(id, uvw, volume_detail::CLOSEST);
}
// The adjoint of uvw of volume_sample* for the result's adjoint g (T deduced from g).
template <class T> BW_INLINE vec<3, float> volume_sample_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                                           const T& g) {
    return volume_detail::sample_vjp<T>(volume_detail::leaf_reader_of<T>(id), uvw, mode, g, nullptr);
}

// value and gradient (the kernels' volume_sample_grad*: output arguments as a tuple); the gradient alone
// and its adjoint (backward kernels differentiate the pair as value and gradient apart)
template <class T>
BW_INLINE void volume_sample_grad_pair(uint64_t id, const vec<3, float>& uvw, int32_t mode, const T&, T& value,
                                       typename volume_detail::grad_of<T>::type& grad) {
    value = volume_detail::sample<T>(volume_detail::leaf_reader_of<T>(id), uvw, mode, &grad);
}
template <class T>
BW_INLINE typename volume_detail::grad_of<T>::type volume_sample_grad_only(uint64_t id, const vec<3, float>& uvw,
                                                                          int32_t mode, const T&) {
    typename volume_detail::grad_of<T>::type grad;
    volume_detail::sample<T>(volume_detail::leaf_reader_of<T>(id), uvw, mode, &grad);
    return grad;
}
template <class T>
BW_INLINE vec<3, float> volume_sample_hess_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode, const T&,
                                               const typename volume_detail::grad_of<T>::type& gg) {
    return volume_detail::sample_vjp<T>(volume_detail::leaf_reader_of<T>(id), uvw, mode, T{}, &gg);
}

template <class T> BW_INLINE T volume_lookup_t(uint64_t id, int32_t i, int32_t j, int32_t k) {
    const volume_detail::leaf_reader<T> r = volume_detail::leaf_reader_of<T>(id);
    return r.valid() ? r.read(i, j, k) : T{};
}
template <class T> BW_INLINE T volume_lookup_typed(uint64_t id, int32_t i, int32_t j, int32_t k, const T&) {
    return volume_lookup_t<T>(id, i, j, k);
}
BW_INLINE float volume_lookup_f(uint64_t id, int32_t i, int32_t j, int32_t k) { return volume_lookup_t<float>(id, i, j, k); }
BW_INLINE int32_t volume_lookup_i(uint64_t id, int32_t i, int32_t j, int32_t k) {
    return volume_lookup_t<int32_t>(id, i, j, k);
}
BW_INLINE vec<3, float> volume_lookup_v(uint64_t id, int32_t i, int32_t j, int32_t k) {
    return volume_lookup_t<vec<3, float>>(id, i, j, k);
}

// Stores only into a leaf's voxel (never a tile or the background), as Warp.
// Returns 0 (the kernel language types a store as an int32 statement).
template <class T> BW_INLINE int32_t volume_store(uint64_t id, int32_t i, int32_t j, int32_t k, const T& value) {
    const volume_detail::leaf_reader<T> r = volume_detail::leaf_reader_of<T>(id);
    if (!r.valid()) return 0;
    uint32_t level;
    const uint8_t* a = volume_detail::value_address(r.g, r.L, i, j, k, level);
    if (level == 0) *const_cast<T*>(reinterpret_cast<const T*>(a)) = value;
    return 0;
}
BW_INLINE int32_t volume_store_f(uint64_t id, int32_t i, int32_t j, int32_t k, float v) {
    return volume_store(id, i, j, k, v);
}
BW_INLINE int32_t volume_store_i(uint64_t id, int32_t i, int32_t j, int32_t k, int32_t v) {
    return volume_store(id, i, j, k, v);
}
BW_INLINE int32_t volume_store_v(uint64_t id, int32_t i, int32_t j, int32_t k, const vec<3, float>& v) {
    return volume_store(id, i, j, k, v);
}

// ---- index grids: values in an array --------------------------------------------------------------

BW_INLINE int32_t volume_lookup_index(uint64_t id, int32_t i, int32_t j, int32_t k) {
    const uint8_t* g = (const uint8_t*)(uintptr_t)id;
    const uint32_t type = volume_detail::grid_type(g);
    const volume_detail::layout L = volume_detail::layout_of(type);
    if (g == nullptr || !L.valid) return -1;
    uint32_t level;
    const uint8_t* a = volume_detail::value_address(g, L, i, j, k, level);
    if (level != 0) return -1;
    return (int32_t)volume_detail::voxel_index(g, type, L, a, i, j, k) - 1;
}

BW_INLINE int32_t volume_voxel_count(uint64_t id) {
    const uint8_t* g = (const uint8_t*)(uintptr_t)id;
    if (g == nullptr) return 0;
    const uint32_t type = volume_detail::grid_type(g);
    const uint8_t* t = volume_detail::tree(g);
    const uint64_t n = (type == volume_detail::ONINDEX || type == volume_detail::ONINDEXMASK)
                           ? volume_detail::load<uint64_t>(t + volume_detail::TREE_OFF_VOXEL_COUNT)
                           : uint64_t(volume_detail::load<uint32_t>(t + volume_detail::TREE_OFF_LEAF_COUNT)) * 512;
    return n > 2147483647ull ? 2147483647 : (int32_t)n;
}

template <class T>
BW_INLINE T volume_sample_index(uint64_t id, const vec<3, float>& uvw, int32_t mode, const array_t<T, 1>& data,
                                const T& background) {
    return volume_detail::sample<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, nullptr);
}
template <class T>
BW_INLINE vec<3, float> volume_sample_index_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                                const array_t<T, 1>& data, const T& background, const T& g) {
    return volume_detail::sample_vjp<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, g, nullptr);
}
template <class T>
BW_INLINE void volume_sample_grad_index_pair(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                             const array_t<T, 1>& data, const T& background, T& value,
                                             typename volume_detail::grad_of<T>::type& grad) {
    value = volume_detail::sample<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, &grad);
}
template <class T>
BW_INLINE typename volume_detail::grad_of<T>::type volume_sample_grad_index_only(
    uint64_t id, const vec<3, float>& uvw, int32_t mode, const array_t<T, 1>& data, const T& background) {
    typename volume_detail::grad_of<T>::type grad;
    volume_detail::sample<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, &grad);
    return grad;
}
template <class T>
BW_INLINE vec<3, float> volume_sample_index_hess_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                                     const array_t<T, 1>& data, const T& background,
                                                     const typename volume_detail::grad_of<T>::type& gg) {
    return volume_detail::sample_vjp<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, T{}, &gg);
}
namespace volume_detail {
// The adjoints of an index grid's voxel_data and background for the value's adjoint g and the gradient's
// adjoint gg (null: none): each corner's share goes to its voxel's element of adj_data (atomically: other
// threads add into the same elements; null: not wanted) or, for a corner without a voxel, to the
// background's adjoint, which is returned. CLOSEST: the value's adjoint to the one voxel (its gradient is 0).
template <class T>
BW_INLINE T index_vjp(const index_reader<T>& r, const vec<3, float>& uvw, int32_t mode, const array_t<T, 1>* adj_data,
                      const T* g, const typename grad_of<T>::type* gg) {
    using S = typename parts<T>::S;
    constexpr int N = parts<T>::n;
    T bg{};
    if (!r.valid()) return bg;
    if (mode == CLOSEST) {
        if (!g) return bg;
        const int64_t n = r.index(round_coord(uvw.c[0]), round_coord(uvw.c[1]), round_coord(uvw.c[2]));
        if (n < 0) return *g;
        if (adj_data) atomic_add(&adj_data->data[n * adj_data->strides[0]], *g);
        return bg;
    }
    if (mode != LINEAR) return bg;
    const cell q = cell_of(uvw);
    S* out = comps(bg);
    const S* gc = g ? comps(*g) : nullptr;
    const S* G = reinterpret_cast<const S*>(gg);
    accessor acc;
    for (int o = 0; o < 8; ++o) {
        const int ox = o >> 2, oy = (o >> 1) & 1, oz = o & 1;
        const S w = S(q.w[0][ox] * q.w[1][oy] * q.w[2][oz]);
        const S dw[3] = {S(float(2 * ox - 1) * q.w[1][oy] * q.w[2][oz]), S(float(2 * oy - 1) * q.w[0][ox] * q.w[2][oz]),
                         S(float(2 * oz - 1) * q.w[0][ox] * q.w[1][oy])};
        T share{};
        S* sc = comps(share);
        for (int c = 0; c < N; ++c) {
            S v = gc ? w * gc[c] : S(0);
            if (G) v = v + dw[0] * G[3 * c] + dw[1] * G[3 * c + 1] + dw[2] * G[3 * c + 2];
            sc[c] = v;
        }
        const int64_t n = r.index(acc, q.c[0] + ox, q.c[1] + oy, q.c[2] + oz);
        if (n < 0) {
            for (int c = 0; c < N; ++c) out[c] = out[c] + sc[c];
        } else if (adj_data) {
            atomic_add(&adj_data->data[n * adj_data->strides[0]], share);
        }
    }
    return bg;
}
}  // namespace volume_detail

// The adjoint of the background for the value's adjoint g (the weights of the corners without a voxel
// times g), and for the gradient's adjoint gg.
template <class T>
BW_INLINE T volume_sample_index_bg_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                       const array_t<T, 1>& data, const T& background, const T& g) {
    return volume_detail::index_vjp<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, nullptr,
                                       &g, nullptr);
}
template <class T>
BW_INLINE T volume_sample_index_bg_hess_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                            const array_t<T, 1>& data, const T& background,
                                            const typename volume_detail::grad_of<T>::type& gg) {
    return volume_detail::index_vjp<T>(volume_detail::index_reader_of<T>(id, data, background), uvw, mode, nullptr,
                                       nullptr, &gg);
}
// The adjoint of voxel_data, added into its gradient array adj_data (the adjoint pass passes that array in
// voxel_data's place). Statements: they return 0.
template <class T>
BW_INLINE int32_t volume_sample_index_data_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                               const array_t<T, 1>& adj_data, const T& background, const T& g) {
    volume_detail::index_vjp<T>(volume_detail::index_reader_of<T>(id, adj_data, background), uvw, mode, &adj_data, &g,
                                nullptr);
    return 0;
}
template <class T>
BW_INLINE int32_t volume_sample_index_data_hess_vjp(uint64_t id, const vec<3, float>& uvw, int32_t mode,
                                                    const array_t<T, 1>& adj_data, const T& background,
                                                    const typename volume_detail::grad_of<T>::type& gg) {
    volume_detail::index_vjp<T>(volume_detail::index_reader_of<T>(id, adj_data, background), uvw, mode, &adj_data,
                                nullptr, &gg);
    return 0;
}

// ---- index <-> world ------------------------------------------------------------------------------
// float32 points use the map's float matrices, float64 points its double ones (as Warp). *_t: the
// transposed linear part, the adjoints.

namespace volume_detail {
template <class S> struct map_offsets;
template <> struct map_offsets<float> { static constexpr uint32_t mat = 0, inv = 36, vec = 72; };
template <> struct map_offsets<double> { static constexpr uint32_t mat = 88, inv = 160, vec = 232; };

template <class S>
BW_INLINE vec<3, S> apply(uint64_t id, uint32_t matrix, bool transpose, const vec<3, S>& p, bool translate, int sign) {
    vec<3, S> out{};
    const uint8_t* g = (const uint8_t*)(uintptr_t)id;
    if (g == nullptr) return out;
    const uint8_t* m = g + GRID_OFF_MAP;
    vec<3, S> x = p;
    if (translate && sign < 0)
        for (int a = 0; a < 3; ++a) x.c[a] = x.c[a] - load<S>(m + map_offsets<S>::vec + sizeof(S) * a);
    for (int r = 0; r < 3; ++r) {
        S acc = S(0);
        for (int c = 0; c < 3; ++c)
            acc = acc + x.c[c] * load<S>(m + matrix + sizeof(S) * (transpose ? 3 * c + r : 3 * r + c));
        out.c[r] = acc;
    }
    if (translate && sign > 0)
        for (int a = 0; a < 3; ++a) out.c[a] = out.c[a] + load<S>(m + map_offsets<S>::vec + sizeof(S) * a);
    return out;
}
}  // namespace volume_detail

template <class S> BW_INLINE vec<3, S> volume_index_to_world(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::mat, false, p, true, 1);
}
template <class S> BW_INLINE vec<3, S> volume_world_to_index(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::inv, false, p, true, -1);
}
template <class S> BW_INLINE vec<3, S> volume_index_to_world_dir(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::mat, false, p, false, 0);
}
template <class S> BW_INLINE vec<3, S> volume_world_to_index_dir(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::inv, false, p, false, 0);
}
template <class S> BW_INLINE vec<3, S> volume_index_to_world_dir_t(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::mat, true, p, false, 0);
}
template <class S> BW_INLINE vec<3, S> volume_world_to_index_dir_t(uint64_t id, const vec<3, S>& p) {
    return volume_detail::apply<S>(id, volume_detail::map_offsets<S>::inv, true, p, false, 0);
}

}  // namespace bw
