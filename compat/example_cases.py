"""Which of Warp 1.19's examples compat/run_examples.py runs, with what arguments and tolerance, and which it
leaves out, with why.

Each run is short, on the CPU and headless: the arguments below are the example's own argparse options
(``--device cpu`` is added to those that take it). The tolerance is relative: a final array agrees with
Warp's when its norm is within ``rtol`` of Warp's norm and its sum within ``rtol`` times the largest sum the
norm allows (sqrt(size) times the norm).
"""

DEFAULT_RTOL = 1e-4
DEFAULT_TIMEOUT_S = 600

# example (directory.name under warp/examples) -> {"args": [...], "rtol": float, "ignore": [array names],
# "state": the global whose arrays are compared (default "example"), "lines": a regular expression for the
# printed lines compared as they are, "needs": a module the example imports
# that is not one of brickwork's dependencies (without it, the example is reported as skipped)}
RUN = {
    "core.example_dem": {"args": ["--stage-path", "None", "--num-frames", "2"]},
    # the plane buffer is a wp.empty the example fills only to draw a frame (never, headless)
    "core.example_fdtd_3d": {"args": ["--headless", "--resolution", "48", "--num-steps", "20",
                                      "--steps-per-frame", "10"], "ignore": ["e_x_center_plane_buffer"]},
    "core.example_fluid": {"args": ["--headless", "--num-frames", "10"]},
    "core.example_graph_capture": {"args": ["--headless", "--num-frames", "10"]},
    "core.example_nvdb": {"args": ["--stage-path", "None", "--num-frames", "2"]},
    "core.example_raymarch": {"args": ["--headless", "--width", "64", "--height", "48"]},
    "core.example_sample_mesh": {"args": ["--stage-path", "None", "--num-frames", "1"]},
    "core.example_sph": {"args": ["--stage-path", "None", "--num-frames", "1"]},
    "core.example_wave": {"args": ["--stage-path", "None", "--num-frames", "10"]},
    "core.example_fft_poisson_navier_stokes_2d": {"args": ["--headless", "--num-steps", "4", "--sim-substeps", "2"]},
    "optim.example_fluid_checkpoint": {"args": ["--headless", "--train-iters", "1", "--num-frames", "4"]},
    "optim.example_fluid_checkpoint_custom_backward": {"args": ["--headless", "--train-iters", "1",
                                                                "--num-frames", "4"]},
    "optim.example_navier_stokes_perturbation": {"args": ["--headless", "--train-iters", "1", "--lead-steps", "2",
                                                          "--spin-up-steps", "2"]},
    "optim.example_particle_repulsion": {"args": ["--headless", "--num-frames", "5"]},
    "geometry.example_isosurface": {"args": ["--stage-path", "None", "--num-frames", "2"]},
    # its arrays live in the solver object its __main__ makes (its solves run inside a function)
    "tile.example_tile_block_cholesky": {"args": ["--headless", "--N", "2"], "state": "warp_solver"},
    "tile.example_tile_cholesky": {"args": ["--headless"]},
    "tile.example_tile_matmul": {"args": ["--headless"]},
    # these read their meshes from USD files with pxr (usd-core): without it they are reported as skipped
    "core.example_mesh": {"args": ["--stage-path", "None", "--num-frames", "2"], "needs": "pxr"},
    "core.example_mesh_intersect": {"args": ["--stage-path", "None"], "needs": "pxr"},
    "core.example_raycast": {"args": ["--headless", "--width", "64", "--height", "48"], "needs": "pxr"},
    "optim.example_diffray": {"args": ["--headless", "--train-iters", "2", "--height", "32"], "needs": "pxr"},
    "geometry.example_sparse_marching_cubes": {"args": ["--stage-path", "None", "--num-frames", "1"], "needs": "pxr"},
    # its results are locals of a function: the vertex and triangle counts and the bounding box it prints
    "geometry.example_swept_volume": {"args": ["--stage-path", "None", "--num-samples", "4", "--voxel-size", "0.16"],
                                      "needs": "pxr", "lines": "^envelope"},
    "tile.example_tile_mcgp": {"args": ["--headless", "--height", "32", "--slices", "1"]},
    # its __main__ takes no arguments and runs on the CPU without CUDA; Warp 1.19 stops there at its pinned
    # staging buffer (no pinned memory without a CUDA driver), so its reference records that error
    "core.example_alloc_tracker": {},
    # brickwork has Warp's PyTorch and JAX interop (docs/interop.md); these run where torch or jax is installed,
    # and have no Warp reference here (made without them). --headless: example_torch builds its model and stops
    "core.example_torch": {"args": ["--headless", "--num-frames", "1"], "needs": "torch"},
    "interop.example_jax_callable": {"needs": "jax"},
    "interop.example_jax_kernel": {"needs": "jax"},
}

CUDA_MAIN = "its __main__ runs on CUDA only (it names cuda:0, or exits on the CPU)"
# example -> why it is not run
OUT_OF_SCOPE = {
    "core.example_custom_allocator": "a custom CUDA memory allocator (mempools)",
    "core.example_cupy": ("it imports cupy (CuPy needs CUDA) before anything runs; on the CPU its saxpy launch takes "
                          "numpy arrays, which brickwork's launches take too"),
    "core.example_render_opengl": "OpenGL rendering (warp.render)",
    "core.example_spin_lock": CUDA_MAIN,
    "core.example_work_queue": CUDA_MAIN,
    "tile.example_tile_convolution": CUDA_MAIN,
    "tile.example_tile_fft": CUDA_MAIN,
    "tile.example_tile_filtering": CUDA_MAIN,
    "tile.example_tile_mlp": CUDA_MAIN,
    "tile.example_tile_nbody": CUDA_MAIN,
    "tile.example_tile_stream_compaction": CUDA_MAIN,
    "distributed.example_fdtd_3d_nccl": "multi-GPU (NCCL)",
    "distributed.example_jacobi_mpi": "multi-GPU (MPI with CUDA arrays)",
    "distributed.example_jacobi_nccl": "multi-GPU (NCCL)",
    "distributed.example_jacobi_nvshmem": "multi-GPU (NVSHMEM)",
}
# a module an example needs -> the package that provides it, and what the example does with it
NEEDS = {"pxr": "usd-core (the example reads its meshes from USD files)",
         "torch": "torch (the example's arrays and optimizer are PyTorch's)",
         "jax": "jax (the example runs Warp kernels as JAX operations)"}
FEM = "warp.fem (Warp's finite-element library; brickwork does not build it)"
