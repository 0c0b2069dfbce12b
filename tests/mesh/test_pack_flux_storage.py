"""Flux accesses the pack's tables hold no row for (a variable without ``WithFluxes`` in a pack with fluxes, a
direction the 2-D mesh lacks, direction 0, a flux view of a fluxless variable) are a ``KernelTypeError`` naming
the line, in release and debug builds, before anything runs; release builds crashed on each (a null row), debug
builds raised a ``BoundsError`` after the launch. A direction computed at run time is unchecked in release builds;
debug mode refuses one the variable has no fluxes in (``BoundsError`` naming the line and the directions), and
writes nothing."""

import numpy as np
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
        return f"{HERE}\", line {next(n for n, line in enumerate(f, 1) if text in line)}"


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


@pytest.mark.parametrize("mode", ["release", "debug"])
@pytest.mark.parametrize("body, message", [
    (of_a_fluxless_variable, "variable 'u' has no fluxes (its fields lack Metadata WithFluxes, or the pack was built "
                             "without with_fluxes=True): a flux in direction 1 has no storage"),
    (of_a_missing_direction, "variable 'rho' has fluxes in directions 1, 2 only (a 2-D mesh): a flux in direction 3 "
                             "has no storage"),
    (of_direction_zero, "a flux direction is 1, 2 or 3 (wp.X1DIR, X2DIR, X3DIR), got 0"),
    (through_a_view, "variable 'u' has no fluxes"),
])
def test_flux_accesses_without_storage_are_refused(monkeypatch, mode, body, message):
    monkeypatch.setattr(wp.config, "mode", mode)
    flux = mesh.field("rho").flux
    flux[...] = 5.0
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, body)
    assert message in str(e.value) and _line(f"{body.__name__}'s access") in str(e.value), str(e.value)
    assert (flux == 5.0).all() and not mesh.data("u").any()


def stored_fluxes(rng, b):
    for k, j, i in la.inner(rng):
        pack.flux[b, 2, rho(), k, j, i] = wp.float64(b * 10 + j)


def test_the_stored_directions_are_written():
    flux = mesh.field("rho").flux  # (block, direction, k, j, i)
    flux[...] = 5.0
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())
    la.outer(space, stored_fluxes)
    assert (flux[:, 0] == 5.0).all()
    for b in range(4):
        assert (flux[b, 1, 0, 1:5, 1:5] == (b * 10 + np.arange(1, 5))[:, None]).all()


_direction = wp.zeros(1, dtype=wp.int32)


def at_a_run_time_direction(rng, b):
    for k, j, i in la.inner(rng):
        pack.flux[b, _direction[0], rho(), k, j, i] = wp.float64(7.0)  # at_a_run_time_direction's access


@pytest.mark.parametrize("direction", [3, 0, 4, -2**31])
def test_debug_mode_refuses_a_run_time_direction_without_storage(monkeypatch, direction):
    """Direction 3 on this 2-D mesh has a null row in the flux tables (a crash in a release build); 0 and 4 are
    rows of other variables or past the tables. Debug mode tests the direction against the variable's (1 to 2)."""
    monkeypatch.setattr(wp.config, "mode", "debug")
    flux = mesh.field("rho").flux
    flux[...] = 5.0
    _direction.fill_(direction)
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())
    with pytest.raises(wp.BoundsError) as e:
        la.outer(space, at_a_run_time_direction)
    message = str(e.value)
    assert f"index ({direction - 1}" in message and "is out of bounds for shape (2" in message, message
    assert _line("at_a_run_time_direction's access").replace('", line ', ":") in message, message
    assert "computed at run time: the flux direction less 1 ('rho' has fluxes in directions 1 to 2)" in message, \
        message
    assert (flux == 5.0).all() and not mesh.data("u").any()
    _direction.fill_(2)
    la.outer(space, at_a_run_time_direction)  # a stored direction: written
    assert (flux[:, 1, 0, 1:5, 1:5] == 7.0).all() and (flux[:, 0] == 5.0).all()
