"""The typed, target-neutral IR: nodes, a printer, a verifier, and traversal helpers."""

from ..types.opaque import TupleType
from .analysis import assignment_counts, atomic_parts, cannot_fault, has_effect, speculatable, written_params
from .printer import format_function
from .verify import IRVerifyError, verify
from .vocabulary import *  # noqa: F403 - the node classes are the package's vocabulary
from .walk import Rewriter, contains, node_classes, walk

__all__ = ["TupleType", "assignment_counts", "atomic_parts", "cannot_fault", "has_effect", "speculatable",
           "written_params", "format_function", "IRVerifyError", "verify", "Rewriter", "contains", "node_classes",
           "walk"]
