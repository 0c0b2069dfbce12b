// brickwork runtime: small matrix decompositions (svd3, svd2, qr3, eig3) and the other builtins with
// several results (quat_to_axis_angle, transform_decompose). A separate header, included only by
// generated units that call one of them, so that other kernels do not compile it.
//
// Builtins with several results take their outputs as trailing reference parameters (Warp's output
// arguments); a kernel's `U, s, V = wp.svd3(A)` fills a tuple through them.
//
// svd3, qr3 and eig3 follow the method of McAdams, Selle, Tamstorf, Teran and Sifakis ("Computing the
// singular value decomposition of 3x3 matrices with minimal branching and elementary floating point
// operations", 2011), as Warp does, with its branch decisions, so that signs and orderings agree with
// Warp: four cyclic sweeps of approximate Jacobi rotations on A^T A give V; the columns of B = A V are
// sorted by decreasing norm (V stays a rotation); Givens QR of B gives U and the singular values (the
// last may be negative, so that U and V are rotations). Warp stops after the four sweeps; here Jacobi
// refinement continues to convergence (one-sided on B for svd3), so results are accurate to rounding
// and agree with Warp's to its precision. Everything is computed in double and rounded once to the
// component type.
#pragma once
#include "brickwork.h"

namespace bw {
namespace decomp {
// The iterative cores are called, not inlined, on the GPU: a kernel (a backward one above all) that
// calls svd3 several times otherwise takes NVRTC twice as long to compile. The CPU keeps them inline.
#ifdef __CUDACC__
#define BW_DECOMP_CORE inline __noinline__
#else
#define BW_DECOMP_CORE inline
#endif

struct m3 { double a[3][3]; };

template <class T> BW_INLINE m3 to_m3(const mat<3, 3, T>& m) {
    m3 r;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) r.a[i][j] = cast<double>(m.r[i].c[j]);
    return r;
}
template <class T> BW_INLINE mat<3, 3, T> from_m3(const m3& m) {
    mat<3, 3, T> r;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) r.r[i].c[j] = cast<T>(m.a[i][j]);
    return r;
}
inline m3 identity3() { return m3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}; }

// Rotation in the (p, q) plane by the angle with cos c and sin s: columns p and q of X become
// c X_p + s X_q and -s X_p + c X_q (X G, with G_pp = G_qq = c, G_qp = s, G_pq = -s).
inline void rotate_columns(m3& x, int p, int q, double c, double s) {
    for (int i = 0; i < 3; ++i) {
        const double xp = x.a[i][p], xq = x.a[i][q];
        x.a[i][p] = c * xp + s * xq;
        x.a[i][q] = -s * xp + c * xq;
    }
}
inline void rotate_rows(m3& x, int p, int q, double c, double s) {  // G^T X
    for (int j = 0; j < 3; ++j) {
        const double xp = x.a[p][j], xq = x.a[q][j];
        x.a[p][j] = c * xp + s * xq;
        x.a[q][j] = -s * xp + c * xq;
    }
}

// Symmetric S: Warp's four sweeps over the pairs (0,1), (1,2), (2,0), which fix the signs and the order of
// the results. Each rotation is the approximate Givens rotation of the method: the exact half-angle's
// (cos, sin) direction (2 (s_pp - s_qq), s_pq) where the angle is below pi/8, else the rotation by pi/4
// (also when s_pq = 0 and s_pp = s_qq). On return S_in = V S V^T with S nearly diagonal (off-diagonal
// terms near 1e-4 relative remain for some matrices: see the refinements below).
BW_DECOMP_CORE void jacobi_sweeps(m3& s, m3& v) {
    const double gamma = 5.828427124746190;     // 3 + 2 sqrt(2)
    const double cstar = 0.9238795325112867;    // cos(pi / 8)
    const double sstar = 0.3826834323650898;    // sin(pi / 8)
    v = identity3();
    for (int sweep = 0; sweep < 4; ++sweep) {
        for (int k = 0; k < 3; ++k) {
            const int p = k, q = (k + 1) % 3;
            double ch = 2.0 * (s.a[p][p] - s.a[q][q]), sh = s.a[q][p];
            if (gamma * sh * sh < ch * ch) {
                const double w = 1.0 / BW_MATH(sqrt)(ch * ch + sh * sh);
                ch *= w;
                sh *= w;
            } else {
                ch = cstar;
                sh = sstar;
            }
            const double scale = ch * ch + sh * sh;
            const double c = (ch * ch - sh * sh) / scale, sn = 2.0 * sh * ch / scale;
            rotate_columns(s, p, q, c, sn);
            rotate_rows(s, p, q, c, sn);
            rotate_columns(v, p, q, c, sn);
        }
    }
}

