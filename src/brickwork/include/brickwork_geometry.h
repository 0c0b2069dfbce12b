// brickwork runtime: Warp's geometric queries between segments and triangles (closest_point_edge_edge,
// intersect_tri_tri). A separate header, included only by generated units that call one of them.
#pragma once
#include "brickwork.h"

namespace bw {

// The closest points of segments p1-q1 and p2-q2 as (s, t, distance): c1 = p1 + s (q1 - p1) and
// c2 = p2 + t (q2 - p2) minimize |c1 - c2| with s, t in [0, 1] (Ericson, Real-Time Collision Detection
// 5.1.9). A segment whose squared length is at most `eps` is taken as its first point; segments with
// a e - b^2 == 0 (parallel) take s = 0 and the t that goes with it (then clamped as the others).
template <class T>
BW_INLINE vec<3, T> closest_point_edge_edge(const vec<3, T>& p1, const vec<3, T>& q1, const vec<3, T>& p2,
                                            const vec<3, T>& q2, T eps) {
    const vec<3, T> d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    T s = T(0), t = T(0);
    auto unit = [](T x) { return x < T(0) ? T(0) : (x > T(1) ? T(1) : x); };
    if (a <= eps && e <= eps) {
        // both points
    } else if (a <= eps) {
        t = unit(f / e);
    } else {
        const T c = dot(d1, r);
        if (e <= eps) {
            s = unit(-c / a);
        } else {
            const T b = dot(d1, d2);
            const T denom = a * e - b * b;
            if (denom != T(0)) s = unit((b * f - c * e) / denom);
            t = (b * s + f) / e;
            if (t < T(0)) {
                t = T(0);
                s = unit(-c / a);
            } else if (t > T(1)) {
                t = T(1);
                s = unit((b - c) / a);
            }
        }
    }
    const vec<3, T> c1 = add(p1, mul(d1, s)), c2 = add(p2, mul(d2, t));
    return vec<3, T>{{s, t, length(sub(c1, c2))}};
}

namespace geometry_detail {

// Whether the projections of triangles v and u on `axis` are apart (touching is not apart).
template <class T> BW_INLINE bool separates(const vec<3, T>& axis, const vec<3, T>* v, const vec<3, T>* u) {
    T vmin = dot(axis, v[0]), vmax = vmin, umin = dot(axis, u[0]), umax = umin;
    for (int i = 1; i < 3; ++i) {
        const T x = dot(axis, v[i]), y = dot(axis, u[i]);
        vmin = x < vmin ? x : vmin;
        vmax = x > vmax ? x : vmax;
        umin = y < umin ? y : umin;
        umax = y > umax ? y : umax;
    }
    return vmax < umin || umax < vmin;
}

}  // namespace geometry_detail

// 1 when triangles (v0, v1, v2) and (u0, u1, u2) intersect or touch, else 0: the separating-axis test over
// both normals, the cross products of their edges, and the in-plane edge normals (coplanar triangles).
template <class T>
BW_INLINE int32_t intersect_tri_tri(const vec<3, T>& v0, const vec<3, T>& v1, const vec<3, T>& v2,
                                    const vec<3, T>& u0, const vec<3, T>& u1, const vec<3, T>& u2) {
    const vec<3, T> v[3] = {v0, v1, v2}, u[3] = {u0, u1, u2};
    const vec<3, T> ev[3] = {sub(v1, v0), sub(v2, v1), sub(v0, v2)}, eu[3] = {sub(u1, u0), sub(u2, u1), sub(u0, u2)};
    const vec<3, T> nv = cross(ev[0], ev[1]), nu = cross(eu[0], eu[1]);
    if (geometry_detail::separates(nv, v, u) || geometry_detail::separates(nu, v, u)) return 0;
    for (int i = 0; i < 3; ++i) {
        if (geometry_detail::separates(cross(nv, ev[i]), v, u) || geometry_detail::separates(cross(nu, eu[i]), v, u))
            return 0;
        for (int j = 0; j < 3; ++j)
            if (geometry_detail::separates(cross(ev[i], eu[j]), v, u)) return 0;
    }
    return 1;
}

}  // namespace bw
