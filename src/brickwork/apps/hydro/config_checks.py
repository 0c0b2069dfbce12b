"""The checks of ``build`` that span several keys of a configuration's sections: the mesh and its
blocks, user boundaries, the CFL number, the PNG variable, the outputs; each completes what a default
leaves open (``mesh.nghost``, ``hydro.cfl``, ``output.basename``) and raises ``ConfigError`` naming the
keys and what to set."""

from __future__ import annotations

import math

from . import diffusion, sources, user_history
from .reconstruction import STENCIL_HALF_WIDTH
from .schema import (
    BASENAME,
    BUILT_IN_OUTPUTS,
    DEVICE,
    DEVICE_CHOICES,
    HISTORY_COLUMNS,
    MAX_BASENAME,
    PNG_VARIABLES,
    SIDES,
    VARIABLE_NAME,
    ConfigError,
    suggest,
)


def check_sections(sections: dict, problem, where: str, given: set) -> None:
    """Check and complete the ``sections`` of ``problem`` (``where``: `` in FILE``; ``given``: the
    ``[mesh]`` keys the input set, not defaults)."""
    _check_mesh(sections, problem, where, given)
    _check_user_boundaries(sections["mesh"], problem)
    _check_cfl(sections)
    sources.check(sections, problem)
    diffusion.check(sections)
    check_scalar_names(sections["hydro"], problem, f"hydro.scalar_names{where}")
    # only the HISTORY names that are scalars' (the list of hydro.nscalars = 10**9 default names took all memory)
    user_history.check_names(problem, [name for name in user_history.entries(problem)
                                       if _names_scalar(sections["hydro"], name)])
    _check_png_variable(sections)
    device = sections["hydro"]["device"]
    if not DEVICE.fullmatch(device):
        raise ConfigError(f"hydro.device: {device!r} is not one of {', '.join(map(repr, DEVICE_CHOICES))} (N: the "
                          f"number of the GPU, from 0)" + suggest(device, ("cpu", "cuda")))
    _check_output(sections["output"], sections["problem"]["name"])


def _check_output(out: dict, name: str) -> None:
    """Check ``[output]`` and complete ``output.basename`` (the problem's ``name``)."""
    if not out["format"] or len(set(out["format"])) != len(out["format"]):
        raise ConfigError(f"output.format: name each format once, \"hdf5\", \"vtk\" or both, got {out['format']!r} "
                          f"(no outputs: output.hdf5_dt = -1)")
    if "vtk" in out["format"] and (out["vtk_dt"] >= 0 or out["vtk_dn"] >= 1):
        key = "vtk_dt" if out["vtk_dt"] >= 0 else "vtk_dn"
        raise ConfigError(f"output.{key}: VTK outputs are already written on the schedule of hdf5_dt and hdf5_dn "
                          f"(output.format = {out['format']!r}); give VTK a schedule of its own with output.format = "
                          f"[\"hdf5\"] (and output.hdf5_dt = -1 for VTK alone), or leave output.{key} out")
    for kind in ("hdf5", "vtk", "png", "restart"):
        if out[f"{kind}_dn"] == 0:
            raise ConfigError(f"output.{kind}_dn: 0 is no cadence; set it to n >= 1 (the states whose cycle is a "
                              f"multiple of n) or -1 (none)")
    if "\0" in out["dir"]:  # os.makedirs would fail with a raw ValueError
        raise ConfigError(f"output.dir: {out['dir']!r} contains a NUL character, which no directory name can hold")
    if out["basename"] is None:
        out["basename"] = name
    if not BASENAME.fullmatch(out["basename"]):
        raise ConfigError(f"output.basename: must be a plain file name stem (ASCII letters, digits, '_', '-' and '.', "
                          f"not starting with '.'), got {out['basename']!r}")
    if len(out["basename"]) > MAX_BASENAME:
        raise ConfigError(f"output.basename: at most {MAX_BASENAME} characters (the output files add up to 40 more "
                          f"to it, and a file name holds 255), got {len(out['basename'])}")


def scalar_names(hydro: dict) -> list[str]:
    """The passive scalars' names of the checked ``[hydro]`` section: ``scalar_names``, or by default
    ``scalar_0``, ``scalar_1``, ..."""
    given = hydro.get("scalar_names")
    return list(given) if given is not None else [f"scalar_{n}" for n in range(hydro["nscalars"])]


