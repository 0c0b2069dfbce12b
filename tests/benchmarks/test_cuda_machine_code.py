"""benchmarks/cuda_machine_code.py without a GPU or a disassembler: the registers it reads from a cubin's
attributes, the loops it finds in nvdisasm's listing, and the entry it reduces to the benchmark's path."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import cuda_machine_code  # noqa: E402
import cuda_peers  # noqa: E402

import brickwork as wp  # noqa: E402
from brickwork import pipeline  # noqa: E402
from brickwork.jit import nvrtc  # noqa: E402
from brickwork.targets.cuda import CudaTarget  # noqa: E402

LISTING = """\
.text.first:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
.L_x_110:
        /*00e0*/                   IMAD.WIDE R2, R9, 0x8, R6 ;
        /*00f0*/                   LDG.E.64 R2, desc[UR6][R2.64] ;
        /*00f8*/              @!P2 LDS.64 R8, [R5+0x200] ;
        /*00fa*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0100*/                   NOP ;
        /*0150*/              @!P1 BRA `(.L_x_110) ;
        /*0160*/                   @P0 BRA `(.L_x_111) ;
.L_x_111:
        /*0170*/                   EXIT ;
.text.second:
        /*0000*/                   STG.E desc[UR4][R2.64], R15 ;
        /*fff0*/                   STG.E desc[UR4][R4.64], R15 ;
        /*10000*/                  EXIT ;
"""


def test_the_listing_gives_each_function_its_instructions_and_loops(monkeypatch):
    monkeypatch.setattr(cuda_machine_code, "register_counts", lambda cubin: {"first": 12})
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, LISTING, ""))
    first, second = cuda_machine_code.disassemble(b"", "nvdisasm")
    assert (first.name, first.registers, len(first.instructions), first.loops) == ("first", 12, 9, [5])
    assert first.count(cuda_machine_code._GLOBAL_LOAD) == 1  # the NOP is not counted
    assert first.count("^LDS") == 1 and first.count(cuda_machine_code._BLOCK_BARRIER) == 1  # @!P2 LDS counts
    assert (second.name, second.registers, second.loops, second.count(cuda_machine_code._GLOBAL_STORE)) == \
        ("second", 0, [], 2)
    assert second.instructions[-1] == "EXIT"  # past offset 0xffff (a long kernel's): it was left out


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')")
def test_registers_are_read_for_every_kernel_of_a_cubin():
    source = cuda_peers.SOURCES[1]
    counts = cuda_machine_code.register_counts(nvrtc.compile_cubin(source.read_text(), source.name, "sm_90", []))
    assert set(counts) == set(cuda_peers._KERNEL.findall(source.read_text()))
    assert all(8 <= n <= 255 for n in counts.values())


def test_the_unit_path_keeps_the_unit_stride_tiled_launch():
    @wp.kernel
    def shift(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
        i, j = wp.tid()
        b[i, j] = a[i, j + 1]

    text, _ = pipeline.generate(shift, [wp.array2d(dtype=float)] * 2, "shift", target=CudaTarget("sm_90"))
    reduced = cuda_machine_code.unit_path(text)
    assert "body<false>" not in text and "body<true>(" in reduced  # the unit-stride body only (d82149a8)
    assert "blockDim.y), int32_t(1)))" in text and "blockDim.y), int32_t(1)))" not in reduced
