#!/usr/bin/env bash
# CUDA checks for a machine with an NVIDIA GPU, in under 10 minutes: prints `brickwork info`, runs the
# CUDA-device tests (marker cuda_device; sparse matrices and solvers, geometry, winding numbers, utils, volumes,
# i_pencil slices on the grid of rows and its fallback, struct array field checks
# among them; the fold of a reduction's partials, the ghost exchange's box copies and their adjoint, hydrostatic
# walls' kernels), the NVRTC-compile and host-side CUDA tests, the mesh, its gradients and hydro on the device against the CPU, the CUDA benchmark rows (benchmarks/bench_cuda.py), the
# device hash grid build's plans (benchmarks/hash_grid_gpu_build.py --quick), ptxas's registers, spills and
# shared memory of the benchmark kernels (benchmarks/cuda_resources.py: no GPU needed), the static model of the hydro
# step (benchmarks/cuda_step_model.py, where nvdisasm is found and the budget allows), and
# prints one summary table. Run from anywhere:
#     bash scripts/gpu_check.sh                       # logs in gpu_check_logs/
#     GPU_CHECK_LOG=/tmp/logs GPU_CHECK_BUDGET=540 bash scripts/gpu_check.sh
#     GPU_CHECK_ONLY="cuda-benchmarks info" bash scripts/gpu_check.sh   # a rerun of some steps only
#
# The Python: $PYTHON if set, else the checkout's .venv, else (a GPU machine without a package
# registry, such as NVIDIA's images, which hold numpy, pytest, hypothesis, xdist and CUDA 13's NVRTC
# and runtime wheels) the machine's python3 with src/ on PYTHONPATH; only when none of these serves
# is the .venv made (`make`, which needs a registry). Wheels carried in .whl/ (the machine cannot
# download) are installed into a private folder first. Every step has a time limit, and all steps
# together stop at GPU_CHECK_BUDGET seconds (default 540): a step that would start past it is
# reported SKIPPED, so the summary always prints.
set -u
cd "$(dirname "$0")/.."
LOG=${GPU_CHECK_LOG:-gpu_check_logs}
BUDGET=${GPU_CHECK_BUDGET:-540}
JOBS=${GPU_CHECK_JOBS:-8}
mkdir -p "$LOG"
declare -a ROWS

row() { ROWS+=("$(printf '%-44s %-9s %s' "$1" "$2" "$3")"); }

step() {  # step NAME SECONDS COMMAND...: runs it with a time limit (within the budget), logs it, adds a row
    local name=$1 limit=$2; shift 2
    RAN=0
    case " setup carried-wheels install-cuda-extra ${GPU_CHECK_ONLY:-$name} " in
        *" $name "*) ;;
        *) return 0 ;;  # not asked for in this run (the setup steps always run)
    esac
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt 15 ]; then
        row "$name" "SKIPPED" "the budget of $BUDGET s is spent"
        return 125
    fi
    RAN=1
    [ "$limit" -gt "$left" ] && limit=$left
    local t0=$SECONDS
    timeout "$limit" "$@" >"$LOG/$name.log" 2>&1
    local rc=$?
    local status=ok; [ $rc -eq 0 ] || status="FAIL($rc)"; [ $rc -eq 124 ] && status="TIMEOUT"
    row "$name" "$status" "$((SECONDS - t0)) s, log $LOG/$name.log"
    return $rc
}

if [ -n "${PYTHON:-}" ]; then
    PY=$PYTHON
elif [ -x .venv/bin/python ]; then
    PY=.venv/bin/python
elif python3 -c "import numpy, pytest, hypothesis, xdist" 2>/dev/null; then
    PY=python3
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
else
    step setup 240 make .venv/.installed-dev
    PY=.venv/bin/python
