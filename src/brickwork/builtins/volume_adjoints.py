"""Adjoint rules of the volume builtins (``volume``): sampling differentiated with respect to the point
and, for index grids, the background and the ``voxel_data`` array (added into its gradient array), the maps
with respect to the point, as Warp 1.19. Gradients do not flow to a grid's stored values.

The pair forms (value and gradient written to an output argument) are differentiated through their
definition: the value and the gradient as two calls, each with its rule.
"""

from __future__ import annotations

from ..types.opaque import TupleType
from .adjoints import ARRAY_ADJOINT_OPS, ArrayAdjoint, adjoint, expansion


@adjoint("volume_sample_f", "volume_sample_v")
def _sample(E, args, r, g):
    return None, E.volume_sample_vjp(*args, g), None


@adjoint("volume_sample_typed")
def _sample_typed(E, args, r, g):
    return None, E.volume_sample_vjp(*args[:3], g), None, None


@adjoint("volume_sample_grad_only")
def _grad_only(E, args, r, g):
    return None, E.volume_sample_hess_vjp(*args, g), None, None


@expansion("volume_sample_grad_pair")
def _grad_pair(E, args):
    value, grad = E.volume_sample_typed(*args), E.volume_sample_grad_only(*args)
    return E.make(TupleType((E.type(value), E.type(grad))), [value, grad])


@adjoint("volume_sample_index")
def _sample_index(E, args, r, g):
    data = ArrayAdjoint(lambda E, adj: E.volume_sample_index_data_vjp(*args[:3], adj, args[4], g))
    return None, E.volume_sample_index_vjp(*args, g), None, data, E.volume_sample_index_bg_vjp(*args, g)


@adjoint("volume_sample_grad_index_only")
def _grad_index_only(E, args, r, g):
    data = ArrayAdjoint(lambda E, adj: E.volume_sample_index_data_hess_vjp(*args[:3], adj, args[4], g))
    return None, E.volume_sample_index_hess_vjp(*args, g), None, data, E.volume_sample_index_bg_hess_vjp(*args, g)


ARRAY_ADJOINT_OPS.update(("volume_sample_index", "volume_sample_grad_index_only"))


@expansion("volume_sample_grad_index_pair")
def _grad_index_pair(E, args):
    value, grad = E.volume_sample_index(*args), E.volume_sample_grad_index_only(*args)
    return E.make(TupleType((E.type(value), E.type(grad))), [value, grad])


# the maps are affine: the adjoint of the point is the transposed linear part applied to g
_TRANSPOSED = {"volume_index_to_world": "volume_index_to_world_dir_t",
               "volume_index_to_world_dir": "volume_index_to_world_dir_t",
               "volume_world_to_index": "volume_world_to_index_dir_t",
               "volume_world_to_index_dir": "volume_world_to_index_dir_t",
               "volume_index_to_world_dir_t": "volume_index_to_world_dir",
               "volume_world_to_index_dir_t": "volume_world_to_index_dir"}


def _map_rule(transposed: str):
    def rule(E, args, r, g):
        return None, getattr(E, transposed)(args[0], g)

    return rule


for _name, _transposed in _TRANSPOSED.items():
    adjoint(_name)(_map_rule(_transposed))
