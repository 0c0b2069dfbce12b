"""The hydro problems: each module has ``PARAMS`` (its ``[problem]`` keys), ``DEFAULTS`` (defaults of
the other sections), ``DIMENSIONS`` and ``initial(x1, x2, x3, params, gamma)`` returning the
primitive state ``(density, v1, v2, v3, pressure)`` at cell centres (arrays broadcast to the
block's ``(nk, nj, ni)``)."""

from . import blast, kelvin_helmholtz, linear_wave, sod

PROBLEMS = {m.NAME: m for m in (sod, kelvin_helmholtz, blast, linear_wave)}
