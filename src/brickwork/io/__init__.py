"""Outputs of brickwork applications: HDF5 + XDMF (``hdf5``), VTK images of blocks and multiblock files
(``vtk``), PNG snapshots (``png``), history files (``history``), restart files (``restart``) and surfaces as
VTK PolyData (``surface.write_vtp``); ``read_output`` reads an HDF5 or VTK output back as arrays over the
whole mesh.
Each module is independent of the physics: it takes arrays and the geometry of the blocks. Every writer
goes through ``files.staged`` or reports through ``files.output_error``: a file that cannot be written
(a full disk) raises ``files.OutputError`` naming it, and no temporary file is left behind."""

from .read_output import Output, read_output

__all__ = ["Output", "read_output"]