// The rotation (c, sn) for rotate_columns that makes columns p and q orthogonal, given their squared
// lengths alpha, beta and dot product g (Hestenes); the smaller of the two angles, |angle| <= pi/4.
inline void orthogonalizing_rotation(double alpha, double beta, double g, double& c, double& sn) {
    const double zeta = (beta - alpha) / (2.0 * g);
    const double t = (zeta >= 0 ? 1.0 : -1.0) / (BW_MATH(fabs)(zeta) + BW_MATH(sqrt)(1.0 + zeta * zeta));
    c = 1.0 / BW_MATH(sqrt)(1.0 + t * t);
    sn = -t * c;
}

// eig3: exact Jacobi rotations (quadratic convergence) until S is diagonal to rounding.
BW_DECOMP_CORE void refine_symmetric(m3& s, m3& v) {
    for (int sweep = 0; sweep < 16; ++sweep) {
        double off = 0, diagonal = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) (i == j ? diagonal : off) += s.a[i][j] * s.a[i][j];
        if (!(off > 1e-28 * (diagonal + off))) return;  // off-diagonal below 1e-14 relative
        for (int k = 0; k < 3; ++k) {
            const int p = k, q = (k + 1) % 3;
            if (s.a[q][p] == 0) continue;
            double c, sn;  // G^T S G zeroes s_pq: the same angle as for columns with Gram entries s_pp, s_qq, s_pq
            orthogonalizing_rotation(s.a[p][p], s.a[q][q], s.a[q][p], c, sn);
            rotate_columns(s, p, q, c, sn);
            rotate_rows(s, p, q, c, sn);
            rotate_columns(v, p, q, c, sn);
        }
    }
}

// svd3: one-sided Jacobi on B = A V (rotating B's and V's columns together) until B's columns are
// orthogonal to rounding. Working on B rather than A^T A keeps small singular values accurate, so
// that U diag(sigma) V^T reproduces A to rounding of its largest entries.
inline void refine_columns(m3& b, m3& v) {
    double frob = 0;  // columns at rounding level of the whole (a null space) have no direction to refine
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) frob += b.a[i][j] * b.a[i][j];
    for (int sweep = 0; sweep < 16; ++sweep) {
        bool rotated = false;
        for (int k = 0; k < 3; ++k) {
            const int p = k, q = (k + 1) % 3;
            double alpha = 0, beta = 0, g = 0;
            for (int i = 0; i < 3; ++i) {
                alpha += b.a[i][p] * b.a[i][p];
                beta += b.a[i][q] * b.a[i][q];
                g += b.a[i][p] * b.a[i][q];
            }
            if (!(BW_MATH(fabs)(g) > 1e-14 * BW_MATH(sqrt)(alpha * beta) && BW_MATH(fabs)(g) > 1e-30 * frob)) continue;
            double c, sn;
            orthogonalizing_rotation(alpha, beta, g, c, sn);
            rotate_columns(b, p, q, c, sn);
            rotate_columns(v, p, q, c, sn);
            rotated = true;
        }
        if (!rotated) return;
    }
}

// Columns i and j of X: X_i <- X_j, X_j <- -X_i (a rotation by pi/2, so V stays a rotation).
inline void neg_swap_columns(m3& x, int i, int j) {
    for (int r = 0; r < 3; ++r) {
        const double t = -x.a[r][i];
        x.a[r][i] = x.a[r][j];
        x.a[r][j] = t;
    }
}

