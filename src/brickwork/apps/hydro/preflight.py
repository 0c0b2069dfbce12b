"""What a hydro run checks before it starts (``check_before_run``): the same input on every rank, the
writers of its outputs, the device, the memory its fields need, a block per rank, and the output
directory it may create (``output_dirs_to_create``; ``make_output_dir`` and ``remove_empty_dirs`` make
them once the first state is checked, and remove them again when the run fails while they are empty)."""

from __future__ import annotations

import errno
import math
import os

import numpy as np

from brickwork import comm
from brickwork.device import get_device
from brickwork.errors import DeviceUnavailableError
from brickwork.io.files import reason
from brickwork.mesh import footprint
from brickwork.mesh.footprint import BLOCK_HOST_BYTES, available_memory, gib
from brickwork.mesh.indexing import IndexShape
from brickwork.same_on_ranks import check_same

from .config import Config, ConfigError
from .custom_problem import SOURCE_DIGEST
from .schedule import KINDS, scheduled
from .solver import hydro_package

#: the outputs that need a package of the ``io`` extra: (kind of output, module)
WRITERS = (("hdf5", "h5py"), ("png", "matplotlib"))


def _missing_writers(cfg: Config) -> list[tuple[str, str]]:
    """``(kind, module)`` of each scheduled output whose writer cannot be imported."""
    missing = []
    for kind, module in WRITERS:
        if kind == "hdf5" and "hdf5" not in cfg["output"]["format"]:  # VTK outputs need no package
            continue
        if scheduled(cfg["output"], kind):
            try:
                __import__(module)
            except ImportError:
                missing.append((kind, module))
    return missing


def _check_writers(cfg: Config) -> None:
    """``ConfigError`` naming every scheduled output whose package is missing (all of them in one
    message, so that following it once is enough)."""
    missing = _missing_writers(cfg)
    if not missing:
        return
    out = cfg["output"]
    on = [f"output.{kind}_dt >= 0" if out[f"{kind}_dt"] >= 0 else f"output.{kind}_dn >= 1" for kind, _ in missing]
    off = [f"output.{kind}_{unit} = -1" for kind, _ in missing for unit in ("dt", "dn")
           if unit == "dt" or out[f"{kind}_dn"] >= 1]
    modules = " and ".join(module for _, module in missing)
    vtk = " (or output.format = \"vtk\": VTK outputs need no package)" if "hdf5" in dict(missing) else ""
    raise ConfigError(f"{' and '.join(on)} {'need' if len(missing) > 1 else 'needs'} {modules}: pip install "
                      f"'brickwork[io]', or set {' and '.join(off)}{vtk}")