def check_scalar_names(hydro: dict, problem, key: str) -> None:
    """``hydro.scalar_names``, if given: one name per scalar, each an identifier of its own that names no
    other variable of the outputs (the gas's, the history's, the problem's ``OUTPUTS``); ``key`` is what a
    mistake names (the key and where it was given)."""
    names = hydro["scalar_names"]
    if names is None:
        return
    if len(names) != hydro["nscalars"]:
        raise ConfigError(f"{key}: {len(names)} name{'s' * (len(names) != 1)} {names!r} for hydro.nscalars="
                          f"{hydro['nscalars']} passive scalars: give one name per scalar, or set hydro.nscalars = "
                          f"{len(names)}")
    taken = {*BUILT_IN_OUTPUTS, *PNG_VARIABLES, *HISTORY_COLUMNS, *getattr(problem, "OUTPUTS", {})}
    for n, name in enumerate(names):
        if not VARIABLE_NAME.fullmatch(name):
            raise ConfigError(f"{key}: {name!r} is not a name: a scalar is named with ASCII letters, digits and "
                              f"'_', not first a digit (e.g. 'dye')")
        if name in taken:
            raise ConfigError(f"{key}: {name!r} already names {_owner(name, problem)}; give the scalar another name")
        if name in names[:n]:
            raise ConfigError(f"{key}: {name!r} names two scalars ({names.index(name)} and {n}); names must be "
                              f"unique")


def _owner(name: str, problem) -> str:
    """What the output name ``name`` is taken by (in words)."""
    if name in getattr(problem, "OUTPUTS", {}):
        return f"a variable of problem {problem.NAME!r}'s OUTPUTS"
    return "a history column" if name in ("cycle", "time", "dt", "mass") else "a variable of the gas"


def run_check(problem, sections: dict) -> None:
    """``problem.check(sections)``: its ``ConfigError`` as it is, anything else it raises one line naming
    check() and where in the problem's file (``custom_problem.failure``)."""
    from .custom_problem import USER_ERRORS, failure

    try:
        problem.check(sections)
    except (ConfigError, MemoryError):
        raise
    except USER_ERRORS as e:
        raise failure(problem, "check", e, sections["problem"]) from e


