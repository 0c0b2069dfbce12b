"""NanoVDB grids on the host: the layout, a builder, a reader that validates, and .nvdb files.

Pure numpy and the standard library; ``wp.Volume`` keeps a grid buffer built or read here and its
kernels walk that buffer.
"""
