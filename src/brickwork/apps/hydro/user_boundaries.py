"""A problem's boundary functions (``mesh.bc_xd = "user"``) as the mesh calls them, and what the ranks
do when one raises.

The mesh calls a boundary function inside its ghost exchange, for every block on its side and every
conserved field. One that raises on some ranks must not leave the others waiting in the exchange, nor
end them with a line per rank: during the run's ghost fills (``UserBoundaries.fill_ghosts``) the
wrapper keeps the first error and calls the function no more, the exchange completes on every rank,
and then the ranks agree (one ``allgather`` per fill, only in a run with user boundaries and several
ranks): every rank raises the same ``ConfigError``, naming the ranks that met it, which rank 0 prints.
"""

from __future__ import annotations

import inspect

from . import hydrostatic
from .config import Config
from .custom_problem import USER_ERRORS, failure
from .rank_errors import said_once
from .schema import SIDES, ConfigError
from .sources import gravity


class UserBoundaries:
    """The boundary functions of the run ``cfg`` describes, and the ghost fills that run them."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self._deferring = False  # inside fill_ghosts: keep a failure for the ranks' agreement
        self._failure: tuple | None = None  # (ConfigError, the function's exception)

    @property
    def active(self) -> bool:
        """Whether some direction's ``bc_xd`` is ``"user"``."""
        return any(self.cfg["mesh"][f"bc_x{d}"] == "user" for d in range(1, self.cfg.ndim + 1))

    def mesh_boundaries(self) -> dict:
        """The mesh's ``boundaries`` argument: ``mesh.bc_xd`` per direction, the problem's ``BOUNDARIES``
        entries for both sides of a direction whose ``bc_xd`` is ``"user"``, the ``hydrostatic`` walls'
        functions for ``"hydrostatic"``."""
        m = self.cfg["mesh"]
        out = {}
        for d in range(1, self.cfg.ndim + 1):
            if m[f"bc_x{d}"] == "user":
                out.update({side: self._with_inputs(self.cfg.problem.BOUNDARIES[side], side) for side in SIDES[d]})
            elif m[f"bc_x{d}"] == "hydrostatic":
                out.update(hydrostatic.walls(d, gravity(self.cfg["hydro"]), self.cfg["hydro"]["gamma"]))
            else:
                out[f"x{d}"] = m[f"bc_x{d}"]
        return out

    def fill_ghosts(self, mesh, fields) -> None:
        """``mesh.fill_ghosts(fields)``; when a boundary function raised on any rank, the ``ConfigError``
        naming it on every rank (collective), after the exchange completed everywhere."""
        if not self.active:
            mesh.fill_ghosts(fields)
            return
        self._failure, self._deferring = None, True
        try:
            mesh.fill_ghosts(fields)
        finally:
            self._deferring = False
        failure, self._failure = self._failure, None
        if mesh.nranks == 1:
            if failure is not None:
                raise failure[0] from failure[1]
            return
        text = said_once(mesh.comm.allgather(None if failure is None else str(failure[0])))
        if text is not None:
            raise ConfigError(text) from (None if failure is None else failure[1])

    def _with_inputs(self, function, side: str):
        """A problem's boundary function as the mesh calls it, ``fn(block, view, side, field)``, given the
        ``params`` (its ``[problem]`` values) and ``gamma`` it declares, by name, and the ``field`` if it
        declares that; what it raises is one line naming it (``custom_problem.failure``), kept for the
        ranks' agreement inside ``fill_ghosts``, raised at once elsewhere. A boundary name as it is."""
        if not callable(function):
            return function
        try:
            declared = inspect.signature(function).parameters
        except (TypeError, ValueError):
            declared = {}
        params = self.cfg["problem"]
        given = {name: value for name, value in (("params", params), ("gamma", self.cfg["hydro"]["gamma"]),
                                                 ("field", None)) if name in declared}

        def fill(block, view, where, field):
            if self._deferring and self._failure is not None:
                return  # this fill failed already: its ghosts are not used
            if "field" in given:
                given["field"] = field
            try:
                function(block, view, where, **given)
            except MemoryError:
                raise
            except USER_ERRORS as e:  # a problem of your own: one line naming its file and line
                error = failure(self.cfg.problem, f"BOUNDARIES[{side!r}]", e, params)
                if not self._deferring:
                    raise error from e
                self._failure = (error, e)

        return fill
