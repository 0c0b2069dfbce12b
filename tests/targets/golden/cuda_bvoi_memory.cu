// brickwork CUDA kernel instance outer
#include "brickwork_cuda.h"
namespace {

struct tuple_b54d0e11bf {
    int32_t f0;
    int32_t f1;
    int32_t f2;
};

template <bool UNIT>
__device__ __forceinline__ void body(bw::array_t<double, 4> v_field, int32_t v__la_ks, int32_t v__la_ke, int32_t v__la_js, int32_t v__la_je, int32_t v__la_is, int32_t v__la_ie, int32_t v__la_NK, int32_t v__la_NJ, int32_t v__la_NI, int32_t v__la_ninner, int32_t v__la_nouter, const int32_t n0) {
    (void)n0;
    int32_t v_b{};
    int32_t v_idx{};
    tuple_b54d0e11bf v__tmp1{};
    int32_t v_k{};
    int32_t v_j{};
    int32_t v_i{};
    int32_t v__la_t1{};
    int32_t v__la_t2{};
    int32_t v__la_t3{};
    int32_t v__la_piece4{};
    int32_t v__la_t5{};
    uint32_t v__la_t6{};
    int32_t v__la_t7{};
    int32_t v__la_t8{};
    int32_t v__la_t9{};
    int32_t v__la_t10{};
    uint32_t v__la_t11{};
    int32_t v__la_t12{};
    int32_t v__la_t13{};
    int32_t v__la_t14{};
    int32_t v__la_t15{};
    int32_t v__la_t16{};
    int32_t v__la_t17{};
    int32_t v__la_t18{};
    int32_t v__la_t19{};
    uint32_t v__la_t20{};
    int32_t v__la_t21{};
    int32_t v__la_t22{};
    int32_t v__la_t23{};
    int32_t v__la_t24{};
    uint32_t v__la_t25{};
    int32_t v__la_t26{};
    int32_t v__la_t27{};
    int32_t v__la_t28{};
    int32_t v__la_t29{};
    int32_t v__la_t30{};
    int32_t v__la_t31{};
    int32_t v__la_t32{};
    int32_t v__la_t33{};
    int32_t v__la_t34{};
    int32_t v__la_m35{};
    int32_t v__la_t36{};
    uint32_t v__la_t37{};
    int32_t v__la_t38{};
    int32_t v__la_t39{};
    int32_t v__la_t40{};
    int32_t v__la_t41{};
    uint32_t v__la_t42{};
    int32_t v__la_t43{};
    int32_t v__la_t44{};
    int32_t v__la_t45{};
    int32_t v__la_t46{};
    int32_t v__la_t47{};
    int32_t v__la_t48{};
    int32_t v__la_t49{};
    int32_t v__la_m35_c0_50{};
    int32_t v__la_t38_c0_51{};
    int32_t v__la_t39_c0_52{};
    int32_t v__la_t40_c0_53{};
    int32_t v__la_t41_c0_54{};
    int32_t v__la_t43_c0_55{};
    int32_t v__la_t44_c0_56{};
    int32_t v__la_t45_c0_57{};
    int32_t v__la_t46_c0_58{};
    int32_t v__la_t47_c0_59{};
    int32_t v__la_t48_c0_60{};
    int32_t v__la_t49_c0_61{};
    tuple_b54d0e11bf v__tmp1_c0_62{};
    int32_t v_i_c0_63{};
    int32_t v_idx_c0_64{};
    int32_t v_j_c0_65{};
    int32_t v_k_c0_66{};
    int32_t v__la_p67{};
    int32_t v__la_n68{};
    int32_t v__gpu_c69{};
    v__gpu_c69 = ((int32_t)blockIdx.x);
    v_b = v__gpu_c69;
    v__la_t1 = bw::add(bw::mul(bw::add(bw::mul(v__la_ks, v__la_NJ), v__la_js), v__la_NI), v__la_is);
    v__la_t2 = bw::mul(bw::mul(bw::add(bw::sub(bw::add(v__la_ke, int32_t(0)), bw::add(v__la_ks, int32_t(0))), int32_t(1)), bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1))), bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)));
    v__la_t3 = bw::mul(bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)), bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1)));
    v__la_t5 = bw::mul(bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1)), bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)));
    v__la_t6 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_t5, int32_t(1)))));
    v__la_t11 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)), int32_t(1)))));
    v__la_t19 = bw::mul(bw::add(bw::sub(bw::add(v__la_je, int32_t(0)), bw::add(v__la_js, int32_t(0))), int32_t(1)), bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)));
    v__la_t20 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_t19, int32_t(1)))));
    v__la_t25 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)), int32_t(1)))));
    { const int32_t _stop1 = v__la_t2; const int32_t _step1 = v__la_t3;
    for (int32_t _it1 = int32_t(0); _it1 < _stop1; _it1 += _step1) {
        v__la_piece4 = _it1;
        v__la_t7 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_piece4), v__la_t6));
        v__la_t8 = bw::sub(v__la_piece4, bw::mul(v__la_t7, v__la_t5));
        v__la_t9 = (bw::truth(bw::ge(v__la_t8, v__la_t5)) ? bw::add(v__la_t7, int32_t(1)) : v__la_t7);
        v__la_t10 = (bw::truth(bw::ge(v__la_t8, v__la_t5)) ? bw::sub(v__la_t8, v__la_t5) : v__la_t8);
        v__la_t12 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_t10), v__la_t11));
        v__la_t13 = bw::sub(v__la_t10, bw::mul(v__la_t12, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1))));
        v__la_t14 = (bw::truth(bw::ge(v__la_t13, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)))) ? bw::add(v__la_t12, int32_t(1)) : v__la_t12);
        v__la_t15 = (bw::truth(bw::ge(v__la_t13, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)))) ? bw::sub(v__la_t13, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1))) : v__la_t13);
        v__la_t16 = bw::add(v__la_t9, bw::add(v__la_ks, int32_t(0)));
        v__la_t17 = bw::add(v__la_t14, bw::add(v__la_js, int32_t(0)));
        v__la_t18 = bw::add(v__la_t15, bw::add(v__la_is, int32_t(-1)));
        v__la_t21 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(bw::sub(bw::min(bw::add(v__la_piece4, v__la_t3), v__la_t2), int32_t(1))), v__la_t20));
        v__la_t22 = bw::sub(bw::sub(bw::min(bw::add(v__la_piece4, v__la_t3), v__la_t2), int32_t(1)), bw::mul(v__la_t21, v__la_t19));
        v__la_t23 = (bw::truth(bw::ge(v__la_t22, v__la_t19)) ? bw::add(v__la_t21, int32_t(1)) : v__la_t21);
        v__la_t24 = (bw::truth(bw::ge(v__la_t22, v__la_t19)) ? bw::sub(v__la_t22, v__la_t19) : v__la_t22);
        v__la_t26 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_t24), v__la_t25));
        v__la_t27 = bw::sub(v__la_t24, bw::mul(v__la_t26, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1))));
        v__la_t28 = (bw::truth(bw::ge(v__la_t27, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)))) ? bw::add(v__la_t26, int32_t(1)) : v__la_t26);
        v__la_t29 = (bw::truth(bw::ge(v__la_t27, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1)))) ? bw::sub(v__la_t27, bw::add(bw::sub(bw::add(v__la_ie, int32_t(0)), bw::add(v__la_is, int32_t(-1))), int32_t(1))) : v__la_t27);
        v__la_t30 = bw::add(v__la_t23, bw::add(v__la_ks, int32_t(0)));
        v__la_t31 = bw::add(v__la_t28, bw::add(v__la_js, int32_t(0)));
        v__la_t32 = bw::add(v__la_t29, bw::add(v__la_is, int32_t(-1)));
        v__la_t33 = bw::add(bw::mul(bw::add(bw::mul(v__la_t16, v__la_NJ), v__la_t17), v__la_NI), v__la_t18);
        v__la_t34 = bw::add(bw::mul(bw::add(bw::mul(v__la_t30, v__la_NJ), v__la_t31), v__la_NI), v__la_t32);
        v__la_t36 = bw::mul(v__la_NJ, v__la_NI);
        v__la_t37 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_t36, int32_t(1)))));
        v__la_t42 = bw::cast<uint32_t>(bw::div(uint64_t(4294967295ULL), bw::cast<uint64_t>(bw::max(v__la_NI, int32_t(1)))));
        v__la_n68 = bw::add(v__la_t33, ((int32_t)threadIdx.x));
        { const int32_t _stop2 = bw::sub(bw::add(v__la_t34, int32_t(1)), ((int32_t)blockDim.x)); const int32_t _step2 = bw::mul(((int32_t)blockDim.x), int32_t(2));
        for (int32_t _it2 = v__la_n68; _it2 < _stop2; _it2 += _step2) {
            v__la_p67 = _it2;
            v__la_m35_c0_50 = v__la_p67;
            v__la_m35 = bw::add(v__la_p67, ((int32_t)blockDim.x));
            v__la_t38_c0_51 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_m35_c0_50), v__la_t37));
            v__la_t38 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_m35), v__la_t37));
            v__la_t39_c0_52 = bw::sub(v__la_m35_c0_50, bw::mul(v__la_t38_c0_51, v__la_t36));
            v__la_t39 = bw::sub(v__la_m35, bw::mul(v__la_t38, v__la_t36));
            v__la_t40_c0_53 = (bw::truth(bw::ge(v__la_t39_c0_52, v__la_t36)) ? bw::add(v__la_t38_c0_51, int32_t(1)) : v__la_t38_c0_51);
            v__la_t40 = (bw::truth(bw::ge(v__la_t39, v__la_t36)) ? bw::add(v__la_t38, int32_t(1)) : v__la_t38);
            v__la_t41_c0_54 = (bw::truth(bw::ge(v__la_t39_c0_52, v__la_t36)) ? bw::sub(v__la_t39_c0_52, v__la_t36) : v__la_t39_c0_52);
            v__la_t41 = (bw::truth(bw::ge(v__la_t39, v__la_t36)) ? bw::sub(v__la_t39, v__la_t36) : v__la_t39);
            v__la_t43_c0_55 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_t41_c0_54), v__la_t42));
            v__la_t43 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_t41), v__la_t42));
            v__la_t44_c0_56 = bw::sub(v__la_t41_c0_54, bw::mul(v__la_t43_c0_55, v__la_NI));
            v__la_t44 = bw::sub(v__la_t41, bw::mul(v__la_t43, v__la_NI));
            v__la_t45_c0_57 = (bw::truth(bw::ge(v__la_t44_c0_56, v__la_NI)) ? bw::add(v__la_t43_c0_55, int32_t(1)) : v__la_t43_c0_55);
            v__la_t45 = (bw::truth(bw::ge(v__la_t44, v__la_NI)) ? bw::add(v__la_t43, int32_t(1)) : v__la_t43);
            v__la_t46_c0_58 = (bw::truth(bw::ge(v__la_t44_c0_56, v__la_NI)) ? bw::sub(v__la_t44_c0_56, v__la_NI) : v__la_t44_c0_56);
            v__la_t46 = (bw::truth(bw::ge(v__la_t44, v__la_NI)) ? bw::sub(v__la_t44, v__la_NI) : v__la_t44);
            v__la_t47_c0_59 = bw::add(v__la_t40_c0_53, int32_t(0));
            v__la_t47 = bw::add(v__la_t40, int32_t(0));
            v__la_t48_c0_60 = bw::add(v__la_t45_c0_57, int32_t(0));
            v__la_t48 = bw::add(v__la_t45, int32_t(0));
            v__la_t49_c0_61 = bw::add(v__la_t46_c0_58, int32_t(0));
            v__la_t49 = bw::add(v__la_t46, int32_t(0));
            v_idx_c0_64 = bw::sub(v__la_m35_c0_50, v__la_t1);
            v_idx = bw::sub(v__la_m35, v__la_t1);
            v__tmp1_c0_62 = tuple_b54d0e11bf{v__la_t47_c0_59, v__la_t48_c0_60, v__la_t49_c0_61};
            v__tmp1 = tuple_b54d0e11bf{v__la_t47, v__la_t48, v__la_t49};
            v_k_c0_66 = (v__tmp1_c0_62).f0;
            v_k = (v__tmp1).f0;
            v_j_c0_65 = (v__tmp1_c0_62).f1;
            v_j = (v__tmp1).f1;
            v_i_c0_63 = (v__tmp1_c0_62).f2;
            v_i = (v__tmp1).f2;
            bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k_c0_66), (int64_t)(v_j_c0_65), (int64_t)(v_i_c0_63), 0, 0, 0, 0) = 0x1.0000000000000p+1;
            bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k), (int64_t)(v_j), (int64_t)(v_i), 0, 0, 0, 0) = 0x1.0000000000000p+1;
            v__la_n68 = bw::add(v__la_p67, bw::mul(((int32_t)blockDim.x), int32_t(2)));
        } }
        if (bw::truth(bw::le(v__la_n68, v__la_t34))) {
            v__la_m35 = v__la_n68;
            v__la_t38 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_m35), v__la_t37));
            v__la_t39 = bw::sub(v__la_m35, bw::mul(v__la_t38, v__la_t36));
            v__la_t40 = (bw::truth(bw::ge(v__la_t39, v__la_t36)) ? bw::add(v__la_t38, int32_t(1)) : v__la_t38);
            v__la_t41 = (bw::truth(bw::ge(v__la_t39, v__la_t36)) ? bw::sub(v__la_t39, v__la_t36) : v__la_t39);
            v__la_t43 = bw::cast<int32_t>(__umulhi(bw::cast<uint32_t>(v__la_t41), v__la_t42));
            v__la_t44 = bw::sub(v__la_t41, bw::mul(v__la_t43, v__la_NI));
            v__la_t45 = (bw::truth(bw::ge(v__la_t44, v__la_NI)) ? bw::add(v__la_t43, int32_t(1)) : v__la_t43);
            v__la_t46 = (bw::truth(bw::ge(v__la_t44, v__la_NI)) ? bw::sub(v__la_t44, v__la_NI) : v__la_t44);
            v__la_t47 = bw::add(v__la_t40, int32_t(0));
            v__la_t48 = bw::add(v__la_t45, int32_t(0));
            v__la_t49 = bw::add(v__la_t46, int32_t(0));
            v_idx = bw::sub(v__la_m35, v__la_t1);
            v__tmp1 = tuple_b54d0e11bf{v__la_t47, v__la_t48, v__la_t49};
            v_k = (v__tmp1).f0;
            v_j = (v__tmp1).f1;
            v_i = (v__tmp1).f2;
            bw::at_split<UNIT>(v_field, (int64_t)(v_b), (int64_t)(v_k), (int64_t)(v_j), (int64_t)(v_i), 0, 0, 0, 0) = 0x1.0000000000000p+1;
        }
    } }
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
    body<true>(p.a.v_field, p.a.v__la_ks, p.a.v__la_ke, p.a.v__la_js, p.a.v__la_je, p.a.v__la_is, p.a.v__la_ie, p.a.v__la_NK, p.a.v__la_NJ, p.a.v__la_NI, p.a.v__la_ninner, p.a.v__la_nouter, (int32_t)p.h.dim[0]);
}
