"""The hydro fields' tags in loop-abstraction packs: the conserved variables, their copies at the start
of a step (``_0``), the primitives and the passive scalars (``rho * s_n``, scalars.py)."""

from brickwork.mesh import VarTag

density, momentum, energy, prim = VarTag("density"), VarTag("momentum"), VarTag("energy"), VarTag("prim")
density0, momentum0, energy0 = VarTag("density_0"), VarTag("momentum_0"), VarTag("energy_0")
scalars, scalars0 = VarTag("scalars"), VarTag("scalars_0")
