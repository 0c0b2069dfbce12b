// brickwork runtime: bounding volume hierarchies (wp.Bvh) and triangle meshes (wp.Mesh) queried in kernels.
// A separate header, included only by generated units that call one of these builtins.
//
// The host (runtime/bvh.py, runtime/mesh.py) builds the tree on the CPU and owns its memory; a tree's id
// is the address of its descriptor (bvh_data, or mesh_data for a mesh, which starts with its tree). The
// traversals keep an explicit stack of node indices, one per level plus one: a median-split tree over at
// most 2^31 items is at most 32 levels deep, a SAH tree at most 31 levels of groups above 31 of a group's.
//
// Meshes: triangle f has vertices points[indices[3f + k]]; barycentric (u, v) weigh the first and the
// second vertex, 1 - u - v the third (mesh_eval_position). Everything is float32, as in Warp.
#pragma once
#include "brickwork.h"

namespace bw {

struct bvh_node_half {  // a node's lower (or upper) corner and one int: children, or a leaf's item range
    float x, y, z;
    int32_t i;
};

// The layout runtime/bvh.py writes (96 bytes): a node's lower.i is its left child, or for a leaf the
// negative -(first + 1) of its range of primitive_indices; upper.i its right child, or the range's end.
struct bvh_data {
    const bvh_node_half* node_lowers;
    const bvh_node_half* node_uppers;
    const int32_t* node_parents;
    const int32_t* node_counts;  // unused (null)
    const int32_t* primitive_indices;
    int32_t max_depth;
    int32_t max_nodes;
    int32_t num_nodes;
    int32_t num_items;
    const float* item_lowers;  // 3 floats per item
    const float* item_uppers;
    const int32_t* group_ids;    // a grouped tree's groups, ascending (num_groups of them; 0 if not grouped)
    const int32_t* group_roots;  // the root node of each group's subtree
    int32_t num_groups;
    int32_t unused;
};

// The layout runtime/mesh.py writes (152 bytes).
struct mesh_data {
    bvh_data bvh;  // over the triangles' bounds
    const float* points;      // 3 floats per point
    const float* velocities;  // 3 floats per point, or null
    const int32_t* indices;   // 3 per triangle
    int32_t num_points;
    int32_t num_tris;
    float* points_grad;      // the gradients of points and velocities (mesh_get's backward pass), or null
    float* velocities_grad;
    const float* winding;    // per node, the moments of runtime/mesh_winding.py (WINDING_RECORD floats), or null
};

// A mesh's sphere query (BVH_QUERY_MESH_SPHERE) keeps, of the triangles whose bounds meet the sphere, those
// whose closest point is within the radius.
// A capsule query (BVH_QUERY_CAPSULE) is a ray query against boxes grown by its radius along every axis.
enum { BVH_QUERY_AABB = 0, BVH_QUERY_RAY = 1, BVH_QUERY_SPHERE = 2, BVH_QUERY_MESH_SPHERE = 3, BVH_QUERY_CAPSULE = 4,
       BVH_STACK = 66 };

struct bvh_query_t {
    const bvh_data* bvh;
    int32_t kind;
    float a[3];  // aabb: lower; ray: start; sphere: center
    float b[3];  // aabb: upper; ray: direction
    float r[3];  // ray: 1 / direction
    float radius;
    int32_t count;     // nodes on the stack
    int32_t cur, end;  // positions of primitive_indices left in the leaf being visited
    int32_t stack[BVH_STACK];
};

namespace bvh_detail {

BW_INLINE float fmin_(float a, float b) { return a < b ? a : b; }
BW_INLINE float fmax_(float a, float b) { return a > b ? a : b; }
BW_INLINE float sqrt_(float a) { return BW_MATH(sqrtf)(a); }
BW_INLINE float abs_(float a) { return BW_MATH(fabsf)(a); }

BW_INLINE bool overlap(const float* lo, const float* hi, const float* qlo, const float* qhi) {
    return !(lo[0] > qhi[0] || lo[1] > qhi[1] || lo[2] > qhi[2] || hi[0] < qlo[0] || hi[1] < qlo[1] ||
             hi[2] < qlo[2]);
}

// Whether the half-line start + t dir (t >= 0) meets the box, entering it at t <= max_t (the entry is
// negative when it starts inside). A ray parallel to a slab (1 / dir infinite) meets the box only if it
// starts within that slab, its faces included: (face - start) * rcp would be 0 * inf, NaN, on a face.
BW_INLINE bool ray_box(const float* start, const float* rcp, const float* lo, const float* hi, float max_t) {
    float tmin = -inf<float>(), tmax = inf<float>();
    for (int k = 0; k < 3; ++k) {
        if (!(abs_(rcp[k]) < inf<float>())) {
            if (start[k] < lo[k] || start[k] > hi[k]) return false;
            continue;
        }
        const float t1 = (lo[k] - start[k]) * rcp[k], t2 = (hi[k] - start[k]) * rcp[k];
        tmin = fmax_(tmin, fmin_(t1, t2));
        tmax = fmin_(tmax, fmax_(t1, t2));
    }
    return tmax >= 0.0f && tmax >= tmin && tmin <= max_t;
}

BW_INLINE float box_distance_sq(const float* p, const float* lo, const float* hi) {
    float d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float e = p[k] < lo[k] ? lo[k] - p[k] : p[k] > hi[k] ? p[k] - hi[k] : 0.0f;
        d += e * e;
    }
    return d;
}

// The same by min/max, no branches (the same values, but NaN for a NaN point, which box_distance_sq takes as
// inside: the closest-point walk, which finds nothing for it either way, is 10 % faster so).
BW_INLINE float box_distance_sq_clamped(const float* p, const float* lo, const float* hi) {
    float d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float e = fmin_(hi[k], fmax_(lo[k], p[k])) - p[k];
        d += e * e;
    }
    return d;
}

BW_INLINE float box_far_distance_sq(const float* p, const float* lo, const float* hi) {
    float d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float e = fmax_(abs_(p[k] - lo[k]), abs_(p[k] - hi[k]));
        d += e * e;
    }
    return d;
}

BW_INLINE void node_box(const bvh_data* b, int32_t node, float* lo, float* hi) {
    const bvh_node_half& l = b->node_lowers[node];
    const bvh_node_half& u = b->node_uppers[node];
    lo[0] = l.x; lo[1] = l.y; lo[2] = l.z;
    hi[0] = u.x; hi[1] = u.y; hi[2] = u.z;
}

