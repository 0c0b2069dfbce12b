"""What the ranks of a run failed with, said once: each distinct message with the ranks that met it.

The hydro run agrees on errors at a few points (its start, each output, each ghost fill that runs a
problem's boundary functions): every rank learns what every other met, and rank 0 prints one line
for all of them. ``said_once`` composes that line from the ranks' messages.
"""

from __future__ import annotations


def on_ranks(ranks: list[int], nranks: int) -> str:
    """``"on rank 1 of 2"`` or ``"on ranks 1, 3 of 4"``."""
    return f"on rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} of {nranks}"


def said_once(messages: list, name_ranks: bool = True) -> str | None:
    """The one line of ``messages`` (rank r's error message, None where rank r met none): each distinct
    message once, in the order of the first rank that met it, followed by the ranks that met it
    (``name_ranks``, and only where some rank met none or the ranks met different errors: a message every
    rank met needs no ranks); None when no rank met an error."""
    failed = [rank for rank, message in enumerate(messages) if message is not None]
    if not failed:
        return None
    if not name_ranks:
        return messages[failed[0]]
    by_message: dict[str, list[int]] = {}
    for rank in failed:
        by_message.setdefault(messages[rank], []).append(rank)
    if len(by_message) == 1 and len(failed) == len(messages):
        return messages[failed[0]]
    return "; ".join(f"{message} ({on_ranks(ranks, len(messages))})" for message, ranks in by_message.items())
