"""The hydro problems: each module has ``NAME``, ``DIMENSIONS``, ``PARAMS`` (its ``[problem]`` keys),
``DEFAULTS`` (defaults of the other sections) and ``initial(x1, x2, x3, params, gamma, xmin, xmax)``
returning the primitive state ``(density, v1, v2, v3, pressure)`` at cell centres (arrays broadcast to
the block's ``(nk, nj, ni)``). Problems of your own: ``custom_problem``."""

from . import blast, kelvin_helmholtz, linear_wave, sod

#: the shipped problems, by name
BUILT_IN = {m.NAME: m for m in (sod, kelvin_helmholtz, blast, linear_wave)}
#: every problem ``problem.name`` can name: the shipped ones and those given to ``register_problem``
PROBLEMS = dict(BUILT_IN)