BW_INLINE bool accepts(const bvh_query_t& q, const float* lo, const float* hi, float max_dist) {
    switch (q.kind) {
        case BVH_QUERY_AABB: return overlap(lo, hi, q.a, q.b);
        case BVH_QUERY_RAY: return ray_box(q.a, q.r, lo, hi, max_dist);
        case BVH_QUERY_CAPSULE: {
            const float r = q.radius;
            const float glo[3] = {lo[0] - r, lo[1] - r, lo[2] - r}, ghi[3] = {hi[0] + r, hi[1] + r, hi[2] + r};
            return ray_box(q.a, q.r, glo, ghi, max_dist);
        }
        default: return box_distance_sq(q.a, lo, hi) <= q.radius * q.radius;
    }
}

BW_INLINE bvh_query_t start(const bvh_data* b, int32_t kind, const float* a, const float* bb, float radius,
                            int32_t root) {
    bvh_query_t q;
    q.bvh = b;
    q.kind = kind;
    q.radius = radius;
    for (int k = 0; k < 3; ++k) {
        q.a[k] = a[k];
        q.b[k] = bb[k];
        q.r[k] = 1.0f / bb[k];
    }
    q.cur = q.end = 0;
    q.count = 0;
    if (b != nullptr && b->num_nodes > 0) q.stack[q.count++] = root >= 0 && root < b->num_nodes ? root : 0;
    return q;
}

BW_INLINE void v3(const vec<3, float>& v, float* out) { out[0] = v.c[0]; out[1] = v.c[1]; out[2] = v.c[2]; }

}  // namespace bvh_detail

BW_INLINE bvh_query_t bvh_query_aabb(uint64_t id, const vec<3, float>& lower, const vec<3, float>& upper,
                                  int32_t root = -1) {
    float a[3], b[3];
    bvh_detail::v3(lower, a);
    bvh_detail::v3(upper, b);
    return bvh_detail::start((const bvh_data*)(uintptr_t)id, BVH_QUERY_AABB, a, b, 0.0f, root);
}

BW_INLINE bvh_query_t bvh_query_ray(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir,
                                 int32_t root = -1) {
    float a[3], b[3];
    bvh_detail::v3(start, a);
    bvh_detail::v3(dir, b);
    return bvh_detail::start((const bvh_data*)(uintptr_t)id, BVH_QUERY_RAY, a, b, 0.0f, root);
}

BW_INLINE bvh_query_t bvh_query_sphere(uint64_t id, const vec<3, float>& center, float radius,
                                    int32_t root = -1) {
    float a[3], b[3] = {1.0f, 1.0f, 1.0f};
    bvh_detail::v3(center, a);
    return bvh_detail::start((const bvh_data*)(uintptr_t)id, BVH_QUERY_SPHERE, a, b, radius, root);
}

namespace mesh_detail {
BW_INLINE bool sphere_meets_face(const bvh_query_t& q, int32_t face);  // below, with the other triangle tests
}

BW_INLINE bvh_query_t bvh_query_capsule(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir,
                                     float radius, int32_t root = -1) {
    float a[3], b[3];
    bvh_detail::v3(start, a);
    bvh_detail::v3(dir, b);
    return bvh_detail::start((const bvh_data*)(uintptr_t)id, BVH_QUERY_CAPSULE, a, b, radius > 0.0f ? radius : 0.0f,
                             root);
}

// The root node of a group's subtree in a grouped tree (for a query's root), or -1 (the whole tree) for a
// group it does not have.
BW_INLINE int32_t bvh_get_group_root(uint64_t id, int32_t group) {
    const bvh_data* b = (const bvh_data*)(uintptr_t)id;
    if (b == nullptr) return -1;
    int32_t lo = 0, hi = b->num_groups;  // the first id >= group in [lo, hi)
    while (lo < hi) {
        const int32_t m = lo + (hi - lo) / 2;
        if (b->group_ids[m] < group) lo = m + 1;
        else hi = m;
    }
    return lo < b->num_groups && b->group_ids[lo] == group ? b->group_roots[lo] : -1;
}

// The next item whose bounds the query meets (for a ray or a capsule: entered at t <= max_dist).
BW_INLINE bool bvh_query_next(bvh_query_t& q, int32_t& index, float max_dist) {
    const bvh_data* b = q.bvh;
    float lo[3], hi[3];
    for (;;) {
        while (q.cur < q.end) {
            const int32_t item = b->primitive_indices[q.cur++];
            const float* il = b->item_lowers + 3 * (int64_t)item;
            const float* iu = b->item_uppers + 3 * (int64_t)item;
            if (bvh_detail::accepts(q, il, iu, max_dist) &&
                (q.kind != BVH_QUERY_MESH_SPHERE || mesh_detail::sphere_meets_face(q, item))) {
                index = item;
                return true;
            }
        }
        if (q.count == 0) return false;
        const int32_t node = q.stack[--q.count];
        bvh_detail::node_box(b, node, lo, hi);
        if (!bvh_detail::accepts(q, lo, hi, max_dist)) continue;
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left < 0) {
            q.cur = -(left + 1);
            q.end = right;
        } else if (q.count + 2 <= BVH_STACK) {
            q.stack[q.count++] = right;
            q.stack[q.count++] = left;
        }
    }
}

BW_INLINE bool bvh_query_next(bvh_query_t& q, int32_t& index) { return bvh_query_next(q, index, inf<float>()); }

// -- meshes -----------------------------------------------------------------------------------------------

