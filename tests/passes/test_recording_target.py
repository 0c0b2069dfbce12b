"""A target sees the meaning typing kept: the backend tag, barriers, pack identities.

The test target records the IR its first pass receives, then lowers and renders like the CPU
target. On the CPU ``la.raw`` and ``la.team`` may become the same loops (they do); what the
target receives must still tell them apart.
"""

from __future__ import annotations

import brickwork as wp
from brickwork import ir, la, pipeline
from brickwork.la.outer import _prepare
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.targets.cpu import CpuTarget
from brickwork.types.generic import type_of_value


class Recorder:
    """A pass that only looks: it keeps every function it is given."""

    name = "record"

    def __init__(self):
        self.seen: list = []

    def run(self, fn):
        self.seen.append(fn)
        return fn


class RecordingTarget(CpuTarget):
    name = "recording"

    def __init__(self):
        self.recorder = Recorder()

    def passes(self, mode="release"):
        return (self.recorder, *super().passes(mode))


RHO = VarTag("rho")


def make_pack():
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "Independent", "WithFluxes"))
    mesh = Mesh(nx=(8, 4), block_nx=(4, 4), nghost=1, packages=[pkg])
    return PackDescriptor(mesh, [RHO], with_fluxes=True).get_pack(mesh.mesh_data()), mesh


PACK, MESH = make_pack()
DX1 = None


def flux_body(rng, b):
    v = la.make_pack_view(rng, PACK)
    s = la.get_per_point_scratch(wp.float64, rng.add_halo(la.halo.minus_i))
    for idx in la.inner(rng.add_halo(la.halo.minus_i)):
        s[idx] = v[RHO, idx]
    rng.team_barrier()
    for idx in la.inner(rng):
        v[RHO, idx] = s[idx] + s[idx - DX1]


def lowered_for(backend):
    global DX1
    space = la.IndexSpace(la.bovi, la.logical_flat, domain=IndexDomain.interior, nblocks=PACK.get_nblocks(),
                          md=MESH.mesh_data(), backend=backend)
    space.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=1)
    DX1 = space.get_delta(wp.X1DIR)
    kernel, _ = _prepare(space, flux_body, "outer", False)
    types = tuple(type_of_value(v) for v in kernel.arguments(space.runtime_geometry()))
    target = RecordingTarget()
    fn, callees = pipeline.lower(*pipeline.type_instance(kernel, types, "flux_body"), target)
    return target.recorder.seen[-1], target.render(fn, callees, "flux_body")


def test_the_target_receives_backend_barrier_and_pack():
    seen_raw, text_raw = lowered_for(la.raw)
    seen_team, text_team = lowered_for(la.team)
    outer_raw = next(n for n in ir.walk(seen_raw.body) if isinstance(n, ir.IRLAOuter))
    outer_team = next(n for n in ir.walk(seen_team.body) if isinstance(n, ir.IRLAOuter))
    assert (outer_raw.config.backend, outer_team.config.backend) == ("raw", "team")
    assert (outer_team.config.loop, outer_team.config.inner) == ("bovi", "logical_flat")
    barriers = [n for n in ir.walk(seen_team.body) if isinstance(n, ir.IRTeamBarrier)]
    assert len(barriers) == 1 and barriers[0].member is None
    views = [n for n in ir.walk(seen_team.body) if isinstance(n, ir.IRLAViewElem)]
    assert len(views) == 2
    pack_param = next(name for name, t in seen_team.params if getattr(t, "_bw_pack", None))
    for v in views:
        assert v.view.kind == "pack" and isinstance(v.view.pack, ir.IRLocal) and v.view.pack.name == pack_param
        assert v.var.position == 0  # "rho", the pack's first variable
    inners = [n for n in ir.walk(seen_team.body) if isinstance(n, ir.IRLAInner)]
    assert [repr(n.halo) for n in inners] == ["la.halo.minus_i", "la.halo.none"]
    # The CPU mapping runs a slice on one thread: both backends give the same code.
    assert text_raw == text_team
