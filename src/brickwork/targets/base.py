"""What a target is: the passes it needs, how it renders, compiles and loads an instance.

The pipeline (``brickwork.pipeline``) knows targets only through this interface, so a second
target (CUDA, a test target that records what it receives) plugs in without touching typing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Target(ABC):
    """A compilation target, named by ``name`` (part of every cache key)."""

    name: str

    @abstractmethod
    def identity(self) -> str:
        """Everything outside brickwork's sources that shapes the artifact (compiler, flags), for cache keys."""

    @abstractmethod
    def passes(self, mode: str = "release") -> tuple:
        """The passes that take typed IR to IR this target renders, in order (``mode`` "debug" adds
        bounds checks)."""

    @abstractmethod
    def render(self, kernel, callees: list, label: str, general_strides: bool = False) -> str:
        """The source text of one kernel instance and the functions it calls. A target whose entry
        point may decline arrays of non-unit innermost stride (returns 1, see ``Instance.run_with_general_strides``)
        compiles the version that takes them when ``general_strides``."""

    @abstractmethod
    def compile_many(self, jobs: list) -> list:
        """Build ``(key, source, label, meta)`` jobs into cached artifacts: ``(path, meta)`` or an exception each."""

    @abstractmethod
    def load(self, path: str, meta: dict):
        """The callable entry point of a built artifact (called with one packed argument buffer)."""