def _check_mesh(sections: dict, problem, where: str, given: set) -> None:
    """Check and complete ``[mesh]`` (``given``: the keys the input set, not defaults)."""
    mesh = sections["mesh"]
    nx = mesh["nx"]
    if nx is None:
        raise ConfigError(f"mesh.nx is missing{where} (cells per direction, e.g. nx = [256])")
    ndim = len(nx)
    if not 1 <= ndim <= 3:
        raise ConfigError(f"mesh.nx: expected 1 to 3 entries (x1, x2, x3), got {nx!r}")
    dims = getattr(problem, "DIMENSIONS", (1, 2, 3))
    if ndim not in dims:
        raise ConfigError(f"mesh.nx: problem {sections['problem']['name']!r} runs in "
                          f"{' or '.join(f'{d}-D' for d in dims)}, but mesh.nx={nx} has {ndim} entries")
    for d, n in enumerate(nx):
        if n <= 0:
            raise ConfigError(f"mesh.nx: every entry must be positive, got nx{d + 1}={n}")
    block = mesh["block_nx"] or list(nx)
    if len(block) != ndim:
        raise ConfigError(f"mesh.block_nx={block} has {len(block)} entries but mesh.nx={nx} has {ndim}")
    need = STENCIL_HALF_WIDTH[sections["hydro"]["reconstruction"]] + 1  # the faces of a ghost's neighbour
    nghost = mesh["nghost"] or need
    if nghost < need:
        raise ConfigError(f"mesh.nghost={nghost} is too small: {sections['hydro']['reconstruction']} "
                          f"reconstruction needs {need} ghost cells")
    for d, (n, b) in enumerate(zip(nx, block)):
        if b <= 0:
            raise ConfigError(f"mesh.block_nx: every entry must be positive, got block_nx{d + 1}={b}")
        if b > n:
            raise ConfigError(f"mesh.block_nx{d + 1}={b} is larger than the mesh (mesh.nx{d + 1}={n})")
        if b < nghost and d > 0 and all(c == 1 for c in nx[d:]):  # Athena++'s nx2 = 1 for a 1-D run
            raise ConfigError(f"mesh.nx{d + 1}=1: a direction one cell thick has no room for the {nghost} ghost cells "
                              f"the scheme needs; a {d}-D run is mesh.nx = {list(nx[:d])} (where Athena++ and "
                              f"Parthenon write nx{d + 1} = 1), with block_nx, xmin, xmax of {d} "
                              f"entr{'y' if d == 1 else 'ies'} each")
        if b < nghost:  # before the tiling, whose hint looks for blocks of at least nghost cells
            raise ConfigError(f"mesh.block_nx{d + 1}={b} is smaller than the {nghost} ghost cells the scheme needs")
        if n % b:
            raise ConfigError(f"mesh.nx{d + 1}={n} is not divisible by mesh.block_nx{d + 1}={b}: blocks must tile "
                              f"the mesh ({_tiling_hint(d + 1, n, b, nghost)})")
    mesh["block_nx"] = list(block)
    mesh["nghost"] = nghost
    for name in ("xmin", "xmax"):
        if mesh[name] is None:
            example = [0.0 if name == "xmin" else 1.0] * ndim
            raise ConfigError(f"mesh.{name} is missing{where}: the {'lower' if name == 'xmin' else 'upper'} corner "
                              f"of the domain, one entry per direction of mesh.nx (e.g. {name} = {example})")
        if len(mesh[name]) < ndim:
            padded = list(mesh[name]) + [mesh[name][-1] if mesh[name] else 0.0] * (ndim - len(mesh[name]))
            raise ConfigError(f"mesh.{name}={mesh[name]} needs {ndim} entries, one per direction of mesh.nx={nx} "
                              f"(e.g. mesh.{name}={padded})")
        # the problems' defaults have an entry for each of the three directions; what the input gives
        # must match mesh.nx, as block_nx must: an extra entry is a mistake, not a value to drop
        if name in given and len(mesh[name]) != ndim:
            raise ConfigError(f"mesh.{name}={mesh[name]} has {len(mesh[name])} entries but mesh.nx={nx} has {ndim}")
        mesh[name] = list(mesh[name][:ndim])
    for d in range(ndim):
        lo, hi = mesh["xmin"][d], mesh["xmax"][d]
        if hi <= lo:
            raise ConfigError(f"mesh.xmax{d + 1}={hi} must be larger than mesh.xmin{d + 1}={lo}")
        width = hi - lo
        if not math.isfinite(width):  # cell widths and positions would be infinite or NaN
            raise ConfigError(f"mesh.xmax{d + 1} - mesh.xmin{d + 1} = {hi!r} - {lo!r} is beyond the largest double: "
                              f"the domain is too large")
        if width / nx[d] == 0.0:
            raise ConfigError(f"mesh.xmax{d + 1} - mesh.xmin{d + 1} = {width!r} across mesh.nx{d + 1}={nx[d]} cells "
                              f"gives cells of width 0 (below the smallest double): the domain is too small")
    for d in range(ndim):
        if mesh[f"bc_x{d + 1}"] is None:
            mesh[f"bc_x{d + 1}"] = "periodic"


#: The largest stable ``hydro.cfl`` of each integrator times the number of dimensions. The time step is
#: ``cfl * min over directions of dx_d / (abs(v_d) + c)``, and the unsplit update adds the Courant numbers
#: of the directions, so the sum, up to ``ndim * cfl``, must stay below the forward-Euler limit 1 times the
#: integrator's SSP coefficient, which is 1 for both SSP-RK2 and SSP-RK3 (Shu & Osher).
CFL_LIMIT = {"rk2": 1.0, "rk3": 1.0}
#: ``hydro.cfl`` when the input gives none, by dimension (what the examples use; 0.4 is past 1/3 in 3-D)
CFL_DEFAULT = {1: 0.4, 2: 0.4, 3: 0.3}


