"""ptxas's resource report of CUDA builds (targets/cuda/resources.py): the log's parsing, the report kept in the
cache entry, ``Kernel.cuda_resources`` and its errors. No GPU needed: NVRTC compiles to sm_90."""

import pytest

import brickwork as wp
from brickwork.errors import KernelTypeError, LaunchError
from brickwork.jit import nvrtc, store
from brickwork.targets.cuda import build, cuda_target
from brickwork.targets.cuda.arch import NVRTC_OPTIONS
from brickwork.targets.cuda.resources import REPORT_OPTIONS, KernelResources, parse_report

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(),
                                 reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

# NVRTC 12.9's log of a unit with two entries (one calling an out-of-line function) and a C++ kernel
LOG_12_9 = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k3' for 'sm_90'
ptxas info    : Function properties for k3
ptxas         .     160 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 0 barriers, 160 bytes cumulative stack size
ptxas info    : Compile time = 4.917 ms
ptxas info    : Function properties for _Z1fd
ptxas         .     24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function '_Z2k2Pf' for 'sm_90'
ptxas info    : Function properties for _Z2k2Pf
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compile time = 1.028 ms
ptxas info    : Compiling entry function 'bw_entry' for 'sm_90'
ptxas info    : Function properties for bw_entry
ptxas         .     320 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 320 bytes cumulative stack size, 512 bytes smem
ptxas info    : Compile time = 36.505 ms
"""
# an older ptxas: no barriers, the constant banks listed
LOG_OLD = """ptxas info    : Compiling entry function 'bw_entry' for 'sm_80'
ptxas info    : Function properties for bw_entry
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 22 registers, 1024 bytes smem, 380 bytes cmem[0], 16 bytes cmem[2]
"""


def test_the_log_gives_each_entry_its_registers_spills_stack_and_shared_memory():
    report = parse_report(LOG_12_9)
    assert report == {
        "k3": KernelResources(30, 0, 0, 160, 160, 0, 0, 0),
        "_Z2k2Pf": KernelResources(8),
        "bw_entry": KernelResources(255, spill_stores=40, spill_loads=36, stack_frame=320, cumulative_stack=320,
                                    shared=512, barriers=1),
    }  # _Z1fd is no entry: its frame is in k3's cumulative stack
    assert report["bw_entry"].spills and not report["k3"].spills
    assert parse_report(LOG_OLD) == {"bw_entry": KernelResources(22, shared=1024, constant=396)}


def test_a_log_without_a_report_or_cut_short_gives_only_the_complete_entries():
    assert parse_report("") == {} and parse_report("warning: something\n") == {}
    cut = LOG_12_9[:LOG_12_9.index("ptxas info    : Used 255")]
    assert set(parse_report(cut)) == {"k3", "_Z2k2Pf"}


def test_the_fields_go_through_the_entry_metadata_unchanged():
    r = KernelResources(72, 4, 8, 48, 64, 1024, 16, 1)
    assert KernelResources.from_dict(r.as_dict()) == r
    assert KernelResources.from_dict({**r.as_dict(), "a later field": 3}) == r  # a newer entry's extra field


UNIT = """extern "C" __global__ void __launch_bounds__(128) bw_entry(double* a, int n) {
    __shared__ double s[64];
    double local[40];
    int i = threadIdx.x;
    for (int j = 0; j < 40; j++) local[j] = a[(i * j) % n];
    s[i % 64] = local[(i * 7) % 40];
    __syncthreads();
    a[i] = s[(i + 1) % 64];
}
"""


@needs_nvrtc
def test_nvrtc_reports_a_units_resources_and_the_report_option_changes_no_code():
    cubin, log = nvrtc.compile_program(UNIT, "unit.cu", "sm_90", [], [*NVRTC_OPTIONS, *REPORT_OPTIONS])
    r = parse_report(log)["bw_entry"]
    # the local array is a stack frame of 40 doubles, not spills; 64 shared doubles; one block barrier
    assert (r.stack_frame, r.spills, r.shared, r.barriers) == (320, False, 512, 1)
    assert 0 < r.registers <= 255
    assert nvrtc.compile_cubin(UNIT, "unit.cu", "sm_90", [], list(NVRTC_OPTIONS)) == cubin  # not in the key


@wp.kernel
def saxpy_report(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def generic_report(x: wp.array(dtype=wp.Any)):
    i = wp.tid()
    x[i] = x[i] + x.dtype(1)


@needs_nvrtc
def test_a_kernels_cuda_resources_are_those_its_cache_entry_keeps_and_a_second_call_compiles_nothing():
    report = saxpy_report.cuda_resources()
    assert set(report) == {"bw_entry"}
    r = report["bw_entry"]
    assert 8 <= r.registers <= 64 and not r.spills and r.shared == 0  # a short plain kernel, no spill
    inst = saxpy_report.get_instance(saxpy_report.concrete_types(), cuda_target("sm_90"))
    path, meta = store.lookup(inst.key())
    assert meta["resources"][meta.get("symbols", {}).get("bw_entry", "bw_entry")] == r.as_dict()
    before = build.nvrtc_calls
    assert saxpy_report.cuda_resources(arch="sm_90") == report and build.nvrtc_calls == before
    f64 = generic_report.cuda_resources([wp.array(dtype=wp.float64)])
    assert set(f64) == {"bw_entry"} and not f64["bw_entry"].spills


@needs_nvrtc
@pytest.mark.parametrize("call, error, words", [
    (lambda: generic_report.cuda_resources(), LaunchError, ["generic_report", "generic"]),
    (lambda: saxpy_report.cuda_resources([wp.float32]), KernelTypeError,
     ["cuda_resources of kernel 'saxpy_report'", "3 parameters, got 1 types"]),
    (lambda: saxpy_report.cuda_resources([wp.float32, wp.array(dtype=float), wp.array(dtype=wp.float64)]),
     KernelTypeError, ["parameter 'y'", "float64"]),
    (lambda: saxpy_report.cuda_resources(arch="sm90"), ValueError, ["saxpy_report", "'sm90'", "sm_XX"]),
    (lambda: saxpy_report.cuda_resources(arch="compute_90"), ValueError, ["'compute_90'"]),
])
def test_a_wrong_request_names_the_kernel_and_the_problem_and_builds_nothing(call, error, words):
    before = (dict(saxpy_report.instances), dict(generic_report.instances), build.nvrtc_calls)
    with pytest.raises(error) as err:
        call()
    for word in words:
        assert word in str(err.value)
    assert (dict(saxpy_report.instances), dict(generic_report.instances), build.nvrtc_calls) == before
