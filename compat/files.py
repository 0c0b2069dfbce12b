"""Which of Warp's test modules `make compat` runs (the kernel language), and the files it leaves out, with why."""

# Module names under warp.tests (the test files of Warp's kernel language; CPU-runnable).
MODULES = [
    "test_generics", "test_math", "test_vec", "matrix.test_mat", "test_quat", "test_struct", "test_atomic",
    "test_array", "test_func", "test_operators", "test_codegen", "test_static", "test_rand", "test_arithmetic",
    "test_types", "test_lerp", "test_smoothstep", "test_print", "test_conditional", "test_lvalue", "test_ctypes",
    "test_launch", "test_spatial",
]

# Whole files of warp.tests not run, grouped by reason (docs/compat.md lists them).
EXCLUDED_FILES = {
    "Warp internals (warp._src: module hashing, kernel cache, allocators, codegen text, build system)": [
        "test_kernel_cache", "test_allocator", "test_allocation_tracker", "test_compilation", "test_context",
        "test_core_library_binary", "test_cpu_precompiled_headers", "test_external_build", "test_module_hashing",
        "test_codegen_instancing", "test_reload", "test_diagnostics",
    ],
    "CUDA-only features (streams, graphs, peer access, mempools, tiles, cooperative blocks)": [
        "cuda/*", "tile/*", "test_graph", "test_cuda_profiler", "test_block_dim_dispatch",
    ],
    "Warp libraries beyond the kernel language (fem, sparse, geometry queries, optimizers, interop, rendering)": [
        "fem/*", "geometry/*", "interop/*", "test_adam", "test_fsai", "test_sparse", "test_examples", "test_apic*",
    ],
}

PER_FILE_TIMEOUT_S = 1800
