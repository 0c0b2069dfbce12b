"""The IR's verifier catches broken invariants; the printer and BRICKWORK_DUMP show every stage."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from ir_helpers import typed_kernel

import brickwork as wp
from brickwork import ir
from brickwork.types.scalars import float32, int32


@wp.kernel
def axpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def fn_with(body, locals_=None):
    return ir.IRFunction(name="f", params=[("x", float32)], locals=locals_ or {}, body=body, is_kernel=True,
                         label="f")


def test_printer_shows_signature_locals_and_statements():
    text = ir.format_function(typed_kernel(axpy, [float32, wp.array(dtype=float), wp.array(dtype=float)]))
    assert text == textwrap.dedent("""\
        kernel axpy(a: float32, x: array(dtype=float32, ndim=1), y: array(dtype=float32, ndim=1)) grid=1
          locals i: int32
          i = tid(0)
          y[i] = add(mul(a, x[i]), y[i])""")


def test_typed_ir_verifies():
    ir.verify(typed_kernel(axpy, [float32, wp.array(dtype=float), wp.array(dtype=float)]))


@pytest.mark.parametrize("body,locals_,message", [
    ([ir.IRAssign(ir.IRLocal("y", float32), ir.IRLocal("x", float32))], {}, "never declared"),
    ([ir.IRAssign(ir.IRLocal("n", int32), ir.IRLocal("x", float32))], {"n": int32}, "assignment of"),
    ([ir.IRAssign(ir.IRLocal("x", int32), ir.IRConst(1, int32))], {}, "declared"),
    ([ir.IRExitRegion("r")], {}, "outside it"),
    ([ir.IRTeamBarrier(None)], {}, "slice barrier outside an outer body"),
    ([ir.IRExprStmt(ir.IRCall("neg", [ir.IRLocal("x", float32)], float32, impl=str))], {}, "before select_builtins"),
])
def test_verifier_rejects(body, locals_, message):
    with pytest.raises(ir.IRVerifyError, match=message):
        ir.verify(fn_with(body, locals_), after="a test")


class _Pass:
    """A stand-in pass: returns ``out`` (or its input when ``out`` is None)."""

    def __init__(self, name, out=None):
        self.name, self.out = name, out

    def run(self, fn):
        return fn if self.out is None else self.out


def test_run_passes_verifies_the_last_output_and_names_the_first_pass_at_fault():
    from brickwork.passes import run_passes

    good = fn_with([])
    broken = fn_with([ir.IRExitRegion("r")])
    with pytest.raises(ir.IRVerifyError, match="after rewrite: exit of region"):
        run_passes(good, [_Pass("rewrite", broken), _Pass("idle")], verify=True)
    # the error names the first pass whose output is inconsistent, not the last one
    still_broken = fn_with([ir.IRExitRegion("r")])
    with pytest.raises(ir.IRVerifyError, match="after breaks: exit of region"):
        run_passes(good, [_Pass("idle"), _Pass("breaks", broken), _Pass("keeps", still_broken)], verify=True)
    # a pass that hands its input on is not verified again, except the last one
    assert run_passes(broken, [_Pass("idle"), _Pass("rewrite", good)], verify=True) is good
    with pytest.raises(ir.IRVerifyError, match="after last: exit of region"):
        run_passes(broken, [_Pass("first"), _Pass("last")], verify=True)
    assert run_passes(broken, [_Pass("first"), _Pass("last")], verify=False) is broken


def test_verifier_accepts_a_region_exit_inside_its_region():
    ir.verify(fn_with([ir.IRRegion("r", [ir.IRExitRegion("r")])]))


def test_dump_prints_ir_after_typing_and_each_pass_and_the_source(tmp_path):
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent("""\
        import brickwork as wp

        @wp.kernel
        def twice(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] * 2.0

        a = wp.ones(4, dtype=float)
        wp.launch(twice, dim=4, inputs=[a])
        print(a.numpy().tolist())
        """))
    env = dict(os.environ, BRICKWORK_DUMP="ir,passes,source", BRICKWORK_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.path.dirname(os.path.dirname(wp.__file__)))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[2.0, 2.0, 2.0, 2.0]"
    err = proc.stderr
    assert "---- IR of twice after typing ----" in err and "a[i] = mul(a[i], 2.0)" in err
    for name in ("inline_local_functions", "expand_loop_abstraction", "lower_teams", "lower_reductions",
                 "lower_pack_access", "select_builtins"):
        assert f"---- IR of twice after {name} ----" in err
    assert "---- cpu source of twice ----" in err and "bw::mul(" in err


def test_dump_rejects_an_unknown_stage(tmp_path):
    """The import works (brickwork info can report the value); the first kernel build refuses it."""
    env = dict(os.environ, BRICKWORK_DUMP="ir,bogus", PYTHONPATH=os.path.dirname(os.path.dirname(wp.__file__)))
    program = ("import brickwork as wp\n"
               "@wp.kernel\n"
               "def k(a: wp.array(dtype=float)):\n"
               "    a[0] = 1.0\n"
               "wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=float)])\n")
    script = tmp_path / "bogus_dump.py"
    script.write_text(program)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0 and "BRICKWORK_DUMP" in proc.stderr and "bogus" in proc.stderr
    assert "SettingError" in proc.stderr
