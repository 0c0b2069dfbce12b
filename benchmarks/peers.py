"""Peers: the columns of the benchmark table.

A peer is a name, the case *family* it runs (see :mod:`cases`) and a ``setup()`` that returns the
context handed to that family's factories, or raises :class:`PeerUnavailable` (the column is then
skipped with a note). Adding a peer is one entry in :data:`PEER_SETUPS` plus its
factories in the cases.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cnative

REPO = Path(__file__).resolve().parent.parent

# Kernel-language implementations: import name -> environment variable naming its kernel cache.
KERNEL_LANGUAGES = {"brickwork": "BRICKWORK_CACHE_DIR", "warp": "WARP_CACHE_PATH"}
_REQUIRED = ("kernel", "launch", "array", "zeros", "synchronize", "float32", "float64")


class PeerUnavailable(Exception):
    """The peer cannot run here (not installed, not importable yet, ...)."""


@dataclass(frozen=True)
class Peer:
    """A table column: ``name``, the case family it runs, and how to set it up."""

    name: str
    family: str
    setup: Callable[[], Any]


def import_kernel_language(name: str):
    """Import ``brickwork`` or ``warp``; brickwork falls back to the checkout's ``src/``.

    Returns ``(module, extra_sys_path)``; ``extra_sys_path`` is what a subprocess needs on
    PYTHONPATH to import the same module. Raises :class:`PeerUnavailable`.
    """
    extra: list[str] = []
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        src = REPO / "src"
        if name != "brickwork" or exc.name != name or not (src / name).is_dir():
            raise PeerUnavailable(f"{name} is not installed ({exc})") from exc
        sys.path.insert(0, str(src))
        extra.append(str(src))
        try:
            module = importlib.import_module(name)
        except Exception as exc2:  # noqa: BLE001 - any import failure makes the peer unavailable
            raise PeerUnavailable(f"{name} from {src} failed to import: {exc2!r}") from exc2
    except Exception as exc:  # noqa: BLE001
        raise PeerUnavailable(f"{name} failed to import: {exc!r}") from exc
    missing = [attr for attr in _REQUIRED if not hasattr(module, attr)]
    if missing:
        raise PeerUnavailable(f"{name} is importable but lacks {', '.join(missing)} (not ready yet)")
    return module, extra


def module_version(module) -> str:
    """``module.__version__``, else the installed distribution's version, else ``"unknown"``."""
    version = getattr(module, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version

        return dist_version(module.__name__)
    except Exception:  # noqa: BLE001
        return "unknown"


class KernelLanguage:
    """One kernel-language implementation (brickwork or Warp) on the CPU, with the bench kernels."""

    device = "cpu"

    def __init__(self, name: str):
        self.name = name
        self.wp, self.extra_path = import_kernel_language(name)
        self.cache_env = KERNEL_LANGUAGES[name]
        if name == "warp":
            self.wp.config.quiet = True
        if hasattr(self.wp, "init"):
            self.wp.init()
        self.version = module_version(self.wp)
        self._kernels = None

    @property
    def kernels(self):
        """The benchmark kernels of :mod:`lang_kernels`, defined with this module (once)."""
        if self._kernels is None:
            from lang_kernels import make_kernels

            self._kernels = make_kernels(self.wp)
        return self._kernels

    def array(self, data):
        """A copy of the numpy array ``data`` on the CPU device (never a view of it)."""
        return self.wp.array(data.copy(), dtype=self._dtype(data.dtype), device=self.device)

    def zeros(self, shape, dtype):
        """A zero-filled array on the CPU device."""
        return self.wp.zeros(shape, dtype=dtype, device=self.device)

    def launch(self, kernel, dim, inputs) -> None:
        """Launch ``kernel`` over ``dim`` and wait for it."""
        self.wp.launch(kernel, dim=dim, inputs=inputs, device=self.device)
        self.wp.synchronize()

    def subprocess_env(self, cache_dir: str | None = None) -> dict:
        """Environment for a subprocess that imports this module (and uses ``cache_dir``)."""
        env = dict(os.environ)
        if self.extra_path:
            env["PYTHONPATH"] = os.pathsep.join(self.extra_path + [env.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            )
        if cache_dir is not None:
            env[self.cache_env] = cache_dir
        return env

    def _dtype(self, np_dtype):
        return {"float16": self.wp.float16, "float32": self.wp.float32, "float64": self.wp.float64}[
            str(np_dtype)
        ]


def _numpy_setup():
    return None


def _c_setup():
    try:
        return cnative.build()
    except Exception as exc:  # noqa: BLE001
        raise PeerUnavailable(str(exc)) from exc


class NumbaPeer:
    """Numba on the CPU: ``njit(parallel=True)`` kernels (:mod:`numba_kernels`), with the same
    thread count as brickwork and C."""

    name = "numba"

    def __init__(self):
        try:
            import numba
        except Exception as exc:  # noqa: BLE001
            raise PeerUnavailable(f"numba is not installed ({exc!r}); `pip install -e '.[bench]'`") from exc
        self.numba = numba
        self.version = numba.__version__
        numba.set_num_threads(min(cnative.thread_count(), numba.config.NUMBA_NUM_THREADS))
        self.threads = numba.get_num_threads()
        self._kernels = None

    def subprocess_env(self, cache_dir: str | None = None) -> dict:
        """Environment for a subprocess that imports numba (and caches into ``cache_dir``)."""
        env = dict(os.environ, NUMBA_NUM_THREADS=str(self.threads))
        if cache_dir is not None:
            env["NUMBA_CACHE_DIR"] = cache_dir
        return env

    @property
    def kernels(self):
        if self._kernels is None:
            from numba_kernels import make_kernels

            self._kernels = make_kernels(self.numba)
        return self._kernels


def _kernel_language_setup(name: str) -> Callable[[], KernelLanguage]:
    return lambda: KernelLanguage(name)


# peer name -> (family, setup). The primary peer (--impl) comes first in the table.
PEER_SETUPS: dict[str, tuple[str, Callable[[], Any]]] = {
    "brickwork": ("kernel", _kernel_language_setup("brickwork")),
    "C": ("c", _c_setup),
    "numpy": ("numpy", _numpy_setup),
    "warp": ("kernel", _kernel_language_setup("warp")),
    "numba": ("numba", NumbaPeer),
}


def make_peers(primary: str, extra: list[str]) -> list[Peer]:
    """The primary kernel-language peer followed by the ``extra`` peers (duplicates dropped)."""
    names = [primary] + [name for name in extra if name != primary]
    unknown = [name for name in names if name not in PEER_SETUPS]
    if unknown:
        raise SystemExit(f"unknown peer(s): {', '.join(unknown)}; known: {', '.join(PEER_SETUPS)}")
    return [Peer(name, *PEER_SETUPS[name]) for name in names]
