"""``wp.ModuleBuildOptions``: C++ a module's kernels are built with besides their own code (Warp 1.19's
``extra_build_options`` module option).

A module's options hold one instance (``wp.set_module_options({"extra_build_options": ...})``, or a unique
kernel's ``module_options``). When it is set, it is checked and copied (``resolve``): later changes to the
instance act when it is set again, as in Warp. For each target the copy gives

- a preamble: C++ placed after brickwork's runtime header and before the generated code, so a
  ``wp.func_native`` snippet can call what it declares (the CPU and the emulation target take
  ``extra_cpu_preamble``, CUDA ``extra_cuda_preamble``); ``CUDA_CALLABLE`` is defined for it as Warp's
  headers define it, if the preamble's code uses that macro;
- include directories (``extra_cpu_include_dirs``, ``extra_cuda_include_dirs``: ``-I`` for g++, NVRTC's
  include path), absolute paths of existing directories;
- dependencies (``extra_build_dependencies``): absolute paths of existing files whose contents (read when the
  option is set) are part of the kernels' cache keys, with the preamble and the include directories.

targets/preambles.py places the preamble in a kernel's translation unit.
"""

from __future__ import annotations

import hashlib
import os


class ModuleBuildOptions:
    """Extra build inputs of a module's kernels: include directories and a preamble per target (CPU, CUDA), and
    files whose contents the cache keys cover. Set with ``wp.set_module_options({"extra_build_options": opts})``."""

    def __init__(self, *, extra_cuda_include_dirs=None, extra_cpu_include_dirs=None, extra_cuda_preamble: str = "",
                 extra_cpu_preamble: str = "", extra_build_dependencies=None):
        for name, value in (("extra_cuda_preamble", extra_cuda_preamble), ("extra_cpu_preamble", extra_cpu_preamble)):
            if not isinstance(value, str):
                raise TypeError(f"ModuleBuildOptions: {name} must be a str of C++ code, got {type(value).__name__}")
        self.extra_cuda_include_dirs = _path_list("extra_cuda_include_dirs", extra_cuda_include_dirs)
        self.extra_cpu_include_dirs = _path_list("extra_cpu_include_dirs", extra_cpu_include_dirs)
        self.extra_cuda_preamble = extra_cuda_preamble
        self.extra_cpu_preamble = extra_cpu_preamble
        self.extra_build_dependencies = _path_list("extra_build_dependencies", extra_build_dependencies)

    def merged(self, *others: ModuleBuildOptions) -> ModuleBuildOptions:
        """New options of these followed by ``others``: directories and dependencies once each (first place
        kept), preambles joined in order by a newline; the inputs are left as they are."""
        for other in others:
            if not isinstance(other, ModuleBuildOptions):
                raise TypeError(f"ModuleBuildOptions.merged takes ModuleBuildOptions instances, got "
                                f"{type(other).__name__}")
        every = (self, *others)
        return ModuleBuildOptions(
            extra_cuda_include_dirs=_first_of_each(o.extra_cuda_include_dirs for o in every),
            extra_cpu_include_dirs=_first_of_each(o.extra_cpu_include_dirs for o in every),
            extra_cuda_preamble=_joined(o.extra_cuda_preamble for o in every),
            extra_cpu_preamble=_joined(o.extra_cpu_preamble for o in every),
            extra_build_dependencies=_first_of_each(o.extra_build_dependencies for o in every))

    def __repr__(self):
        fields = ("extra_cuda_include_dirs", "extra_cpu_include_dirs", "extra_cuda_preamble", "extra_cpu_preamble",
                  "extra_build_dependencies")
        return f"ModuleBuildOptions({', '.join(f'{f}={getattr(self, f)!r}' for f in fields)})"


def _path_list(name: str, value) -> list:
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"ModuleBuildOptions: {name} must be a list of paths, got the single path {value!r}")
    return list(value)


def _first_of_each(lists) -> list:
    found: dict = {}
    for paths in lists:
        for p in paths:
            found.setdefault(os.fspath(p), p)
    return list(found.values())


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _joined(texts) -> str:
    kept = [t for t in texts if t]
    return "".join(_with_newline(t) for t in kept[:-1]) + (kept[-1] if kept else "")


class BuildInputs:
    """What a module's ``ModuleBuildOptions`` gave when it was set (``resolve``): per target family ("cpu",
    "cuda") a preamble and include directories, and the dependencies' paths with their contents' digests."""

    def __init__(self, preambles: dict, include_dirs: dict, dependencies: tuple):
        self.preambles, self.include_dirs, self.dependencies = preambles, include_dirs, dependencies

    def for_target(self, target_name: str) -> tuple[str, tuple]:
        """The preamble and include directories of ``target_name`` ("cpu", "cuda" or the emulation target)."""
        family = "cuda" if target_name == "cuda" else "cpu"
        return self.preambles[family], self.include_dirs[family]

    def key(self, target_name: str) -> str:
        """What a cache key of ``target_name`` covers of these inputs ("" when they add nothing to its build)."""
        preamble, dirs = self.for_target(target_name)
        if not (preamble or dirs or self.dependencies):
            return ""
        h = hashlib.sha256(preamble.encode())
        for d in dirs:
            h.update(f"\0-I{d}".encode())
        for path, digest in self.dependencies:
            h.update(f"\0{path}={digest}".encode())
        return h.hexdigest()[:24]


def resolve(options, where: str) -> BuildInputs | None:
    """Check ``options`` (a ``ModuleBuildOptions`` or None) and copy what it gives now (dependencies read);
    ``where`` names the call in errors."""
    if options is None:
        return None
    if not isinstance(options, ModuleBuildOptions):
        raise TypeError(f"{where}: the module option 'extra_build_options' must be a wp.ModuleBuildOptions "
                        f"instance (or None), got {type(options).__name__}")
    for name in ("extra_cuda_preamble", "extra_cpu_preamble"):
        if not isinstance(getattr(options, name), str):
            raise TypeError(f"{where}: ModuleBuildOptions.{name} must be a str of C++ code, got "
                            f"{type(getattr(options, name)).__name__}")
    dirs = {family: _existing(getattr(options, f"extra_{family}_include_dirs"), os.path.isdir,
                              f"extra_{family}_include_dirs", "directory", where) for family in ("cpu", "cuda")}
    dependencies = []
    for path in _existing(options.extra_build_dependencies, os.path.isfile, "extra_build_dependencies", "file", where):
        with open(path, "rb") as f:
            dependencies.append((path, hashlib.sha256(f.read()).hexdigest()))
    preambles = {"cpu": _with_newline(options.extra_cpu_preamble), "cuda": _with_newline(options.extra_cuda_preamble)}
    return BuildInputs(preambles, dirs, tuple(dependencies))


def _existing(paths, test, name: str, kind: str, where: str) -> tuple:
    """``paths`` as absolute real paths, each tested by ``test`` (os.path.isdir/isfile); every bad one named."""
    found, bad = [], []
    for entry in paths:
        try:
            path = os.fspath(entry)
        except TypeError:
            bad.append(f"{entry!r} (not a path)")
            continue
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not os.path.isabs(path):
            bad.append(f"{path!r} (not absolute)")
        elif not test(path):
            bad.append(f"{path!r} (not an existing {kind})")
        else:
            found.append(os.path.realpath(path))
    if bad:
        kinds = "directories" if kind == "directory" else "files"
        raise ValueError(f"{where}: ModuleBuildOptions.{name} must name absolute paths of existing {kinds}: "
                         f"{', '.join(bad)}")
    return tuple(found)
