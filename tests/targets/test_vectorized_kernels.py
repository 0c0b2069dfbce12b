"""The benchmark kernels' hot loops are vector loops: GCC's vectorizer report on the generated source.

Timings on a shared machine cannot show this reliably; the report can. Each test names the
statement whose loop must be vectorized (the body is inlined into its simd loop, so GCC reports
the body's line).
"""

from __future__ import annotations

import sys
from pathlib import Path

import brickwork as wp
from brickwork import pipeline

from .vectorizer import capture_cpu_sources, vectorized_lines, vectorized_loops

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from lang_kernels import make_kernels  # noqa: E402

KERNELS = make_kernels(wp)


def _function_lines(text: str, name: str) -> range:
    """Line numbers (1-based) of the generated function ``name`` up to its closing brace."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines, 1) if f" void {name}(" in line)
    end = next(i for i in range(start, len(lines) + 1) if lines[i - 1] == "}")
    return range(start, end + 1)


def test_warp_style_laplacian_interior_is_a_vector_loop_without_the_guard():
    a3 = wp.array3d(dtype=wp.float32)
    text, _ = pipeline.generate(KERNELS.laplacian3d_f32, (a3, a3), "laplacian3d_f32")
    interior = _function_lines(text, "body_interior")
    assert not any("return" in text.splitlines()[n - 1] for n in interior)  # no guard left inside
    vectorized = vectorized_lines(text)
    assert any(n in interior and "v_out" in line for n, line in vectorized.items()), vectorized


def test_scale_and_saxpy_are_vector_loops():
    a1 = wp.array(dtype=wp.float32)
    for kernel, types in ((KERNELS.scale_f32, (a1, wp.float32)), (KERNELS.saxpy_f32, (a1, a1, wp.float32))):
        text, _ = pipeline.generate(kernel, types, kernel.key)
        body = _function_lines(text, "body")
        # the unit's only loop is the body's simd loop; g++ reports it at the body's line, or at the
        # runtime header's line of the array access inlined first
        loops = vectorized_loops(text)
        assert any(where == "brickwork.h" or line in body for where, line, _ in loops), (kernel.key, loops)
        assert text.count("for (") == 1


def test_la_recon_flux_benchmark_loops_are_vector_loops(monkeypatch, tmp_path):
    """The seed's pattern (PLM + HLL along x1, bvoi + memory): its two simd loops, producer and
    consumer, are vectorized in both stride variants of the body."""
    from la_cases import _recon_inputs, la_recon_flux
    from peers import KernelLanguage

    sources = capture_cpu_sources(monkeypatch, tmp_path)  # a miss, so the source is generated
    inputs = _recon_inputs(True)
    run, _ = la_recon_flux(KernelLanguage("brickwork"), inputs["q"], inputs["cells"], inputs["block"], "bvoi", "memory")
    run()
    (text,) = sources
    simd_loops = text.count("#pragma omp simd")
    assert simd_loops == 2
    loops = vectorized_loops(text)
    widest = max(width for _, _, width in loops)
    # the main vector loop of each simd loop, in run<true> (the unit only holds the unit-stride body;
    # epilogues are narrower)
    assert len([w for _, _, w in loops if w == widest]) >= simd_loops, loops
    assert "m_ptrs" not in text.split("#pragma omp simd", 1)[1].split("}", 1)[0]


def test_a_logical_coords_stencil_is_a_vector_loop(monkeypatch, tmp_path):
    """A body's Index3 and ``idx +- delta`` reach the pack's addressing as k, j, i sums: a vector local in the
    simd loop kept g++ from vectorizing it (2.5x the time of the same stencil on logical_flat)."""
    import numpy as np

    from brickwork import la
    from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

    u, lap = VarTag("u"), VarTag("lap")
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell", "FillGhost"))
    pkg.add_field("lap", Metadata("Cell"))
    mesh = Mesh(nx=(32, 32), block_nx=(16, 16), nghost=1, packages=[pkg])
    mesh.data("u")[...] = np.random.default_rng(1).random(mesh.data("u").shape)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [u, lap]).get_pack(md)
    space = la.IndexSpace(la.bvoi, la.logical_coords, ninner=la.ij_slab, domain=IndexDomain.interior, nblocks=4,
                          md=md)
    d1, d2 = space.get_delta(wp.X1DIR), space.get_delta(wp.X2DIR)

    def lap5(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[lap(), idx] = (pv[u(), idx - d1] + pv[u(), idx + d1] + pv[u(), idx - d2] + pv[u(), idx + d2]
                              - wp.float64(4.0) * pv[u(), idx])

    sources = capture_cpu_sources(monkeypatch, tmp_path)
    la.outer(space, lap5)
    (text,) = sources
    statement = next(n for n, line in enumerate(text.splitlines(), 1) if "0x1.0000000000000p+2" in line)
    assert any(line == statement for _, line, _ in vectorized_loops(text)), text
    v = mesh.data("u")[:, 0, 0]
    expected = v[:, 1:-1, :-2] + v[:, 1:-1, 2:] + v[:, :-2, 1:-1] + v[:, 2:, 1:-1] - 4.0 * v[:, 1:-1, 1:-1]
    np.testing.assert_array_equal(mesh.data("lap")[:, 0, 0, 1:-1, 1:-1], expected)
