"""Sharing memory with other array libraries: ``torch.py`` for PyTorch (``wp.from_torch``, ``wp.to_torch`` and the
device, dtype and stream conversions), ``jax.py`` for JAX (``wp.from_jax``, ``wp.to_jax``, ...) with ``jax_ops.py``
(``wp.jax_kernel``, ``wp.jax_callable``: kernels as JAX operations through XLA's FFI, ``jax_ffi.py``). The
libraries themselves are imported by the functions that use them, never by ``import brickwork``. DLPack and
``__cuda_array_interface__``, which every library speaks, live with the arrays (``types/dlpack_*.py``,
``types/device_import.py``); these modules add each library's own conventions. ``optional.py`` imports the
libraries for the functions that need them.
"""
