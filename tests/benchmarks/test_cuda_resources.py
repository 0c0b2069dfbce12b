"""The kernels of the la recon+flux benchmark and of the hydro step, as a GPU would load them (built on the stand-in
driver's cuda:0, sm_90), do not spill and use no more registers than they did when this was written
(benchmarks/cuda_resources.py: ptxas's report kept in each cache entry). A change that makes a kernel need
more registers lowers the blocks an SM holds; this test shows it, and its bound is raised only knowingly."""

import sys
from pathlib import Path

import pytest

from brickwork.jit import nvrtc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import cuda_resources  # noqa: E402
from cuda_step_model import blocks_per_sm  # noqa: E402

pytestmark = pytest.mark.skipif(not nvrtc.is_available(),
                                reason="NVRTC is not installed (pip install 'brickwork[cuda]' or the dev extra)")

#: kernel name -> the most registers per thread any of its entries used (NVRTC 12.9, sm_90; 2026-12-08). On the
#: H200 each is under 128, and none spills. Another NVRTC allocates otherwise: there only the spills are checked.
REGISTERS_12_9 = {
    "recon_flux": 40,
    "copy_elements": 32, "cons_to_prim": 64, "cfl_rate": 42, "fold_partials": 27, "fluxes": 72,
    "fluxes_across_rows": 92, "update": 80,
}

#: kernel name -> its stack frame (bytes per thread; NVRTC 12.9): the arguments of the printf of a cold path (a
#: team's arena overflow). The hydro fluxes' was 48 bytes while bw::pad_too_large took its pads' sizes by
#: reference: each team stored them to local memory at its start.
STACK_12_9 = {"recon_flux": 16, "fluxes": 32}


def _check(rows: list) -> None:
    assert rows, "the case launched no kernel"
    same_nvrtc = nvrtc.version() == (12, 9)
    for label, entry, block, shared, r in rows:
        name = label.split("[")[0]
        assert r is not None, f"{label} {entry}: its cache entry holds no ptxas report"
        assert name in REGISTERS_12_9, f"{label}: a kernel this test does not know: add its bound"
        assert not r.spills and r.spill_stores == r.spill_loads == 0, f"{label} {entry} spills: {r}"
        if same_nvrtc:
            assert r.registers <= REGISTERS_12_9[name], f"{label} {entry}: {r.registers} registers"
            assert r.stack_frame <= STACK_12_9.get(name, 0), f"{label} {entry}: a stack frame of {r.stack_frame} B"
        # an SM holds at least 5 blocks of each (registers, threads and shared memory: sm_90's limits)
        assert blocks_per_sm(r.registers, block[0], r.shared + shared) >= 5, (label, r, block, shared)


@pytest.mark.parametrize("tags", [("bovi", "logical_flat"), ("bvoi", "memory")])
def test_the_recon_flux_kernels_do_not_spill(tags):
    rows = cuda_resources.launched(cuda_resources.recon_flux(*tags))
    assert {label.split("[")[0] for label, *_ in rows} == {"recon_flux"}
    assert {entry for _, entry, *_ in rows} == {"bw_entry", "bw_entry_global"}  # its scratch: shared or global
    _check(rows)


def test_the_hydro_step_kernels_do_not_spill():
    rows = cuda_resources.launched(cuda_resources.hydro_step(64, 32))
    names = {label.split("[")[0] for label, *_ in rows}
    assert {"cons_to_prim", "fluxes", "update", "cfl_rate", "fold_partials"} <= names
    _check(rows)
