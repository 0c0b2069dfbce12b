"""Hints for inputs written with Athena++'s and Parthenon's names: an unknown key or section that one of
those codes uses gets the brickwork key it stands for named in the error (``time.cfl_number``: it is
``hydro.cfl`` here), where a close spelling would suggest nothing or the wrong thing."""

from __future__ import annotations

import re

_KEYS = {
    "cfl_number": "hydro.cfl",
    "problem_id": "output.basename",
    "dt": "one schedule per kind of output here: output.hdf5_dt, vtk_dt, png_dt, restart_dt",
    "dcycle": "one schedule per kind of output here: output.hdf5_dn, vtk_dn, png_dn, restart_dn",
    "dn": "one schedule per kind of output here: output.hdf5_dn, vtk_dn, png_dn, restart_dn",
    "file_type": "output.format ('hdf5' or 'vtk'; restart files are scheduled by output.restart_dt)",
    "xorder": "hydro.reconstruction ('plm' with hydro.limiter for xorder = 2, 'ppm' for xorder = 3, or 'weno5'); "
              "xorder = 2c / 3c: the same with hydro.characteristic = true",
    "flux": "hydro.riemann ('hlle', 'hllc', 'llf' or 'roe'; Athena++ picks it at configure time: --flux)",
    "num_threads": "the environment variable BRICKWORK_NUM_THREADS (or OMP_NUM_THREADS)",
    "refinement": "not available: the mesh is uniform, all blocks equal",
    "nu_iso": "hydro.viscosity (kinematic, as nu_iso)",
    "kappa_iso": "hydro.conduction (a diffusivity: the heat flux is -kappa rho grad T, as kappa_iso's)",
    "iso_sound_speed": "not available: the gas is adiabatic (hydro.gamma)",
}
_PATTERNS = [
    (re.compile(r"grav_acc([123])"), "hydro.gravity (one list: gravity = [g1, g2, g3]; g{0} is entry {0})"),
    (re.compile(r"[io]x([123])_bc"), "mesh.bc_x{0} (one value for both sides; 'user' takes each side from the "
                                     "problem's BOUNDARIES)"),
    (re.compile(r"x([123])(min|max)"), "mesh.x{1} (one list: x{1} = [x1{1}, x2{1}, x3{1}])"),
    (re.compile(r"nx([123])"), "mesh.nx (one list: nx = [nx1, nx2, nx3]; a block's size is mesh.block_nx)"),
]
_SECTIONS = {
    "meshblock": "its nx1, nx2, nx3 are mesh.block_nx = [nx1, nx2, nx3] here",
    "job": "its problem_id is output.basename here",
}


def key_hint(key: str) -> str:
    """`` (Athena++ / Parthenon's 'cfl_number' is hydro.cfl here)`` for a key of theirs, or nothing."""
    text = _KEYS.get(key)
    for pattern, template in _PATTERNS:
        match = pattern.fullmatch(key)
        if text is None and match:
            text = template.format(*match.groups())
    return f" (Athena++ / Parthenon's '{key}': {text})" if text else ""


def section_hint(section: str, known) -> str:
    """The same for a section: ``<meshblock>``, ``<job>``, ``<output3>``, ``parthenon/time``; or nothing."""
    bare = section.removeprefix("parthenon/")
    if bare in _SECTIONS:
        return f" (Athena++ / Parthenon's <{section}>: {_SECTIONS[bare]})"
    if re.fullmatch(r"output\d+", bare):
        return (f" (Athena++ / Parthenon's <{section}>: all outputs are set in [output] here, one schedule per "
                f"kind: hdf5_dt, vtk_dt, png_dt, restart_dt)")
    if bare != section and bare in known:
        return f" (Parthenon's <{section}> is [{bare}] here)"
    return ""
