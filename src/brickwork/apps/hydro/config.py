"""Input files: a TOML schema, defaults, ``key=value`` overrides and checks with clear errors.

An input file has the sections ``[problem]``, ``[mesh]``, ``[hydro]``, ``[time]`` and
``[output]``; every key is described in ``SCHEMA`` (and the problem's own keys in the problem
module's ``PARAMS``). Values are layered: built-in defaults, then the problem's defaults, then the
file, then the command line's overrides (``hydro.cfl=0.3``, typed by the schema). Every mistake
raises ``ConfigError`` naming the key, what was expected and what was given; an unknown key also
gets the closest known keys as suggestions.
"""

from __future__ import annotations

import copy
import difflib
import math
import os
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
    """One setting: its kind (``int float bool str ints floats``), default, allowed values, doc."""

    kind: str
    default: Any = None
    doc: str = ""
    choices: tuple | None = None
    minimum: float | None = None  # inclusive unless ``open_min``
    open_min: bool = False
    maximum: float | None = None


BOUNDARIES = ("periodic", "outflow", "reflecting", "user")
#: the sides of each direction, as a problem's ``BOUNDARIES`` names them
SIDES = {d: (f"inner_x{d}", f"outer_x{d}") for d in (1, 2, 3)}
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
        "nghost": Key("int", 0, "ghost cells (0: what the reconstruction needs, 2 for PLM, 3 for WENO5)", minimum=0),
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
        "reconstruction": Key("str", "plm", "face states", choices=("plm", "weno5")),
        "limiter": Key("str", "mc", "PLM slope limiter", choices=("minmod", "van_leer", "mc")),
        "riemann": Key("str", "hllc", "Riemann solver", choices=("hlle", "hllc")),
        "integrator": Key("str", "rk2", "SSP Runge-Kutta", choices=("rk2", "rk3")),
        "dtype": Key("str", "float64", "precision of every field", choices=("float32", "float64")),
        "loop": Key("str", "bovi", "loop-abstraction loop tag of the kernels", choices=("bovi", "bvoi")),
        "stage": Key("str", "auto", "how a Runge-Kutta stage runs: fused (one pass per block, intermediates in "
                                    "scratch), split (primitives, fluxes, update as passes over the mesh) or auto "
                                    "(fused on the CPU, split on a GPU)", choices=("auto", "fused", "split")),
        "device": Key("str", "cpu", "where the fields live and the kernels run: cpu, cuda (the first GPU) or "
                                    "cuda:N"),
        "nscalars": Key("int", 0, "passive scalars carried with the gas (conserved rho * s_n, written as scalar_n)",
                        minimum=0),
    },
    "time": {
        "tlim": Key("float", 1.0, "end time", minimum=0.0),
        "nlim": Key("int", -1, "stop after this many steps (-1: no limit)", minimum=-1),
    },
    "output": {
        "dir": Key("str", "output", "output directory (relative paths: to the working directory)"),
        "basename": Key("str", None, "file name stem (default: the problem name): letters, digits, '_', '-', "
                                     "'.' (not first)"),
        "hdf5_dt": Key("float", 0.0, "time between HDF5 + XDMF outputs (0: only first and last; -1: none)",
                       minimum=-1.0),
        "png_dt": Key("float", -1.0, "time between PNG snapshots (0: only first and last; -1: none)", minimum=-1.0),
        "png_variable": Key("str", "density", "what the PNG shows: " + " | ".join(PNG_VARIABLES)
                            + " | scalar_N (a passive scalar, N < nscalars)"),
        "restart_dt": Key("float", -1.0, "time between restart files (0: only the last; -1: none)", minimum=-1.0),
        "hdf5_dn": Key("int", -1, "cycles between HDF5 + XDMF outputs, besides hdf5_dt (-1: none)", minimum=-1),
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
         "ints": "a list of integers", "floats": "a list of numbers"}