namespace mesh_detail {

using bvh_detail::abs_;
using bvh_detail::sqrt_;

BW_INLINE const mesh_data* get(uint64_t id) { return (const mesh_data*)(uintptr_t)id; }

BW_INLINE void vertex(const mesh_data* m, int32_t face, int k, float* p) {
    const int32_t i = m->indices[3 * (int64_t)face + k];
    for (int a = 0; a < 3; ++a) p[a] = m->points[3 * (int64_t)i + a];
}

BW_INLINE void triangle(const mesh_data* m, int32_t face, float* p0, float* p1, float* p2) {
    vertex(m, face, 0, p0);
    vertex(m, face, 1, p1);
    vertex(m, face, 2, p2);
}

// In float32, as Warp, or in double (the sign by normal's exact closest feature).
template <class T> BW_INLINE T dot(const T* a, const T* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
template <class T> BW_INLINE void sub(const T* a, const T* b, T* out) {
    for (int k = 0; k < 3; ++k) out[k] = a[k] - b[k];
}
template <class T> BW_INLINE void cross(const T* a, const T* b, T* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

// The regions of a triangle's plane closest_on_triangle tells apart (which feature holds the closest point).
enum { REGION_FACE, REGION_A, REGION_B, REGION_C, REGION_AB, REGION_AC, REGION_BC };

// The point of triangle (a, b, c) closest to p, as weights (wa, wb): the point is wa a + wb b + (1-wa-wb) c.
// By the region of the triangle's plane the projection of p falls in (vertex, edge or face), also returned.
template <class T>
BW_INLINE void closest_on_triangle(const T* p, const T* a, const T* b, const T* c, T& wa, T& wb, int& region) {
    const T zero = T(0), one = T(1);
    T ab[3], ac[3], ap[3], bp[3], cp[3];
    sub(b, a, ab);
    sub(c, a, ac);
    sub(p, a, ap);
    const T d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= zero && d2 <= zero) { wa = one; wb = zero; region = REGION_A; return; }
    sub(p, b, bp);
    const T d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= zero && d4 <= d3) { wa = zero; wb = one; region = REGION_B; return; }
    const T vc = d1 * d4 - d3 * d2;
    if (vc <= zero && d1 >= zero && d3 <= zero) {  // edge ab
        const T t = d1 / (d1 - d3);
        wa = one - t; wb = t; region = REGION_AB; return;
    }
    sub(p, c, cp);
    const T d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= zero && d5 <= d6) { wa = zero; wb = zero; region = REGION_C; return; }
    const T vb = d5 * d2 - d1 * d6;
    if (vb <= zero && d2 >= zero && d6 <= zero) {  // edge ac
        const T t = d2 / (d2 - d6);
        wa = one - t; wb = zero; region = REGION_AC; return;
    }
    const T va = d3 * d6 - d5 * d4;
    if (va <= zero && (d4 - d3) >= zero && (d5 - d6) >= zero) {  // edge bc
        const T t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        wa = zero; wb = one - t; region = REGION_BC; return;
    }
    const T denom = one / (va + vb + vc);  // inside the face
    const T v = vb * denom, w = vc * denom;
    wa = one - v - w; wb = v;
    region = REGION_FACE;
}

BW_INLINE void closest_on_triangle(const float* p, const float* a, const float* b, const float* c, float& wa,
                                   float& wb) {
    int region;
    closest_on_triangle(p, a, b, c, wa, wb, region);
}

template <class T> BW_INLINE void at(const T* a, const T* b, const T* c, T wa, T wb, T* out) {
    const T wc = T(1) - wa - wb;
    for (int k = 0; k < 3; ++k) out[k] = wa * a[k] + wb * b[k] + wc * c[k];
}

// The squared distance from p to triangle (a, b, c); for a triangle of no area, to its longest edge (the
// closest point by region needs a plane).
BW_INLINE float triangle_distance_sq(const float* p, const float* a, const float* b, const float* c) {
    float ab[3], ac[3], n[3], q[3], d[3];
    sub(b, a, ab);
    sub(c, a, ac);
    cross(ab, ac, n);
    if (dot(n, n) == 0.0f) {
        const float* ends[3][2] = {{a, b}, {b, c}, {c, a}};
        int longest = 0;
        float length = -1.0f;
        for (int k = 0; k < 3; ++k) {
            float e[3];
            sub(ends[k][1], ends[k][0], e);
            if (dot(e, e) > length) { length = dot(e, e); longest = k; }
        }
        const float* s = ends[longest][0];
        float e[3], sp[3];
        sub(ends[longest][1], s, e);
        sub(p, s, sp);
        float t = length > 0.0f ? dot(sp, e) / length : 0.0f;
        t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
        for (int k = 0; k < 3; ++k) q[k] = s[k] + t * e[k];
    } else {
        float u, v;
        closest_on_triangle(p, a, b, c, u, v);
        at(a, b, c, u, v, q);
    }
    sub(p, q, d);
    return dot(d, d);
}

// Whether the triangle `face` of the mesh whose tree the query walks (a mesh_data starts with its bvh_data)
// is within the query's radius of its centre.
BW_INLINE bool sphere_meets_face(const bvh_query_t& q, int32_t face) {
    float a[3], b[3], c[3];
    triangle((const mesh_data*)q.bvh, face, a, b, c);
    return triangle_distance_sq(q.a, a, b, c) <= q.radius * q.radius;
}

BW_INLINE void face_normal(const float* a, const float* b, const float* c, float* n) {
    float ab[3], ac[3];
    sub(b, a, ab);
    sub(c, a, ac);
    cross(ab, ac, n);
    const float l = sqrt_(dot(n, n));
    if (l > 0.0f) for (int k = 0; k < 3; ++k) n[k] /= l;
}

// Woop, Benthin and Wald's watertight test, as Warp 1.19's mesh ray queries take it: whether start + t dir crosses
// triangle (a, b, c) at some t in [0, max_t) (t, the weights wa of a and wb of b, and `det`, which is > 0 where the
// ray meets the front of the face, Warp's sign). The ray's frame is sheared so that it runs along its longest
// axis; the edge functions are differences of products with their rounding error added back (fmaf), and in
// double where one is 0, so that a ray through an edge or a vertex is no miss of both triangles. The tests accept
// rather than reject, so that a NaN (in the direction, start or a vertex) is no hit, as in Warp.
BW_INLINE float diff_product(float a, float b, float c, float d) {
    const float cd = c * d;
    return BW_MATH(fmaf)(a, b, -cd) + BW_MATH(fmaf)(-c, d, cd);
}
// The ray's frame: kz its longest axis (the first of equals), kx and ky the others in turn (swapped where dir[kz] < 0,
// keeping the winding), and the shear that maps dir onto kz (computed once a ray, as Warp's does per triangle).
struct ray_shear {
    int kx, ky, kz;
    float sx, sy, sz;
};
BW_INLINE ray_shear shear_of(const float* dir) {
    ray_shear r;
    r.kz = 0;
    for (int k = 1; k < 3; ++k) if (BW_MATH(fabsf)(dir[k]) > BW_MATH(fabsf)(dir[r.kz])) r.kz = k;
    r.kx = r.kz == 2 ? 0 : r.kz + 1;
    r.ky = r.kx == 2 ? 0 : r.kx + 1;
    if (dir[r.kz] < 0.0f) { const int k = r.kx; r.kx = r.ky; r.ky = k; }
    r.sx = dir[r.kx] / dir[r.kz];
    r.sy = dir[r.ky] / dir[r.kz];
    r.sz = 1.0f / dir[r.kz];
    return r;
}
BW_INLINE bool ray_triangle(const float* start, const ray_shear& r, const float* a, const float* b, const float* c,
                            float max_t, float& t, float& wa, float& wb, float* det_out = nullptr) {
    const int kx = r.kx, ky = r.ky, kz = r.kz;
    const float sx = r.sx, sy = r.sy, sz = r.sz;
    float pa[3], pb[3], pc[3];
    sub(a, start, pa);
    sub(b, start, pb);
    sub(c, start, pc);
    const float ax = pa[kx] - sx * pa[kz], ay = pa[ky] - sy * pa[kz];
    const float bx = pb[kx] - sx * pb[kz], by = pb[ky] - sy * pb[kz];
    const float cx = pc[kx] - sx * pc[kz], cy = pc[ky] - sy * pc[kz];
    float u = diff_product(cx, by, cy, bx), v = diff_product(ax, cy, ay, cx), w = diff_product(bx, ay, by, ax);
    if (u == 0.0f || v == 0.0f || w == 0.0f) {
        u = float(double(cx) * double(by) - double(cy) * double(bx));
        v = float(double(ax) * double(cy) - double(ay) * double(cx));
        w = float(double(bx) * double(ay) - double(by) * double(ax));
    }
    if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f)) return false;
    const float det = u + v + w;
    if (det == 0.0f) return false;
    const float tt = u * (sz * pa[kz]) + v * (sz * pb[kz]) + w * (sz * pc[kz]);
    if (det < 0.0f ? tt > 0.0f : tt < 0.0f) return false;  // behind the start
    const float rcp = 1.0f / det;
    t = tt * rcp;
    if (!(t >= 0.0f && t < max_t)) return false;  // a hit at max_t is none, as in Warp
    wa = u * rcp;
    wb = v * rcp;
    if (det_out != nullptr) *det_out = det;
    return true;
}

