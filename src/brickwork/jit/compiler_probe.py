"""Running the C++ compiler to learn about it, and reading what a failed run says: its version, the macros
``-march=native`` predefines (the target it resolves to, the tuning flags, whether it is g++), whether
``-fopenmp`` works, and whether a failure was the machine's or the assembler's.

Only a process that runs the compiler loads this module: the warm path (``toolchain.identity``) reads what
these probes found from the note ``toolchain._facts`` keeps in the cache root.
"""

from __future__ import annotations

import hashlib
import os

from .toolchain import _INSTALL_HINT, CompilerUnavailableError


def compiler_version(cxx: str) -> str:
    """The first line of ``cxx --version`` (part of the compile settings)."""
    import subprocess

    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        raise CompilerUnavailableError(f"cannot run the C++ compiler {cxx}: {e}. {_INSTALL_HINT}") from None
    return out.stdout.splitlines()[0].strip() if out.stdout else "unknown"


# -- failures that are the machine's, not the code's ------------------------------------------

_ENVIRONMENT_MESSAGES = (
    "no space left on device", "disk quota exceeded", "read-only file system", "cannot create temporary file",
    "permission denied", "input/output error", "too many open files", "out of memory", "cannot allocate memory",
    "virtual memory exhausted", "killed signal", "resource temporarily unavailable",
)


def assembler_fallback(stderr: str) -> tuple[str, ...]:
    """Flags with which a unit the assembler rejected may build: ``-mno-avx512fp16`` when it rejected an
    AVX512-FP16 instruction, else ().

    g++ 12 with AVX512-FP16 (``-march=native`` on Sapphire Rapids and later) stores a selected
    ``_Float16`` with a zero-masked ``vmovsh``, an encoding that does not exist, which binutils rejects
    ("Error: unsupported masking for `vmovsh'"). Without the extension g++ converts each half through
    float (about 3x slower for a float16 loop), so only such a unit is built without it (``jit.compile``);
    float32 and float64 code uses no FP16 instruction either way."""
    for line in stderr.splitlines():
        if "Error:" in line and line.count("`") == 1:
            name = line.rpartition("`")[2].partition("'")[0]
            if name == "vmovw" or (name.startswith("v") and name.endswith(("sh", "ph"))):
                return ("-mno-avx512fp16",)
    return ()


def environment_cause(returncode: int, stderr: str) -> str | None:
    """Why a compiler run failed when the cause is the machine (disk full, read-only file system,
    no memory, killed), as the compiler's own line; None when the compiler rejected the code."""
    for line in stderr.splitlines():
        low = line.lower()
        if any(m in low for m in _ENVIRONMENT_MESSAGES):
            return line.strip()
    if returncode < 0:
        return f"the compiler was killed by signal {-returncode}"
    return None


# -- what -march=native means on this machine ---------------------------------------------------


def predefined_macros(cxx: str, arch: str) -> list[str] | None:
    """The ``#define`` lines ``cxx arch`` (``-march=native``) predefines, sorted; None if the compiler
    cannot tell."""
    import subprocess

    try:
        out = subprocess.run([cxx, arch, "-dM", "-E", "-x", "c++", os.devnull], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    macros = sorted(line.strip() for line in out.stdout.splitlines() if line.startswith("#define "))
    return macros if out.returncode == 0 and macros else None


def resolve_target(macros: list[str]) -> str:
    """What ``-march=native`` compiles for here: the hash of the macros the compiler predefines with
    it (``__AVX512F__``, ``__ARM_FEATURE_SVE``, ``__tune_znver4__``, ...), which name every
    instruction-set extension it may use, prefixed by the tuned-for CPU when the compiler says it.
    Works the same for gcc and clang."""
    tune = [m.split()[1][len("__tune_"):-2] for m in macros if m.split()[1].startswith("__tune_")]
    digest = hashlib.sha256("\n".join(macros).encode()).hexdigest()[:16]
    return f"{tune[0]}/{digest}" if tune else digest


def _macro_values(macros: list[str]) -> dict:
    return {m.split()[1]: (m.split() + [""])[2] for m in macros}


def is_gnu(macros: list[str]) -> bool:
    """Whether the compiler is g++ (clang++ also defines ``__GNUC__``, and ``__clang__``). g++ reads a
    precompiled ``brickwork.h.gch`` in place of the header (``jit.pch``); clang++ does not."""
    values = _macro_values(macros)
    return "__clang__" not in values and values.get("__GNUC__", "").isdigit()


def tuning_flags(macros: list[str]) -> tuple[str, ...]:
    """Flags for g++ (not clang) on this CPU, read from its predefined macros.

    - ``-mprefer-vector-width=512`` with AVX-512: g++ tunes these CPUs to 256-bit vectors, and the
      kernels' loops are compute-heavy (Riemann solvers, reconstructions): the full width ran the
      hydro flux kernels 1.2x faster (in-process A/B). The same arithmetic per lane; only simd
      reductions combine their partial sums in another order. A flag, not ``#pragma GCC target``
      in the unit: the pragma made g++ re-process every function of the headers under new target
      options, 0.13 s of every compile, for the same machine code.
    - ``--param sccvn-max-alias-queries-per-access=100`` (default 1000): in straight-line code of
      thousands of loads and stores (the adjoint of a 3x3 SVD inlined into a kernel) value numbering
      walks the alias chains of every access; capped, such a kernel compiles twice as fast (15 s to
      7 s). Loops of ordinary kernels make far fewer queries, and compile to the same instructions.
    """
    values = _macro_values(macros)
    if not is_gnu(macros) or int(values["__GNUC__"]) < 8:
        return ()  # both flags exist from g++ 8 on
    flags = ("--param", "sccvn-max-alias-queries-per-access=100")
    return ("-mprefer-vector-width=512", *flags) if "__AVX512F__" in values else flags


# -- OpenMP ---------------------------------------------------------------------------------------

_OPENMP_PROBE = "#include <omp.h>\nextern \"C\" int probe() { return omp_get_max_threads(); }\n"
_CONTROL_PROBE = "extern \"C\" int probe() { return 1; }\n"


def probe_openmp(cxx: str) -> bool | None:
    """Whether ``cxx -fopenmp`` builds a shared library: True, False (the compiler lacks OpenMP),
    or None when the probe itself could not run (temporary directory full or unwritable, compiler
    killed): such a failure says nothing about the compiler and must not be remembered.

    A failed OpenMP build counts as "no OpenMP" only if the same build without ``-fopenmp``
    succeeds in the same place."""
    import subprocess
    import tempfile

    def attempt(tmp: str, name: str, text: str, flags: list) -> tuple[int, str]:
        src = os.path.join(tmp, name + ".cpp")
        with open(src, "w") as f:
            f.write(text)
        proc = subprocess.run([cxx, *flags, "-shared", "-fPIC", src, "-o", os.path.join(tmp, name + ".so")],
                              capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stderr

    try:
        with tempfile.TemporaryDirectory(prefix="brickwork-probe-") as tmp:
            rc, err = attempt(tmp, "openmp", _OPENMP_PROBE, ["-fopenmp"])
            if rc == 0:
                return True
            if environment_cause(rc, err) is not None:
                return None
            rc, err = attempt(tmp, "control", _CONTROL_PROBE, [])
            return False if rc == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None