def _type_name(value) -> str:
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
    bad = ConfigError(f"{name}: expected {KINDS[kind]}, got {_type_name(value)}")
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
                raise ConfigError(f"{name}: expected {KINDS[kind]}, got {_type_name(item)} in {value!r}")
            if kind == "floats" and not math.isfinite(item):
                raise ConfigError(f"{name}: expected finite numbers, got {float(item)!r} in {value!r}")
            out.append(int(item) if kind == "ints" else float(item))
        value = out
    if key.choices is not None and value not in key.choices:
        raise ConfigError(f"{name}: {value!r} is not one of {', '.join(map(repr, key.choices))}"
                          + _suggest(str(value), key.choices))
    if key.minimum is not None and kind in ("int", "float"):
        if value < key.minimum or (key.open_min and value == key.minimum):
            op = ">" if key.open_min else ">="
            raise ConfigError(f"{name}: must be {op} {key.minimum:g}, got {value!r}")
    if key.maximum is not None and kind in ("int", "float") and value > key.maximum:
        raise ConfigError(f"{name}: must be <= {key.maximum:g}, got {value!r}")
    return value


def _suggest(word: str, candidates, prefix: str = "") -> str:
    close = difflib.get_close_matches(word, [str(c) for c in candidates], n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(prefix + c) for c in close) + "?)"


def parse_override_value(text: str, key: Key, name: str):
    """The typed value of an override's right-hand side (``0.3``, ``true``, ``[64, 64]``, ``64,64``)."""
    text = text.strip()
    if key.kind == "str":
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        return coerce(name, key, text)
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


class Config:
    """A checked configuration: ``cfg["hydro"]["cfl"]``, plus ``cfg.problem`` (the problem module)."""

    def __init__(self, sections: dict, problem, source: str):
        self.sections = sections
        self.problem = problem
        self.source = source

    def __getitem__(self, section: str) -> dict:
        return self.sections[section]

    def to_dict(self) -> dict:
        return copy.deepcopy(self.sections)

    @property
    def ndim(self) -> int:
        return len(self.sections["mesh"]["nx"])


def _problem_module(name, file_module=None):
    from .problems import PROBLEMS

    if file_module is not None:
        if name is not None and name != file_module.NAME:
            raise ConfigError(f"problem.name={name!r} but problem.file defines the problem {file_module.NAME!r}: "
                              f"leave problem.name out, or make the two agree")
        if file_module.NAME in PROBLEMS and PROBLEMS[file_module.NAME] is not file_module:
            raise ConfigError(f"problem.file defines the problem {file_module.NAME!r}, a name taken by another "
                              f"problem: give it another NAME")
        return file_module
    if name not in PROBLEMS:
        raise ConfigError(f"problem.name: unknown problem {name!r}; known: {', '.join(sorted(PROBLEMS))}"
                          + _suggest(str(name), PROBLEMS))
    return PROBLEMS[name]


def _home(key: str) -> str:
    """A hint naming the sections that have ``key`` (``(put it under [hydro])``), or nothing."""
    from .problems import PROBLEMS

    homes = [f"[{section}]" for section, keys in SCHEMA.items()
             if key in keys or (section == "problem" and any(key in p.PARAMS for p in PROBLEMS.values()))]
    return f" (put it under {' or '.join(homes)})" if homes else f"; sections: {', '.join(SCHEMA)}"


def _unknown_key(section: str, key: str, schema: dict, where: str = "") -> ConfigError:
    """The error of ``section.key`` unknown to ``schema`` (every section's keys): the close matches in
    its section, or the section it belongs to (``hydro.nghost``: it is ``mesh.nghost``)."""
    homes = [f"{other}.{key}" for other, keys in schema.items() if other != section and key in keys]
    hint = (f" ({key} belongs under [{homes[0].split('.')[0]}]: {' or '.join(homes)})" if homes
            else _suggest(key, schema[section], f"{section}."))
    return ConfigError(f"unknown key '{section}.{key}'{where}{hint}; known keys of [{section}]: "
                       f"{', '.join(sorted(schema[section]))}")


def _check_section_keys(section: str, values: dict, schema: dict, where: str) -> None:
    for key in values:
        if key not in schema[section]:
            raise _unknown_key(section, key, schema, where)


