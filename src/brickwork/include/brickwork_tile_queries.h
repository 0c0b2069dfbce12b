// brickwork runtime: Warp's tiled BVH and mesh queries (tile_bvh_query_aabb/ray, tile_mesh_query_aabb, their
// next steps and tile_query_valid). A separate header beside brickwork_bvh.h, included only by generated units
// that call one of these builtins.
//
// A block of a tiled launch is one thread here, so the block's cooperative traversal is the thread's own: a
// query of brickwork_bvh.h and Warp's flag. Each step gives the thread its next index (the frontend puts it in
// a tile of shape (1,)), or -1 when none is left.
#pragma once
#include "brickwork_bvh.h"

namespace bw {

struct bvh_query_tiled_t {
    bvh_query_t q;
    bool valid;  // true at the start and after a step that gave an index (tile_query_valid)
};

BW_INLINE bvh_query_tiled_t tile_bvh_query_aabb(uint64_t id, const vec<3, float>& lower,
                                                const vec<3, float>& upper) {
    return bvh_query_tiled_t{bvh_query_aabb(id, lower, upper), true};
}

// One-sided and unbounded, as Warp's: boxes behind start are never met.
BW_INLINE bvh_query_tiled_t tile_bvh_query_ray(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir) {
    return bvh_query_tiled_t{bvh_query_ray(id, start, dir), true};
}

BW_INLINE bvh_query_tiled_t tile_mesh_query_aabb(uint64_t id, const vec<3, float>& lower,
                                                 const vec<3, float>& upper) {
    return bvh_query_tiled_t{mesh_query_aabb(id, lower, upper), true};
}

// Warp's older names.
BW_INLINE bvh_query_tiled_t bvh_query_aabb_tiled(uint64_t id, const vec<3, float>& lower,
                                                 const vec<3, float>& upper) {
    return tile_bvh_query_aabb(id, lower, upper);
}
BW_INLINE bvh_query_tiled_t bvh_query_ray_tiled(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir) {
    return tile_bvh_query_ray(id, start, dir);
}
BW_INLINE bvh_query_tiled_t mesh_query_aabb_tiled(uint64_t id, const vec<3, float>& lower,
                                                  const vec<3, float>& upper) {
    return tile_mesh_query_aabb(id, lower, upper);
}

BW_INLINE int32_t tile_query_next(bvh_query_tiled_t& query) {
    int32_t index = -1;
    if (!bvh_query_next(query.q, index)) index = -1;
    query.valid = index >= 0;
    return index;
}

BW_INLINE bool tile_query_valid(const bvh_query_tiled_t& query) { return query.valid; }

}  // namespace bw
