"""The settings of an input file: ``SCHEMA`` (every key's kind, default, allowed values and doc) and
``coerce``, which checks a value against its ``Key``, as ``ConfigError`` naming the key, what was expected
and what was given. ``config`` layers and checks whole input files with them."""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Any

from ...errors import BrickworkError

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser as the tomli package
    try:
        import tomli as tomllib
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("brickwork.apps.hydro reads TOML: it needs Python 3.11, or 'pip install tomli'") from e


class ConfigError(BrickworkError, ValueError):
    """A mistake in an input file or an override (the message says which key and why)."""


@dataclass(frozen=True)
class Key:
    """One setting: its kind (``int float bool str ints floats strs``), default, allowed values, doc."""

    kind: str
    default: Any = None
    doc: str = ""
    choices: tuple | None = None
    minimum: float | None = None  # inclusive unless ``open_min``
    open_min: bool = False
    maximum: float | None = None


#: the most passive scalars (``hydro.nscalars``): the kernel language's limit on an unrolled loop
MAX_SCALARS = 1024
BOUNDARIES = ("periodic", "outflow", "reflecting", "hydrostatic", "user")
#: the sides of each direction, as a problem's ``BOUNDARIES`` names them
SIDES = {d: (f"inner_x{d}", f"outer_x{d}") for d in (1, 2, 3)}
#: the variables every HDF5 output holds, which a problem's ``OUTPUTS`` and the passive scalars add to
BUILT_IN_OUTPUTS = ("density", "momentum_1", "momentum_2", "momentum_3", "energy", "pressure", "velocity_1",
                    "velocity_2", "velocity_3")
#: the history file's columns before the passive scalars'
HISTORY_COLUMNS = ("cycle", "time", "dt", "mass", "momentum_1", "momentum_2", "momentum_3", "energy")
#: how an output variable or a passive scalar is named: an ASCII identifier
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PNG_VARIABLES = ("density", "pressure", "velocity_1", "velocity_2", "velocity_3", "energy", "speed")

