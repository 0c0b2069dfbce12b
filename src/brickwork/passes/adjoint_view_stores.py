"""Reads of mesh fields a loop-abstraction body stored earlier in the same launch, for the adjoint's normal form.

While a backward kernel runs, the tape puts back the values its launch's mesh fields had before the launch
(``runtime/tape.py``: a body may update a field in place, and its replay needs what the forward launch
read), and the replay does not store into views. So a read of a field element the body stored before, in
program order, would see the value from before the launch. ``ViewStores`` follows the body's view stores:

- a read of the element just stored, at the same point in the same visit (``pv[r(), idx] = ...`` then
  ``pv[r(), idx]``), becomes the stored value (forwarded: no read at all);
- any other read of a variable stored before it (another point, a later inner loop, after a store under a
  condition, an earlier iteration of a loop) is refused with ``KernelNotDifferentiableError``;
- a read before the store at the same point of a visit (``pv[u(), idx] = pv[u(), idx] * 2``, an update in
  place) reads the value from before the launch, as the forward launch did.

Variables are told apart by the view (pack or flux, the pack and direction), the variable's position and
component offset and the element, as written in the body: a variable whose component is chosen at run
time counts as every component of it.
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import ir
from ..errors import KernelNotDifferentiableError
from ..ir.printer import expr as _text

_PREFIX = "\0view "  # env keys of forwarded values: never the name of a local


def _var_key(e: ir.IRLAViewElem) -> str:
    v = e.view
    direction = "" if v.direction is None else _text(v.direction)
    return f"{v.kind}|{_text(v.pack)}|{direction}|{e.var.position}|{_text(e.var.offset)}|{e.element}"


def _point(e: ir.IRLAViewElem) -> str:
    return ",".join(_text(p) for p in e.point)


def _stores(stmts) -> list:
    """The view elements stored anywhere in ``stmts`` (original statements)."""
    found = []
    for s in ir.walk(stmts):
        if isinstance(s, ir.IRAssign):
            root = s.target
            while isinstance(root, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
                root = root.base
            if isinstance(root, ir.IRLAViewElem):
                found.append(root)
    return found


class ViewStores:
    def __init__(self, label: str):
        self.label = label
        self.written: set = set()  # variables stored so far, in program order
        self.loops: list = []  # per enclosing loop: (parallel visits?, {variable: points stored in its body})

    def _refuse(self, e: ir.IRLAViewElem, why: str) -> KernelNotDifferentiableError:
        where = f" at {e.where}" if e.where else ""
        info = getattr(getattr(e.view.pack, "type", None), "_bw_pack", None)
        names = info["vars"] if info else []
        field = f" '{names[e.var.position]}'" if e.var.position is not None and e.var.position < len(names) else ""
        flux = " flux" if e.view.kind == "flux" else ""
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
        for name in [n for n in body_env if n.startswith(_PREFIX) and n[len(_PREFIX):].split("@")[0] in stored]:
            del body_env[name]  # stored again in the body: known at its start in the first iteration only
        self.loops.append((parallel, stored))
        try:
            yield
        finally:
            self.loops.pop()

    # -- stores and reads ----------------------------------------------------------------------------------
    def stored(self, original: ir.IRLAViewElem, elem: ir.IRLAViewElem, value, whole: bool, env: dict) -> None:
        """``original`` (its atoms: ``elem``) was stored ``value`` (the whole element when ``whole``)."""
        key = _var_key(original)
        self.written.add(key)
        for name in [n for n in env if n.startswith(_PREFIX + key + "@")]:
            del env[name]  # a store at another point may be the same element (points are not compared by value)
        if whole and isinstance(value, (ir.IRLocal, ir.IRConst)):
            env[f"{_PREFIX}{key}@{_point(elem)}"] = value

    def read(self, original: ir.IRLAViewElem, elem: ir.IRLAViewElem, env: dict):
        """The value a read of ``original`` (its atoms: ``elem``) must give instead of a load (None: the load is
        right), or ``KernelNotDifferentiableError``."""
        key = _var_key(original)
        forwarded = env.get(f"{_PREFIX}{key}@{_point(elem)}")
        if forwarded is not None:
            return forwarded
        if key in self.written:
            raise self._refuse(original, "at another point, in a later inner loop or after a store under a condition")
        for parallel, stored in self.loops:
            points = stored.get(key)
            if points is None:
                continue
            if not parallel:
                raise self._refuse(original, "stored in an earlier iteration of a loop")
            if points != {_point(original)}:
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
