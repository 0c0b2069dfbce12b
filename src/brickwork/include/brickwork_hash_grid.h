// brickwork runtime: neighbour queries of a hash grid (wp.HashGrid). A separate header, included only
// by generated units that call one of them.
//
// The host (runtime/hash_grid.py) builds the grid and owns its memory: the points sorted by cell (and
// by group within a cell), each cell's range of sorted positions, and the descriptor below, whose
// address is the grid's id. Cell coordinates are floor(x / width), computed as x * (1 / width) in float
// for float16 and float32 grids and in double for float64 grids, NaN to 0 and clamped to the int32
// range, exactly as the host computes them when it builds the grid; a virtual cell (x, y, z) is stored
// in the physical cell (x mod dim_x, y mod dim_y, z mod dim_z).
#pragma once
#include "brickwork.h"

namespace bw {

// The layout runtime/hash_grid.py writes (64 bytes).
struct hash_grid_data {
    int32_t dim[3];
    int32_t num_points;
    float inv_f;  // 1 / cell width, for float16 and float32 grids
    int32_t has_groups;
    double inv_d;  // 1 / cell width, for float64 grids
    const int32_t* point_ids;    // sorted position -> index of the point as given to build()
    const int32_t* cell_starts;  // physical cell -> first sorted position
    const int32_t* cell_ends;    // physical cell -> one past its last sorted position
    const uint32_t* groups;      // sorted position -> group id bits (ascending within a cell), or null
};

template <class T> struct hash_grid_query_t {
    const hash_grid_data* grid;
    int32_t n[3];      // cells to visit along each axis (at most the grid's extent: each physical cell once)
    int32_t first[3];  // the physical cell of the first one visited
    int32_t at[3];     // offsets of the next cell to visit, x fastest
    int32_t cur, end;  // sorted positions left in the cell being visited
    int32_t group;
    int32_t by_group;
};

namespace hash_grid_detail {

template <class T> struct calc { using type = float; };  // float16, float32: cells computed in float
template <> struct calc<double> { using type = double; };

template <class C> BW_INLINE C inverse_width(const hash_grid_data* g);
template <> BW_INLINE float inverse_width<float>(const hash_grid_data* g) { return g->inv_f; }
template <> BW_INLINE double inverse_width<double>(const hash_grid_data* g) { return g->inv_d; }

// The cell coordinate of a scaled coordinate: floor, NaN -> 0, clamped to [-2^31, 2^31 - 1].
template <class C> BW_INLINE int64_t coordinate(C x) {
    if (x != x) return 0;
    if (x >= C(2147483648.0)) return 2147483647LL;
    if (x < C(-2147483648.0)) return -2147483648LL;
    return (int64_t)floor(x);
}

BW_INLINE int32_t wrap(int64_t x, int32_t n) {
    const int64_t r = x % n;
    return (int32_t)(r < 0 ? r + n : r);
}

}  // namespace hash_grid_detail

template <class T> BW_INLINE hash_grid_query_t<T> hash_grid_query_start(uint64_t id, const vec<3, T>& point, T max_dist,
                                                                      int32_t group, bool by_group) {
    using C = typename hash_grid_detail::calc<T>::type;
    hash_grid_query_t<T> q;
    q.grid = (const hash_grid_data*)(uintptr_t)id;
    q.cur = q.end = 0;
    q.group = group;
    q.by_group = by_group && q.grid != nullptr && q.grid->has_groups;
    bool empty = q.grid == nullptr || q.grid->cell_starts == nullptr;
    for (int a = 0; a < 3; ++a) {
        q.at[a] = 0;
        q.n[a] = q.first[a] = 0;
        if (empty) continue;
        const C inv = hash_grid_detail::inverse_width<C>(q.grid), p = C(point.c[a]), r = C(max_dist);
        const int64_t lo = hash_grid_detail::coordinate<C>((p - r) * inv);
        const int64_t hi = hash_grid_detail::coordinate<C>((p + r) * inv);
        const int32_t dim = q.grid->dim[a];
        if (hi < lo) {  // a negative radius: no cell
            empty = true;
            continue;
        }
        q.n[a] = hi - lo + 1 < dim ? (int32_t)(hi - lo + 1) : dim;
        q.first[a] = hash_grid_detail::wrap(lo, dim);
    }
    if (empty) q.n[0] = q.n[1] = q.n[2] = 0;
    return q;
}

template <class T> BW_INLINE hash_grid_query_t<T> hash_grid_query(uint64_t id, const vec<3, T>& point, T max_dist) {
    return hash_grid_query_start(id, point, max_dist, 0, false);
}

template <class T>
BW_INLINE hash_grid_query_t<T> hash_grid_query(uint64_t id, const vec<3, T>& point, T max_dist, int32_t group) {
    return hash_grid_query_start(id, point, max_dist, group, true);
}

// On to the next non-empty cell's range of sorted positions (q.cur < q.end after it); false when no cell is
// left. Out of line of the common case (the next point of the same cell), whose few instructions then keep
// the query in registers.
template <class T> bool hash_grid_query_advance(hash_grid_query_t<T>& q) {
    const hash_grid_data* g = q.grid;
    while (q.cur == q.end) {
        if (q.at[2] >= q.n[2]) return false;  // every cell visited (or none to visit)
        int64_t cell = 0;
        for (int a = 2; a >= 0; --a) {
            int32_t c = q.first[a] + q.at[a];
            if (c >= g->dim[a]) c -= g->dim[a];
            cell = cell * g->dim[a] + c;
        }
        q.cur = g->cell_starts[cell];
        q.end = g->cell_ends[cell];
        if (q.by_group) {  // the group's points: an ascending run of the cell's sorted groups
            const uint32_t want = (uint32_t)q.group;
            int32_t lo = q.cur, hi = q.end;
            while (lo < hi) {
                const int32_t mid = lo + (hi - lo) / 2;
                if (g->groups[mid] < want) lo = mid + 1; else hi = mid;
            }
            int32_t stop = lo;
            hi = q.end;
            while (stop < hi) {
                const int32_t mid = stop + (hi - stop) / 2;
                if (g->groups[mid] <= want) stop = mid + 1; else hi = mid;
            }
            q.cur = lo;
            q.end = stop;
        }
        if (++q.at[0] == q.n[0]) {
            q.at[0] = 0;
            if (++q.at[1] == q.n[1]) {
                q.at[1] = 0;
                ++q.at[2];
            }
        }
    }
    return true;
}

template <class T> BW_INLINE bool hash_grid_query_next(hash_grid_query_t<T>& q, int32_t& index) {
    if (q.cur < q.end || hash_grid_query_advance(q)) {
        index = q.grid->point_ids[q.cur++];
        return true;
    }
    return false;
}

// The candidates left in the current cell, else the next non-empty cell's, as a range [lo, hi) of sorted
// positions and the table mapping them to points; the query moves past them. A `for index in query` loop
// whose body leaves only through its end runs as a loop over these ranges (targets/cpu/render.py), with
// the range's bounds in registers instead of the query's fields in memory.
template <class T>
BW_INLINE bool hash_grid_query_range(hash_grid_query_t<T>& q, int32_t& lo, int32_t& hi, const int32_t*& ids) {
    if (q.cur == q.end && !hash_grid_query_advance(q)) return false;
    lo = q.cur;
    hi = q.cur = q.end;
    ids = q.grid->point_ids;
    return true;
}

BW_INLINE int32_t hash_grid_point_id(uint64_t id, int32_t index) {
    const hash_grid_data* g = (const hash_grid_data*)(uintptr_t)id;
    if (g == nullptr || g->point_ids == nullptr || index < 0 || index >= g->num_points) return -1;
    return g->point_ids[index];
}

}  // namespace bw