SCHEMA: dict[str, dict[str, Key]] = {
    "problem": {
        "name": Key("str", None, "sod | kelvin_helmholtz | blast | linear_wave, or the NAME of problem.file"),
        "file": Key("str", None, "a Python file defining a problem of your own (relative: to the input file)"),
    },
    "mesh": {
        "nx": Key("ints", None, "cells per direction, 1 to 3 entries (x1, x2, x3)"),
        "block_nx": Key("ints", None, "cells per block and direction (default: nx, one block)"),
        "xmin": Key("floats", None, "lower corner of the domain"),
        "xmax": Key("floats", None, "upper corner of the domain"),
        "nghost": Key("int", 0, "ghost cells (0: what the reconstruction needs, 2 for PLM, 3 for PPM and WENO5)",
                      minimum=0),
        "bc_x1": Key("str", None, "boundary condition in x1", choices=BOUNDARIES),
        "bc_x2": Key("str", None, "boundary condition in x2", choices=BOUNDARIES),
        "bc_x3": Key("str", None, "boundary condition in x3", choices=BOUNDARIES),
    },
    "hydro": {
        "gamma": Key("float", 5.0 / 3.0, "ratio of specific heats", minimum=1.0, open_min=True),
        # at most 1, the CFL condition: a step must not carry a wave across more than one cell; in 2-D and
        # 3-D at most 1/ndim, and the default depends on the dimension (``_check_cfl``)
        "cfl": Key("float", None, "Courant number (0 < cfl <= 1/ndim: 1, 1/2, 1/3; default 0.4, in 3-D 0.3)",
                   minimum=0.0, open_min=True, maximum=1.0),
        "reconstruction": Key("str", "plm", "face states", choices=("plm", "ppm", "weno5")),
        "limiter": Key("str", "mc", "PLM slope limiter", choices=("minmod", "van_leer", "mc")),
        "characteristic": Key("bool", False, "reconstruct (PLM, PPM or WENO5) in characteristic variables (the "
                                             "eigenvectors of each cell's state), not primitive ones: Athena++'s "
                                             "xorder = 2c / 3c"),
        "riemann": Key("str", "hllc", "Riemann solver", choices=("hlle", "hllc", "llf", "roe")),
        "integrator": Key("str", "rk2", "SSP Runge-Kutta", choices=("rk2", "rk3")),
        "dtype": Key("str", "float64", "precision of every field", choices=("float32", "float64")),
        "loop": Key("str", "bovi", "loop-abstraction loop tag of the kernels", choices=("bovi", "bvoi")),
        "stage": Key("str", "auto", "how a Runge-Kutta stage runs: fused (one pass per block, intermediates in "
                                    "scratch), split (primitives, fluxes, update as passes over the mesh) or auto "
                                    "(fused on the CPU, split on a GPU)", choices=("auto", "fused", "split")),
        "device": Key("str", "cpu", "where the fields live and the kernels run: cpu, cuda (the first GPU) or "
                                    "cuda:N"),
        # at most MAX_SCALARS: the stage kernels unroll a statement per scalar, and the kernel language unrolls at
        # most 1024 iterations (2000 scalars ran, wrote the first outputs, then failed compiling the first step)
        "nscalars": Key("int", 0, f"passive scalars carried with the gas (conserved rho * s_n, written as scalar_n; "
                                  f"at most {MAX_SCALARS})", minimum=0, maximum=MAX_SCALARS),
        "gravity": Key("floats", None, "constant gravitational acceleration [g1, g2, g3] (Athena++'s grav_acc1..3): "
                                       "momentum and energy sources, in the Runge-Kutta stages (default: none)"),
        "viscosity": Key("float", 0.0, "kinematic shear viscosity nu (Athena++'s nu_iso): the viscous stress "
                                       "rho nu (grad v + grad v^T - 2/3 div v I), explicit, in the stages' fluxes "
                                       "(0: none)", minimum=0.0),
        "conduction": Key("float", 0.0, "thermal diffusivity kappa (Athena++'s kappa_iso): the heat flux -kappa rho "
                                        "grad T, T = p / rho, explicit, in the stages' fluxes (0: none)", minimum=0.0),
        "scalar_names": Key("strs", None, "names of the passive scalars in outputs, the history and png_variable, "
                                          "one per scalar (default: scalar_0, scalar_1, ...)"),
    },
    "time": {
        "tlim": Key("float", 1.0, "end time", minimum=0.0),
        "nlim": Key("int", -1, "stop after this many steps (-1: no limit)", minimum=-1),
    },
    "output": {
        "dir": Key("str", "output", "output directory (relative paths: to the working directory)"),
        "basename": Key("str", None, "file name stem (default: the problem name): letters, digits, '_', '-', "
                                     "'.' (not first)"),
        "format": Key("strs", ["hdf5"], "what the outputs of hdf5_dt and hdf5_dn are written as: \"hdf5\" (HDF5 + "
                                        "XDMF; needs h5py), \"vtk\" (VTK XML: a .vtm of one .vti per block; needs "
                                        "nothing more) or both, [\"hdf5\", \"vtk\"]; VTK on a schedule of its own: "
                                        "vtk_dt, vtk_dn", choices=("hdf5", "vtk")),
        "hdf5_dt": Key("float", 0.0, "time between HDF5 + XDMF outputs (0: only first and last; -1: none)",
                       minimum=-1.0),
        "vtk_dt": Key("float", -1.0, "time between VTK outputs of their own, BASENAME.vtk.NNNNN.vtm (0: only first and "
                               "last; -1: none)", minimum=-1.0),
        "png_dt": Key("float", -1.0, "time between PNG snapshots (0: only first and last; -1: none)", minimum=-1.0),
        "png_variable": Key("str", "density", "what the PNG shows: " + " | ".join(PNG_VARIABLES)
                            + " | a passive scalar's name (scalar_N, or its hydro.scalar_names entry)"),
        "restart_dt": Key("float", -1.0, "time between restart files (0: only the last; -1: none)", minimum=-1.0),
        "hdf5_dn": Key("int", -1, "cycles between HDF5 + XDMF outputs, besides hdf5_dt (-1: none)", minimum=-1),
        "vtk_dn": Key("int", -1, "cycles between VTK outputs of their own, besides vtk_dt (-1: none)", minimum=-1),
        "png_dn": Key("int", -1, "cycles between PNG snapshots, besides png_dt (-1: none)", minimum=-1),
        "restart_dn": Key("int", -1, "cycles between restart files, besides restart_dt (-1: none)", minimum=-1),
        "history": Key("bool", True, "write conserved totals every step to BASENAME.hst"),
        "progress": Key("bool", True, "show a progress bar on standard error"),
    },
}

