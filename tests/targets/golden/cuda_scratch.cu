// brickwork CUDA kernel instance outer
#include "brickwork_cuda.h"
namespace {

template <bool UNIT, class ARENA>
__device__ __forceinline__ void body(bw::array_t<double, 4> v_field, int32_t v__la_ks, int32_t v__la_ke, int32_t v__la_js, int32_t v__la_je, int32_t v__la_is, int32_t v__la_ie, int32_t v__la_NK, int32_t v__la_NJ, int32_t v__la_NI, int32_t v__la_ninner, int32_t v__la_nouter, const int32_t n0, const int32_t n1, const ARENA bw_blk) {
    (void)n0;
    (void)n1;
    int32_t v_b{};
    bw::array_t<double, 1> v__la_scratch1{};
    int32_t v_idx{};
    int32_t v_k{};
    int32_t v_j{};
    int32_t v_i{};
    int32_t v__la_t1{};
    int32_t v__la_t2{};
    bw::team v__la_team{};
    int32_t v__la_t3{};
    int32_t v__la_t4{};
    int32_t v__la_t5{};
    int32_t v__la_t6{};
    int32_t v__la_t7{};
    int32_t v__la_t8{};
    int32_t v__la_t9{};
    int32_t v__la_t10{};
    int32_t v__la_t11{};
    int32_t v__la_f12{};
    int32_t v__la_t13{};
    int32_t v__la_t14{};
    uint32_t v__la_t15{};
    int32_t v__la_t16{};
    int32_t v__la_t17{};
    int32_t v__la_t18{};
    int32_t v__la_t19{};
    int32_t v__la_t20{};
    int32_t v__la_t21{};
    int32_t v__la_f12_c0_22{};
    int32_t v__la_t16_c0_23{};
    int32_t v__la_t17_c0_24{};
    int32_t v__la_t18_c0_25{};
    int32_t v__la_t19_c0_26{};
    int32_t v__la_t20_c0_27{};
    int32_t v__la_t21_c0_28{};
    int32_t v_idx_c0_29{};
    int32_t v__la_p30{};
    int32_t v__la_n31{};
    int32_t v__la_t32{};
    int32_t v__la_t33{};
    int32_t v__la_t34{};
    int32_t v__la_t35{};
    int32_t v__la_t36{};
    int32_t v__la_t37{};
    int32_t v__la_t38{};
    int32_t v__la_f39{};
    int32_t v__la_t40{};
    int32_t v__la_t41{};
    uint32_t v__la_t42{};
    int32_t v__la_t43{};
    int32_t v__la_t44{};
    int32_t v__la_t45{};
    int32_t v__la_t46{};
    int32_t v__la_t47{};
    int32_t v__la_t48{};
    int32_t v__la_f39_c0_49{};
    int32_t v__la_t43_c0_50{};
    int32_t v__la_t44_c0_51{};
    int32_t v__la_t45_c0_52{};
    int32_t v__la_t46_c0_53{};
    int32_t v__la_t47_c0_54{};
    int32_t v__la_t48_c0_55{};
    int32_t v_i_c0_56{};
    int32_t v_j_c0_57{};
    int32_t v_k_c0_58{};
    int32_t v__la_p59{};
    int32_t v__la_n60{};
    int32_t v__gpu_c61{};
    int32_t v__gpu_c62{};
    uint32_t v__gpu_r63{};
    v__gpu_c62 = ((int32_t)blockIdx.x);
    v__gpu_r63 = bw::add(bw::cast<uint32_t>(((int32_t)blockIdx.y)), bw::mul(bw::cast<uint32_t>(((int32_t)gridDim.y)), bw::cast<uint32_t>(((int32_t)blockIdx.z))));
    if (bw::truth(bw::ge(v__gpu_r63, bw::cast<uint32_t>(n0)))) {
        return;
    }
    v__gpu_c61 = bw::cast<int32_t>(v__gpu_r63);
    v_b = v__gpu_c61;
    v__la_t1 = bw::add(v__la_ks, v__gpu_c62);
    v__la_t2 = bw::add(bw::mul(bw::add(bw::mul(v__la_t1, v__la_NJ), v__la_js), v__la_NI), v__la_is);
    v__la_team = bw::gpu_arena(bw_blk, bw::add(bw::mul(bw::cast<int64_t>(bw::add(bw::sub(bw::add(bw::mul(bw::add(bw::mul(bw::add(v__la_ks, int32_t(0)), v__la_NJ), bw::add(v__la_je, int32_t(0))), v__la_NI), bw::add(v__la_ie, int32_t(0))), bw::add(bw::mul(bw::add(bw::mul(bw::add(v__la_ks, int32_t(0)), v__la_NJ), bw::add(v__la_js, int32_t(0))), v__la_NI), bw::add(v__la_is, int32_t(-1)))), int32_t(1))), int64_t(8LL)), int64_t(64LL)));
    v__la_t3 = bw::add(bw::mul(bw::add(bw::mul(bw::add(v__la_t1, int32_t(0)), v__la_NJ), bw::add(v__la_js, int32_t(0))), v__la_NI), bw::add(v__la_is, int32_t(-1)));
    v__la_t4 = bw::add(bw::sub(bw::add(bw::mul(bw::add(bw::mul(bw::add(v__la_t1, int32_t(0)), v__la_NJ), bw::add(v__la_je, int32_t(0))), v__la_NI), bw::add(v__la_ie, int32_t(0))), v__la_t3), int32_t(1));
    v__la_scratch1 = bw::team_alloc<double, 1>(v__la_team, bw::mul(v__la_t4, int32_t(1)));
    v__la_t5 = bw::add(v__la_ks, int32_t(0));
    v__la_t6 = bw::add(v__la_js, int32_t(0));
    v__la_t7 = bw::add(v__la_is, int32_t(-1));
    v__la_t8 = bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1));
    v__la_t9 = bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1));
    v__la_t10 = bw::add(bw::mul(bw::add(bw::mul(bw::sub(bw::add(v__la_t1, int32_t(0)), v__la_t5), v__la_t8), bw::sub(bw::add(v__la_js, int32_t(0)), v__la_t6)), v__la_t9), bw::sub(bw::add(v__la_is, int32_t(-1)), v__la_t7));
    v__la_t11 = bw::add(bw::mul(bw::add(bw::mul(bw::sub(bw::add(v__la_t1, int32_t(0)), v__la_t5), v__la_t8), bw::sub(bw::add(v__la_je, int32_t(0)), v__la_t6)), v__la_t9), bw::sub(bw::add(v__la_ie, int32_t(0)), v__la_t7));
    v__la_t13 = bw::add(v__la_t1, int32_t(0));
    v__la_t14 = bw::mul(bw::sub(v__la_t13, v__la_t5), bw::mul(v__la_t8, v__la_t9));
    v__la_t15 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_t9, int32_t(1)))));
    v__la_n31 = bw::add(bw::sub(v__la_t10, v__la_t14), ((int32_t)threadIdx.x));
    { const int32_t _stop1 = bw::sub(bw::add(bw::sub(v__la_t11, v__la_t14), int32_t(1)), ((int32_t)blockDim.x)); const int32_t _step1 = bw::mul(((int32_t)blockDim.x), int32_t(2));
    for (int32_t _it1 = v__la_n31; _it1 < _stop1; _it1 += _step1) {
        v__la_p30 = _it1;
        v__la_f12_c0_22 = v__la_p30;
        v__la_f12 = bw::add(v__la_p30, ((int32_t)blockDim.x));
        v__la_t16_c0_23 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f12_c0_22), v__la_t15));
        v__la_t16 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f12), v__la_t15));
        v__la_t17_c0_24 = bw::sub(v__la_f12_c0_22, bw::mul(v__la_t16_c0_23, v__la_t9));
        v__la_t17 = bw::sub(v__la_f12, bw::mul(v__la_t16, v__la_t9));
        v__la_t18_c0_25 = (bw::truth(bw::ge(v__la_t17_c0_24, v__la_t9)) ? bw::add(v__la_t16_c0_23, int32_t(1)) : v__la_t16_c0_23);
        v__la_t18 = (bw::truth(bw::ge(v__la_t17, v__la_t9)) ? bw::add(v__la_t16, int32_t(1)) : v__la_t16);
        v__la_t19_c0_26 = (bw::truth(bw::ge(v__la_t17_c0_24, v__la_t9)) ? bw::sub(v__la_t17_c0_24, v__la_t9) : v__la_t17_c0_24);
        v__la_t19 = (bw::truth(bw::ge(v__la_t17, v__la_t9)) ? bw::sub(v__la_t17, v__la_t9) : v__la_t17);
        v__la_t20_c0_27 = bw::add(v__la_t18_c0_25, v__la_t6);
        v__la_t20 = bw::add(v__la_t18, v__la_t6);
        v__la_t21_c0_28 = bw::add(v__la_t19_c0_26, v__la_t7);
        v__la_t21 = bw::add(v__la_t19, v__la_t7);
        v_idx_c0_29 = bw::sub(bw::add(bw::mul(bw::add(bw::mul(v__la_t13, v__la_NJ), v__la_t20_c0_27), v__la_NI), v__la_t21_c0_28), v__la_t2);
        v_idx = bw::sub(bw::add(bw::mul(bw::add(bw::mul(v__la_t13, v__la_NJ), v__la_t20), v__la_NI), v__la_t21), v__la_t2);
        bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(v_idx_c0_29, v__la_t2), v__la_t3))) = 0x1.8000000000000p+1;
        bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(v_idx, v__la_t2), v__la_t3))) = 0x1.8000000000000p+1;
        v__la_n31 = bw::add(v__la_p30, bw::mul(((int32_t)blockDim.x), int32_t(2)));
    } }
    if (bw::truth(bw::le(v__la_n31, bw::sub(v__la_t11, v__la_t14)))) {
        v__la_f12 = v__la_n31;
        v__la_t16 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f12), v__la_t15));
        v__la_t17 = bw::sub(v__la_f12, bw::mul(v__la_t16, v__la_t9));
        v__la_t18 = (bw::truth(bw::ge(v__la_t17, v__la_t9)) ? bw::add(v__la_t16, int32_t(1)) : v__la_t16);
        v__la_t19 = (bw::truth(bw::ge(v__la_t17, v__la_t9)) ? bw::sub(v__la_t17, v__la_t9) : v__la_t17);
        v__la_t20 = bw::add(v__la_t18, v__la_t6);
        v__la_t21 = bw::add(v__la_t19, v__la_t7);
        v_idx = bw::sub(bw::add(bw::mul(bw::add(bw::mul(v__la_t13, v__la_NJ), v__la_t20), v__la_NI), v__la_t21), v__la_t2);
        bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(v_idx, v__la_t2), v__la_t3))) = 0x1.8000000000000p+1;
    }
    __syncthreads();
    v__la_t32 = bw::add(v__la_ks, int32_t(0));
    v__la_t33 = bw::add(v__la_js, int32_t(0));
    v__la_t34 = bw::add(v__la_is, int32_t(0));
    v__la_t35 = bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1));
    v__la_t36 = bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(0))), int32_t(1));
    v__la_t37 = bw::add(bw::mul(bw::add(bw::mul(bw::sub(bw::add(v__la_t1, int32_t(0)), v__la_t32), v__la_t35), bw::sub(bw::add(v__la_js, int32_t(0)), v__la_t33)), v__la_t36), bw::sub(bw::add(v__la_is, int32_t(0)), v__la_t34));
    v__la_t38 = bw::add(bw::mul(bw::add(bw::mul(bw::sub(bw::add(v__la_t1, int32_t(0)), v__la_t32), v__la_t35), bw::sub(bw::add(v__la_je, int32_t(0)), v__la_t33)), v__la_t36), bw::sub(bw::add(v__la_ie, int32_t(0)), v__la_t34));
    v__la_t40 = bw::add(v__la_t1, int32_t(0));
    v__la_t41 = bw::mul(bw::sub(v__la_t40, v__la_t32), bw::mul(v__la_t35, v__la_t36));
    v__la_t42 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_t36, int32_t(1)))));
    v__la_n60 = bw::add(bw::sub(v__la_t37, v__la_t41), ((int32_t)threadIdx.x));
    { const int32_t _stop2 = bw::sub(bw::add(bw::sub(v__la_t38, v__la_t41), int32_t(1)), ((int32_t)blockDim.x)); const int32_t _step2 = bw::mul(((int32_t)blockDim.x), int32_t(2));
    for (int32_t _it2 = v__la_n60; _it2 < _stop2; _it2 += _step2) {
        v__la_p59 = _it2;
        v__la_f39_c0_49 = v__la_p59;
        v__la_f39 = bw::add(v__la_p59, ((int32_t)blockDim.x));
        v__la_t43_c0_50 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f39_c0_49), v__la_t42));
        v__la_t43 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f39), v__la_t42));
        v__la_t44_c0_51 = bw::sub(v__la_f39_c0_49, bw::mul(v__la_t43_c0_50, v__la_t36));
        v__la_t44 = bw::sub(v__la_f39, bw::mul(v__la_t43, v__la_t36));
        v__la_t45_c0_52 = (bw::truth(bw::ge(v__la_t44_c0_51, v__la_t36)) ? bw::add(v__la_t43_c0_50, int32_t(1)) : v__la_t43_c0_50);
        v__la_t45 = (bw::truth(bw::ge(v__la_t44, v__la_t36)) ? bw::add(v__la_t43, int32_t(1)) : v__la_t43);
        v__la_t46_c0_53 = (bw::truth(bw::ge(v__la_t44_c0_51, v__la_t36)) ? bw::sub(v__la_t44_c0_51, v__la_t36) : v__la_t44_c0_51);
        v__la_t46 = (bw::truth(bw::ge(v__la_t44, v__la_t36)) ? bw::sub(v__la_t44, v__la_t36) : v__la_t44);
        v__la_t47_c0_54 = bw::add(v__la_t45_c0_52, v__la_t33);
        v__la_t47 = bw::add(v__la_t45, v__la_t33);
        v__la_t48_c0_55 = bw::add(v__la_t46_c0_53, v__la_t34);
        v__la_t48 = bw::add(v__la_t46, v__la_t34);
        v_k_c0_58 = v__la_t40;
        v_k = v__la_t40;
        v_j_c0_57 = v__la_t47_c0_54;
        v_j = v__la_t47;
        v_i_c0_56 = v__la_t48_c0_55;
        v_i = v__la_t48;
        bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k_c0_58), (int64_t)(v_j_c0_57), (int64_t)(v_i_c0_56), 0, 0, 0, 0) = bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(bw::mul(bw::add(bw::mul(v_k_c0_58, v__la_NJ), v_j_c0_57), v__la_NI), bw::sub(v_i_c0_56, int32_t(1))), v__la_t3)));
        bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k), (int64_t)(v_j), (int64_t)(v_i), 0, 0, 0, 0) = bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(bw::mul(bw::add(bw::mul(v_k, v__la_NJ), v_j), v__la_NI), bw::sub(v_i, int32_t(1))), v__la_t3)));
        v__la_n60 = bw::add(v__la_p59, bw::mul(((int32_t)blockDim.x), int32_t(2)));
    } }
    if (bw::truth(bw::le(v__la_n60, bw::sub(v__la_t38, v__la_t41)))) {
        v__la_f39 = v__la_n60;
        v__la_t43 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_f39), v__la_t42));
        v__la_t44 = bw::sub(v__la_f39, bw::mul(v__la_t43, v__la_t36));
        v__la_t45 = (bw::truth(bw::ge(v__la_t44, v__la_t36)) ? bw::add(v__la_t43, int32_t(1)) : v__la_t43);
        v__la_t46 = (bw::truth(bw::ge(v__la_t44, v__la_t36)) ? bw::sub(v__la_t44, v__la_t36) : v__la_t44);
        v__la_t47 = bw::add(v__la_t45, v__la_t33);
        v__la_t48 = bw::add(v__la_t46, v__la_t34);
        v_k = v__la_t40;
        v_j = v__la_t47;
        v_i = v__la_t48;
        bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k), (int64_t)(v_j), (int64_t)(v_i), 0, 0, 0, 0) = bw::at<UNIT>(v__la_scratch1, (int64_t)(bw::sub(bw::add(bw::mul(bw::add(bw::mul(v_k, v__la_NJ), v_j), v__la_NI), bw::sub(v_i, int32_t(1))), v__la_t3)));
    }
    if (bw::truth(bw::eq(((int32_t)threadIdx.x), int32_t(0)))) {
        bw::at_split<UNIT>(v_field, (int64_t)(v_b), int64_t(0), int64_t(0), int64_t(0), 0, 0, 0, 0) = 0x1.0000000000000p+0;
    }
}

