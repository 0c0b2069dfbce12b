"""adjoint_dead_headers: drop the loop headers of the normal form that nothing reads.

The normal form (``adjoint_normal_form``) gives every local a loop assigns a header, which the backward
kernel saves at the top of every iteration. A local that each iteration assigns before reading it, and that
nothing reads after the loop (a temporary of the body: a tile operation's element, a butterfly's operands),
leaves its header unread: the header's initial value and its update at the end of the iteration are dead,
and saving it costs a push and a pop per iteration. Such headers are removed with their assignments.
"""

from __future__ import annotations

from collections import Counter

from .. import ir


def drop_unread_headers(body: list, loops: dict) -> list:
    """``body`` without the assignments of the headers of ``loops`` (id(loop) -> ``LoopInfo``) that no
    statement reads; each ``LoopInfo`` loses them from its headers and updates."""
    dead = _unread(body, {h.name for info in loops.values() for h in info.headers})
    if not dead:
        return body
    for info in loops.values():
        info.headers = [h for h in info.headers if h.name not in dead]
        info.updates = [u for u in info.updates if u.target.name not in dead]
    return _without_assignments(body, dead)


def _unread(body: list, headers: set) -> set:
    """The headers whose values reach no statement but assignments of other such headers (an inner loop's
    header starts from the outer loop's, whose update takes the inner one's final value)."""
    mentions = Counter(n.name for n in ir.walk(body) if isinstance(n, ir.IRLocal))
    feeds: dict = {}  # header -> the locals its assignments read
    for s in ir.walk(body):
        if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal):
            mentions[s.target.name] -= 1
            if s.target.name in headers:
                used = [n.name for n in ir.walk(s.value) if isinstance(n, ir.IRLocal)]
                mentions.subtract(used)
                feeds.setdefault(s.target.name, []).extend(used)
    live = {h for h in headers if mentions[h] > 0}
    todo = list(live)
    while todo:
        for name in feeds.get(todo.pop(), ()):
            if name in headers and name not in live:
                live.add(name)
                todo.append(name)
    return headers - live


def _without_assignments(stmts: list, names: set) -> list:
    """``stmts`` (recursively, each block in place: the loops keep their identity) without the assignments
    of whole locals named in ``names``."""
    out = []
    for s in stmts:
        if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and s.target.name in names:
            continue
        for block in ("body", "orelse"):
            inner = getattr(s, block, None)
            if isinstance(inner, list):
                inner[:] = _without_assignments(inner, names)
        out.append(s)
    return out