// The squared distance from p to the box of `node` (for the furthest walk, minus the squared distance to its
// farthest corner: smaller is visited first and pruned less, as for the closest walk).
template <bool Far> BW_INLINE float walk_key(const bvh_data* b, int32_t node, const float* p) {
    const bvh_node_half& l = b->node_lowers[node];
    const bvh_node_half& u = b->node_uppers[node];
    const float lo[3] = {l.x, l.y, l.z}, hi[3] = {u.x, u.y, u.z};
    return Far ? -bvh_detail::box_far_distance_sq(p, lo, hi) : bvh_detail::box_distance_sq_clamped(p, lo, hi);
}

// The faces a closest walk found within `slack` of its closest distance (sqrt(bound) = sqrt(best) + slack), for
// the sign by normal, which takes the closest of them again in double; `overflow` if more than NEAR_FACES were.
enum { NEAR_FACES = 16 };
struct near_faces {
    float slack, bound;
    int32_t count;
    bool overflow;
    int32_t face[NEAR_FACES];
    float dist[NEAR_FACES];
};

BW_INLINE float grown(float best, float slack) {
    const float r = sqrt_(best) + slack;
    return r * r;
}

BW_INLINE void keep_near(near_faces* n, int32_t f, float dd, float bound) {
    if (n->count == NEAR_FACES) {  // room by dropping those the closest distance has left behind
        int32_t kept = 0;
        for (int32_t i = 0; i < n->count; ++i)
            if (n->dist[i] <= bound) { n->face[kept] = n->face[i]; n->dist[kept++] = n->dist[i]; }
        n->count = kept;
        if (kept == NEAR_FACES) { n->overflow = true; return; }
    }
    n->face[n->count] = f;
    n->dist[n->count++] = dd;
}

// The closest triangle within max_dist (furthest at least max_dist away when Far): face, weights and squared
// distance; false if none. The nearer child is walked first (the left one on a tie). A child is pushed with
// its box's key, and pruned when pushed or, as `best` shrank meanwhile, when popped: no box is read twice.
// Ties: also the faces within near->slack of the closest distance, into `near` (boxes that near are walked too).
template <bool Far, bool Ties = false>
BW_INLINE bool closest_walk(const mesh_data* m, const float* p, float max_dist, int32_t& face, float& wa, float& wb,
                            float& best, near_faces* near = nullptr) {
    const bvh_data* b = &m->bvh;
    face = -1;
    wa = wb = 0.0f;
    if (b->num_nodes == 0) return false;
    best = max_dist * max_dist;
    if (Far && max_dist < 0.0f) best = -1.0f;
    float bound = best;  // the boxes' prune bound (not Far): best, or with Ties best grown by the slack
    if (Ties) {
        near->count = 0;
        near->overflow = false;
        bound = grown(best, near->slack);
    }
    int32_t stack[BVH_STACK];
    float keys[BVH_STACK];  // each node's key, computed once, when it was pushed; a node whose key is above the
    stack[0] = 0;           // current bound (best, or -best when Far) is pruned (a NaN key never is)
    keys[0] = walk_key<Far>(b, 0, p);
    int32_t count = 1;
    float ta[3], tb[3], tc[3], q[3];
    while (count > 0) {
        --count;
        const int32_t node = stack[count];
        if (keys[count] > (Far ? -best : bound)) continue;
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left < 0) {
            for (int32_t k = -(left + 1); k < right; ++k) {
                const int32_t f = b->primitive_indices[k];
                triangle(m, f, ta, tb, tc);
                if (Far) {  // the furthest point of a triangle is one of its vertices
                    const float* vs[3] = {ta, tb, tc};
                    int best_k = 0;
                    float dk[3];
                    for (int j = 0; j < 3; ++j) {
                        float d[3];
                        sub(p, vs[j], d);
                        dk[j] = dot(d, d);
                        if (dk[j] > dk[best_k]) best_k = j;
                    }
                    if (dk[best_k] > best || (face < 0 && dk[best_k] >= best)) {
                        best = dk[best_k]; face = f; wa = best_k == 0 ? 1.0f : 0.0f; wb = best_k == 1 ? 1.0f : 0.0f;
                    }
                } else {
                    float u, v, d[3];
                    closest_on_triangle(p, ta, tb, tc, u, v);
                    at(ta, tb, tc, u, v, q);
                    sub(p, q, d);
                    const float dd = dot(d, d);
                    if (dd < best || (face < 0 && dd <= best)) {
                        best = dd; face = f; wa = u; wb = v;
                        bound = Ties ? grown(best, near->slack) : best;
                    }
                    if (Ties && dd <= bound) keep_near(near, f, dd, bound);
                }
            }
        } else if (count + 2 <= BVH_STACK) {
            const float dl = walk_key<Far>(b, left, p), dr = walk_key<Far>(b, right, p);
            const float cut = Far ? -best : bound;
            const bool left_first = dl <= dr;
            const int32_t first = left_first ? left : right, second = left_first ? right : left;
            const float kf = left_first ? dl : dr, ks = left_first ? dr : dl;
            if (!(ks > cut)) { stack[count] = second; keys[count++] = ks; }  // popped after the nearer one
            if (!(kf > cut)) { stack[count] = first; keys[count++] = kf; }
        }
    }
    return face >= 0;
}

