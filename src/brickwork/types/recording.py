"""Array writes from the host, recorded into a captured graph.

While a graph is captured (``wp.capture_begin`` ... ``wp.capture_end``), the host operations that write
array memory -- ``fill_``, ``zero_``, ``assign``, item assignment, ``wp.copy`` -- are recorded as launches
are, and run at each replay in order with them; those within one CUDA device are memset and memcpy nodes,
as in Warp (runtime/cuda_memory_nodes.py). Their
arguments are checked, and host data (numpy arrays, lists) copied, when the call is made; an array
read as a source is read at replay.
"""

from __future__ import annotations

# Set by runtime.launch while a graph is captured: ``recorder(fn, args)`` adds ``fn(*args)`` to it.
recorder = None


def run_or_record(fn, *args) -> None:
    """``fn(*args)`` now, or, while a graph is captured, at each replay of it instead."""
    if recorder is None:
        fn(*args)
    else:
        recorder(fn, args)


def record(fn, *args) -> None:
    """``fn(*args)`` at each replay of the graph being captured, if any (the caller has run it already): the
    initialisation of an array allocated during a capture (``wp.zeros``, ``wp.full``), which Warp's graph
    repeats."""
    if recorder is not None:
        recorder(fn, args)