// B = Q R by three Givens rotations annihilating (1,0), (2,0), (2,1); a negative pivot takes the rotation
// that makes it positive. Warp leaves pivot columns shorter than 1e-6 as they are, which loses up to 1e-6
// absolute (all of a small matrix); here only columns that are zero to within 1e-150 are left.
BW_DECOMP_CORE void givens_qr(const m3& b, m3& q, m3& r) {
    const int steps[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    r = b;
    q = identity3();
    for (const auto& st : steps) {
        const int p = st[0], k = st[1];
        const double a1 = r.a[p][p], a2 = r.a[k][p];
        const double rho = BW_MATH(sqrt)(a1 * a1 + a2 * a2);
        double sh = rho > 1e-150 ? a2 : 0.0;
        double ch = BW_MATH(fabs)(a1) + (rho > 1e-150 ? rho : 1e-150);
        if (a1 < 0) {
            const double t = sh;
            sh = ch;
            ch = t;
        }
        const double w = 1.0 / BW_MATH(sqrt)(ch * ch + sh * sh);
        ch *= w;
        sh *= w;
        const double c = 1.0 - 2.0 * sh * sh, s = 2.0 * ch * sh;
        rotate_rows(r, p, k, c, s);
        rotate_columns(q, p, k, c, s);
    }
}

BW_DECOMP_CORE void svd3(const m3& a, m3& u, double sigma[3], m3& v) {
    m3 s;  // A^T A
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s.a[i][j] = a.a[0][i] * a.a[0][j] + a.a[1][i] * a.a[1][j] + a.a[2][i] * a.a[2][j];
    jacobi_sweeps(s, v);
    m3 b;  // A V
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) b.a[i][j] = a.a[i][0] * v.a[0][j] + a.a[i][1] * v.a[1][j] + a.a[i][2] * v.a[2][j];
    refine_columns(b, v);
    double rho[3];
    for (int j = 0; j < 3; ++j) rho[j] = b.a[0][j] * b.a[0][j] + b.a[1][j] * b.a[1][j] + b.a[2][j] * b.a[2][j];
    const int order[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (const auto& ij : order) {
        const int i = ij[0], j = ij[1];
        if (rho[i] < rho[j]) {
            neg_swap_columns(b, i, j);
            neg_swap_columns(v, i, j);
            const double t = rho[i];
            rho[i] = rho[j];
            rho[j] = t;
        }
    }
    m3 r;
    givens_qr(b, u, r);
    for (int i = 0; i < 3; ++i) sigma[i] = r.a[i][i];
}

// 2x2: A = R(phi) diag(s1, s2) R(theta) in closed form (rotations R), s1 >= |s2|; a negative s2 is
// made positive by flipping the second column of V. Exact for every matrix, singular ones included.
inline void svd2(const double a[2][2], double u[2][2], double sigma[2], double v[2][2]) {
    const double e = 0.5 * (a[0][0] + a[1][1]), f = 0.5 * (a[0][0] - a[1][1]);
    const double g = 0.5 * (a[1][0] + a[0][1]), h = 0.5 * (a[1][0] - a[0][1]);
    const double qn = BW_MATH(sqrt)(e * e + h * h), rn = BW_MATH(sqrt)(f * f + g * g);
    const double a1 = BW_MATH(atan2)(g, f), a2 = BW_MATH(atan2)(h, e);
    const double theta = 0.5 * (a2 - a1), phi = 0.5 * (a2 + a1);
    const double cp = BW_MATH(cos)(phi), sp = BW_MATH(sin)(phi), ct = BW_MATH(cos)(theta), st = BW_MATH(sin)(theta);
    double s2 = qn - rn, flip = 1.0;
    if (s2 < 0) {
        s2 = -s2;
        flip = -1.0;
    }
    sigma[0] = qn + rn;
    sigma[1] = s2;
    u[0][0] = cp; u[0][1] = -sp; u[1][0] = sp; u[1][1] = cp;
    // V = R(theta)^T = R(-theta), its second column times flip
    v[0][0] = ct; v[0][1] = st * flip; v[1][0] = -st; v[1][1] = ct * flip;
}

}  // namespace decomp

template <class T> BW_INLINE void svd3(const mat<3, 3, T>& A, mat<3, 3, T>& U, vec<3, T>& sigma, mat<3, 3, T>& V) {
    decomp::m3 u, v;
    double s[3];
    decomp::svd3(decomp::to_m3(A), u, s, v);
    U = decomp::from_m3<T>(u);
    V = decomp::from_m3<T>(v);
    for (int i = 0; i < 3; ++i) sigma.c[i] = cast<T>(s[i]);
}

template <class T> BW_INLINE void svd2(const mat<2, 2, T>& A, mat<2, 2, T>& U, vec<2, T>& sigma, mat<2, 2, T>& V) {
    double a[2][2], u[2][2], v[2][2], s[2];
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) a[i][j] = cast<double>(A.r[i].c[j]);
    decomp::svd2(a, u, s, v);
    for (int i = 0; i < 2; ++i) {
        sigma.c[i] = cast<T>(s[i]);
        for (int j = 0; j < 2; ++j) {
            U.r[i].c[j] = cast<T>(u[i][j]);
            V.r[i].c[j] = cast<T>(v[i][j]);
        }
    }
}

