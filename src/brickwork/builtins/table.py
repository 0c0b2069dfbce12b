"""The complete builtin table: every family's typing rules, registered on import."""

from . import (  # noqa: F401  (registration side effects)
    atomics,
    bvh,
    decompositions,
    fast_math,
    geometry,
    hash_grid,
    linalg,
    math,
    noise,
    operators,
    random,
    texture,
    tile_queries,
    tile_stacks,
    volume,
)
from .registry import BUILTINS, Mismatch, resolve

__all__ = ["BUILTINS", "Mismatch", "resolve"]