def build(raw: dict, overrides: list[str] | tuple = (), source: str = "<input>", base_dir: str | None = None) -> Config:
    """Check ``raw`` (a parsed TOML document) with ``overrides`` (``section.key=value``) applied;
    a relative ``problem.file`` of ``raw`` is taken from ``base_dir`` (None: the working directory)."""
    where = f" in {source}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the input must be a TOML document of tables")
    for section, values in raw.items():
        if section not in SCHEMA and not isinstance(values, dict):  # ``cfl = 0.3`` above every [section]
            raise ConfigError(f"key {section!r}{where} is outside any section: every key belongs under its "
                              f"[section]" + _home(section))
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}]{where}" + _suggest(section, SCHEMA)
                              + f"; known sections: {', '.join(SCHEMA)}")
        if not isinstance(values, dict):
            raise ConfigError(f"[{section}]{where} must be a table of keys, got {_type_name(values)}")
    try:
        raw = copy.deepcopy(raw)
    except RecursionError:  # no setting holds more than a list of numbers
        raise ConfigError(f"{source}: values nested too deeply to read (no setting holds more than a list of "
                          f"numbers)") from None
    # overrides first decide the problem, then are applied on top of the file
    if isinstance(overrides, (str, bytes, dict)) or not hasattr(overrides, "__iter__"):
        # a string would be read letter by letter ("override 'm': expected section.key=value")
        raise TypeError(f"overrides must be a list of 'section.key=value' strings (['mesh.nx=[512]']), got "
                        f"a {type(overrides).__name__}: {overrides!r}")
    parsed_overrides = []
    for item in overrides:
        if not isinstance(item, str):
            raise TypeError(f"overrides must be a list of 'section.key=value' strings, got an item {item!r}")
        if "=" not in item:
            raise ConfigError(f"override {item!r}: expected section.key=value (e.g. hydro.cfl=0.3)")
        name, text = item.split("=", 1)
        name = name.strip()
        if name.count(".") != 1:
            raise ConfigError(f"override {item!r}: the key must be section.key (e.g. hydro.cfl), got {name!r}")
        section, key = name.split(".")
        if section not in SCHEMA:
            raise ConfigError(f"override {item!r}: unknown section '{section}'" + _suggest(section, SCHEMA))
        parsed_overrides.append((section, key, text, item))
    file_dir = base_dir
    for section, key, text, _ in parsed_overrides:
        if section == "problem" and key in ("name", "file"):
            raw.setdefault("problem", {})[key] = text.strip().strip("\"'")
            if key == "file":
                file_dir = None  # a path on the command line is the shell's: from the working directory
    problem_raw = raw.get("problem", {})
    file_module = None
    if problem_raw.get("file") is not None:
        from .custom_problem import load_file

        problem_raw["file"] = coerce("problem.file", SCHEMA["problem"]["file"], problem_raw["file"])
        file_module = load_file(problem_raw["file"], file_dir)
        problem_raw["file"] = file_module.__file__  # the path it was read from, whatever the working directory
    elif "name" not in problem_raw:
        raise ConfigError(f"problem.name is missing{where} (one of sod, kelvin_helmholtz, blast, linear_wave, "
                          f"or problem.file naming a problem of your own)")
    name = problem_raw.get("name")
    if name is not None:
        name = coerce("problem.name", SCHEMA["problem"]["name"], name)
    problem = _problem_module(name, file_module)
    name = problem.NAME
    schema = {s: dict(keys) for s, keys in SCHEMA.items()}
    schema["problem"].update(problem.PARAMS)
    for section, values in raw.items():
        _check_section_keys(section, values, schema, where)
    for section, key, text, item in parsed_overrides:
        if key not in schema[section]:
            raise ConfigError(f"override {item!r}: {_unknown_key(section, key, schema)}")
        if not (section == "problem" and key in ("name", "file")):
            raw.setdefault(section, {})[key] = parse_override_value(text, schema[section][key], f"{section}.{key}")
    # layer: schema defaults < problem defaults < file and overrides
    sections: dict = {}
    for section, keys in schema.items():
        values = {k: copy.deepcopy(key.default) for k, key in keys.items()}
        values.update(copy.deepcopy(problem.DEFAULTS.get(section, {})))
        for k, v in raw.get(section, {}).items():
            values[k] = coerce(f"{section}.{k}", keys[k], v)
        sections[section] = values
    sections["problem"]["name"] = name
    _check_mesh(sections, problem, where, set(raw.get("mesh", {})))
    _check_user_boundaries(sections["mesh"], problem)
    _check_cfl(sections)
    _check_png_variable(sections)
    device = sections["hydro"]["device"]
    if not DEVICE.fullmatch(device):
        raise ConfigError(f"hydro.device: {device!r} is not one of {', '.join(map(repr, DEVICE_CHOICES))} (N: the "
                          f"number of the GPU, from 0)" + _suggest(device, ("cpu", "cuda")))
    out = sections["output"]
    for kind in ("hdf5", "png", "restart"):
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
    if hasattr(problem, "check"):
        _run_check(problem, sections)
    return Config(sections, problem, source)


