"""How the CPU target implements each builtin: a C++ expression over the rendered arguments.

Most builtins are functions of the runtime header with the builtin's own name (``bw::sqrt``);
this table lists only those spelled otherwise. ``select_builtins`` attaches the entry to each
call, so a builtin without an implementation here is reported before any C++ is written.
"""

from __future__ import annotations

from ...builtins.bvh import ARRAY_NAMES as MESH_ARRAY_NAMES
from ...builtins.bvh import NAMES as BVH_NAMES
from ...builtins.bvh import STRUCT_RESULTS as BVH_STRUCT_RESULTS
from ...builtins.decompositions import OUTPUT_ARGUMENTS, PACKED
from ...builtins.table import BUILTINS
from ...builtins.texture import INTERNAL as TEXTURE_INTERNAL
from ...builtins.tile_queries import NAMES as TILE_QUERY_NAMES
from ...builtins.tile_stacks import NAMES as TILE_STACK_NAMES
from ...builtins.volume import INTERNAL as VOLUME_INTERNAL
from ...builtins.volume import NAMES as VOLUME_NAMES


def _fmt(template: str):
    return lambda args: template.format(*args, args=", ".join(args))


def _default(name: str):
    return lambda args: f"bw::{name}({', '.join(args)})"


def _min_max(name: str):
    one = f"bw::{name}_element"

    def spell(args):
        return f"{one}({args[0]})" if len(args) == 1 else f"bw::{name}({', '.join(args)})"

    return spell


_SPECIAL = {
    "logical_not": _fmt("(!bw::truth({0}))"),
    "logical_and": _fmt("(bw::truth({0}) && bw::truth({1}))"),
    "logical_or": _fmt("(bw::truth({0}) || bw::truth({1}))"),
    "select": _fmt("(bw::truth({0}) ? {2} : {1})"),
    "where": _fmt("(bw::truth({0}) ? {1} : {2})"),
    "min": _min_max("min"),
    "max": _min_max("max"),
    "div_approx": _default("div"),  # exact: Warp's CPU results (the GPU's approximate reciprocal is not needed)
    "inverse_approx": _default("inverse"),
}

#: builtin id -> function(rendered argument texts) -> C++ expression. Atomics take the element's
#: address, which the renderer forms itself (see ``CppRenderer.e_IRCall``).
CPU_BUILTINS = {name: _SPECIAL.get(name) or _default(name) for name in BUILTINS}

#: Signed int32/int64 arithmetic that may overflow (``IRCall.no_wrap`` False): C++ leaves the plain
#: operations undefined on overflow, these wrap around as the kernel language says.
CPU_WRAPPING = {name: _default(f"wrapping_{name}") for name in ("add", "sub", "mul", "neg", "lshift")}

def _array_slice(args, where: str):
    ndim, mask, *bounds = args[1:]
    return (f"bw::array_slice<{ndim}>({args[0]}, {mask}, {{{', '.join(f'(int64_t)({b})' for b in bounds)}}}, "
            f"{where})")


_array_slice.with_where = True  # the renderer passes the call's "file:line" as a C string (a zero step's error)


def _array_from(maker: str):
    def render(args, result: str):
        return f"bw::{maker}<{result}>({args[0]}, {{{', '.join(f'(int64_t)({s})' for s in args[1:])}}})"

    render.with_result_type = True  # the renderer passes the C++ type of the result
    return render


def _fixed_zeros(args, result: str):
    return f"{result}{{}}"


_fixed_zeros.with_result_type = True


