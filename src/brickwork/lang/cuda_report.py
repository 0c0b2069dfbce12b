"""``Kernel.cuda_resources``: the registers, spills, stack and shared memory of a kernel's CUDA instance.

The instance is built for the CUDA target (NVRTC, or the kernel cache) as a launch on a device of ``arch`` would
build it; no GPU is needed. The numbers are ptxas's report of that build (``targets/cuda/resources.py``).
"""

from __future__ import annotations


def cuda_resources(kernel, arg_types=None, arch: str | None = None) -> dict:
    """Entry name -> ``KernelResources`` of ``kernel``'s CUDA instance for ``arg_types`` (None: its annotations)
    on ``arch`` (None: ``BRICKWORK_CUDA_ARCH``, else sm_90): ``"bw_entry"``, and for a kernel whose scratch
    arena may not fit in shared memory, ``"bw_entry_global"`` too."""
    import re

    from .. import config
    from ..targets.cuda import cuda_target
    from ..targets.cuda.arch import DEFAULT_ARCH
    from .instance import build_instances

    arch = arch or config.cuda_arch or DEFAULT_ARCH
    if not isinstance(arch, str) or not re.fullmatch(r"sm_\d+[a-z]?", arch):
        raise ValueError(f"cuda_resources of kernel '{kernel.key}': arch {arch!r} is not of the form sm_XX "
                         f"(e.g. sm_90)")
    if arg_types is None:
        arg_types = kernel.concrete_types()
    arg_types = tuple(arg_types)
    kernel.check_concrete(arg_types, f"cuda_resources of kernel '{kernel.key}'")
    inst = kernel.get_instance(arg_types, cuda_target(arch))
    if inst.fn is None:
        if inst.error is None:
            build_instances([inst])  # this instance alone: not its module's companions, as a launch would
        if inst.error is not None:
            raise inst.error
    return dict(inst.fn.resources)