#: the values of ``hydro.device``
DEVICE = re.compile(r"cpu|cuda(:[0-9]+)?")
DEVICE_CHOICES = ("cpu", "cuda", "cuda:N")

#: a plain file name stem: no path separator, not hidden, not ``.`` or ``..``
BASENAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
#: The longest basename: ``NAME.out.NNNNN.xdmf`` and a temporary file's suffix fit in 255 bytes.
MAX_BASENAME = 200

KINDS = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string",
         "ints": "a list of integers", "floats": "a list of numbers", "strs": "a list of strings"}


def type_name(value) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return f"the list {value!r}"
    if isinstance(value, dict):
        return "a table"
    return f"{type(value).__name__} {value!r}"


def coerce(name: str, key: Key, value):
    """``value`` checked (and converted, e.g. int -> float) against ``key``; ConfigError if wrong."""
    kind = key.kind
    bad = ConfigError(f"{name}: expected {KINDS[kind]}, got {type_name(value)}")
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        value = float(value)
        if not math.isfinite(value):
            raise ConfigError(f"{name}: expected a finite number, got {value!r}")
    elif kind == "str":
        if not isinstance(value, str):
            raise bad
    elif kind in ("ints", "floats"):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list) or not value:
            raise bad
        out = []
        for item in value:
            ok = isinstance(item, int) if kind == "ints" else isinstance(item, (int, float))
            if isinstance(item, bool) or not ok:
                raise ConfigError(f"{name}: expected {KINDS[kind]}, got {type_name(item)} in {value!r}")
            if kind == "floats" and not math.isfinite(item):
                raise ConfigError(f"{name}: expected finite numbers, got {float(item)!r} in {value!r}")
            out.append(int(item) if kind == "ints" else float(item))
        value = out
    elif kind == "strs":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise bad
        for item in value:
            if not isinstance(item, str):
                raise ConfigError(f"{name}: expected {KINDS[kind]}, got {type_name(item)} in {value!r}")
        value = list(value)
    for item in value if kind == "strs" else [value]:  # a list of strings: each is one of the choices
        if key.choices is not None and item not in key.choices:
            raise ConfigError(f"{name}: {item!r} is not one of {', '.join(map(repr, key.choices))}"
                              + suggest(str(item), key.choices))
    if key.minimum is not None and kind in ("int", "float"):
        if value < key.minimum or (key.open_min and value == key.minimum):
            op = ">" if key.open_min else ">="
            raise ConfigError(f"{name}: must be {op} {key.minimum:g}, got {value!r}")
    if key.maximum is not None and kind in ("int", "float") and value > key.maximum:
        raise ConfigError(f"{name}: must be <= {key.maximum:g}, got {value!r}")
    return value


def suggest(word: str, candidates, prefix: str = "") -> str:
    """`` (did you mean 'x'?)`` naming the ``candidates`` close to ``word`` (with ``prefix``), or nothing."""
    close = difflib.get_close_matches(word, [str(c) for c in candidates], n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(prefix + c) for c in close) + "?)"


def parse_override_value(text: str, key: Key, name: str):
    """The typed value of an override's right-hand side (``0.3``, ``true``, ``[64, 64]``, ``64,64``,
    ``dye,metals``)."""
    text = text.strip()
    if key.kind == "str":
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        return coerce(name, key, text)
    if key.kind == "strs" and not text.startswith("["):  # dye,metals: words, as the command line gives them
        return coerce(name, key, [word.strip().strip("\"'") for word in text.split(",")] if text else [])
    source = text
    if key.kind in ("ints", "floats") and not text.startswith("["):
        source = f"[{text}]"
    try:
        value = tomllib.loads(f"v = {source}")["v"]
    except tomllib.TOMLDecodeError:  # not a TOML value: a word, as a string in an input file would be
        raise ConfigError(f"{name}: expected {KINDS[key.kind]}, got the string {text!r}") from None
    except RecursionError:  # the parser recurses once per level of brackets
        raise ConfigError(f"{name}: expected {KINDS[key.kind]}, got lists nested too deeply to read") from None
    return coerce(name, key, value)