BW_INLINE bool closest(const mesh_data* m, const float* p, float max_dist, bool far, int32_t& face, float& wa,
                       float& wb, float& best) {
    return far ? closest_walk<true>(m, p, max_dist, face, wa, wb, best)
               : closest_walk<false>(m, p, max_dist, face, wa, wb, best);
}

// Every triangle the ray meets within `limit`, which `hit` may shrink (it is read again for each box and
// triangle): hit(face, t, u, v) returns true to stop the walk.
template <class Hit>
BW_INLINE void ray_triangles(const mesh_data* m, const float* start, const float* dir, float& limit, int32_t root,
                             Hit hit) {
    const bvh_data* b = &m->bvh;
    if (b->num_nodes == 0) return;
    float rcp[3] = {1.0f / dir[0], 1.0f / dir[1], 1.0f / dir[2]};
    const ray_shear shear = shear_of(dir);
    int32_t stack[BVH_STACK];
    int32_t count = 0;
    stack[count++] = root >= 0 && root < b->num_nodes ? root : 0;
    float lo[3], hi[3], ta[3], tb[3], tc[3];
    while (count > 0) {
        const int32_t node = stack[--count];
        bvh_detail::node_box(b, node, lo, hi);
        if (!bvh_detail::ray_box(start, rcp, lo, hi, limit)) continue;
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left < 0) {
            for (int32_t k = -(left + 1); k < right; ++k) {
                const int32_t f = b->primitive_indices[k];
                triangle(m, f, ta, tb, tc);
                float th, u, v;
                if (ray_triangle(start, shear, ta, tb, tc, limit, th, u, v) && hit(f, th, u, v)) return;
            }
        } else if (count + 2 <= BVH_STACK) {
            stack[count++] = right;
            stack[count++] = left;
        }
    }
}

// The closest hit of the ray within max_t: face, t, weights; false if none.
BW_INLINE bool ray_closest(const mesh_data* m, const float* start, const float* dir, float max_t, int32_t& face,
                           float& t, float& wa, float& wb, int32_t root) {
    face = -1;
    t = max_t;
    ray_triangles(m, start, dir, t, root, [&](int32_t f, float th, float u, float v) {
        if (face < 0 || th < t) {
            t = th; face = f; wa = u; wb = v;
        }
        return false;
    });
    return face >= 0;
}

// Crossings of the ray with the mesh within max_t (each triangle counted once); with `any`, 1 at the first.
BW_INLINE int32_t ray_count(const mesh_data* m, const float* start, const float* dir, float max_t, bool any,
                            int32_t root = -1) {
    int32_t hits = 0;
    ray_triangles(m, start, dir, max_t, root, [&](int32_t, float, float, float) {
        ++hits;
        return any;
    });
    return hits;
}

// The sign by the parity of crossings along three fixed directions (majority vote): -1 inside, 1 outside. The
// directions are skewed so that rays from points of axis-aligned or symmetric meshes do not run along edges.
BW_INLINE float parity_sign(const mesh_data* m, const float* p) {
    const float dirs[3][3] = {{0.4180542f, 0.6370302f, 0.6476290f},
                              {-0.7790492f, 0.2363887f, -0.5806916f},
                              {0.1945790f, -0.9304976f, 0.3103438f}};
    int inside = 0;
    for (int k = 0; k < 3; ++k) inside += ray_count(m, p, dirs[k], inf<float>(), false) & 1;
    return inside >= 2 ? -1.0f : 1.0f;
}

// mesh_query_point's sign, as Warp 1.19 takes it: rays along +x, +y and +z from p each vote inside when
// their closest hit is the back of a face (its winding normal along the ray), outside when they miss or hit a
// front; -1 (inside) on two votes. A mesh wound inwards is so "outside" everywhere, where parity would not be.
BW_INLINE float orientation_sign(const mesh_data* m, const float* p) {
    int inside = 0;
    for (int k = 0; k < 3; ++k) {
        const float d[3] = {k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f};
        int32_t face;
        float t, u, v, a[3], b[3], c[3], ab[3], ac[3], n[3];
        if (!ray_closest(m, p, d, inf<float>(), face, t, u, v, -1)) continue;
        triangle(m, face, a, b, c);
        sub(b, a, ab);
        sub(c, a, ac);
        cross(ab, ac, n);
        inside += dot(n, d) > 0.0f;
    }
    return inside >= 2 ? -1.0f : 1.0f;
}

// The signed solid angle of triangle (ta, tb, tc) seen from p (positive where p sees its back), by Van
// Oosterom and Strackee's formula over the unit vectors towards the corners (no overflow far away); 0 from a
// corner.
BW_INLINE float solid_angle(const float* p, const float* ta, const float* tb, const float* tc) {
    float a[3], b[3], c[3], bc[3];
    sub(ta, p, a);
    sub(tb, p, b);
    sub(tc, p, c);
    const float la = sqrt_(dot(a, a)), lb = sqrt_(dot(b, b)), lc = sqrt_(dot(c, c));
    if (la == 0.0f || lb == 0.0f || lc == 0.0f) return 0.0f;
    for (int k = 0; k < 3; ++k) {
        a[k] /= la;
        b[k] /= lb;
        c[k] /= lc;
    }
    cross(b, c, bc);
    const float num = dot(a, bc);
    if (num == 0.0f) return 0.0f;
    return 2.0f * BW_MATH(atan2f)(num, 1.0f + dot(a, b) + dot(b, c) + dot(c, a));
}

enum { WINDING_RECORD = 36 };  // runtime/mesh_winding.py's node record: c, r2, N, area, N_ij, N_ijk (symmetric jk)