def _check_user_boundaries(mesh: dict, problem) -> None:
    """``bc_xd = "user"`` needs the problem's ``BOUNDARIES`` to give both sides of direction d."""
    given = getattr(problem, "BOUNDARIES", {})
    for d in range(1, len(mesh["nx"]) + 1):
        if mesh[f"bc_x{d}"] != "user":
            continue
        missing = [side for side in SIDES[d] if side not in given]
        if missing:
            raise ConfigError(f"mesh.bc_x{d} = 'user' needs the boundary functions of problem {problem.NAME!r}, but "
                              f"its BOUNDARIES has no {' or '.join(map(repr, missing))} (a problem of your own "
                              f"defines BOUNDARIES = {{'inner_x{d}': function, 'outer_x{d}': 'outflow'}}: see "
                              f"docs/hydro.md)")
        if ("periodic" in (given[SIDES[d][0]], given[SIDES[d][1]])
                and given[SIDES[d][0]] != given[SIDES[d][1]]):
            raise ConfigError(f"mesh.bc_x{d} = 'user': problem {problem.NAME!r} makes one side of x{d} periodic and "
                              f"not the other; periodic is a property of both sides (set mesh.bc_x{d} = 'periodic')")


def _check_cfl(sections: dict) -> None:
    """Complete ``hydro.cfl`` (``CFL_DEFAULT``), then ``ConfigError`` if it is above the stability limit of
    the integrator in the mesh's dimension (1/2 in 2-D, 1/3 in 3-D): such a run goes unstable without any
    cell turning non-finite or non-physical, so nothing would stop it (the schema's maximum, 1, covers 1-D)."""
    ndim = len(sections["mesh"]["nx"])
    hydro = sections["hydro"]
    if hydro["cfl"] is None:
        hydro["cfl"] = CFL_DEFAULT[ndim]
    cfl, integrator = hydro["cfl"], hydro["integrator"]
    if cfl > CFL_LIMIT[integrator] / ndim:
        bound = "1" if ndim == 1 else f"1/{ndim}"
        raise ConfigError(f"hydro.cfl={cfl!r} is above {bound}, the stability limit of hydro.integrator={integrator!r} "
                          f"in {ndim}-D: the unsplit scheme adds the Courant numbers of the {ndim} directions, so a "
                          f"larger cfl makes the run unstable (and its outputs wrong); set hydro.cfl <= {bound} "
                          f"(the examples use {CFL_DEFAULT[ndim]})")


def _check_png_variable(sections: dict) -> None:
    """``ConfigError`` unless ``output.png_variable`` names a built-in variable or one of the run's passive
    scalars (``scalar_names``)."""
    var = sections["output"]["png_variable"]
    hydro = sections["hydro"]
    if var in PNG_VARIABLES or _names_scalar(hydro, var):
        return
    # the default names of many scalars are not listed out (nor made: hydro.nscalars = 10**9 took all memory
    # here, before the check of the memory its fields need could refuse it)
    n = hydro["nscalars"]
    few = hydro.get("scalar_names") is not None or n <= 8
    choices = PNG_VARIABLES + (tuple(scalar_names(hydro)) if few else (f"scalar_0 .. scalar_{n - 1}",))
    extra = "" if n else " (scalar_N needs hydro.nscalars > N)"
    raise ConfigError(f"output.png_variable: {var!r} is not one of {', '.join(map(repr, choices))}{extra}"
                      + suggest(var, choices if few else PNG_VARIABLES))


def _names_scalar(hydro: dict, var: str) -> bool:
    """Whether ``var`` is the name of one of the passive scalars of the checked ``[hydro]`` section."""
    if hydro.get("scalar_names") is not None:
        return var in hydro["scalar_names"]
    number = var.removeprefix("scalar_")
    return number != var and number.isdigit() and number.isascii() and str(int(number)) == number \
        and int(number) < hydro["nscalars"]


#: ``_tiling_hint`` tries the divisors up to this (a few hundredths of a second)
SEARCH = 10**6


def _tiling_hint(axis: int, n: int, b: int, nghost: int) -> str:
    """A block size that tiles ``n`` cells, near ``b`` and at least ``nghost``, found among the divisors
    up to ``SEARCH`` and their cofactors (so a hint for a huge ``n`` costs no more than for 1e12);
    else a mesh size that ``b`` tiles."""
    divisors = set()
    for x in range(1, min(math.isqrt(n), SEARCH) + 1):
        if n % x == 0:
            divisors.update((x, n // x))
    fits = [x for x in divisors if nghost <= x <= b]
    if fits:
        return f"try block_nx{axis} = {max(fits)}"
    multiple = max(b, (n + b // 2) // b * b)
    return f"no block size from {nghost} to {b} divides it: try mesh.nx{axis} = {multiple}"
