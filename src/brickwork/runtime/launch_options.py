"""``wp.launch``'s options that shape no grid point: ``block_dim``, ``max_blocks`` and ``record_tape``, checked
before anything runs (``launch`` calls ``check`` only when one differs from its default, off the fast path).

Warp's forms stay accepted: ``block_dim`` None, 0 or negative asks for the default and at most 1024 (Warp
refuses more on the CPU, and a CUDA block holds no more threads); ``max_blocks`` 0 or negative means no limit;
``record_tape`` any bool, 0, 1 or None. A string, a float or another object for them was taken without a word
(``record_tape="no"`` recorded the launch, a true value)."""

from __future__ import annotations

import numpy as np

from ..errors import LaunchArgumentError, LaunchError

MAX_BLOCK_DIM = 1024


def _integer(value) -> bool:
    return isinstance(value, (int, np.integer))  # bool too: Warp takes block_dim=True as 1


def _shown(value) -> str:
    return f"{type(value).__name__} {value!r:.40}"


def check(kernel, block_dim, max_blocks, record_tape) -> None:
    """Raise a ``LaunchError`` naming the option and its value for one Warp does not take."""
    where = f"launch of '{getattr(kernel, 'key', kernel)}'"
    if block_dim is not None and not _integer(block_dim):
        raise LaunchError(f"{where}: block_dim must be an int from 1 to {MAX_BLOCK_DIM} (None, 0 or a negative "
                          f"int for the default), got {_shown(block_dim)}")
    if block_dim is not None and block_dim > MAX_BLOCK_DIM:
        raise LaunchArgumentError(f"{where}: block_dim must be at most {MAX_BLOCK_DIM} (the threads of a CUDA "
                                  f"block), got {int(block_dim)}")
    if max_blocks is not None and not _integer(max_blocks):
        raise LaunchError(f"{where}: max_blocks must be an int (0 or negative: no limit), got {_shown(max_blocks)}")
    if record_tape is not None and not isinstance(record_tape, (bool, np.bool_)) and \
            not (_integer(record_tape) and record_tape in (0, 1)):
        raise LaunchError(f"{where}: record_tape must be True or False, got {_shown(record_tape)}")
