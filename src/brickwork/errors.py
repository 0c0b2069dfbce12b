"""Exceptions a user can cause, each pointing at the kernel source when there is one."""

from __future__ import annotations


class BrickworkError(Exception):
    """Base class of every error brickwork raises on purpose."""


class SourceLocation:
    """File, line and source text of a node in a user's kernel or function."""

    __slots__ = ("filename", "lineno", "line", "func_name")

    def __init__(self, filename: str, lineno: int, line: str, func_name: str):
        self.filename = filename
        self.lineno = lineno
        self.line = line
        self.func_name = func_name

    def __str__(self) -> str:
        return f'  File "{self.filename}", line {self.lineno}, in {self.func_name}\n    {self.line.strip()}'


class KernelError(BrickworkError):
    """An error in kernel or function code, raised at JIT time with the user's file and line."""

    def __init__(self, message: str, location: SourceLocation | None = None):
        self.message = message
        self.location = location
        # the location first and the message last, as in Warp (whose tests match the message up to the end)
        text = message if location is None else f"{str(location).lstrip()}\n{message}"
        super().__init__(text)


class KernelTypeError(KernelError, TypeError):
    """A typing rule of the kernel language is violated (operand types, stores, variables)."""


class KernelUnsupportedTypeError(KernelTypeError, RuntimeError):
    """An operation the kernel language defines only for some types (atomics on 8- and 16-bit integers,
    ``expect_eq`` of two different types): a ``KernelTypeError``, and a ``RuntimeError`` as Warp raises."""


class KernelIndexError(KernelTypeError, IndexError):
    """A constant component index outside a vector or matrix (``v[3]`` of a ``vec3``): a ``KernelTypeError``, and
    an ``IndexError``, the kind Warp's ``WarpCodegenIndexError`` names."""


class DeterminismError(BrickworkError, RuntimeError):
    """A kernel of a deterministic module (option ``deterministic``) cannot be run, or differentiated,
    in a reproducible way (Warp's ``WarpDeterminismError``; a ``RuntimeError`` as there)."""


class KernelSyntaxError(KernelError, SyntaxError):
    """A Python construct the kernel language does not support."""

    def __str__(self) -> str:  # SyntaxError's own __str__ would hide the location
        return self.args[0] if self.args else self.message


class KernelValueError(KernelError, ValueError):
    """A constant in a kernel has a value the construct cannot take (a slice step of zero)."""


class KernelNameError(KernelError, NameError):
    """A name used in a kernel cannot be resolved, or an attribute does not exist."""


class KernelUndefinedNameError(KernelNameError, KeyError):
    """A name in a kernel that is neither a local, a global, a closure variable nor a kernel-language name:
    a ``NameError``, and a ``KeyError`` as Warp raises ("Referencing undefined symbol: ...")."""

    def __str__(self) -> str:  # KeyError's own __str__ would show the message's repr
        return self.args[0] if self.args else self.message


class KernelUnsupportedSyntaxError(KernelSyntaxError, RuntimeError):
    """A Python construct the kernel language does not have (list and dict displays): a ``SyntaxError``, and a
    ``RuntimeError`` as Warp raises."""


class AmbiguousOverloadError(KernelError, RuntimeError):
    """An ``@overload`` stub names kernels that one function defines under several names: it cannot choose."""


class StructDefinitionError(BrickworkError, TypeError, RuntimeError):
    """A ``@struct`` class that cannot be a struct (it derives from another class): a ``TypeError``, and a
    ``RuntimeError`` as Warp raises."""


class LaunchError(BrickworkError, TypeError):
    """Arguments given to ``launch`` do not fit the kernel (count, type, dtype, ndim)."""


class KernelCallError(LaunchError, NotImplementedError):
    """A kernel called as a Python function (``k(a, b)``): Warp raises NotImplementedError, and brickwork's
    earlier releases Python's TypeError (``'Kernel' object is not callable``); this is both."""


class LaunchArgumentError(LaunchError, RuntimeError, ValueError):
    """A launch argument Warp refuses with a RuntimeError or ValueError rather than a TypeError: one number
    for a vector or matrix parameter, ``None`` for a vector, matrix or struct parameter."""


class CopyError(BrickworkError, ValueError, RuntimeError):
    """``wp.copy`` arguments that do not fit (offsets, count, shapes): a ``ValueError``, and a
    ``RuntimeError`` as Warp raises."""


class CopyTypeError(BrickworkError, TypeError, RuntimeError):
    """``wp.copy`` between arrays of different dtypes: a ``TypeError``, and a ``RuntimeError`` as Warp
    raises."""


class ToolchainError(BrickworkError, RuntimeError):
    """No usable C++ compiler, or the compiler failed on generated code."""


class BoundsError(BrickworkError, IndexError):
    """Debug mode (``config.mode = "debug"``): a kernel indexed an array, pack or scratch out of bounds;
    the message names the kernel, the access's file and line, the index and the shape."""


class SliceStepError(BrickworkError, ValueError):
    """A kernel sliced an array with a step that was zero at run time (``a[::s]``, ``s == 0``), as Python's
    ``ValueError``; the message names the kernel and the slice's file and line. The view was empty."""


class CaptureError(BrickworkError, RuntimeError):
    """Graph capture used out of order (end without begin, nested begin)."""


class KernelAttributeError(KernelError, AttributeError):
    """An attribute used in a kernel does not exist on the value's type."""


class KernelNotDifferentiableError(KernelError):
    """A backward (adjoint) kernel was requested for code that has no adjoint: a builtin without an
    adjoint rule, or a construct the adjoint pass does not differentiate; the message names it."""


class TargetUnsupportedError(KernelError, NotImplementedError):
    """A valid kernel that the chosen target cannot compile yet (the CPU can)."""


class DeviceUnavailableError(BrickworkError, RuntimeError):
    """The device named (``"cuda:0"``) does not exist here: no driver, no GPU, or an index too high."""
