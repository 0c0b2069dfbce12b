"""The volume builtins' errors as Warp 1.19's (checked under Warp): an unsupported value type, a gradient
argument of the wrong type (Warp's short names), a background whose type is not voxel_data's, a point or
mode of the wrong type (no overload); and the runtime cases Warp lets through (a sampling mode other than
CLOSEST/LINEAR, a sampler or store whose type is not the grid's) giving what Warp gives."""

import numpy as np
import pytest
from tests.kernel_files import kernel_module

import brickwork as wp

HEAD = """
mat34f = wp.types.matrix(shape=(3, 4), dtype=wp.float32)

@wp.kernel
def k(vid: wp.uint64, data: wp.array(dtype=float), out: wp.array(dtype=float)):
"""

CASES = {
    "sample_dtype": ("out[0] = float(wp.volume_sample(vid, wp.vec3(1.0), wp.Volume.LINEAR, dtype=wp.vec2)[0])",
                     RuntimeError, r"volume_sample\(\): unsupported volume type `vec2f`"),
    "lookup_dtype": ("out[0] = wp.volume_lookup(vid, 1, 2, 2, dtype=wp.float16)",
                     RuntimeError, r"volume_lookup\(\): unsupported volume type `float16`"),
    "store_type": ("wp.volume_store(vid, 1, 2, 2, wp.vec2(1.0, 2.0))", RuntimeError,
                   r"unsupported volume type `vec2f`"),
    "grad_f_type": ("g = wp.vec3d()\n    out[0] = wp.volume_sample_grad_f(vid, wp.vec3(1.0), wp.Volume.LINEAR, g)",
                    RuntimeError, r"Incompatible gradient type, expected vec3f, got vec3d"),
    "grad_transposed": ("g = mat34f()\n    v = wp.volume_sample_grad(vid, wp.vec3(1.0), wp.Volume.LINEAR, g, "
                        "dtype=wp.vec4f)", RuntimeError, r"Incompatible gradient type, expected mat43f, got mat34f"),
    "index_background": ("out[0] = wp.volume_sample_index(vid, wp.vec3(0.5), wp.Volume.LINEAR, data, 1)",
                         RuntimeError, r"the `voxel_data` array and the `background` value must have the same dtype"),
    "mode_type": ("out[0] = wp.volume_sample_f(vid, wp.vec3(1.0), 1.0)", wp.WarpCodegenError,
                  r"volume_sample_f\(\).*sampling mode \(int32\).*float32"),
    "point_type": ("out[0] = wp.volume_sample_f(vid, wp.vec3d(1.0, 2.0, 2.0), 1)", wp.WarpCodegenError,
                   r"volume_sample_f\(\).*index-space point \(vec3f\).*vec3d"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_wrongly_typed_call_is_refused_naming_the_argument(tmp_path, case):
    body, error, message = CASES[case]
    module, _ = kernel_module(tmp_path, HEAD + "    " + body + "\n")
    v = wp.Volume.load_from_numpy(np.zeros((8, 8, 8), np.float32))
    out = wp.full(2, 5.0, dtype=float)
    with pytest.raises(error, match=message):
        wp.launch(module.k, dim=1, inputs=[v.id, wp.zeros(2, dtype=float), out])
    np.testing.assert_array_equal(out.numpy(), 5.0)  # nothing ran


@wp.kernel
def _lenient(vid: wp.uint64, mode: int, out: wp.array(dtype=float)):
    out[0] = wp.volume_sample_f(vid, wp.vec3(1.3, 2.0, 2.0), mode)
    out[1] = float(wp.volume_sample_i(vid, wp.vec3(1.3, 2.0, 2.0)))
    out[2] = float(wp.volume_lookup_i(vid, 1, 2, 2))
    wp.volume_store_i(vid, 1, 2, 2, 7)
    out[3] = wp.volume_lookup_f(vid, 1, 2, 2)


@pytest.mark.parametrize("mode", [5, -1])
def test_what_warp_lets_through_gives_what_warp_gives(mode):
    # an unknown mode samples 0; an int sampler, lookup or store on a float grid reads 0 and writes nothing
    v = wp.Volume.load_from_numpy(np.arange(512, dtype=np.float32).reshape(8, 8, 8), bg_value=-1.0)
    out = wp.full(4, 9.0, dtype=float)
    wp.launch(_lenient, dim=1, inputs=[v.id, mode, out])
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0, 82.0])  # (Warp 1.19's numbers)
