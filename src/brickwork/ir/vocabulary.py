"""Every IR node class in one namespace: the core nodes (``nodes``), those of the loop abstraction, mesh packs and
teams (``loop_abstraction_nodes``) and those of the GPU mapping (``gpu_nodes``). The package re-exports it; the
IR's own modules that take nodes of all three import it as ``ir`` (importing the package from them is a cycle)."""

from .gpu_nodes import *  # noqa: F403
from .loop_abstraction_nodes import *  # noqa: F403
from .nodes import *  # noqa: F403