#: Views made by slicing arrays in kernels (frontend/array_slices.py), arrays over addresses
#: (frontend/array_pointers.py): not in the builtin table, the frontend makes the calls.
CPU_BUILTINS["array_slice"] = _array_slice
CPU_BUILTINS["array_ptr"] = _fmt("((uint64_t)(uintptr_t)({0}).data)")
# c ? a : b in bit operations, never a branch (a float conditional accumulate, passes/select_branches.py)
CPU_BUILTINS["blend"] = _fmt("bw::blend(bw::truth({0}), {1}, {2})")
CPU_BUILTINS["array_truth"] = _fmt("bw::array_truth({0})")  # an array as a condition (frontend/array_truth.py)
CPU_BUILTINS["array_from_ptr"] = _array_from("array_from_ptr")
CPU_BUILTINS["array_from_global_ptr"] = _array_from("array_from_global_ptr")  # global_array(ptr=...)
# wp.address_of(place) (frontend/addresses.py): the argument renders as the place itself
CPU_BUILTINS["address_of"] = _fmt("((uint64_t)(uintptr_t)&({0}))")
# wp.cast(a, dtype) (frontend/bit_casts.py): a's bytes read as the result type
CPU_BUILTINS["bit_cast"] = lambda args, result: f"bw::bit_cast<{result}>({args[0]})"
CPU_BUILTINS["bit_cast"].with_result_type = True
# fixed-size local arrays (frontend/fixed_arrays.py): zero elements
CPU_BUILTINS["fixed_zeros"] = _fixed_zeros
CPU_BUILTINS["tile_stack_new"] = _fixed_zeros  # an empty tile stack (frontend/tile_stacks.py)
# a component index computed at run time (frontend/expressions.py); checked in debug mode (check_bounds)
CPU_BUILTINS["component_index"] = _fmt("bw::component_index({0}, {1})")
CPU_BUILTINS["component_index_checked"] = lambda args, where: \
    f"bw::component_index_checked({args[0]}, {args[1]}, {where})"
CPU_BUILTINS["component_index_checked"].with_where = True

# tile_fft's twiddle m of a table of `count` for `n` points and `sign` (frontend/tile_fft.py): constants
CPU_BUILTINS["fft_twiddle"] = lambda args, result: \
    f"bw::fft_twiddle<{result}, {args[1]}, {args[2]}, {args[3]}>({args[0]})"
CPU_BUILTINS["fft_twiddle"].with_result_type = True

#: Builtins implemented in a header of their own, included only by units that call them (every
#: kernel compiles brickwork.h, so big families stay out of it).
CPU_HEADERS = {name: "brickwork_decompositions.h" for name in OUTPUT_ARGUMENTS}
CPU_HEADERS.update({packed: "brickwork_decompositions.h" for packed, _, _ in PACKED.values()})
CPU_HEADERS.update({name: "brickwork_distributions.h" for name in ("poisson", "sample_cdf", "lower_bound")})
CPU_HEADERS.update({name: "brickwork_noise.h" for name in ("noise", "pnoise", "curlnoise", "noise_grad", "pnoise_grad",
                                                          "curlnoise_vjp")})
CPU_HEADERS.update({name: "brickwork_geometry.h" for name in ("closest_point_edge_edge", "intersect_tri_tri")})
CPU_HEADERS.update({name: "brickwork_hash_grid.h" for name in ("hash_grid_query", "hash_grid_query_next",
                                                              "hash_grid_point_id")})
CPU_HEADERS.update({name: "brickwork_bvh.h" for name in BVH_NAMES})
CPU_HEADERS.update({name: "brickwork_mesh_arrays.h" for name in MESH_ARRAY_NAMES})
CPU_HEADERS.update({name: "brickwork_tile_queries.h" for name in TILE_QUERY_NAMES})
CPU_HEADERS.update({name: "brickwork_tile_stack.h" for name in (*TILE_STACK_NAMES, "tile_stack_new")})
CPU_HEADERS.update({name: "brickwork_volume.h" for name in (*VOLUME_NAMES, *VOLUME_INTERNAL)})
CPU_HEADERS.update({name: "brickwork_texture.h" for name in TEXTURE_INTERNAL})
CPU_HEADERS["fft_twiddle"] = "brickwork_tile_fft.h"


def _struct_result(name: str):
    def spell(args, result: str):
        return f"bw::{name}<{result}>({', '.join(args)})"

    spell.with_result_type = True  # the C++ template fills the struct the unit declares
    return spell


CPU_BUILTINS.update({name: _struct_result(name) for name in BVH_STRUCT_RESULTS})
