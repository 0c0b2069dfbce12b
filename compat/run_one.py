"""Run one of Warp's test modules against brickwork (through the alias package); write one JSON line per test.

Usage: python run_one.py MODULE OUT.jsonl   (MODULE like ``warp.tests.test_lerp``)
Outcomes: pass, fail, skip, excluded (the test used a Warp internal, see the alias package), tape (the
test needs ``wp.Tape``, which brickwork has not yet). A module that fails to import writes one
``import-error`` line.
"""

from __future__ import annotations

import json
import re
import sys
import traceback
import unittest

TAPE_MARKERS = ("attribute 'adjoint'",)  # wp.adjoint[...] of custom gradients
# Attributes of Warp's implementation objects that tests read directly (docs/compat.md lists them): the code
# generator's Adjoint (kernel.adj), module hashing and option resolution, a loaded module's kernel hooks, a module's
# dependents and the modules it references (and their hashers), ctypes mirrors of scalar types, the Function
# objects Warp's code generator makes of a function's custom gradient and replay (their inline hints), a
# function's registry of generic instances (user_overloads), an array's private keep-alive (_ref), a builtin's
# overload records (their native symbols); also the in-kernel internals Warp exports as wp.index, wp.view, ...
# (its subscript and address builtins, which brickwork's code generator does not expose).
INTERNAL_ATTRIBUTES = ("'adj'", "'hash_module'", "'resolve_options'", "'_type_'",
                       "'get_module_hash'", "'get_kernel_hooks'", "'dependents'", "'references'", "'hashers'",
                       "'custom_grad_func'", "'custom_replay_func'", "'user_overloads'", "'_ref'")
INTERNAL_ATTRIBUTE_ERRORS = ("'BuiltinFunction' object has no attribute 'overloads'",
                             *(f"module 'brickwork' has no attribute '{name}'"
                               for name in ("index", "indexref", "view", "address", "load", "store", "array_store")))


def _chain(exc):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def classify(err) -> tuple[str, str]:
    """(outcome, one-line reason) for a failed test's ``sys.exc_info()`` triple."""
    exc_type, exc, _ = err
    for e in _chain(exc):
        if type(e).__name__ == "WarpInternalUsed":
            return "excluded", f"Warp internal {e}"
    # brickwork's kernel errors put the source location first; the reason is the message
    message = exc.message if hasattr(exc, "location") and isinstance(getattr(exc, "message", None), str) else exc
    text = f"{exc_type.__name__}: {message}"
    first = text.strip().splitlines()[0] if text.strip() else exc_type.__name__
    if any(marker in text for marker in TAPE_MARKERS):
        return "tape", first[:200]
    if exc_type is AttributeError and (any(f"attribute {name}" in first for name in INTERNAL_ATTRIBUTES)
                                       or any(text in first for text in INTERNAL_ATTRIBUTE_ERRORS)):
        return "excluded", f"Warp internal attribute: {first[:200]}"
    child = re.search(r"WarpInternalUsed: (\S+)", text)
    if child:  # a test that runs code in a child process and shows its output: the child used a Warp internal
        return "excluded", f"Warp internal {child.group(1)} (in a child process)"
    if "<Warp internal " in first:  # a kernel that calls a Warp internal (the compiler names the placeholder)
        return "excluded", first[:200]
    if isinstance(exc, FileNotFoundError) and _is_native_source(getattr(exc, "filename", None)):
        return "excluded", f"Warp internal: reads Warp's native source {exc.filename.rsplit('/', 1)[-1]}"
    return "fail", first[:300]


def _is_native_source(filename) -> bool:
    """Whether ``filename`` is a file of Warp's C++/CUDA runtime next to ``warp/__init__.py`` (the alias package
    has none: a test that reads one, as test_deterministic_enum_parity parses deterministic.cu, tests Warp's build)."""
    parts = str(filename or "").replace("\\", "/").split("/")
    return len(parts) > 2 and parts[-3] == "warp" and parts[-2] == "native"


class RecordingResult(unittest.TestResult):
    def __init__(self, out):
        super().__init__()
        self.out = out
        self.written = set()
        self.subtest_errors = {}

    def addSubTest(self, test, subtest, err):
        # A test whose subtests failed reports neither success nor failure itself: the first error counts.
        if err is not None:
            self.subtest_errors.setdefault(test.id(), err)

    def stopTest(self, test):
        if test.id() not in self.written and test.id() in self.subtest_errors:
            self._write(test, *classify(self.subtest_errors[test.id()]))
        super().stopTest(test)

    def _write(self, test, outcome, reason=""):
        self.written.add(test.id())
        name = test.id().rsplit(".", 1)[-1] if hasattr(test, "id") else str(test)
        self.out.write(json.dumps({"test": name, "outcome": outcome, "reason": reason}) + "\n")
        self.out.flush()

    def addSuccess(self, test):
        self._write(test, "pass")

    def addError(self, test, err):
        self._write(test, *classify(err))

    def addFailure(self, test, err):
        self._write(test, *classify(err))

    def addSkip(self, test, reason):
        self._write(test, "skip", str(reason)[:200])

    def addExpectedFailure(self, test, err):
        self._write(test, "pass")

    def addUnexpectedSuccess(self, test):
        self._write(test, "fail", "unexpected success")


def main(module: str, out_path: str) -> int:
    with open(out_path, "w") as out:
        try:
            suite = unittest.defaultTestLoader.loadTestsFromName(module)
        except BaseException as exc:  # noqa: BLE001 - any failure at import is the file's result
            outcome, reason = classify((type(exc), exc, exc.__traceback__))
            if outcome == "fail":
                outcome = "import-error"
            last = traceback.extract_tb(exc.__traceback__)[-1]
            out.write(json.dumps({"test": "<import>", "outcome": outcome,
                                  "reason": f"{reason} ({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"}) + "\n")
            return 1
        suite.run(RecordingResult(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
