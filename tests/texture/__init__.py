"""Tests of textures (wp.Texture1D/2D/3D and texture_sample)."""
