"""A cached instance holds nothing of where its kernel's source lives: the same kernel text in another file, or
at other lines, loads the entry (no compiler run) and its errors name its own file and line, those of the
``@func`` it calls included (``targets/locations.py``). A kernel whose compiled code prints its own file:line
(``wp.expect_eq``) has a key of its own per place instead."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

import brickwork as wp
from brickwork.jit import compile as jit
from brickwork.targets import keys
from brickwork.targets.cpu import CPU
from brickwork.targets.keys import cache_key, key_parts

_MODULE = textwrap.dedent("""
    import brickwork as wp
    # PADDING

    @wp.func
    def count(a: wp.array(dtype=wp.int32), step: int) -> int:
        return a[::step].shape[0]  # the function's slice


    @wp.kernel
    def sliced(a: wp.array(dtype=wp.int32), step: int, func_step: int, out: wp.array(dtype=wp.int32)):
        view = a[::step]  # the kernel's slice
        out[0] = view.shape[0]
        out[1] = count(a, func_step)


    @wp.kernel
    def expects(a: wp.array(dtype=wp.int32)):
        wp.expect_eq(a[0], 1)
""")


def _module(path, padding: int):
    """The module at ``path`` with ``padding`` blank lines above its functions (their lines move down)."""
    path.write_text(_MODULE.replace("# PADDING\n", "\n" * padding))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(path, mark: str) -> str:
    return f"{path}:{next(n for n, line in enumerate(path.read_text().splitlines(), 1) if mark in line)}"


def test_zero_steps_name_the_lines_of_the_kernel_that_loaded_the_entry(root, tmp_path, monkeypatch):
    paths = [tmp_path / "first_copy.py", tmp_path / "second_copy.py"]
    kernels = [_module(paths[0], 0).sliced, _module(paths[1], 7).sliced]
    assert _line(paths[0], "kernel's slice") != _line(paths[1], "kernel's slice")
    walks = []  # fingerprint walks: one of the kernel per launch that builds or loads (the key's; the code generation
    # and the loader's lines take its reached sources), and one of the module's other kernel, built beside it
    walk = keys.function_fingerprint

    def counted(source, *a, **k):
        walks.append(source)
        return walk(source, *a, **k)

    monkeypatch.setattr(keys, "function_fingerprint", counted)
    a = wp.array([1, 2, 3, 4, 5], dtype=wp.int32)
    calls = None
    for kernel, path in zip(kernels, paths):
        out = wp.full(2, -1, dtype=wp.int32)
        wp.launch(kernel, dim=1, inputs=[a, 2, -1, out])
        assert out.numpy().tolist() == [3, 5]
        assert [w.qualname for w in walks if w is kernel.source] == ["sliced"]
        walks.clear()
        if calls is None:
            calls = jit.compiler_calls
        assert jit.compiler_calls == calls  # the second file's kernel loads the first one's entry
        for steps, mark, expected in (((0, 1), "kernel's slice", [0, 5]), ((1, 0), "function's slice", [5, 0])):
            with pytest.raises(wp.SliceStepError) as info:
                wp.launch(kernel, dim=1, inputs=[a, *steps, out])
            assert isinstance(info.value, ValueError)
            assert str(info.value) == f"kernel 'sliced': slice step cannot be zero at {_line(path, mark)}"
            assert out.numpy().tolist() == expected  # the view was empty
        assert a.numpy().tolist() == [1, 2, 3, 4, 5]


def test_a_kernel_printing_its_own_line_has_a_key_per_place(tmp_path):
    first, second = _module(tmp_path / "first_key.py", 0), _module(tmp_path / "second_key.py", 3)
    types = [wp.array(dtype=wp.int32)]
    keys = [cache_key(key_parts(m.expects, types, "release", CPU)) for m in (first, second)]
    assert keys[0] != keys[1]
    types = [wp.array(dtype=wp.int32), wp.int32, wp.int32, wp.array(dtype=wp.int32)]
    keys = [cache_key(key_parts(m.sliced, types, "release", CPU)) for m in (first, second)]
    assert keys[0] == keys[1]
