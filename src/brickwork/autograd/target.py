"""One evaluation of what a Jacobian is taken of: a kernel launch or a call of a Python function."""

from __future__ import annotations

from ..lang.kernel import Kernel
from ..runtime.launch import launch
from ..types.arrays import array
from .metadata import FunctionMetadata, check_backward, function_metadata, kernel_metadata

OUTPUTS_REQUIRED = "A list of output arguments must be provided to compute kernel Jacobians"


class Target:
    """A kernel with its launch arguments, or a Python function with its inputs (it returns its outputs)."""

    def __init__(self, caller: str, function, dim, inputs, outputs, device, max_blocks, block_dim):
        if inputs is None or not isinstance(inputs, (list, tuple)):
            raise TypeError(f"{caller}(): inputs must be a list of the input arguments, got "
                            f"{type(inputs).__name__}")
        self.caller, self.function, self.inputs = caller, function, list(inputs)
        self.is_kernel = isinstance(function, Kernel)
        if self.is_kernel:
            if outputs is None:
                raise ValueError(OUTPUTS_REQUIRED)
            if dim is None:
                raise TypeError(f"{caller}(): dim (the launch dimensions) is required for kernel "
                                f"'{function.key}'")
            self.outputs = list(outputs)
            kernel_metadata(function, self.inputs, self.outputs)  # checks the argument count
        elif callable(function):
            self.outputs = None  # known after a call
        else:
            raise TypeError(f"{caller}(): function must be a kernel or a Python function, got "
                            f"{type(function).__name__}")
        self.dim = dim
        self.device = device if device is not None else next(
            (a.device for a in self.inputs if isinstance(a, array)), None)
        self.launch_options = {"max_blocks": max_blocks, "block_dim": block_dim}

    def check_backward(self, launches=()) -> None:
        """Raise ValueError when the kernel, or a kernel the function launched, has no backward pass."""
        kernels = [self.function] if self.is_kernel else [e[0] for e in launches if not callable(e)]
        for kernel in kernels:
            check_backward(kernel)

    def run(self) -> list:
        """Evaluate once; returns the output arrays."""
        if self.is_kernel:
            launch(self.function, self.dim, inputs=self.inputs, outputs=self.outputs, device=self.device,
                   **self.launch_options)
            return self.outputs
        result = self.function(*self.inputs)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        bad = [type(o).__name__ for o in outputs if not isinstance(o, array)]
        if bad:
            name = getattr(self.function, "__name__", "function")
            raise TypeError(f"{self.caller}(): {name} must return an array or a tuple of arrays (its outputs), "
                            f"got {type(result).__name__}" + (f" holding {bad[0]}" if result is not None and
                                                               isinstance(result, (tuple, list)) else ""))
        self.outputs = outputs
        return outputs

    def metadata(self, given: FunctionMetadata | None = None) -> FunctionMetadata:
        if given is not None:
            return given
        if self.is_kernel:
            return kernel_metadata(self.function, self.inputs, self.outputs)
        return function_metadata(self.function, self.inputs, self.outputs)
