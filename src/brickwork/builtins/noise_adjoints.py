"""Adjoint rules of the noise builtins: the gradient at the point; nothing flows to the state or the integer
arguments (the rule convention: ``adjoints``)."""

from __future__ import annotations

from .adjoints import adjoint


@adjoint("noise")
def _noise(E, args, r, g):
    return None, E.mul(g, E.noise_grad(*args))


@adjoint("pnoise")
def _pnoise(E, args, r, g):
    return (None, E.mul(g, E.pnoise_grad(*args))) + (None,) * (len(args) - 2)


@adjoint("curlnoise")
def _curlnoise(E, args, r, g):
    state, p, *options = args
    return (None, E.curlnoise_vjp(state, p, g, *options)) + (None,) * len(options)