template <class T> BW_INLINE void qr3(const mat<3, 3, T>& A, mat<3, 3, T>& Q, mat<3, 3, T>& R) {
    decomp::m3 q, r;
    decomp::givens_qr(decomp::to_m3(A), q, r);
    Q = decomp::from_m3<T>(q);
    R = decomp::from_m3<T>(r);
}

// Eigen-decomposition of a symmetric A (its lower triangle is used): A = Q diag(d) Q^T, unsorted.
template <class T> BW_INLINE void eig3(const mat<3, 3, T>& A, mat<3, 3, T>& Q, vec<3, T>& d) {
    decomp::m3 s = decomp::to_m3(A), v;
    for (int i = 0; i < 3; ++i) for (int j = i + 1; j < 3; ++j) s.a[i][j] = s.a[j][i];
    decomp::jacobi_sweeps(s, v);
    decomp::refine_symmetric(s, v);
    Q = decomp::from_m3<T>(v);
    for (int i = 0; i < 3; ++i) d.c[i] = cast<T>(s.a[i][i]);
}

// The packed forms backward kernels use: every result as rows of one matrix (builtins/decompositions.py).
template <int R, int N, class T> BW_INLINE void pack_rows(mat<R, N, T>& p, int at, const mat<N, N, T>& m) {
    for (int i = 0; i < N; ++i) p.r[at + i] = m.r[i];
}
template <class T> BW_INLINE mat<7, 3, T> svd3_packed(const mat<3, 3, T>& A) {
    mat<3, 3, T> U, V; vec<3, T> s; mat<7, 3, T> p;
    svd3(A, U, s, V); pack_rows(p, 0, U); p.r[3] = s; pack_rows(p, 4, V);
    return p;
}
template <class T> BW_INLINE mat<5, 2, T> svd2_packed(const mat<2, 2, T>& A) {
    mat<2, 2, T> U, V; vec<2, T> s; mat<5, 2, T> p;
    svd2(A, U, s, V); pack_rows(p, 0, U); p.r[2] = s; pack_rows(p, 3, V);
    return p;
}
template <class T> BW_INLINE mat<6, 3, T> qr3_packed(const mat<3, 3, T>& A) {
    mat<3, 3, T> Q, R; mat<6, 3, T> p;
    qr3(A, Q, R); pack_rows(p, 0, Q); pack_rows(p, 3, R);
    return p;
}
template <class T> BW_INLINE mat<4, 3, T> eig3_packed(const mat<3, 3, T>& A) {
    mat<3, 3, T> Q; vec<3, T> d; mat<4, 3, T> p;
    eig3(A, Q, d); pack_rows(p, 0, Q); p.r[3] = d;
    return p;
}

// Axis (unit, pointing so that the angle is in [0, pi]) and angle of a quaternion, unit or not:
// angle = 2 atan2(|v|, |w|) as in Warp.
template <class T> BW_INLINE void quat_to_axis_angle(const quat<T>& q, vec<3, T>& axis, T& angle) {
    const double x = cast<double>(q.c[0]), y = cast<double>(q.c[1]), z = cast<double>(q.c[2]);
    const double w = cast<double>(q.c[3]);
    const double n = BW_MATH(sqrt)(x * x + y * y + z * z);
    const double k = n > 0 ? (w < 0 ? -1.0 : 1.0) / n : 0.0;
    axis = vec<3, T>{{cast<T>(x * k), cast<T>(y * k), cast<T>(z * k)}};
    angle = cast<T>(2.0 * BW_MATH(atan2)(n, BW_MATH(fabs)(w)));
}

// A 4x4 matrix made by transform_compose back into position, rotation and scale: the scale is the
// length of each column of the upper-left 3x3 block, the rotation that of the block with its columns
// divided by their scales.
template <class T> BW_INLINE void transform_decompose(const mat<4, 4, T>& m, vec<3, T>& p, quat<T>& q, vec<3, T>& s) {
    mat<3, 3, T> r;
    for (int j = 0; j < 3; ++j) {
        double n = 0;
        for (int i = 0; i < 3; ++i) n += cast<double>(m.r[i].c[j]) * cast<double>(m.r[i].c[j]);
        n = BW_MATH(sqrt)(n);
        s.c[j] = cast<T>(n);
        for (int i = 0; i < 3; ++i) r.r[i].c[j] = cast<T>(n > 0 ? cast<double>(m.r[i].c[j]) / n : 0.0);
        p.c[j] = m.r[j].c[3];
    }
    q = quat_from_matrix(r);
}

}  // namespace bw
