"""Kernels written to a file of their own and imported, for tests that need generated source (deep
expressions, long call chains) with real file names and line numbers in its errors."""

import importlib.util
import itertools

_count = itertools.count()


def kernel_module(tmp_path, text: str, stem: str = "kernels"):
    """(module, path) of ``text`` (after ``import brickwork as wp``) written to a new file under ``tmp_path``."""
    path = tmp_path / f"{stem}_{next(_count)}.py"
    path.write_text("import brickwork as wp\n\n" + text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path