def _run_check(problem, sections: dict) -> None:
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
    need = 3 if sections["hydro"]["reconstruction"] == "weno5" else 2
    nghost = mesh["nghost"] or need
    if nghost < need:
        raise ConfigError(f"mesh.nghost={nghost} is too small: {sections['hydro']['reconstruction']} "
                          f"reconstruction needs {need} ghost cells")
    for d, (n, b) in enumerate(zip(nx, block)):
        if b <= 0:
            raise ConfigError(f"mesh.block_nx: every entry must be positive, got block_nx{d + 1}={b}")
        if b > n:
            raise ConfigError(f"mesh.block_nx{d + 1}={b} is larger than the mesh (mesh.nx{d + 1}={n})")
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
    scalars (``scalar_N``, N < ``hydro.nscalars``)."""
    var = sections["output"]["png_variable"]
    scalars = [f"scalar_{n}" for n in range(sections["hydro"]["nscalars"])]  # scalars.names (it imports us)
    if var not in PNG_VARIABLES and var not in scalars:
        choices = PNG_VARIABLES + tuple(scalars)
        extra = "" if scalars else " (scalar_N needs hydro.nscalars > N)"
        raise ConfigError(f"output.png_variable: {var!r} is not one of {', '.join(map(repr, choices))}{extra}"
                          + _suggest(var, choices))


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


#: The largest input file read (a TOML input file is a few hundred bytes).
MAX_INPUT_BYTES = 1 << 20


def load(path: str, overrides: list[str] | tuple = ()) -> Config:
    """Read and check a TOML input file (``ConfigError`` for a missing file or invalid TOML too)."""
    if isinstance(path, dict):
        raise TypeError("load_config takes the path of a TOML input file; for a dict of sections use "
                        "hydro.build_config(raw, overrides)")
    if isinstance(path, str) and path.endswith(".py"):  # a problem file given where its input file goes
        raise ConfigError(f"input file {path!r} is a Python file; brickwork run takes a TOML input file, which "
                          f"names a problem of your own with [problem] file = {os.path.basename(path)!r}")
    if isinstance(path, str) and "\0" in path:  # open() would fail with a raw ValueError
        raise ConfigError(f"input file {path!r} contains a NUL character, which no file name can hold")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)  # bounded: /dev/zero or a huge file is not an input file
        if len(data) > MAX_INPUT_BYTES:
            raise ConfigError(f"input file {path!r} is larger than {MAX_INPUT_BYTES // 2**20} MiB; an input file is "
                              f"a short TOML text")
        # an editor's UTF-8 byte order mark is not part of the TOML text
        raw = tomllib.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"input file {path!r} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"input file {path!r} is a directory") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except RecursionError:  # the parser recurses once per level of nested arrays or inline tables
        raise ConfigError(f"{path}: invalid input: arrays or tables nested too deeply to read (no setting holds "
                          f"more than a list of numbers)") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not a UTF-8 text file (byte 0x{e.object[e.start]:02x} at offset {e.start}); "
                          f"TOML input files must be UTF-8") from None
    except OSError as e:
        raise ConfigError(f"input file {path!r} cannot be read: {e.strerror or e}") from None
    return build(raw, overrides, source=path, base_dir=os.path.dirname(os.path.abspath(path)))
