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
import os

from . import config_checks as checks
from .athena_names import key_hint, section_hint
from .schema import SCHEMA, ConfigError, Key, coerce, parse_override_value, suggest, tomllib, type_name

__all__ = ["Config", "ConfigError", "Key", "SCHEMA", "build", "load", "tomllib"]


_DELETED = object()


class Config:
    """A checked configuration: ``cfg["hydro"]["cfl"]``, plus ``cfg.problem`` (the problem module)."""

    def __init__(self, sections: dict, problem, source: str):
        self.sections = sections
        self.problem = problem
        self.source = source
        self._checked = copy.deepcopy(sections)  # what the checks passed (``check_unchanged``)

    def check_unchanged(self) -> None:
        """``ConfigError`` naming the settings assigned since the checks (``cfg["hydro"]["riemann"] = "x"``),
        which nothing would check again: a run takes only checked settings."""
        changed = [f"{section}.{key}={values.get(key, '<deleted>')!r} (checked: {self._checked[section].get(key)!r})"
                   for section, values in self.sections.items() if isinstance(values, dict)
                   for key in sorted(set(values) | set(self._checked.get(section, {})))
                   if values.get(key, _DELETED) != self._checked.get(section, {}).get(key, _DELETED)]
        if changed or set(self.sections) != set(self._checked):
            raise ConfigError(f"the configuration from {self.source} was changed after its checks: "
                              f"{'; '.join(changed) or 'its sections'}; give settings as overrides, "
                              f"hydro.load_config(path, ['hydro.cfl=0.3']) or hydro.build_config(raw, overrides)")

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
                          + suggest(str(name), PROBLEMS))
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
            else key_hint(key) or suggest(key, schema[section], f"{section}."))
    return ConfigError(f"unknown key '{section}.{key}'{where}{hint}; known keys of [{section}]: "
                       f"{', '.join(sorted(schema[section]))}")


def _check_section_keys(section: str, values: dict, schema: dict, where: str) -> None:
    for key in values:
        if key not in schema[section]:
            raise _unknown_key(section, key, schema, where)


def build(raw: dict, overrides: list[str] | tuple = (), source: str = "<input>", base_dir: str | None = None,
          restart: str | None = None) -> Config:
    """Check ``raw`` (a parsed TOML document) with ``overrides`` (``section.key=value``) applied;
    a relative ``problem.file`` of ``raw`` is taken from ``base_dir`` (None: the working directory).
    ``restart``: the restart file the run will continue from, whose number of passive scalars is taken
    when the input gives no ``hydro.nscalars`` (another given is refused when the file is loaded), and
    whose scalar names when it gives no ``hydro.scalar_names`` (``output.png_variable`` may name them)."""
    where = f" in {source}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the input must be a TOML document of tables")
    for section, values in raw.items():
        if section not in SCHEMA and not isinstance(values, dict):  # ``cfl = 0.3`` above every [section]
            raise ConfigError(f"key {section!r}{where} is outside any section: every key belongs under its "
                              f"[section]" + _home(section))
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}]{where}"
                              + (section_hint(section, SCHEMA) or suggest(section, SCHEMA))
                              + f"; known sections: {', '.join(SCHEMA)}")
        if not isinstance(values, dict):
            raise ConfigError(f"[{section}]{where} must be a table of keys, got {type_name(values)}")
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
            raise ConfigError(f"override {item!r}: unknown section '{section}'"
                              + (section_hint(section, SCHEMA) or suggest(section, SCHEMA)))
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
    if restart is not None:
        from .scalars import count_from_restart, names_from_restart

        if "nscalars" not in raw.get("hydro", {}) and "nscalars" not in problem.DEFAULTS.get("hydro", {}):
            count_from_restart(sections["hydro"], restart)  # a count given is checked against the file's on load
        names_from_restart(sections["hydro"], problem, restart)
    checks.check_sections(sections, problem, where, set(raw.get("mesh", {})))
    if hasattr(problem, "check"):
        checks.run_check(problem, sections)
    return Config(sections, problem, source)




#: The largest input file read (a TOML input file is a few hundred bytes).
MAX_INPUT_BYTES = 1 << 20


def load(path: str, overrides: list[str] | tuple = (), restart: str | None = None) -> Config:
    """Read and check a TOML input file (``ConfigError`` for a missing file or invalid TOML too);
    ``restart`` as for ``build``."""
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
    return build(raw, overrides, source=path, base_dir=os.path.dirname(os.path.abspath(path)), restart=restart)
