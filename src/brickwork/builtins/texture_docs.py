"""Signature and docstring of ``texture_sample`` (``texture``), merged into ``docs.BUILTIN_DOCS``."""

TEXTURE_DOCS = {
    "texture_sample": (
        "tex, uv, dtype, lod=-1.0",
        "The value of the texture ``tex`` (a ``Texture1D``, ``Texture2D`` or ``Texture3D``) at ``uv``: one float32 "
        "for a 1D texture, a vec2f (or ``u, v``) for a 2D one, a vec3f (or ``u, v, w``) for a 3D one, normalized "
        "(texel ``i`` of a level of extent ``n`` centred at ``(i + 0.5) / n``) or in texels, as the texture was "
        "made. ``dtype`` (float, vec2f or vec4f) says how many channels are read (those past the texture's read "
        "zero). Filtering and addressing are the texture's (``TextureFilterMode``, ``TextureAddressMode``). A "
        "negative ``lod`` reads level 0; otherwise it is clamped to the mip chain, and a LINEAR mip filter blends "
        "the two levels around it. 8- and 16-bit integer texels read normalized (unsigned to [0, 1], signed to "
        "[-1, 1]), others as float32. Differentiable in the coordinates (LINEAR filtering) and in ``lod`` (a "
        "LINEAR mip filter, an unclamped lod), as Warp's; no gradient reaches the texels. Software sampling on "
        "every device: Warp 1.19's CPU values, on CUDA devices too."),
}
