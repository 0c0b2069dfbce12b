"""Reads of mesh fields a loop-abstraction body stored earlier in the same launch, for the adjoint's normal form.

While a backward kernel runs, the tape puts back the values its launch's mesh fields had before the launch
(``runtime/tape.py``: a body may update a field in place, and its replay needs what the forward launch
read), and the replay does not store into views or pack subscripts. So a read of a field element the body
stored before, in program order, would see the value from before the launch. ``ViewStores`` follows the body's
stores through views and pack subscripts (``pack[b, var, k, j, i]``, ``pack.flux[...]`` in ``par_for`` and
``par_for_outer`` bodies; their point is the block and cell):

- a read of the element just stored, at the same point in the same visit (``pv[r(), idx] = ...`` then
  ``pv[r(), idx]``), becomes the stored value (forwarded: no read at all);
- any other read of a variable stored before it (another point, a later inner loop, after a store under a
  condition, an earlier iteration of a loop) is refused with ``KernelNotDifferentiableError``;
- a read before the store at the same point of a visit (``pv[u(), idx] = pv[u(), idx] * 2``, an update in
  place) reads the value from before the launch, as the forward launch did.

Variables are told apart by the view (pack or flux, the pack and direction), the variable's position and
component offset and the element, as written in the body: a variable whose component is chosen at run
time counts as every component of it, and a pack subscript whose variable is a flat index chosen at run
time as every variable of the pack.
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import ir
from ..errors import KernelNotDifferentiableError
from ..ir.printer import expr as _text

_PREFIX = "\0view "  # env keys of forwarded values: never the name of a local


_ELEMS = (ir.IRLAViewElem, ir.IRPackElem)


def _storage(e) -> str:
    """The pack storage ``e`` addresses (cells or one flux direction), as written."""
    if isinstance(e, ir.IRPackElem):
        return f"pack|{_text(e.pack)}|{'' if e.flux_dir is None else _text(e.flux_dir)}"
    v = e.view
    direction = "" if v.direction is None else _text(v.direction)
    return f"{v.kind}|{_text(v.pack)}|{direction}"


def _var_key(e) -> str:
    """The variable ``e`` addresses; a pack subscript whose variable is a flat index chosen at run time
    (``pack[b, n, k, j, i]``) is ``<storage>|*``: any variable of that storage."""
    if isinstance(e, ir.IRPackElem) and e.var.position is None:
        return f"{_storage(e)}|*"
    return f"{_storage(e)}|{e.var.position}|{_text(e.var.offset)}|{e.element}"


def _point(e) -> str:
    """The point of ``e``: a pack subscript's block and cell (or memory offset), a view's point."""
    if isinstance(e, ir.IRPackElem):
        return ",".join(_text(p) for p in (e.block, *(e.kji if e.kji is not None else [e.memory])))
    return ",".join(_text(p) for p in e.point)


def _overlapping(key: str, keys) -> list:
    """The keys among ``keys`` that may address the same variable as ``key`` (itself, or any variable of its
    storage where one of them is ``<storage>|*``)."""
    storage = key.rsplit("|", 1)[0] if key.endswith("|*") else None
    return [k for k in keys if k == key or (storage is not None and k.startswith(storage + "|"))
            or (k.endswith("|*") and key.startswith(k[:-1]))]


def _stores(stmts) -> list:
    """The view elements stored anywhere in ``stmts`` (original statements)."""
    found = []
    for s in ir.walk(stmts):
        if isinstance(s, ir.IRAssign):
            root = s.target
            while isinstance(root, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
                root = root.base
            if isinstance(root, _ELEMS):
                found.append(root)
    return found


class ViewStores:
    def __init__(self, label: str):
        self.label = label
        self.written: set = set()  # variables stored so far, in program order
        self.loops: list = []  # per enclosing loop: (parallel visits?, {variable: points stored in its body})

    def _refuse(self, e, why: str) -> KernelNotDifferentiableError:
        where = f" at {e.where}" if e.where else ""
        pack = e.pack if isinstance(e, ir.IRPackElem) else e.view.pack
        info = getattr(getattr(pack, "type", None), "_bw_pack", None)
        names = info["vars"] if info else []
        field = f" '{names[e.var.position]}'" if e.var.position is not None and e.var.position < len(names) else ""
        if isinstance(e, ir.IRPackElem) and e.var.position is None:
            field = " chosen by its flat index at run time (any of the pack's)"
        flux = " flux" if (e.flux_dir if isinstance(e, ir.IRPackElem) else e.view.kind == "flux") else ""
        return KernelNotDifferentiableError(
            f"kernel '{self.label}' cannot be differentiated: it reads the mesh field{field}{flux}{where} after "
            f"storing it in the same launch ({why}); its backward pass would read the value from before the launch. "
            f"Read it where it was just stored (the same point of the same visit), keep the stored value in a local, "
            f"or store and read in two la.outer launches")

    # -- loops ---------------------------------------------------------------------------------------------
    @contextmanager
    def loop(self, body, parallel: bool, body_env: dict):
        """``with views.loop(...):`` around the flattening of a loop's body (whose env is ``body_env``):
        ``parallel`` for the independent visits of an inner loop (``la.inner``, ``par_for_inner``), False for
        a loop whose iterations follow one another."""
        stored: dict = {}
        for e in _stores(body):
            stored.setdefault(_var_key(e), set()).add(_point(e))
        for name in [n for n in body_env
                     if n.startswith(_PREFIX) and _overlapping(n[len(_PREFIX):].split("@")[0], stored)]:
            del body_env[name]  # stored again in the body: known at its start in the first iteration only
        self.loops.append((parallel, stored))
        try:
            yield
        finally:
            self.loops.pop()

    # -- stores and reads ----------------------------------------------------------------------------------
    def stored(self, original, elem, value, whole: bool, env: dict) -> None:
        """``original`` (a view element or pack subscript; its atoms: ``elem``) was stored ``value`` (the whole
        element when ``whole``)."""
        key = _var_key(original)
        self.written.add(key)
        for name in [n for n in env if n.startswith(_PREFIX) and _overlapping(n[len(_PREFIX):].split("@")[0], [key])]:
            del env[name]  # a store at another point may be the same element (points are not compared by value)
        if whole and isinstance(value, (ir.IRLocal, ir.IRConst)):
            env[f"{_PREFIX}{key}@{_point(elem)}"] = value

    def read(self, original, elem, env: dict):
        """The value a read of ``original`` (its atoms: ``elem``) must give instead of a load (None: the load is
        right), or ``KernelNotDifferentiableError``."""
        key = _var_key(original)
        forwarded = env.get(f"{_PREFIX}{key}@{_point(elem)}")
        if forwarded is not None:
            return forwarded
        if _overlapping(key, self.written):
            raise self._refuse(original, "at another point, in a later inner loop or after a store under a condition")
        for parallel, stored in self.loops:
            keys = _overlapping(key, stored)
            if not keys:
                continue
            points = set().union(*(stored[k] for k in keys))
            if not parallel:
                raise self._refuse(original, "stored in an earlier iteration of a loop")
            if points != {_point(original)} or keys != [key]:
                raise self._refuse(original, "stored at another point of the same inner loop")
        return None

    @staticmethod
    def merge_branches(env: dict, env_a: dict, env_b: dict) -> None:
        """After an ``if``: a value known on both sides (the same one) stays known; a store on one side only
        makes the element unknown (a later read of it is refused, its variable being written)."""
        for name in {n for n in (*env, *env_a, *env_b) if n.startswith(_PREFIX)}:
            value = env_a.get(name)
            if value is not None and value is env_b.get(name):
                env[name] = value
            else:
                env.pop(name, None)


def is_forwarded_name(name: str) -> bool:
    """Whether an env key is a forwarded view value (not a local: branch merges leave it alone)."""
    return name.startswith(_PREFIX)
