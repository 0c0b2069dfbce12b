"""Which of Warp's test modules `make compat` runs (the kernel language), and the files it leaves out, with why."""

import importlib.util

# Module names under warp.tests (the test files of Warp's kernel language; CPU-runnable).
MODULES = [
    "test_generics", "test_math", "test_vec", "matrix.test_mat", "test_quat", "test_struct", "test_atomic",
    "test_array", "test_func", "test_operators", "test_codegen", "test_static", "test_rand", "test_arithmetic",
    "test_types", "test_lerp", "test_smoothstep", "test_print", "test_conditional", "test_lvalue", "test_ctypes",
    "test_launch", "test_spatial",
    # round 6
    "test_bool", "test_iter", "test_enum", "test_bit_count", "test_fp16", "test_rounding", "test_scalar_ops",
    "test_special_values", "test_tuple", "test_unpack", "test_vec_constructors", "test_vec_scalar_ops",
    "test_vec_lite", "test_vec_assign_copy", "test_quat_assign_copy", "test_spatial_assign_copy",
    "matrix.test_mat_basics", "matrix.test_mat_constructors", "matrix.test_mat_elementwise_ops",
    "matrix.test_mat_linalg", "matrix.test_mat_lite", "matrix.test_mat_assign_copy", "test_subscript_types",
    "test_func_inline", "test_func_parameter_targets", "test_future_annotations", "test_implicit_init",
    "test_atomic_bitwise", "test_atomic_cas", "test_noise", "test_closest_point_edge_edge",
    "test_triangle_closest_point", "test_intersect", "test_fast_math", "test_grad", "test_grad_customs",
    "test_grad_debug", "test_tape", "test_overwrite", "test_assert", "test_verify_fp", "test_copy", "test_dense",
    "test_utils", "test_array_reduce", "test_runlength_encode", "test_map", "test_modules_lite",
    "test_indexedarray", "test_fixedarray", "test_factory_style_array_annotations", "test_array_subclass",
    "test_bf16", "test_builtins_resolution", "test_codegen_continue", "test_compile_consts",
    "test_composite_component_adjoint", "test_constant_precision", "test_ref", "test_devices", "test_large",
    "test_module_variants", "test_transient_module", "test_unique_module",
    "deterministic.test_deterministic_backward", "deterministic.test_deterministic_counter",
    "deterministic.test_deterministic_options", "deterministic.test_deterministic_scatter",
    # round 10
    "geometry.test_hash_grid", "test_adam", "test_sgd",
    "geometry.test_bvh", "geometry.test_mesh", "geometry.test_mesh_query_point", "geometry.test_mesh_query_ray",
    "geometry.test_mesh_query_aabb",
    # round 11: tiles (Warp runs them on the CPU too, a block being one thread there)
    "tile.test_tile", "tile.test_tile_atomic_bitwise", "tile.test_tile_block_dim_mismatch",
    "tile.test_tile_cholesky", "tile.test_tile_cholesky_no_mathdx", "tile.test_tile_composite_row",
    "tile.test_tile_construction", "tile.test_tile_empty", "tile.test_tile_fft", "tile.test_tile_fft_no_mathdx",
    "tile.test_tile_func_arg", "tile.test_tile_fused_ops", "tile.test_tile_large_offsets", "tile.test_tile_load",
    "tile.test_tile_load_assign", "tile.test_tile_load_extract", "tile.test_tile_load_indexed",
    "tile.test_tile_load_vectorized", "tile.test_tile_low_precision_stack", "tile.test_tile_matmul",
    "tile.test_tile_matmul_no_mathdx", "tile.test_tile_matmul_strides", "tile.test_tile_oob", "tile.test_tile_print",
    "tile.test_tile_reduce", "tile.test_tile_shared_memory", "tile.test_tile_solve",
    "tile.test_tile_solve_no_mathdx", "tile.test_tile_sort", "tile.test_tile_stack", "tile.test_tile_struct",
    "tile.test_tile_view",
    # round 14: Fabric arrays
    "test_fabricarray",
    # iterative linear solvers (warp.optim.linear) and the FSAI preconditioner
    "test_linear_solvers", "test_fsai",
    # block sparse matrices (brickwork.sparse)
    "test_sparse",
    # geometry processing (brickwork.geometry): isosurfaces, Delaunay flips, swept volumes; grouped trees
    "geometry.test_marching_cubes", "geometry.test_surface_nets", "geometry.test_sparse_marching_cubes",
    "geometry.test_delaunay", "geometry.test_swept_volume", "geometry.test_grouped_bvh",
    # sparse volumes (wp.Volume)
    "geometry.test_volume", "geometry.test_volume_write", "geometry.test_volume_validation",
    # graph coloring (wp.utils.graph_coloring_*)
    "test_coloring",
    # textures (wp.Texture1D/2D/3D): Warp runs them on every device, the CPU included
    "cuda.test_texture",
    # round 23: Warp's logger objects (wp.Logger, wp.set_logger, wp.ScopedLogger); its tests of Warp's default
    # logger class and log functions (warp._src.logger) count as excluded
    "test_logger",
    # PyTorch and DLPack interop (wp.from_torch, wp.to_torch, ...): below, where torch is installed
]