// The solid angle of a node's triangles seen from p by their moments' expansion about the node's centre c
// (orders 0 to 2 of the Taylor series of (x - p) / |x - p|^3 in x - c), if p is farther from c than sqrt(scale)
// times the node's radius and the result is finite; false: the caller descends.
BW_INLINE bool far_solid_angle(const float* w, const float* p, float scale, float& omega) {
    float u[3];
    sub(w, p, u);  // r = c - p
    const float rr = dot(u, u);
    if (!(rr > w[3] * scale)) return false;
    const float inv2 = 1.0f / rr, inv = sqrt_(inv2);
    for (int k = 0; k < 3; ++k) u[k] *= inv;  // unit: no 7th powers of |r| to overflow
    const float* n = w + 4;
    const float* nij = w + 8;
    const float* s0 = w + 17;  // N_ijk of i = x (xx, yy, zz, xy, xz, yz); y and z follow
    const float* s1 = s0 + 6;
    const float* s2 = s0 + 12;
    float unu = 0.0f;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) unu += u[i] * nij[3 * i + j] * u[j];
    // the contractions of N_ijk the third derivatives need: sum_i N_iik, sum_j N_ijj and N_ijk u_i u_j u_k
    const float a[3] = {s0[0] + s1[3] + s2[4], s0[3] + s1[1] + s2[5], s0[4] + s1[5] + s2[2]};
    const float b[3] = {s0[0] + s0[1] + s0[2], s1[0] + s1[1] + s1[2], s2[0] + s2[1] + s2[2]};
    const float* ss[3] = {s0, s1, s2};
    float cubic = 0.0f;
    for (int i = 0; i < 3; ++i) {
        const float* s = ss[i];
        cubic += u[i] * (s[0] * u[0] * u[0] + s[1] * u[1] * u[1] + s[2] * u[2] * u[2] +
                         2.0f * (s[3] * u[0] * u[1] + s[4] * u[0] * u[2] + s[5] * u[1] * u[2]));
    }
    const float o0 = dot(n, u) * inv2;
    const float o1 = inv2 * inv * (nij[0] + nij[4] + nij[8] - 3.0f * unu);
    const float o2 = inv2 * inv2 * (7.5f * cubic - 1.5f * (2.0f * dot(a, u) + dot(b, u)));
    omega = o0 + o1 + o2;
    return isfinite(omega);
}

// The winding number of a mesh with node moments at p (Barill et al.'s fast winding number, as Warp's): the
// tree walked from the root, a node's expansion taken where p is farther than `accuracy` times its radius
// from its centre, the leaves' triangles summed exactly. A larger accuracy descends further (more exact).
BW_INLINE float fast_winding_number(const mesh_data* m, const float* p, float accuracy) {
    const bvh_data* b = &m->bvh;
    const float scale = accuracy * accuracy;
    int32_t stack[BVH_STACK];
    int32_t count = 0;
    if (b->num_nodes > 0) stack[count++] = 0;
    double total = 0.0;  // one add per node or triangle: double keeps the sum of thousands to float precision
    float ta[3], tb[3], tc[3];
    while (count > 0) {
        const int32_t node = stack[--count];
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left < 0) {
            for (int32_t k = -(left + 1); k < right; ++k) {
                triangle(m, b->primitive_indices[k], ta, tb, tc);
                total += solid_angle(p, ta, tb, tc);
            }
            continue;
        }
        float omega;
        if (far_solid_angle(m->winding + WINDING_RECORD * (int64_t)node, p, scale, omega)) {
            total += omega;
        } else if (count + 2 <= BVH_STACK) {
            stack[count++] = right;
            stack[count++] = left;
        }
    }
    return (float)(total * (1.0 / (4.0 * 3.14159265358979323846)));
}

BW_INLINE bool same_point(const float* a, const float* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

BW_INLINE void widen(const float* a, double* out) {
    for (int k = 0; k < 3; ++k) out[k] = a[k];
}

// The unit normal of triangle (a, b, c) in double (zero for one of no area).
BW_INLINE void unit_normal(const double* a, const double* b, const double* c, double* n) {
    double ab[3], ac[3];
    sub(b, a, ab);
    sub(c, a, ac);
    cross(ab, ac, n);
    const double l = BW_MATH(sqrt)(dot(n, n));
    if (l > 0.0) for (int k = 0; k < 3; ++k) n[k] /= l;
}

// The slack of the sign by normal's walk: 1e-5 of the largest coordinate of p or of the tree's bounds (float32's
// rounding of the distances is about 1e-7 of it).
BW_INLINE float normal_slack(const mesh_data* m, const float* p) {
    float lo[3], hi[3], scale = 0.0f;
    bvh_detail::node_box(&m->bvh, 0, lo, hi);
    for (int k = 0; k < 3; ++k) {
        scale = bvh_detail::fmax_(scale, abs_(p[k]));
        scale = bvh_detail::fmax_(scale, bvh_detail::fmax_(abs_(lo[k]), abs_(hi[k])));
    }
    return 1e-5f * scale;
}

// The face that holds the mesh's closest point to p, found again in double among the faces the float32 walk
// could have taken instead of `face`: those it found within its slack of the closest distance (`near`), or if
// there were too many, every face within it (a walk of the boxes). Near a sharp edge two faces can be closer in
// distance than float32 resolves (a point 8.7e-6 off a 0.6 degree edge is 1e-8 nearer one face than the other;
// the walk's rounding is about 1e-7) and the plane of the other one puts p on the wrong side. Gives the region of
// the face that holds the closest point q and d = p - q; in double, from float32 inputs, both are exact to about
// 1e-16.
BW_INLINE int32_t exact_closest(const mesh_data* m, const float* p, int32_t face, const near_faces& near,
                                int& region, double* d) {
    double dp[3], best_d = inf<double>();
    widen(p, dp);
    int32_t found = face;
    auto consider = [&](int32_t f) {
        float fa[3], fb[3], fc[3];
        double a[3], bb[3], c[3], q[3], e[3], wa, wb;
        triangle(m, f, fa, fb, fc);
        widen(fa, a);
        widen(fb, bb);
        widen(fc, c);
        int r;
        closest_on_triangle(dp, a, bb, c, wa, wb, r);
        at(a, bb, c, wa, wb, q);
        sub(dp, q, e);
        if (dot(e, e) < best_d) {  // the walk's own face, considered first, is kept on an exact tie
            best_d = dot(e, e); found = f; region = r;
            for (int j = 0; j < 3; ++j) d[j] = e[j];
        }
    };
    consider(face);
    if (!near.overflow) {
        for (int32_t i = 0; i < near.count; ++i)
            if (near.face[i] != face && near.dist[i] <= near.bound) consider(near.face[i]);
        return found;
    }
    const bvh_data* b = &m->bvh;
    const float reach = near.bound;
    float lo[3], hi[3];
    int32_t stack[BVH_STACK];
    int32_t count = 0;
    stack[count++] = 0;
    while (count > 0) {
        const int32_t node = stack[--count];
        bvh_detail::node_box(b, node, lo, hi);
        if (!(bvh_detail::box_distance_sq(p, lo, hi) <= reach)) continue;
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left >= 0) {
            if (count + 2 <= BVH_STACK) { stack[count++] = right; stack[count++] = left; }
            continue;
        }
        for (int32_t k = -(left + 1); k < right; ++k)
            if (b->primitive_indices[k] != face) consider(b->primitive_indices[k]);
    }
    return found;
}