def _block_count(cfg: Config) -> int:
    """How many blocks the mesh of the run ``cfg`` describes."""
    m = cfg["mesh"]
    return math.prod(n // b for n, b in zip(m["nx"], m["block_nx"]))


def field_bytes(cfg: Config) -> int:
    """Bytes of the mesh fields of the run ``cfg`` describes (ghost cells and flux arrays included),
    computed from the field declarations without allocating anything."""
    m = cfg["mesh"]
    active = [*m["block_nx"], 0, 0][:3]  # a 1-D or 2-D mesh's blocks have no extent in the other directions
    shape = IndexShape(active[2], active[1], active[0], m["nghost"])
    specs = hydro_package(np.dtype(cfg["hydro"]["dtype"]), cfg["hydro"]["nscalars"]).fields.values()
    return footprint.field_bytes(specs, shape, _block_count(cfg))


def _check_ranks(cfg: Config) -> None:
    """``ConfigError`` when the run has more MPI ranks than blocks (every rank needs a block)."""
    nranks = comm.world().Get_size()
    m = cfg["mesh"]
    nblocks = _block_count(cfg)
    if nranks > nblocks:
        raise ConfigError(f"mesh.nx={m['nx']} in mesh.block_nx={m['block_nx']} makes {nblocks} "
                          f"block{'s' * (nblocks != 1)}, fewer than the {nranks} MPI ranks: every rank needs at "
                          f"least one block; use smaller blocks or fewer ranks")


def _check_device(cfg: Config):
    """The device of ``hydro.device``; ``ConfigError`` when this machine has no such device."""
    name = cfg["hydro"]["device"]
    try:
        return get_device(name)
    except DeviceUnavailableError as e:
        raise ConfigError(f"hydro.device={name!r}: {e}; run on the CPU with hydro.device = \"cpu\"") from None


def _check_memory(cfg: Config, device=None) -> None:
    """``ConfigError`` when the fields and blocks need more memory than is available (before allocating):
    the host's, or for the fields on a CUDA device the device's."""
    m = cfg["mesh"]
    fields = field_bytes(cfg)
    nblocks = _block_count(cfg)
    blocks = nblocks * BLOCK_HOST_BYTES
    on_device = device is not None and device.is_cuda
    scalars = cfg["hydro"]["nscalars"]
    what = (f"mesh.nx={m['nx']} in mesh.block_nx={m['block_nx']}"
            + (f" with hydro.nscalars={scalars}" if scalars else "") + " is too large for this machine")
    if on_device:
        from brickwork import cuda_driver

        have = cuda_driver.driver().total_memory(device.ordinal)
        if fields > have:
            raise ConfigError(f"{what}: its fields alone need {gib(fields)} of memory ({cfg['hydro']['dtype']}, "
                              f"ghost cells and fluxes included), but the device {device} has only {gib(have)}")
    have = available_memory()
    need = blocks + (0 if on_device else fields)
    if have is not None and need > have:
        raise ConfigError(f"{what}: its fields need {gib(fields)} ({cfg['hydro']['dtype']}, ghost cells and fluxes "
                          f"included){' on the device' if on_device else ''} and its {nblocks} blocks about "
                          f"{gib(blocks)} more on the host, but only {gib(have)} is available"
                          + ("; larger blocks (mesh.block_nx) need less" if blocks > fields else ""))


def output_dirs_to_create(path: str) -> list[str]:
    """The directories ``os.makedirs(path)`` would create, outermost first, after checking that it
    can: ``ConfigError`` when ``path`` is empty, when it or one of its parents is a file or a
    dangling symbolic link, or when the deepest existing parent is not writable. Nothing is created
    here."""
    where = f"output.dir={path!r}"
    if not path:
        raise ConfigError("output.dir is empty: name a directory (output.dir=. for the working directory)")
    missing: list[str] = []
    p = os.path.normpath(path)
    while not os.path.isdir(p):
        if os.path.lexists(p):
            what = _not_a_directory(p)
            if not missing:
                raise ConfigError(f"{where} is {what}")
            raise ConfigError(f"{where} cannot be created: {p!r} is {what}")
        missing.append(p)
        parent = os.path.dirname(p) or os.curdir
        if parent == p:
            break
        p = parent
    if not os.access(p, os.W_OK | os.X_OK):
        raise ConfigError(f"{where}: {'cannot be created: ' if missing else ''}{p!r} is not writable")
    return missing[::-1]


def _in_a_loop(path: str) -> bool:
    """Whether following the symbolic link ``path`` never ends (ELOOP), rather than ends at nothing."""
    try:
        os.stat(path)
    except OSError as e:
        return e.errno == errno.ELOOP
    return False


def _not_a_directory(path: str) -> str:
    """What ``path``, which exists but is no directory, is instead (in words)."""
    if os.path.islink(path) and not os.path.exists(path):
        if _in_a_loop(path):
            return f"a symbolic link in a loop (to {os.readlink(path)!r}, which leads back to it)"
        return f"a dangling symbolic link (to {os.readlink(path)!r}, which does not exist)"
    return "a file, not a directory"


def make_output_dir(path: str, new_dirs: list[str]) -> None:
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        remove_empty_dirs(new_dirs)
        raise ConfigError(f"output.dir={path!r} cannot be created: {reason(e)}") from None


def remove_empty_dirs(new_dirs: list[str]) -> None:
    """Remove the directories of ``new_dirs`` (created by this run) that are empty, deepest first;
    a directory that holds anything stays, and so do its parents."""
    for d in reversed(new_dirs):
        try:
            os.rmdir(d)
        except FileNotFoundError:  # never made (a failure part-way through os.makedirs)
            continue
        except OSError:  # not empty: it and its parents stay
            return



def _check_same_input(world, cfg: Config, restarting: bool) -> None:
    """``ConfigError`` on every rank when the ranks were given different inputs (collective), the content of a
    problem file (and of the modules it imports from its directory) and whether they restart included; each
    rank may name its own ``hydro.device``."""
    items = {f"{section}.{key}": value for section, keys in cfg.to_dict().items() for key, value in keys.items()
             if f"{section}.{key}" != "hydro.device"}
    # a rank that restarts reads its blocks collectively while one that does not sets its initial state: the
    # ranks' messages would cross (a hang, seen with --restart on rank 0 alone)
    items["restarting (--restart FILE, hydro.run's restart_file)"] = restarting
    digest = getattr(cfg.problem, SOURCE_DIGEST, None)
    if digest is not None:  # the same path may hold another file on another node
        items["the SHA-256 of problem.file and the modules it imports from its directory"] = digest
    try:
        check_same(world, "the input", items, hint="every rank must run the same input file and overrides")
    except ValueError as e:
        raise ConfigError(str(e)) from None


def writes_files(cfg: Config) -> bool:
    """Whether the run ``cfg`` writes any file: a history file, or an output whose schedule is not -1."""
    out = cfg["output"]
    return out["history"] or any(scheduled(out, kind) for kind in KINDS)


def check_before_run(cfg: Config, restarting: bool = False) -> list[str]:
    """Check what can be checked before the run (collective: the ranks' inputs, and whether they restart, are
    compared); the output directories to create (``_output_dirs_to_create``; none for a run that writes no
    file, which leaves ``output.dir`` alone)."""
    _check_same_input(comm.world(), cfg, restarting)
    _check_writers(cfg)
    _check_memory(cfg, _check_device(cfg))
    _check_ranks(cfg)
    return output_dirs_to_create(cfg["output"]["dir"]) if writes_files(cfg) else []

