"""A kernel is compiled from its file as it is when the kernel is declared: a module edited and reloaded in
the same process (``importlib.reload``, IPython's autoreload) gets kernels of its new text. linecache kept the
first text it read, so the reloaded kernel compiled the old body (and found the old instance in the cache)."""

import importlib
import os
import sys

import numpy as np

import brickwork as wp

SOURCE = '''import brickwork as wp


@wp.kernel
def fill(a: wp.array(dtype=float)):
    a[wp.tid()] = VALUE

'''

LAMBDA = '''scale = lambda x: x * FACTOR  # noqa: E731 - a lambda, as wp.map takes it
'''


def _write(path, text):
    path.write_text(text)
    stat = path.stat()  # a new modification time even on a coarse clock: linecache compares size and time
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def test_a_reloaded_module_compiles_its_new_kernel_text(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path, lambda_path = tmp_path / "bw_reloaded_kernels.py", tmp_path / "bw_reloaded_lambda.py"
    _write(path, SOURCE.replace("VALUE", "1.0"))
    _write(lambda_path, LAMBDA.replace("FACTOR", "2.0"))
    try:
        module = importlib.import_module("bw_reloaded_kernels")
        lambdas = importlib.import_module("bw_reloaded_lambda")
        a = wp.zeros(3, dtype=float)
        wp.launch(module.fill, dim=3, inputs=[a])
        assert a.numpy().tolist() == [1.0, 1.0, 1.0]
        assert wp.map(lambdas.scale, wp.array(np.array([1.0, 2.0], dtype=np.float32))).numpy().tolist() == [2.0, 4.0]

        _write(path, SOURCE.replace("VALUE", "-7.5"))
        _write(lambda_path, LAMBDA.replace("FACTOR", "10.0"))
        module, lambdas = importlib.reload(module), importlib.reload(lambdas)
        wp.launch(module.fill, dim=3, inputs=[a])
        assert a.numpy().tolist() == [-7.5, -7.5, -7.5]
        scaled = wp.map(lambdas.scale, wp.array(np.array([1.0, 2.0], dtype=np.float32)))
        assert scaled.numpy().tolist() == [10.0, 20.0]
    finally:
        sys.modules.pop("bw_reloaded_kernels", None)
        sys.modules.pop("bw_reloaded_lambda", None)


def test_a_notebook_cell_not_on_disk_still_compiles(tmp_path):
    """IPython registers each cell's text in linecache under a file name that is not on disk (modification time
    None); checking the cache for edited files must leave those entries alone."""
    import linecache

    cell = ("import brickwork as wp\n\n\n@wp.kernel\ndef cell_fill(a: wp.array(dtype=float)):\n"
            "    a[wp.tid()] = 4.0\n\n\nscale = lambda x: x + 1.5  # noqa: E731\n")
    name = str(tmp_path / "ipykernel_0" / "1234.py")  # a directory that does not exist
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    try:
        scope = {"__name__": "__main__"}
        exec(compile(cell, name, "exec"), scope)  # noqa: S102 - the cell, as IPython runs it
        a = wp.zeros(2, dtype=float)
        wp.launch(scope["cell_fill"], dim=2, inputs=[a])
        assert a.numpy().tolist() == [4.0, 4.0]
        assert wp.map(scope["scale"], a).numpy().tolist() == [5.5, 5.5]
    finally:
        linecache.cache.pop(name, None)


FACTORY = '''import brickwork as wp


def make(offset):
    @wp.kernel
    def shifted(a: wp.array(dtype=float)):
        a[wp.tid()] = VALUE + offset

    return shifted
'''


def test_a_file_edited_while_its_module_runs_unreloaded_keeps_the_text_its_code_came_from(tmp_path, monkeypatch):
    """A kernel made by a factory after its file was edited on disk (a script edited while it runs) is typed from
    the text the module was loaded with, which matches its code, not from the edited file."""
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "bw_edited_factory.py"
    _write(path, FACTORY.replace("VALUE", "1.0"))
    try:
        module = importlib.import_module("bw_edited_factory")
        a = wp.zeros(2, dtype=float)
        wp.launch(module.make(0.5), dim=2, inputs=[a])
        assert a.numpy().tolist() == [1.5, 1.5]
        _write(path, "# an edit that moves every line down\n\n" + FACTORY.replace("VALUE", "100.0"))
        wp.launch(module.make(0.25), dim=2, inputs=[a])
        assert a.numpy().tolist() == [1.25, 1.25]
    finally:
        sys.modules.pop("bw_edited_factory", None)
