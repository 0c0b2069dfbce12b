"""Typing rules of hash-grid queries in kernels (the builtins are in ``builtins/hash_grid.py``):
``hash_grid_query_next(query, index)`` and ``for index in wp.hash_grid_query(...)`` / ``for index in query``
(``frontend/query_loops.py``)."""

from __future__ import annotations

from ..builtins import FUNCTIONS
from ..types.hash_grid_query import is_hash_grid_query_type
from .intrinsics import INTRINSICS
from .query_loops import loop_rules, next_call_rule

_NEXT = "hash_grid_query_next"
_for_new_query, _for_query_value = loop_rules(lambda t: _NEXT)

INTRINSICS.register(FUNCTIONS[_NEXT], call=next_call_rule(_NEXT, is_hash_grid_query_type, "hash_grid_query()"))
INTRINSICS.register(FUNCTIONS["hash_grid_query"], for_iter=_for_new_query)
INTRINSICS.register_type(is_hash_grid_query_type, for_iter=_for_query_value)
