"""``assert`` in kernels: checked in debug mode (a failure prints the statement and aborts the process),
compiled to nothing in release mode."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import brickwork as wp
from brickwork.pipeline import generate

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


@wp.func
def must_be_one(value: int):
    assert value == 1, "value must be 1"


@wp.kernel
def checks(a: wp.array(dtype=int)):
    i = wp.tid()
    assert a[i] > 0 and a[i] < 2
    must_be_one(a[i])


def test_release_mode_skips_asserts():
    a = wp.zeros(3, dtype=int)
    with wp.config.override(mode="release"):
        wp.launch(checks, 3, inputs=[a])  # would fail in debug mode
    text, _ = generate(checks, checks.concrete_types(), "checks", mode="release")
    assert "Assertion failed" not in text


def test_debug_mode_passing_asserts_run():
    a = wp.ones(3, dtype=int)
    with wp.config.override(mode="debug"):
        wp.launch(checks, 3, inputs=[a])
    text, _ = generate(checks, checks.concrete_types(), "checks", mode="debug")
    assert text.count("Assertion failed") == 2



@pytest.mark.parametrize("value, line", [(3, "assert a[i] > 0 and a[i] < 2"), (0, "assert a[i] != 0")])
def test_failed_assert_aborts_in_debug_mode(tmp_path, value, line):
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent(f"""
        import brickwork as wp

        @wp.kernel
        def k(a: wp.array(dtype=int)):
            i = wp.tid()
            {line}

        wp.config.mode = "debug"
        wp.launch(k, 1, inputs=[wp.full(1, {value}, dtype=int)])
        print("not reached")
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=SRC))
    assert proc.returncode == -signal.SIGABRT
    assert "not reached" not in proc.stdout
    assert f"Assertion failed: '{line}'\nAt '{script}:7'" in proc.stderr


def test_failed_assert_in_a_function_names_its_message(tmp_path):
    script = tmp_path / "f.py"
    script.write_text(textwrap.dedent("""
        import brickwork as wp

        @wp.func
        def one(value: int):
            assert value == 1, "value must be 1"

        @wp.kernel
        def k(a: wp.array(dtype=int)):
            one(a[wp.tid()])

        wp.config.mode = "debug"
        wp.launch(k, 1, inputs=[wp.ones(1, dtype=int)])
        print("passed", flush=True)
        wp.launch(k, 1, inputs=[wp.zeros(1, dtype=int)])
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=SRC))
    assert proc.returncode == -signal.SIGABRT and proc.stdout == "passed\n"
    assert f"""Assertion failed: 'assert value == 1, "value must be 1"'\nAt '{script}:6'""" in proc.stderr


def test_assert_condition_is_typed_in_every_mode():
    @wp.kernel
    def bad(a: wp.array(dtype=wp.vec3)):
        assert a[0]

    with pytest.raises(wp.KernelTypeError, match="a condition must be a bool or a number, got vec3f"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=wp.vec3)])
