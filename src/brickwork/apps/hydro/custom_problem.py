"""Problems of your own: a Python file named by ``problem.file``, or a module given to ``register_problem``.

A problem is any module (or object) with the attributes of the shipped ones in ``problems/``:
``NAME`` (a plain name), ``DIMENSIONS`` (the dimensions it runs in), ``PARAMS`` (its ``[problem]``
keys, ``Key``s), ``DEFAULTS`` (defaults of the other sections) and
``initial(x1, x2, x3, params, gamma, xmin, xmax)`` returning ``(density, v1, v2, v3, pressure)``;
``check(sections)``, ``exact(x1, t, params, gamma)``, ``BOUNDARIES`` (the boundary functions of
the directions whose ``mesh.bc_xd`` is ``"user"``), ``OUTPUTS`` (variables the HDF5 outputs add,
computed from the primitive ones), ``HISTORY`` (columns the history file adds, ``user_history``) and
``TIMESTEP`` (a limit on the time step, ``user_timestep``) and ``SOURCE`` (source terms, ``sources``) are
optional. ``describe_mistakes`` lists
what such an object gets wrong, so that a problem file with a typo is one clear error, not an
``AttributeError`` in the middle of a run.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import reprlib
import sys
import traceback

import numpy as np

from brickwork.lang.kernel import Kernel

from . import user_arguments
from .schema import BASENAME, BUILT_IN_OUTPUTS, SCHEMA, SIDES, VARIABLE_NAME, ConfigError, Key

#: what a problem must define, and what it may
REQUIRED = ("NAME", "DIMENSIONS", "PARAMS", "DEFAULTS", "initial")
OPTIONAL_FUNCTIONS = ("check", "exact", "initial_scalars")
#: keys of ``[problem]`` that the application itself reads
RESERVED_PARAMS = tuple(SCHEMA["problem"])
#: what a problem's function may raise that is its error, one line naming it (``failure``): ``sys.exit()``
#: included, which on some MPI ranks alone left the others waiting for them for ever
USER_ERRORS = (Exception, SystemExit)
_VALUE = object()  # real_numbers: name the value itself
#: the attribute of a module ``load_file`` made that holds the SHA-256 of its source and of the helper modules
#: it imported from its directory: MPI ranks compare it before a run (``preflight``), since a problem file of
#: other content under the same path on one node would run another problem there without any other sign
SOURCE_DIGEST = "__brickwork_source_sha256__"


def describe_mistakes(problem) -> list[str]:
    """What ``problem`` lacks or gets wrong, one phrase each (empty: it is a usable problem)."""
    missing = [name for name in REQUIRED if not hasattr(problem, name)]
    if missing:
        return [f"it does not define {', '.join(missing)} (a problem defines {', '.join(REQUIRED)})"]
    mistakes = []
    name = problem.NAME
    if not isinstance(name, str) or not BASENAME.fullmatch(name):
        mistakes.append(f"NAME must be a plain name (letters, digits, '_', '-', '.'; it names the output files), "
                        f"got {name!r}")
    dims = problem.DIMENSIONS
    if (not isinstance(dims, (tuple, list)) or not dims
            or any(isinstance(d, bool) or d not in (1, 2, 3) for d in dims)):
        mistakes.append(f"DIMENSIONS must be a tuple of the dimensions it runs in, from (1, 2, 3), got {dims!r}")
    params = problem.PARAMS
    if not isinstance(params, dict) or not all(isinstance(k, str) and isinstance(v, Key) for k, v in params.items()):
        mistakes.append(f"PARAMS must be a dict of key names to brickwork.apps.hydro.Key, got {params!r}")
    else:
        taken = sorted(set(params) & set(RESERVED_PARAMS))
        if taken:
            mistakes.append(f"PARAMS must not redefine {', '.join(repr(k) for k in taken)} (keys of every problem)")
    defaults = problem.DEFAULTS
    if not isinstance(defaults, dict):
        mistakes.append(f"DEFAULTS must be a dict of sections to dicts of keys, got {defaults!r}")
    else:
        for section, values in defaults.items():
            if section not in SCHEMA or section == "problem" or not isinstance(values, dict):
                mistakes.append(f"DEFAULTS[{section!r}] must be a dict of keys of one of the sections "
                                f"{', '.join(s for s in SCHEMA if s != 'problem')}")
                continue
            unknown = sorted(k for k in values if k not in SCHEMA[section])
            if unknown:
                mistakes.append(f"DEFAULTS[{section!r}] has unknown keys {', '.join(map(repr, unknown))}")
    sides = getattr(problem, "BOUNDARIES", {})
    if not isinstance(sides, dict):
        mistakes.append(f"BOUNDARIES must be a dict of sides ('inner_x1' ... 'outer_x3') to boundary functions or "
                        f"names, got {sides!r}")
    else:
        known = [side for pair in SIDES.values() for side in pair]
        for side, value in sides.items():
            if side not in known:
                mistakes.append(f"BOUNDARIES has the key {side!r}, not a side ({', '.join(known)})")
            elif not host_function(value) and value not in ("periodic", "outflow", "reflecting"):
                mistakes.append(f"BOUNDARIES[{side!r}] must be a function fn(block, view, side, field) or one of "
                                f"'periodic', 'outflow', 'reflecting', got {value!r}{kernel_note(value)}")
    outputs = getattr(problem, "OUTPUTS", {})
    if not isinstance(outputs, dict):
        mistakes.append(f"OUTPUTS must be a dict of variable names to functions, got {outputs!r}")
    else:
        for name, function in outputs.items():
            if not isinstance(name, str) or not VARIABLE_NAME.fullmatch(name) or name in BUILT_IN_OUTPUTS:
                mistakes.append(f"OUTPUTS has the name {name!r}: an output variable is named with letters, digits "
                                f"and '_' (not first a digit), and not as one of {', '.join(BUILT_IN_OUTPUTS)}")
            elif not host_function(function):
                mistakes.append(f"OUTPUTS[{name!r}] must be a function fn(density, v1, v2, v3, pressure, params, "
                                f"gamma), got {function!r}{kernel_note(function)}")
            else:
                mistakes += user_arguments.describe_mistake(function, "OUTPUTS", f"OUTPUTS[{name!r}]")
    from . import sources, user_history, user_timestep  # they import this module's failure()

    mistakes += (user_history.describe_mistakes(problem) + user_timestep.describe_mistakes(problem)
                 + sources.describe_mistakes(problem))
    for function in ("initial", *OPTIONAL_FUNCTIONS):
        if hasattr(problem, function) and not host_function(getattr(problem, function)):
            mistakes.append(f"{function} must be a function{kernel_note(getattr(problem, function))}")
    return mistakes


#: The primitive variables a problem's functions (OUTPUTS, HISTORY, TIMESTEP) get, in this order, before
#: ``params`` and ``gamma``.
PRIMITIVES = ("density", "velocity_1", "velocity_2", "velocity_3", "pressure")


def primitives(sim) -> list:
    """This rank's blocks' ``PRIMITIVES``, float64 arrays ``(nblocks, nk, nj, ni)``."""
    return [sim.primitive(v) for v in PRIMITIVES]


def host_function(value) -> bool:
    """Whether a problem may name ``value`` as one of its functions: a Python callable, not a ``@wp.kernel``
    (which is callable only to say it runs by ``wp.launch``; a problem's function may launch kernels)."""
    return callable(value) and not isinstance(value, Kernel)


def kernel_note(value) -> str:
    """What to add to a "must be a function" mistake when ``value`` is a kernel."""
    return (": a @wp.kernel runs by wp.launch; name a Python function (it may launch kernels)"
            if isinstance(value, Kernel) else "")


def call_user(sim, label: str, function, arguments: list, dtype=None, extra: tuple = (), as_array: bool = True):
    """``function(*arguments, params, gamma, *extra)``, or with the arguments it names (``user_arguments``;
    ``label``'s kind, ``"HISTORY['x']"``: ``HISTORY``), as an array (``as_array=False``: as it returned it);
    ``failure`` naming ``label`` when it raises."""
    problem, params = sim.cfg.problem, sim.cfg["problem"]
    positional = [*arguments, params, sim.gamma, *extra]
    try:
        returned = user_arguments.call(function, label.partition("[")[0], positional, user_arguments.geometry(sim))
    except MemoryError:
        raise
    except USER_ERRORS as e:  # a problem of your own: one line naming its file and line
        raise failure(problem, label, e, params) from e
    if not as_array:
        return returned
    call = label if label.endswith("]") else f"{label}()"
    values = real_numbers(returned, f"problem {problem.NAME!r}: {call} returned")
    return values if dtype is None else values.astype(dtype, copy=False)


def failure(problem, function: str, error: Exception, params: dict) -> ConfigError:
    """The one-line error of ``problem.<function>`` raising ``error``: where in the problem's file, and for
    a ``KeyError`` the ``[problem]`` keys there are (a misspelt key is the common cause)."""
    source = getattr(problem, "__file__", None)
    frames = [f for f in traceback.extract_tb(error.__traceback__) if source and f.filename == source]
    at = f" at {os.path.basename(source)}:{frames[-1].lineno}" if frames else ""
    hint = f"; the [problem] keys are {', '.join(sorted(params))}" if isinstance(error, KeyError) else ""
    call = function if function.endswith("]") else f"{function}()"
    return ConfigError(f"problem {problem.NAME!r}: {call} failed{at}: {type(error).__name__}: {error}{hint}")


def broadcast_values(named_values, shape: tuple, what: str) -> list:
    """The ``(name, value)`` pairs' values, arrays or numbers a problem's function returned, broadcast to a
    block's ``shape``; a ``ConfigError`` ``what`` naming the first that does not broadcast and its shape."""
    out = []
    for name, value in named_values:
        try:
            values = np.broadcast_to(value, shape)
        except (TypeError, ValueError):
            got = f"shape {np.shape(value)}" if hasattr(value, "shape") else repr(value)
            raise ConfigError(f"{what}; its {name} is {got}") from None
        out.append(real_numbers(values, f"{what}; its {name} is", value))
    return out


def real_numbers(value, what: str, returned=_VALUE) -> np.ndarray:
    """``value`` as an array of booleans, integers or floats; a ``ConfigError`` ``what`` naming ``returned``
    (``value`` unless given) otherwise: a string was parsed as a number or a traceback, an object a numpy
    traceback, a complex lost its imaginary part with only a ComplexWarning."""
    returned = value if returned is _VALUE else returned
    try:
        values = np.asarray(value)
    except (TypeError, ValueError):  # ragged lists
        values = np.empty(0, dtype=object)
    if values.dtype.kind not in "biuf":
        got = f"an array of {values.dtype}" if hasattr(returned, "dtype") else reprlib.repr(returned)
        raise ConfigError(f"{what} {got}, not real numbers")
    return values


def load_file(path: str, base_dir: str | None = None):
    """The problem module the Python file ``path`` defines (relative paths: to ``base_dir``, else the
    working directory); ``ConfigError`` naming the file and what is wrong with it."""
    where = f"problem.file={path!r}"
    if not isinstance(path, str) or not path or "\0" in path:
        raise ConfigError(f"problem.file: expected the path of a Python file, got {path!r}")
    given = os.path.expanduser(path)  # ~/cases/bubble.py, as a shell would read it
    full = os.path.abspath(os.path.join(base_dir, given) if base_dir else given)
    if not os.path.isfile(full):
        seen = f" (looked for {full!r})" if full != os.path.abspath(path) else ""
        what = "is not a file" if os.path.exists(full) else "does not exist"
        raise ConfigError(f"{where} {what}{seen}; relative paths in an input file are taken from the input file's "
                          f"directory, on the command line from the working directory")
    name = "brickwork_problem_" + os.path.splitext(os.path.basename(full))[0].replace("-", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{where}: not a Python file (its name must end in .py)")
    module = importlib.util.module_from_spec(spec)
    try:
        source, helpers = _run_beside_its_helpers(module, spec.loader, full)
    except USER_ERRORS as e:  # the user's code: name its error and where, in one line
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == full]
        line = getattr(e, "lineno", None) if isinstance(e, SyntaxError) else (frames[-1].lineno if frames else None)
        at = f" at line {line}" if line else ""
        raise ConfigError(f"{where} could not be loaded: {type(e).__name__}{at}: {e}") from e
    mistakes = describe_mistakes(module)
    if mistakes:
        raise ConfigError(f"{where} is not a hydro problem: {'; '.join(mistakes)} (see docs/hydro.md, "
                          f"'Problems of your own')")
    setattr(module, SOURCE_DIGEST, _source_digest(full, source, helpers))
    return module


def _source_digest(full: str, source: bytes, helpers: list[str]) -> str:
    """SHA-256 of the problem file ``full`` (its ``source`` as run) and of the ``helpers`` (source files of the
    modules it imported from its directory), each with its path relative to that directory."""
    digest = hashlib.sha256()
    here = os.path.dirname(full)
    for path in [full, *sorted(helpers)]:
        content = source if path == full else _read_or_say_why(path)
        digest.update(os.path.relpath(path, here).encode() + b"\0" + len(content).to_bytes(8, "little") + content)
    return digest.hexdigest()


def _read_or_say_why(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:  # removed since it was imported: the ranks still compare what each could read
        return f"unreadable: {type(e).__name__}".encode()


def _run_beside_its_helpers(module, loader, full: str) -> tuple[bytes, list[str]]:
    """Run the problem file ``full`` into ``module`` as a script runs: its directory first on ``sys.path``, so
    that it imports the modules beside it, and in ``sys.modules`` under its own name while it runs (dataclasses
    look a module up by it). Afterwards ``sys.path`` and ``sys.modules`` are as before: the helper modules it
    imported from its directory are forgotten, so that another problem file's ``shapes.py``, or this one's
    edited since, is imported anew by the next load instead of this one's being found by its name. The file
    is compiled from its source each time and no ``.pyc`` is written beside it (a file rewritten within the
    second, with the same size, would be read from a stale one). Returns the file's source and the source files
    of those helpers."""
    here = os.path.dirname(full)
    name = module.__name__
    before = dict(sys.modules)
    sys.modules[name] = module
    sys.path.insert(0, here)
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    importlib.invalidate_caches()  # a helper written since the last import of this directory is found
    try:
        source = loader.get_data(full)
        exec(loader.source_to_code(source, full), module.__dict__)  # noqa: S102 - the user's file
    finally:
        sys.dont_write_bytecode = writes_bytecode
        # before the path changes back: a namespace package's __path__ is recomputed from sys.path
        helpers = [key for key in sys.modules if key == name or (
            key not in before and _beside(sys.modules.get(key.partition(".")[0]), here))]
        files = [f for f in (getattr(sys.modules[key], "__file__", None) for key in helpers if key != name) if f]
        sys.path.remove(here)
        for key in helpers:
            del sys.modules[key]
        if name in before:
            sys.modules[name] = before[name]
    return source, files


def _beside(module, directory: str) -> bool:
    """Whether ``module`` is ``directory/NAME.py`` or the package ``directory/NAME/`` (what a script in
    ``directory`` imports from there; not a package installed in a folder below it)."""
    folders = getattr(module, "__path__", None)  # a package's (a namespace package has no __file__)
    if folders is not None:
        return any(os.path.dirname(os.path.abspath(folder)) == directory for folder in folders)
    source = getattr(module, "__file__", None)
    return bool(source) and os.path.dirname(os.path.abspath(source)) == directory


def register(problem) -> None:
    """Make ``problem`` (a module or object defining a problem) known as ``problem.name = NAME``; a
    problem registered under that name before is replaced, a shipped one cannot be."""
    from .problems import BUILT_IN, PROBLEMS

    mistakes = describe_mistakes(problem)
    if mistakes:
        raise TypeError(f"register_problem: {problem!r} is not a hydro problem: {'; '.join(mistakes)}")
    if problem.NAME in BUILT_IN and BUILT_IN[problem.NAME] is not problem:
        raise ValueError(f"register_problem: {problem.NAME!r} is a shipped problem; give yours another NAME")
    PROBLEMS[problem.NAME] = problem


def derived_outputs(sim) -> dict:
    """The variables ``sim``'s problem adds to its HDF5 outputs: name -> a function giving this rank's
    blocks ``(nblocks, nk, nj, ni)`` in the run's dtype. Each raises ``failure`` when its function does,
    or returns something of another shape."""
    problem = sim.cfg.problem
    out = {}
    for name, function in getattr(problem, "OUTPUTS", {}).items():

        def values(name=name, function=function):
            arguments = primitives(sim)
            value = call_user(sim, f"OUTPUTS[{name!r}]", function, arguments)
            try:
                return np.broadcast_to(value, arguments[0].shape).astype(sim.np_dtype)
            except (TypeError, ValueError):
                raise ConfigError(f"problem {problem.NAME!r}: OUTPUTS[{name!r}] must return an array of the "
                                  f"blocks' cells {arguments[0].shape} (the shape of its arguments), got "
                                  f"{value.dtype} of shape {value.shape}") from None

        out[name] = values
    return out
