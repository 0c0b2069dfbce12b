"""Flux accesses the pack's tables hold no row for (a variable without ``WithFluxes`` in a pack with fluxes, a
direction the 2-D mesh lacks, direction 0) are unchecked in release builds (docs/mesh.md: they crash); debug mode
refuses each with a ``BoundsError`` at the access's line and writes nothing."""

import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, VarTag

HERE = __file__.rsplit("/", 1)[-1]
u, rho = VarTag("u"), VarTag("rho")
_pkg = Package("p")
_pkg.add_field("u", Metadata("Cell"))
_pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
mesh = Mesh(nx=(8, 8), block_nx=(4, 4), nghost=1, packages=[_pkg])
pack = PackDescriptor(mesh, [u, rho], with_fluxes=True).get_pack(mesh.mesh_data())


def _line(text: str) -> str:
    with open(__file__) as f:
        return f"{HERE}:{next(n for n, line in enumerate(f, 1) if text in line)}"


def of_a_fluxless_variable(rng, b):
    for k, j, i in la.inner(rng):
        pack.flux[b, 1, u(), k, j, i] = wp.float64(2.0)  # of_a_fluxless_variable's access


def of_a_missing_direction(rng, b):
    for k, j, i in la.inner(rng):
        pack.flux[b, 3, rho(), k, j, i] = wp.float64(2.0)  # of_a_missing_direction's access


def of_direction_zero(rng, b):
    for k, j, i in la.inner(rng):
        pack.flux[b, 0, rho(), k, j, i] = wp.float64(2.0)  # of_direction_zero's access


def through_a_view(rng, b):
    fv = la.make_flux_view(rng, pack, wp.X1DIR, u)
    for k, j, i in la.inner(rng):
        fv[k, j, i] = wp.float64(2.0)  # through_a_view's access


@pytest.mark.parametrize("body", [of_a_fluxless_variable, of_a_missing_direction, of_direction_zero, through_a_view])
def test_debug_mode_refuses_flux_accesses_without_a_row(monkeypatch, body):
    monkeypatch.setattr(wp.config, "mode", "debug")
    flux = mesh.field("rho").flux
    flux[...] = 5.0
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())
    with pytest.raises(wp.BoundsError, match=r"is out of bounds for shape") as e:
        la.outer(space, body)
    assert _line(f"{body.__name__}'s access") in str(e.value), str(e.value)
    assert (flux == 5.0).all() and not mesh.data("u").any()