// The sign of p by the feature (face, edge or vertex) that holds its closest point q, d = p - q; -1 inside.
// The closest face is found again in double (exact_closest), and the feature is the region closest_on_triangle
// took there (not a distance tolerance, which takes a point near a sharp corner for one at it); its faces are
// those with a corner at the very same position (so faces that do not share vertex indices work too), found by
// walking the boxes that hold the feature's first corner. In double, the sign is the exact one but for points
// within about 1e-12 of the mesh's size from the surface (docs/geometry.md states 1e-10, which the tests check).
// - A face: the side of its plane.
// - An edge of two faces: the solid near it is the two faces' half-spaces' intersection (a convex edge: the
//   other face's far corner lies below the first's plane) or their union; so outside where d is above
//   either plane (convex) or above both. The sum of the two normals (the pseudonormal) is nearly
//   perpendicular to d at a sharp edge; the two planes' sides are far from rounding there.
// - A vertex (or an edge of one face or of more than two): the angle-weighted pseudonormal (Baerentzen and
//   Aanaes 2005), the sum of its faces' unit normals, each weighted by the face's angle at the vertex.
BW_INLINE float normal_sign(const mesh_data* m, const float* p, int32_t face, const near_faces& near) {
    int region = REGION_FACE;
    double d[3] = {0.0, 0.0, 0.0}, n[3];
    face = exact_closest(m, p, face, near, region, d);
    float ta[3], tb[3], tc[3];
    triangle(m, face, ta, tb, tc);
    {
        double a[3], b[3], c[3];
        widen(ta, a);
        widen(tb, b);
        widen(tc, c);
        unit_normal(a, b, c, n);
    }
    if (region == REGION_FACE) return dot(d, n) < 0.0 ? -1.0f : 1.0f;
    const float* ends[7][2] = {{ta, ta}, {ta, ta}, {tb, tb}, {tc, tc}, {ta, tb}, {ta, tc}, {tb, tc}};
    const float* v0 = ends[region][0];  // the feature's corners (a vertex: v0 alone)
    const float* v1 = ends[region][1];
    const bool edge = region >= REGION_AB;
    double sum[3] = {0.0, 0.0, 0.0}, normals[2][3], far_corner[2][3];
    int faces = 0;  // of an edge
    const bvh_data* b = &m->bvh;
    int32_t stack[BVH_STACK];
    int32_t count = 0;
    stack[count++] = 0;
    float lo[3], hi[3];
    while (count > 0) {
        const int32_t node = stack[--count];
        bvh_detail::node_box(b, node, lo, hi);
        if (bvh_detail::box_distance_sq(v0, lo, hi) > 0.0f) continue;  // a face with the corner holds it
        const int32_t left = b->node_lowers[node].i, right = b->node_uppers[node].i;
        if (left >= 0) {
            if (count + 2 <= BVH_STACK) { stack[count++] = right; stack[count++] = left; }
            continue;
        }
        for (int32_t k = -(left + 1); k < right; ++k) {
            float c[3][3];
            triangle(m, b->primitive_indices[k], c[0], c[1], c[2]);
            for (int j = 0; j < 3; ++j) {
                if (!same_point(c[j], v0)) continue;
                const float* next = c[(j + 1) % 3];
                const float* prev = c[(j + 2) % 3];
                double x0[3], x1[3], x2[3], fn[3];
                widen(c[0], x0);
                widen(c[1], x1);
                widen(c[2], x2);
                unit_normal(x0, x1, x2, fn);
                double weight = 1.0;
                if (edge) {  // the face holds the edge: its other end is one of the two other corners
                    const bool at_next = same_point(next, v1);
                    if (!at_next && !same_point(prev, v1)) break;
                    if (faces < 2) {
                        widen(at_next ? prev : next, far_corner[faces]);
                        for (int a = 0; a < 3; ++a) normals[faces][a] = fn[a];
                    }
                    ++faces;
                } else {  // the face's angle at the vertex
                    double e1[3], e2[3], x[3], at_v[3], to_next[3], to_prev[3];
                    widen(c[j], at_v);
                    widen(next, to_next);
                    widen(prev, to_prev);
                    sub(to_next, at_v, e1);
                    sub(to_prev, at_v, e2);
                    cross(e1, e2, x);
                    weight = BW_MATH(atan2)(BW_MATH(sqrt)(dot(x, x)), dot(e1, e2));
                }
                for (int a = 0; a < 3; ++a) sum[a] += weight * fn[a];
                break;
            }
        }
    }
    if (faces == 2) {
        double up[3], w0[3];
        widen(v0, w0);
        sub(far_corner[1], w0, up);
        const bool convex = dot(normals[0], up) < 0.0;
        const bool above0 = dot(d, normals[0]) >= 0.0, above1 = dot(d, normals[1]) >= 0.0;
        return (convex ? above0 || above1 : above0 && above1) ? 1.0f : -1.0f;
    }
    if (dot(sum, sum) > 0.0) for (int k = 0; k < 3; ++k) n[k] = sum[k];
    return dot(d, n) < 0.0 ? -1.0f : 1.0f;
}

template <class R> BW_INLINE R point_result(bool found, float sign, int32_t face, float u, float v) {
    R r{};
    r.m_result = found;
    r.m_sign = sign;
    r.m_face = face;
    r.m_u = u;
    r.m_v = v;
    return r;
}

enum { SIGN_NONE, SIGN_NORMAL, SIGN_PARITY, SIGN_WINDING, SIGN_ORIENTATION };

// A point query is a call, not forced inline: a tree walk dwarfs a call, and a kernel that queries in several
// places (Warp's tile_mcgp walk, unrolled, calls it 9 times) took g++ 6.6 s with each copy inline, 0.9 s called.
#ifdef BW_DEVICE
#define BW_QUERY __noinline__
#else
#define BW_QUERY inline __attribute__((noinline))
#endif

