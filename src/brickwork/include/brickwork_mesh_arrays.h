// brickwork runtime: a triangle mesh's arrays in kernels (wp.mesh_get, mesh_get_grads for its backward pass,
// mesh_get_bvh, mesh_eval_*, mesh_get_point/velocity/index). A separate header beside brickwork_bvh.h (the
// descriptor and the queries), included only by generated units that call one of these builtins.
#pragma once
#include "brickwork_bvh.h"

namespace bw {

namespace mesh_detail {
// A 1d array of n elements at p (empty when p is null).
template <class A, class T> BW_INLINE void view(A& a, T* p, int64_t n) {
    if (p != nullptr) {
        a.data = (decltype(a.data))p;
        a.shape[0] = n;
    }
    a.strides[0] = 1;
}
}  // namespace mesh_detail

// The mesh's arrays (R: the unit's struct of points, velocities and indices), which kernels may also write.
template <class R> BW_INLINE R mesh_get(uint64_t id) {
    const mesh_data* m = mesh_detail::get(id);
    R r{};
    if (m == nullptr) return r;
    mesh_detail::view(r.m_points, m->points, m->num_points);
    mesh_detail::view(r.m_velocities, m->velocities, m->num_points);
    mesh_detail::view(r.m_indices, m->indices, 3 * (int64_t)m->num_tris);
    return r;
}

// The same struct over the gradients of the points and velocities (empty where they have none; indices have
// none): the backward pass of mesh_get accumulates the adjoints of what a kernel read through it there.
template <class R> BW_INLINE R mesh_get_grads(uint64_t id) {
    const mesh_data* m = mesh_detail::get(id);
    R r{};
    if (m == nullptr) return r;
    mesh_detail::view(r.m_points, m->points_grad, m->num_points);
    mesh_detail::view(r.m_velocities, m->velocities_grad, m->num_points);
    mesh_detail::view(r.m_indices, (const int32_t*)nullptr, 0);
    return r;
}

// The id of the mesh's tree over its triangles' bounds, for the bvh_query_* builtins: a mesh_data starts
// with its bvh_data, so it is the mesh's own address.
BW_INLINE uint64_t mesh_get_bvh(uint64_t id) { return id; }

BW_INLINE vec<3, float> mesh_eval_position(uint64_t id, int32_t face, float u, float v) {
    const mesh_data* m = mesh_detail::get(id);
    float a[3], b[3], c[3], p[3];
    mesh_detail::triangle(m, face, a, b, c);
    mesh_detail::at(a, b, c, u, v, p);
    return vec<3, float>{{p[0], p[1], p[2]}};
}

BW_INLINE vec<3, float> mesh_eval_velocity(uint64_t id, int32_t face, float u, float v) {
    const mesh_data* m = mesh_detail::get(id);
    if (m->velocities == nullptr) return vec<3, float>{{0.0f, 0.0f, 0.0f}};
    float a[3], b[3], c[3], p[3];
    for (int k = 0; k < 3; ++k) {
        const int32_t i = m->indices[3 * (int64_t)face + k];
        float* out = k == 0 ? a : k == 1 ? b : c;
        for (int j = 0; j < 3; ++j) out[j] = m->velocities[3 * (int64_t)i + j];
    }
    mesh_detail::at(a, b, c, u, v, p);
    return vec<3, float>{{p[0], p[1], p[2]}};
}

// The face's unit normal normalize(cross(p1 - p0, p2 - p0)), oriented by its winding as Warp's; a degenerate face
// gives zero (Warp's normalize of a zero-length vector).
BW_INLINE vec<3, float> mesh_eval_face_normal(uint64_t id, int32_t face) {
    const mesh_data* m = mesh_detail::get(id);
    float a[3], b[3], c[3], e1[3], e2[3], n[3];
    mesh_detail::triangle(m, face, a, b, c);
    mesh_detail::sub(b, a, e1);
    mesh_detail::sub(c, a, e2);
    mesh_detail::cross(e1, e2, n);
    const float l = mesh_detail::sqrt_(mesh_detail::dot(n, n));
    if (!(l > 0.0f)) return vec<3, float>{{0.0f, 0.0f, 0.0f}};
    return vec<3, float>{{n[0] / l, n[1] / l, n[2] / l}};
}

BW_INLINE vec<3, float> mesh_get_point(uint64_t id, int32_t index) {
    const mesh_data* m = mesh_detail::get(id);
    float p[3];
    mesh_detail::vertex(m, index / 3, index % 3, p);
    return vec<3, float>{{p[0], p[1], p[2]}};
}

BW_INLINE vec<3, float> mesh_get_velocity(uint64_t id, int32_t index) {
    const mesh_data* m = mesh_detail::get(id);
    if (m->velocities == nullptr) return vec<3, float>{{0.0f, 0.0f, 0.0f}};
    const int32_t i = m->indices[index];
    return vec<3, float>{{m->velocities[3 * (int64_t)i], m->velocities[3 * (int64_t)i + 1],
                          m->velocities[3 * (int64_t)i + 2]}};
}

BW_INLINE int32_t mesh_get_index(uint64_t id, int32_t index) { return mesh_detail::get(id)->indices[index]; }

}  // namespace bw