fi
if compgen -G ".whl/*.whl" >/dev/null; then
    step carried-wheels 120 "$PY" -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/bw-site .whl/*.whl
    export PYTHONPATH="/tmp/bw-site${PYTHONPATH:+:$PYTHONPATH}"
fi
# NVRTC: CUDA 12's wheels (the cuda extra) or CUDA 13's; installed from a registry only if neither is there
if ! "$PY" -c "from brickwork.jit import nvrtc; nvrtc.library_path()" >/dev/null 2>&1; then
    step install-cuda-extra 180 "$PY" -m pip install -q -e '.[cuda]'
fi
step nvrtc-loads 60 "$PY" -c "from brickwork.jit import nvrtc; print('NVRTC', nvrtc.version(), nvrtc.library_path())"
step info 60 "$PY" -m brickwork.cli info
[ "$RAN" = 1 ] && cat "$LOG/info.log"
summary() { grep -E "[0-9]+ (passed|failed|skipped|error)" "$1" | tail -n 1; }
step cuda-device-tests 200 "$PY" -m pytest -rfEs -p no:cacheprovider -m cuda_device \
    tests/runtime/test_cuda_device.py tests/runtime/test_cuda_device_la.py tests/runtime/test_cuda_device_teams.py \
    tests/runtime/test_hash_grid_device.py tests/la/test_device_fold.py \
    tests/sparse/test_sparse_cuda_device.py tests/geometry/test_geometry_cuda_device.py \
    tests/volume/test_volume_cuda_device.py tests/targets/test_cuda_team_block.py
[ "$RAN" = 1 ] && row "  cuda_device tests" "" "$(summary "$LOG/cuda-device-tests.log")"
step mesh-and-hydro-on-cuda 150 "$PY" -m pytest -rfEs -p no:cacheprovider -m cuda_device \
    tests/mesh/test_mesh_device.py tests/mesh/test_gpu_box_copies.py tests/apps/test_hydro_device.py \
    tests/autodiff/test_device_mesh_gradients.py tests/mesh/test_gpu_transposed_copies.py \
    tests/apps/test_hydrostatic_device.py
[ "$RAN" = 1 ] && row "  ghost exchange and its adjoint; hydrostatic walls; hydro Sod/KH; mesh gradients cuda vs cpu" "" \
    "$(summary "$LOG/mesh-and-hydro-on-cuda.log")"
step cuda-benchmarks 180 "$PY" benchmarks/bench_cuda.py
[ "$RAN" = 1 ] && while IFS= read -r line; do row "  $line" "" ""; done < <(grep -E "^\| |CHECK FAILED|no CUDA|per step|breakdown failed|host waited" "$LOG/cuda-benchmarks.log")
step hash-grid-gpu-build 90 "$PY" benchmarks/hash_grid_gpu_build.py --quick
[ "$RAN" = 1 ] && while IFS= read -r line; do row "  $line" "" ""; done < <(grep -E "^\| " "$LOG/hash-grid-gpu-build.log")
step nvrtc-and-host-tests 150 "$PY" -m pytest -rfE -p no:cacheprovider -n "$JOBS" \
    tests/targets/test_cuda_nvrtc.py tests/runtime/test_cuda_runtime.py tests/runtime/test_cuda_streams.py \
    tests/targets/test_cuda_loop_abstraction.py tests/targets/test_cuda_adjoint.py tests/targets/test_cuda_batch.py \
    tests/runtime/test_cuda_load_module.py tests/targets/test_unicode_names.py tests/runtime/test_cuda_driver_calls.py \
    tests/runtime/test_cuda_capture.py tests/volume/test_volume_device.py tests/targets/test_cuda_slice_grid.py \
    tests/targets/test_cuda_team_pads.py tests/targets/test_cuda_field_checks.py \
    tests/targets/test_cuda_address_paths.py tests/benchmarks/test_cuda_peers.py \
    tests/la/test_reduce_streams.py tests/la/test_la_repeated_launch_cuda.py tests/targets/test_cuda_arena_size.py \
    tests/la/test_device_fold.py tests/mesh/test_gpu_box_copies.py tests/mesh/test_gpu_transposed_copies.py \
    tests/apps/test_hydrostatic_device.py tests/apps/test_hydro_fused_stage_switch.py \
    tests/targets/test_cuda_team_block.py tests/targets/test_cuda_resources.py tests/benchmarks/test_cuda_resources.py
[ "$RAN" = 1 ] && row "  NVRTC and host-side tests" "" "$(summary "$LOG/nvrtc-and-host-tests.log")"
step cuda-resources 120 "$PY" benchmarks/cuda_resources.py
[ "$RAN" = 1 ] && while IFS= read -r line; do row "  $line" "" ""; done < <(grep -E "^\| [a-z]" "$LOG/cuda-resources.log")
# the static model of the hydro step beside the measured row (last: the budget seldom reaches it); it needs
# nvdisasm (a CUDA toolkit's, or the nvidia-cuda-nvdisasm wheel), and runs only where that is found
export PATH="$PATH:/usr/local/cuda/bin"
if "$PY" -c "import sys; sys.path.insert(0, 'benchmarks'); import cuda_machine_code as m; m.nvdisasm()" >/dev/null 2>&1; then
    step hydro-step-model 120 "$PY" benchmarks/cuda_step_model.py --gpu auto
    [ "$RAN" = 1 ] && while IFS= read -r line; do row "  model: $line" "" ""; done < <(grep -E \
        "^Static model|^\| code \| launches|^\| (brickwork|hand CUDA) \| [0-9]+ \||predicted step ratio" \
        "$LOG/hydro-step-model.log")
else
    case " ${GPU_CHECK_ONLY:-hydro-step-model} " in
        *" hydro-step-model "*) row "hydro-step-model" "SKIPPED" "no nvdisasm (pip install nvidia-cuda-nvdisasm)" ;;
    esac
fi

echo
echo "==================== brickwork GPU check ===================="
printf '%-44s %-9s %s\n' "check" "status" "detail"
for r in "${ROWS[@]}"; do echo "$r"; done
echo "total: $SECONDS s of a $BUDGET s budget"
