"""The file and line a refused launch names are the launching kernel's, also when its compiled instance came
from the cache, built from the same text in another file or higher up in this one (the cache key is the text:
the message named the first file that compiled it); so are those of a debug build's BoundsError (its key
covers the kernel's place)."""

import importlib.util

import pytest

import brickwork as wp

KERNEL = '''import brickwork as wp


@wp.kernel
def fill_where(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = float(i)
'''


def _load(path, kernel="fill_where"):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel)


def test_each_copy_of_a_kernel_names_its_own_file_and_line(tmp_path):
    first, second = tmp_path / "first_copy.py", tmp_path / "second_copy.py"
    first.write_text(KERNEL)
    second.write_text("# three more lines\n\n\n" + KERNEL)  # the same kernel text three lines lower
    x = wp.zeros(2, dtype=float)
    for path, line in ((first, 7), (second, 10), (first, 7)):
        kernel = _load(path)
        with pytest.raises(wp.LaunchError) as e:
            wp.launch(kernel, dim=3, inputs=[x])
        assert f"the access of 'x' at {path}:{line} runs at every launch point" in str(e.value)
        assert x.numpy().tolist() == [0.0, 0.0]
    wp.launch(kernel, dim=2, inputs=[x])  # in bounds: runs
    assert x.numpy().tolist() == [0.0, 1.0]


GUARDED = '''import brickwork as wp


@wp.kernel
def shift_where(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < n:
        x[i] = float(i)
'''


def test_debug_bounds_errors_name_each_copy_s_own_file_and_line(tmp_path, monkeypatch):
    # a debug build holds its accesses' file:line in the compiled code: copies do not share one entry
    monkeypatch.setattr(wp.config, "mode", "debug")
    first, second = tmp_path / "first_guarded.py", tmp_path / "second_guarded.py"
    first.write_text(GUARDED)
    second.write_text("\n\n" + GUARDED)
    x = wp.zeros(2, dtype=float)
    for path, line in ((first, 8), (second, 10)):
        kernel = _load(path, "shift_where")
        with pytest.raises(wp.BoundsError, match=f"at {path}:{line}$"):
            wp.launch(kernel, dim=3, inputs=[x, 3])
