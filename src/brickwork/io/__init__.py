"""Outputs of brickwork applications: HDF5 + XDMF (``hdf5``), PNG snapshots (``png``), history
files (``history``) and restart files (``restart``). Each module is independent of the physics:
it takes arrays and the geometry of the blocks."""
