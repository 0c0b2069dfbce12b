"""Calls of ``@func`` functions that a kernel cannot compile: a function that calls itself (directly or through
others), and calls nested deeper than Python's stack lets the compiler type them."""

from __future__ import annotations

#: calls nested at least this deep, when Python's recursion limit is reached, are named as the cause (an
#: expression nested too deeply in a shallower chain is left to ``pipeline.generate``'s message)
DEEP_CALLS = 8


class RecursiveCall(Exception):
    """A function instance is being typed while it is typed already: ``names`` is the cycle of calls, its first
    function repeated at the end (``[even, odd, even]``). The typer reports it at the call that closes it."""

    def __init__(self, names: list):
        super().__init__(" -> ".join(names))
        self.names = names


def recursion_message(names: list) -> str:
    """``fact() calls itself; ...``, or ``even() calls itself through odd(); ...``."""
    through = "" if len(names) <= 2 else " through " + ", ".join(f"{n}()" for n in names[1:-1])
    return f"{names[0]}() calls itself{through}; recursion is not supported in kernels"


def nesting_message(names: list) -> str:
    """The call chain, shortened, of functions nested too deeply to compile."""
    shown = names if len(names) <= 6 else [*names[:3], "...", *names[-2:]]
    return (f"calls of functions are nested {len(names)} deep here ({' -> '.join(shown)}), too deep to compile "
            f"(Python's recursion limit was reached while typing them); call fewer functions inside each other")
