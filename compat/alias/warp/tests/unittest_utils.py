"""The helpers Warp's test files import from ``warp.tests.unittest_utils``, written for brickwork on the CPU.

Tests are registered for the CPU device only; CUDA device lists are empty, so CUDA-only tests are
skipped. ``CheckOutput`` fails a test that writes to stdout (at the file-descriptor level, so output of
compiled kernels counts), as Warp's does: a failed ``wp.expect_eq`` in a kernel prints and so fails.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import unittest  # noqa: F401 - Warp's module imports it, and test files take it from the star import

import numpy as np

import warp as wp

USD_AVAILABLE = False
test_mode = "basic"
coverage_enabled = False
coverage_temp_dir = None
coverage_branch = None

try:
    _LIBC = ctypes.CDLL(None)
except OSError:  # pragma: no cover - platforms without a loadable libc
    _LIBC = None


def get_test_devices(mode: str | None = None):
    return [wp.get_device("cpu")]


get_cpu_test_devices = get_test_devices


def _no_devices(*args, **kwargs):
    return []


get_cuda_test_devices = get_selected_cuda_test_devices = _no_devices
get_test_devices_with_graph_capture_allocation = get_test_devices_with_cuda_graph_module_load = _no_devices
get_test_devices_with_graph_capture_allocation_and_cuda_graph_module_load = _no_devices
get_cuda_test_devices_with_mempool = get_selected_cuda_test_devices_with_mempool = _no_devices


def get_cuda_device_pair_with_peer_access_support(devices=None):
    return None


get_cuda_device_pair_with_mempool_access_support = get_cuda_device_pair_with_peer_access_support


def is_cuda_graph_module_load_supported(device) -> bool:
    return False


@contextlib.contextmanager
def suppress_native_error_output():
    yield


def make_isolated_kernel(func, **kwargs):
    """A kernel of its own module, keyed on where ``func`` is defined."""
    key = f"{func.__module__}.{func.__qualname__}:{func.__code__.co_firstlineno}"
    return wp.Kernel(func=func, module=wp.get_module(key), **kwargs)


class StreamCapture:
    """Capture a standard stream at the file-descriptor level (output of compiled code included)."""

    def __init__(self, stream_name: str):
        self.stream_name = stream_name

    def begin(self):
        if _LIBC is not None:
            _LIBC.fflush(None)
        self.saved = getattr(sys, self.stream_name)
        self.saved.flush()
        self.fd = self.saved.fileno()
        self.saved_fd = os.dup(self.fd)
        self.file = tempfile.TemporaryFile()
        os.dup2(self.file.fileno(), self.fd)

    def end(self) -> str:
        self.saved.flush()
        if _LIBC is not None:
            _LIBC.fflush(None)
        os.dup2(self.saved_fd, self.fd)
        os.close(self.saved_fd)
        self.file.seek(0)
        text = self.file.read().decode("utf-8", errors="replace")
        self.file.close()
        return text


class StdOutCapture(StreamCapture):
    def __init__(self):
        super().__init__("stdout")


class StdErrCapture(StreamCapture):
    def __init__(self):
        super().__init__("stderr")


class CheckOutput:
    """Fail the test when it writes anything to stdout."""

    def __init__(self, test):
        self.test = test

    def __enter__(self):
        self.capture = StdOutCapture()
        self.capture.begin()

    def __exit__(self, exc_type, exc_value, traceback):
        text = self.capture.end()
        if text:
            print(text.rstrip())
        if exc_type is None and text.strip():
            self.test.fail(f"Unexpected output:\n'{text.rstrip()}'")


def assert_array_equal(result, expect):
    np.testing.assert_equal(result.numpy(), expect.numpy())


def assert_np_equal(result, expect, tol=0.0):
    if tol != 0.0:
        np.testing.assert_allclose(np.asarray(result).flatten(), np.asarray(expect).flatten(), atol=tol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(result, expect)


def run_python_subprocess(source: str, *args: str, timeout: float = 60, env=None, env_updates=None, **kwargs):
    """Run ``source`` in a fresh interpreter that sees the same alias package; return the completed process."""
    full_env = dict(os.environ, **(env or {}), **(env_updates or {}))
    return subprocess.run([sys.executable, "-c", source, *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env)


_ISOLATED_TEST = "WARP_ISOLATED_TEST_ID"


def run_test_in_subprocess(test, *, timeout: float = 600, env_updates=None, **kwargs) -> bool:
    """Run ``test`` again in a child interpreter: True in the parent (after the child passed; a failing child
    fails the test), False in the child, which then runs the test's body."""
    if os.environ.get(_ISOLATED_TEST) == test.id():
        return False
    result = run_python_subprocess("import unittest; unittest.main(module=None)", test.id(), timeout=timeout,
                                   env_updates={**(env_updates or {}), _ISOLATED_TEST: test.id()})
    if result.returncode != 0:
        test.fail(f"{test.id()} failed in a child interpreter:\n{result.stdout}\n{result.stderr}")
    return True


def sanitize_identifier(s) -> str:
    s = str(s)
    return s if s.isidentifier() else re.sub(r"\W|^(?=\d)", "_", s)


def _make_test(func, device, check_output, device_check=None, enable_cpu_blocks=False, **kwargs):
    # enable_cpu_blocks: the variant of a test for Warp's opt-in CPU blocks of block_dim lanes, which brickwork does
    # not have (its CPU block is one thread): skipped, and not counted, like a CUDA-only test
    def test(self):
        if enable_cpu_blocks:
            self.skipTest("Warp's CPU blocks of block_dim lanes (wp.config.enable_cpu_blocks); brickwork's is one "
                          "thread")
        if device_check is not None:
            device_check(self, device)
        if check_output:
            with CheckOutput(self):
                func(self, device, **kwargs)
        else:
            func(self, device, **kwargs)

    test.__name__ = getattr(func, "__name__", "test")
    test.__doc__ = getattr(func, "__doc__", None)
    return test


def _skip_no_device(self):
    self.skipTest("No suitable devices to run the test (CUDA-only).")


def add_function_test(cls, name, func, devices=None, check_output=True, device_check=None, **kwargs):
    if devices is None:
        setattr(cls, name, _make_test(func, None, check_output, device_check, **kwargs))
        return
    if not isinstance(devices, list):
        devices = [devices]
    if not devices:
        setattr(cls, name, _skip_no_device)
    for device in devices:
        setattr(cls, f"{name}_{sanitize_identifier(device)}",
                _make_test(func, device, check_output, device_check, **kwargs))


def add_function_test_register_kernel(cls, name, func, devices=None, **kwargs):
    func(None, None, **kwargs, register_kernels=True)
    add_function_test(cls, name, func, devices=devices, **kwargs)


def add_kernel_test(cls, kernel, dim, name=None, expect=None, inputs=None, devices=None, inputs_factory=None):
    if inputs is not None and inputs_factory is not None:
        raise ValueError("Only one of `inputs` and `inputs_factory` may be provided.")

    def run(self, device):
        args = list(inputs_factory(device) if inputs_factory is not None else (inputs or []))
        if expect:
            result = wp.array(expect, dtype=int, device=device)
            output = wp.zeros_like(result)
            args.append(output)
        with CheckOutput(self):
            wp.launch(kernel, dim=dim, inputs=args, device=device)
        if expect:
            assert_array_equal(output, result)

    name = name if name is not None else kernel.key
    for device in devices if devices is not None else get_test_devices():
        setattr(cls, f"{name}_{sanitize_identifier(device)}", lambda self, d=device: run(self, d))