# Warp registers the torch tests of these files only where torch imports, and warp_test_counts.json has Warp's
# counts with torch: they run where torch is installed, and are left out where it is not (rather than counted
# as failed). find_spec looks for torch without importing it.
TORCH_MODULES = ["interop.test_torch", "interop.test_dlpack"]
HAVE_TORCH = importlib.util.find_spec("torch") is not None
if HAVE_TORCH:
    MODULES += TORCH_MODULES
# interop.test_jax likewise registers its tests only where jax imports (Warp's count is with jax 0.10.2)
HAVE_JAX = importlib.util.find_spec("jax") is not None
if HAVE_JAX:
    MODULES += ["interop.test_jax"]

# Whole files of warp.tests not run, grouped by reason (docs/compat.md lists them).
EXCLUDED_FILES = {
    "Warp internals (warp._src: module hashing, kernel cache, allocators, codegen text, build system)": [
        "test_kernel_cache", "test_allocator", "test_allocation_tracker", "test_compilation", "test_context",
        "test_core_library_binary", "test_cpu_precompiled_headers", "test_module_hashing",
        "test_codegen_instancing", "test_reload", "test_diagnostics", "test_options", "test_import",
        "test_version", "test_module_contamination", "test_module_parallel_load", "test_template_launch_bounds",
        "test_cpu_block_codegen", "test_cpu_block_dim", "test_cpu_vectorization", "aot/*",
    ],
    "C++ structs as kernel values (build_experimental.add_native_type, called at import)": ["test_external_build"],
    "C++ snippets written against Warp's own runtime header (wp:: types; brickwork's take bw:: C++)": [
        "test_snippet",
    ],
    "CUDA-only features (streams, graphs, peer access, mempools, cooperative blocks)": [
        "cuda/* (but cuda/test_texture)", "tile/test_tile_mlp (no CPU tests)", "test_graph", "test_cuda_profiler",
        "test_block_dim_dispatch",
        "test_sanitize", "deterministic/test_deterministic_graph_capture",
    ],
    "Warp libraries beyond the kernel language (fem, Paddle, examples, saved captures, rendering)": [
        "fem/*", "interop/test_paddle",
        "test_examples", "test_apic*", "test_render_opengl",
    ],
    **({} if HAVE_TORCH else {"PyTorch interop, where torch is not installed": ["interop/test_torch",
                                                                               "interop/test_dlpack"]}),
    **({} if HAVE_JAX else {"JAX interop, where jax is not installed": ["interop/test_jax"]}),
}

PER_FILE_TIMEOUT_S = 1800
