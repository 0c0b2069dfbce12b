#!/usr/bin/env bash
# CUDA checks for a machine with an NVIDIA GPU (under 10 minutes): installs the cuda extra, prints
# `brickwork info`, runs the CUDA-device tests (marker cuda_device), the NVRTC-compile and host-side
# CUDA tests, a saxpy bandwidth row, and prints one summary table. Run from the repository root:
#     bash scripts/gpu_check.sh
# The hydro rows run Sod and KH with hydro.device=cuda against their CPU results (docs/hydro.md).
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
LOG=${GPU_CHECK_LOG:-gpu_check_logs}
mkdir -p "$LOG"
declare -a ROWS

row() { ROWS+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")"); }

step() {  # step NAME SECONDS COMMAND...: runs it with a time limit, logs it, adds a row
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$LOG/$name.log" 2>&1
    local rc=$?
    local status=ok; [ $rc -eq 0 ] || status="FAIL($rc)"; [ $rc -eq 124 ] && status="TIMEOUT"
    row "$name" "$status" "$((SECONDS - t0)) s, log $LOG/$name.log"
    return $rc
}

if [ ! -x "$PY" ]; then
    step setup 240 make .venv/.installed-dev || true
fi
# the cuda extra (NVRTC and the CUDA headers); already there when installed with the dev extra
step install-cuda-extra 180 "$PY" -m pip install -q -e '.[cuda]' || true  # offline: the dev extra has it
step nvrtc-loads 60 "$PY" -c "from brickwork.jit import nvrtc; print('NVRTC', nvrtc.version())"
step info 60 "$PY" -m brickwork.cli info
cat "$LOG/info.log"
summary() { grep -E "[0-9]+ (passed|failed|skipped|error)" "$1" | tail -n 1; }
step cuda-device-tests 240 "$PY" -m pytest -rfEs -m cuda_device tests/runtime/test_cuda_device.py \
    tests/runtime/test_cuda_device_la.py
row "  cuda_device tests" "" "$(summary "$LOG/cuda-device-tests.log")"
step nvrtc-and-host-tests 300 "$PY" -m pytest -rfE -n 4 tests/targets/test_cuda_nvrtc.py tests/runtime/test_cuda_runtime.py \
    tests/runtime/test_cuda_streams.py tests/targets/test_cuda_loop_abstraction.py tests/targets/test_cuda_adjoint.py \
    tests/targets/test_cuda_batch.py tests/runtime/test_cuda_load_module.py tests/targets/test_unicode_names.py
row "  NVRTC and host-side tests" "" "$(summary "$LOG/nvrtc-and-host-tests.log")"
step cuda-benchmarks 180 "$PY" benchmarks/bench_cuda.py
while IFS= read -r line; do row "  $line" "" ""; done < <(grep -E "saxpy|overhead|no CUDA" "$LOG/cuda-benchmarks.log")
step mesh-and-hydro-on-cuda 300 "$PY" -m pytest -rfEs -m cuda_device tests/mesh/test_mesh_device.py tests/apps/test_hydro_device.py
row "  ghost exchange; hydro Sod/KH cuda vs cpu" "" "$(summary "$LOG/mesh-and-hydro-on-cuda.log")"

echo
echo "==================== brickwork GPU check ===================="
printf '%-34s %-8s %s\n' "check" "status" "detail"
for r in "${ROWS[@]}"; do echo "$r"; done
