"""Signatures and docstrings of the volume builtins (``volume``), merged into ``docs.BUILTIN_DOCS``."""

_SAMPLE = ("Points are in index space (voxel coordinates, fractional allowed); ``sampling_mode`` is "
           "``wp.Volume.CLOSEST`` (the nearest voxel, halves rounded away from zero) or ``wp.Volume.LINEAR`` "
           "(trilinear over the 8 voxels around the point). A voxel without a leaf reads the value of the tile "
           "covering it, or the background. Zero when the grid holds another type or the id is 0.")

VOLUME_DOCS = {
    "volume_sample": ("id, uvw, sampling_mode, dtype",
                      "The value of type ``dtype`` (int32, int64, uint32, float32, float64, vec3f, vec3d, vec4f or "
                      "vec4d) of the volume ``id`` at ``uvw``. " + _SAMPLE + " Differentiable in ``uvw`` for LINEAR."),
    "volume_sample_f": ("id, uvw, sampling_mode",
                        "The float32 value of the volume ``id`` at ``uvw``. " + _SAMPLE),
    "volume_sample_v": ("id, uvw, sampling_mode",
                        "The vec3f value of the volume ``id`` at ``uvw``. " + _SAMPLE),
    "volume_sample_i": ("id, uvw", "The int32 value of the voxel nearest ``uvw`` of the int32 volume ``id``."),
    "volume_sample_grad": ("id, uvw, sampling_mode, grad, dtype",
                           "As ``volume_sample``, and writes the gradient with respect to ``uvw`` into the variable "
                           "``grad`` (vec3 of the scalar for a scalar ``dtype``, the N x 3 Jacobian for an "
                           "N-vector; zero for CLOSEST)."),
    "volume_sample_grad_f": ("id, uvw, sampling_mode, grad",
                             "As ``volume_sample_f``, and writes the vec3f gradient with respect to ``uvw`` into "
                             "the variable ``grad``."),
    "volume_lookup": ("id, i, j, k, dtype",
                      "The value of type ``dtype`` the volume ``id`` holds at voxel ``(i, j, k)`` (a tile's value "
                      "or the background where no leaf holds it)."),
    "volume_lookup_f": ("id, i, j, k", "The float32 value of voxel ``(i, j, k)`` of the volume ``id``."),
    "volume_lookup_v": ("id, i, j, k", "The vec3f value of voxel ``(i, j, k)`` of the volume ``id``."),
    "volume_lookup_i": ("id, i, j, k", "The int32 value of voxel ``(i, j, k)`` of the volume ``id``."),
    "volume_lookup_index": ("id, i, j, k",
                            "The position (0-based) of voxel ``(i, j, k)`` in the arrays of values of the volume "
                            "``id``, or -1 where it has none."),
    "volume_store": ("id, i, j, k, value",
                     "Stores ``value`` (the grid's value type) at voxel ``(i, j, k)`` when a leaf holds it; "
                     "nothing otherwise (tiles and the background are never written)."),
    "volume_store_f": ("id, i, j, k, value", "``volume_store`` of a float32 value."),
    "volume_store_v": ("id, i, j, k, value", "``volume_store`` of a vec3f value."),
    "volume_store_i": ("id, i, j, k, value", "``volume_store`` of an int32 value."),
    "volume_sample_index": ("id, uvw, sampling_mode, voxel_data, background",
                            "Samples values kept in the array ``voxel_data`` (one per voxel, by "
                            "``volume_lookup_index``) at ``uvw``, ``background`` where a voxel has none. "
                            + _SAMPLE.split(";")[0] + ". Differentiable in ``uvw`` and ``background``."),
    "volume_sample_grad_index": ("id, uvw, sampling_mode, voxel_data, background, grad",
                                 "As ``volume_sample_index``, and writes the gradient with respect to ``uvw`` into "
                                 "the variable ``grad``."),
    "volume_voxel_count": ("id",
                           "The number of voxels the volume indexes (an OnIndex grid's active voxels, otherwise "
                           "512 per leaf), at most 2**31 - 1."),
    "volume_index_to_world": ("id, uvw", "The world position of index-space point ``uvw`` (vec3f or vec3d)."),
    "volume_world_to_index": ("id, xyz", "The index-space point of world position ``xyz`` (vec3f or vec3d)."),
    "volume_index_to_world_dir": ("id, uvw", "The index-to-world map's linear part applied to direction ``uvw``."),
    "volume_world_to_index_dir": ("id, xyz", "The world-to-index map's linear part applied to direction ``xyz``."),
}