template <class R>
BW_QUERY R query_point(uint64_t id, const vec<3, float>& point, float max_dist, int how, float accuracy = 2.0f,
                        float threshold = 0.5f) {
    const mesh_data* m = get(id);
    float p[3];
    bvh_detail::v3(point, p);
    int32_t face;
    float u, v, best;
    near_faces near;
    if (m != nullptr && how == SIGN_NORMAL && m->bvh.num_nodes > 0) {  // the walk keeps the faces tied within float32
        near.slack = normal_slack(m, p);
        if (!closest_walk<false, true>(m, p, max_dist, face, u, v, best, &near))
            return point_result<R>(false, 0.0f, 0, 0.0f, 0.0f);
        near.bound = grown(best, near.slack);
        return point_result<R>(true, normal_sign(m, p, face, near), face, u, v);
    }
    if (m == nullptr || !closest(m, p, max_dist, false, face, u, v, best)) return point_result<R>(false, 0.0f, 0, 0.0f, 0.0f);
    float sign = 0.0f;
    if (how == SIGN_PARITY) sign = parity_sign(m, p);
    else if (how == SIGN_ORIENTATION) sign = orientation_sign(m, p);
    else if (how == SIGN_WINDING && m->winding == nullptr) sign = orientation_sign(m, p);  // as Warp: by rays
    else if (how == SIGN_WINDING) sign = fast_winding_number(m, p, accuracy) > threshold ? -1.0f : 1.0f;
    return point_result<R>(true, sign, face, u, v);
}

}  // namespace mesh_detail

template <class R> BW_INLINE R mesh_query_point_no_sign(uint64_t id, const vec<3, float>& point, float max_dist) {
    return mesh_detail::query_point<R>(id, point, max_dist, mesh_detail::SIGN_NONE);
}

template <class R>
BW_INLINE R mesh_query_furthest_point_no_sign(uint64_t id, const vec<3, float>& point, float min_dist) {
    const mesh_data* m = mesh_detail::get(id);
    float p[3];
    bvh_detail::v3(point, p);
    int32_t face;
    float u, v, best;
    if (m == nullptr || !mesh_detail::closest(m, p, min_dist, true, face, u, v, best))
        return mesh_detail::point_result<R>(false, 0.0f, 0, 0.0f, 0.0f);
    return mesh_detail::point_result<R>(true, 0.0f, face, u, v);
}

// epsilon is Warp's tolerance for ties at edges and vertices; normal_sign takes the feature exactly.
template <class R> BW_INLINE R mesh_query_point_sign_normal(uint64_t id, const vec<3, float>& point, float max_dist,
                                         float epsilon = 1e-3f) {
    (void)epsilon;
    return mesh_detail::query_point<R>(id, point, max_dist, mesh_detail::SIGN_NORMAL);
}

template <class R> BW_INLINE R mesh_query_point_sign_parity(uint64_t id, const vec<3, float>& point, float max_dist,
                                         int32_t n_sample = 1, float perturbation_scale = 0.1f) {
    (void)n_sample;
    (void)perturbation_scale;
    return mesh_detail::query_point<R>(id, point, max_dist, mesh_detail::SIGN_PARITY);
}

template <class R> BW_INLINE R mesh_query_point(uint64_t id, const vec<3, float>& point, float max_dist) {
    return mesh_detail::query_point<R>(id, point, max_dist, mesh_detail::SIGN_ORIENTATION);
}

template <class R>
BW_INLINE R mesh_query_point_sign_winding_number(uint64_t id, const vec<3, float>& point, float max_dist,
                                                 float accuracy = 2.0f, float threshold = 0.5f) {
    return mesh_detail::query_point<R>(id, point, max_dist, mesh_detail::SIGN_WINDING, accuracy, threshold);
}

template <class R>
BW_INLINE R mesh_query_ray(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir, float max_t,
                           int32_t root = -1) {
    const mesh_data* m = mesh_detail::get(id);
    float s[3], d[3];
    bvh_detail::v3(start, s);
    bvh_detail::v3(dir, d);
    R r{};  // a miss: all zero, as in Warp
    int32_t face;
    float t, u, v;
    if (m == nullptr || !mesh_detail::ray_closest(m, s, d, max_t, face, t, u, v, root)) return r;
    float ta[3], tb[3], tc[3], n[3], th, wa, wb, det = 0.0f;
    mesh_detail::triangle(m, face, ta, tb, tc);
    mesh_detail::face_normal(ta, tb, tc, n);
    mesh_detail::ray_triangle(s, mesh_detail::shear_of(d), ta, tb, tc, inf<float>(), th, wa, wb, &det);  // its det
    r.m_result = true;
    r.m_sign = det;  // > 0: the ray meets the front of the face (Warp's sign: the sheared triangle's area)
    r.m_face = face;
    r.m_t = t;
    r.m_u = u;
    r.m_v = v;
    for (int k = 0; k < 3; ++k) r.m_normal.c[k] = n[k];
    return r;
}

BW_INLINE bool mesh_query_ray_anyhit(uint64_t id, const vec<3, float>& start, const vec<3, float>& dir, float max_t,
                                     int32_t root = -1) {
    const mesh_data* m = mesh_detail::get(id);
    float s[3], d[3];
    bvh_detail::v3(start, s);
    bvh_detail::v3(dir, d);
    return m != nullptr && mesh_detail::ray_count(m, s, d, max_t, true, root) > 0;
}

BW_INLINE int32_t mesh_query_ray_count_intersections(uint64_t id, const vec<3, float>& start,
                                                     const vec<3, float>& dir, int32_t root = -1) {
    const mesh_data* m = mesh_detail::get(id);
    float s[3], d[3];
    bvh_detail::v3(start, s);
    bvh_detail::v3(dir, d);
    return m == nullptr ? 0 : mesh_detail::ray_count(m, s, d, inf<float>(), false, root);
}

BW_INLINE bvh_query_t mesh_query_aabb(uint64_t id, const vec<3, float>& lower, const vec<3, float>& upper) {
    const mesh_data* m = mesh_detail::get(id);
    return bvh_query_aabb(m == nullptr ? 0 : (uint64_t)(uintptr_t)&m->bvh, lower, upper);
}

// The triangles whose closest point is within radius of center (tangent ones included; a negative radius
// is 0), as Warp's.
BW_INLINE bvh_query_t mesh_query_sphere(uint64_t id, const vec<3, float>& center, float radius) {
    const mesh_data* m = mesh_detail::get(id);
    float a[3], b[3] = {1.0f, 1.0f, 1.0f};
    bvh_detail::v3(center, a);
    return bvh_detail::start(m == nullptr ? nullptr : &m->bvh, BVH_QUERY_MESH_SPHERE, a, b,
                             radius > 0.0f ? radius : 0.0f, -1);
}

BW_INLINE bool mesh_query_next(bvh_query_t& q, int32_t& index) { return bvh_query_next(q, index); }
BW_INLINE bool mesh_query_aabb_next(bvh_query_t& q, int32_t& index) { return bvh_query_next(q, index); }

BW_INLINE int32_t mesh_get_group_root(uint64_t id, int32_t group) { return bvh_get_group_root(id, group); }

}  // namespace bw
