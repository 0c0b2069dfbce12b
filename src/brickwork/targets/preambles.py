"""A module's ``wp.ModuleBuildOptions`` (brickwork.lang.build_options) in its kernels' translation units: the
preamble of the target before the generated code, and a line naming the include directories."""

from __future__ import annotations

#: The line of every target's translation unit that opens the generated code (after its #include lines).
_CODE_OPENS = "namespace {"
_CALLABLE = {"cuda": "__host__ __device__"}  # what Warp's CUDA_CALLABLE means per target (others: nothing)


def kernel_build_inputs(kernel, target_name: str) -> tuple[str, tuple]:
    """The preamble and include directories ``kernel``'s module adds to its build on ``target_name``."""
    inputs = getattr(getattr(kernel, "module", None), "build_inputs", None)
    return ("", ()) if inputs is None else inputs.for_target(target_name)


def with_preamble(text: str, preamble: str, include_dirs: tuple, target_name: str) -> str:
    """The translation unit ``text`` with ``preamble`` before its generated code (and a line naming the include
    directories: units built with other directories are then different sources)."""
    if not (preamble or include_dirs):
        return text
    block = [f"// module build options: include directories {list(include_dirs)!r}" if include_dirs else "",
             "#ifndef CUDA_CALLABLE", f"#define CUDA_CALLABLE {_CALLABLE.get(target_name, '')}".rstrip(), "#endif",
             preamble.rstrip("\n")]
    at = text.index(f"\n{_CODE_OPENS}\n") + 1
    return text[:at] + "\n".join(line for line in block if line) + "\n" + text[at:]
