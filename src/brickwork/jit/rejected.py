"""The error raised when a compiler (g++/clang++ or NVRTC) rejects a generated unit.

Generated code that does not compile is a brickwork bug, except where the unit holds C++ that a user wrote: the
snippets of ``wp.func_native`` functions, each rendered under a line ``NATIVE_MARK + "name (file:line)"``. When
such lines are there, the error names those functions first: the compiler's messages most likely point into
one of them.
"""

from __future__ import annotations

import re

from ..errors import ToolchainError

#: The C++ comment above a ``wp.func_native`` snippet, followed by "qualname (file:line)".
NATIVE_MARK = "// wp.func_native: "
_MARKED = re.compile("^[ \t]*" + re.escape(NATIVE_MARK) + "(.*)$", re.MULTILINE)


def native_origins(source: str) -> list:
    """The ``wp.func_native`` functions whose C++ the unit ``source`` holds, in order, each once."""
    return list(dict.fromkeys(m.group(1).strip() for m in _MARKED.finditer(source)))


def rejected_code_error(compiler: str, label: str, source: str, src_path: str, log: str, extra: str = "",
                        code: str = "code") -> ToolchainError:
    """The ``ToolchainError`` for ``compiler`` ("the C++ compiler", "NVRTC") rejecting the ``code`` ("code",
    "CUDA code") generated for ``label`` (``source``, kept at ``src_path`` for an hour), with the end of the
    compiler's ``log``."""
    tail = log[-4000:]
    natives = native_origins(source)
    if natives:
        return ToolchainError(
            f"{compiler} rejected the {code} generated for {label}, which holds the C++ of wp.func_native "
            f"function{'s' if len(natives) > 1 else ''} {', '.join(natives)}: the messages below most likely "
            f"point into {'one of them' if len(natives) > 1 else 'it'} (the whole source is kept at {src_path} "
            f"for an hour){extra}. If the snippets are valid C++ for brickwork's types, this is a brickwork bug: "
            f"please report it with that source.\n{tail}")
    return ToolchainError(
        f"internal error: {compiler} rejected the {code} generated for {label}. This is a brickwork bug; please "
        f"report it with the source kept at {src_path} (for an hour){extra}.\n{tail}")