struct Args {
    bw::array_t<double, 4> v_field;
    int32_t v__la_ks;
    int32_t v__la_ke;
    int32_t v__la_js;
    int32_t v__la_je;
    int32_t v__la_is;
    int32_t v__la_ie;
    int32_t v__la_NK;
    int32_t v__la_NJ;
    int32_t v__la_NI;
    int32_t v__la_ninner;
    int32_t v__la_nouter;
};

struct Packed {  // the CPU entry's buffer: header, then the arguments
    bw::launch_header h;
    Args a;
};

}  // namespace
extern "C" __global__ void __launch_bounds__(128) bw_entry(const Packed p, char* bw_arena_global) {
    extern __shared__ __align__(64) unsigned char bw_arena_shared[];  // the arena: it fits
    body<true>(p.a.v_field, p.a.v__la_ks, p.a.v__la_ke, p.a.v__la_js, p.a.v__la_je, p.a.v__la_is, p.a.v__la_ie, p.a.v__la_NK, p.a.v__la_NJ, p.a.v__la_NI, p.a.v__la_ninner, p.a.v__la_nouter, (int32_t)p.h.dim[0], (int32_t)p.h.dim[1], bw::gpu_shared_arena{bw_arena_shared});
}
extern "C" __global__ void __launch_bounds__(128) bw_entry_global(const Packed p, char* bw_arena_global) {
    body<true>(p.a.v_field, p.a.v__la_ks, p.a.v__la_ke, p.a.v__la_js, p.a.v__la_je, p.a.v__la_is, p.a.v__la_ie, p.a.v__la_NK, p.a.v__la_NJ, p.a.v__la_NI, p.a.v__la_ninner, p.a.v__la_nouter, (int32_t)p.h.dim[0], (int32_t)p.h.dim[1], bw::gpu_global_arena{bw_arena_global});
}
