"""compat/run_one.py's classification of a failed Warp test: one that uses Warp's internals is excluded."""

import importlib.util
from pathlib import Path

COMPAT = Path(__file__).resolve().parents[2] / "compat"


def _classify():
    spec = importlib.util.spec_from_file_location("compat_run_one", COMPAT / "run_one.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.classify


def _failed(exc):
    try:
        raise exc
    except BaseException as e:  # noqa: BLE001 - the test harness sees every exception so
        return type(e), e, e.__traceback__


def test_reading_warps_native_source_is_excluded_and_other_missing_files_fail():
    classify = _classify()
    native = FileNotFoundError(2, "No such file or directory", "/x/compat/alias/warp/native/deterministic.cu")
    assert classify(_failed(native)) == ("excluded", "Warp internal: reads Warp's native source deterministic.cu")
    for other in ("/x/warp/tests/assets/mesh.usd", "/x/native/deterministic.cu", None):
        outcome, reason = classify(_failed(FileNotFoundError(2, "No such file or directory", other)))
        assert outcome == "fail" and reason.startswith("FileNotFoundError: [Errno 2] No such file or directory")


def test_reading_warps_custom_gradient_function_objects_is_excluded_and_other_attributes_fail():
    classify = _classify()
    for name in ("custom_grad_func", "custom_replay_func"):
        outcome, reason = classify(_failed(AttributeError(f"'Function' object has no attribute '{name}'")))
        assert (outcome, reason) == ("excluded", f"Warp internal attribute: AttributeError: 'Function' object has no "
                                                 f"attribute '{name}'")
    # a name that only starts like one of them is a missing feature, counted as failed
    outcome, reason = classify(_failed(AttributeError("'Function' object has no attribute 'custom_grad_funcs'")))
    assert (outcome, reason) == ("fail", "AttributeError: 'Function' object has no attribute 'custom_grad_funcs'")


def test_a_child_process_that_used_a_warp_internal_is_excluded():
    classify = _classify()
    child_output = ("1 != 0 : Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                    "warp._internal.WarpInternalUsed: warp._src.context.runtime.core.wp_balance_coloring\n")
    assert classify(_failed(AssertionError(child_output))) == (
        "excluded", "Warp internal warp._src.context.runtime.core.wp_balance_coloring (in a child process)")
    outcome, reason = classify(_failed(AssertionError("1 != 0 : Traceback ...\nRuntimeError: tile launch refused")))
    assert (outcome, reason) == ("fail", "AssertionError: 1 != 0 : Traceback ...")


def test_builtin_overload_records_and_warps_subscript_builtins_are_excluded():
    classify = _classify()
    for text in ("'BuiltinFunction' object has no attribute 'overloads'", "module 'brickwork' has no attribute 'index'",
                 "'Function' object has no attribute 'user_overloads'", "'array' object has no attribute '_ref'"):
        assert classify(_failed(AttributeError(text))) == ("excluded", f"Warp internal attribute: AttributeError: {text}")
    # a kernel's overloads and brickwork's other missing names stay failures
    for text in ("'Kernel' object has no attribute 'overloads'", "module 'brickwork' has no attribute 'indexes'",
                 "module 'brickwork' has no attribute 'from_ptr'"):
        assert classify(_failed(AttributeError(text))) == ("fail", f"AttributeError: {text}")
