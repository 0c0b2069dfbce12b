"""Kernel semantics under bad input: integer overflow wraps, read-only memory is refused, debug mode
checks bounds, out-of-range literals and odd OMP_NUM_THREADS values are handled as documented."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


# -- signed integer overflow wraps (two's complement) -------------------------------------------------
@wp.kernel
def count_until_wrap(start: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    x = start[0]
    n = 0
    while x > 0:
        x = x + 1
        n += 1
    out[0] = n
    out[1] = x


@wp.kernel
def count_from_constant(out: wp.array(dtype=wp.int32)):
    x = 2147483000
    n = 0
    while x > 0:
        x = x + 1
        n += 1
    out[0] = n


@wp.kernel
def wrap_ops(a: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64)):
    x = a[0]
    out[0] = x * x
    out[1] = -a[1]
    out[2] = a[1] - wp.int64(1)


def test_int32_overflow_wraps_from_a_runtime_start():
    out = wp.zeros(2, dtype=wp.int32)
    wp.launch(count_until_wrap, dim=1, inputs=[wp.array(np.array([2147483000], dtype=np.int32)), out])
    assert out.numpy().tolist() == [648, -2**31]


def test_int32_overflow_wraps_from_a_constant_start():
    out = wp.zeros(1, dtype=wp.int32)
    wp.launch(count_from_constant, dim=1, inputs=[out])
    assert out.numpy()[0] == 648


def test_int64_multiply_negate_subtract_wrap_like_numpy():
    a = np.array([3037000500, -2**63], dtype=np.int64)
    out = wp.zeros(3, dtype=wp.int64)
    wp.launch(wrap_ops, dim=1, inputs=[wp.array(a), out])
    with np.errstate(over="ignore"):
        expected = [a[0] * a[0], -a[1], a[1] - np.int64(1)]
    assert out.numpy().tolist() == [int(x) for x in expected]


@wp.kernel
def stencil(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    n = a.shape[0]
    if i > 0 and i < n - 1:
        b[i] = a[i - 1] + a[i + 1]


def test_index_arithmetic_is_proven_and_stays_plain():
    """i +/- 1 of tid() cannot overflow: it keeps the plain (vectorizable) operation, and as an array
    index it is widened operand by operand, so the neighbours share one address."""
    inst = stencil.get_instance(stencil.concrete_types())
    text, _ = pipeline.generate(inst.kernel, inst.arg_types, inst.label)
    assert "wrapping_" not in text
    assert "((int64_t)(v_i) + int64_t(1))" in text and "((int64_t)(v_i) - int64_t(1))" in text
    text, _ = pipeline.generate(count_until_wrap, count_until_wrap.concrete_types(), "c")
    assert "bw::wrapping_add(v_x, int32_t(1))" in text


# -- read-only memory ---------------------------------------------------------------------------------
@wp.kernel
def increment(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.func
def store(b: wp.array(dtype=float), i: int):
    b[i] = 5.0


@wp.kernel
def store_through_alias_and_func(a: wp.array(dtype=float), src: wp.array(dtype=float)):
    i = wp.tid()
    c = a
    store(c, i)


@wp.kernel
def twice(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * 2.0


def _read_only_numpy():
    x = np.arange(4, dtype=np.float32)
    x.setflags(write=False)
    return x


class _Described:
    """Memory that only an ``__array_interface__`` describes (the owner's read-only flag copied into it)."""

    def __init__(self, owner: np.ndarray):
        self.owner = owner
        self.__array_interface__ = dict(owner.__array_interface__, data=(owner.ctypes.data, not owner.flags.writeable))


@pytest.mark.parametrize("make", [
    lambda: _read_only_numpy(),
    lambda: np.frombuffer(bytes(16), dtype=np.float32),
    lambda: _Described(_read_only_numpy()),
], ids=["readonly-numpy", "bytes", "readonly-array-interface"])
def test_a_kernel_that_writes_read_only_memory_is_refused(make):
    x = make()
    before = np.array(x)
    a = wp.array(x, copy=False)
    assert a.ptr == np.asarray(x).ctypes.data  # viewed, not copied
    assert a.readonly
    for kernel, args in ((increment, [a]), (store_through_alias_and_func, [a, wp.zeros(4, dtype=float)])):
        with pytest.raises(wp.LaunchError, match=r"argument 'a' is a read-only array .* the kernel writes it"):
            wp.launch(kernel, dim=4, inputs=args)
    assert np.array_equal(np.asarray(x), before)
    out = wp.zeros(4, dtype=float)
    wp.launch(twice, dim=4, inputs=[a, out])  # reading is fine
    assert out.numpy().tolist() == (before * 2).tolist()
    copy = wp.clone(a)
    assert not copy.readonly
    wp.launch(increment, dim=4, inputs=[copy])
    assert copy.numpy().tolist() == (before + 1).tolist()


def test_array_of_memory_an_object_describes_views_it_unless_copied():
    owner = np.arange(4, dtype=np.float32)
    a = wp.array(_Described(owner), dtype=float, copy=False)
    assert not a.readonly
    wp.launch(increment, dim=4, inputs=[a])  # the kernel's writes reach the owner's memory
    assert owner.tolist() == [1.0, 2.0, 3.0, 4.0]
    b = wp.array(_Described(owner), dtype=float)  # copy=True: new memory
    wp.launch(increment, dim=4, inputs=[b])
    assert owner.tolist() == [1.0, 2.0, 3.0, 4.0] and b.numpy().tolist() == [2.0, 3.0, 4.0, 5.0]


def test_a_read_only_memmap_is_refused_not_a_segfault(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    mm = np.memmap(path, dtype=np.float32, mode="r")
    a = wp.array(mm, copy=False)
    with pytest.raises(wp.LaunchError, match="read-only"):
        wp.launch(increment, dim=4, inputs=[a])
    assert np.fromfile(path, dtype=np.float32).tolist() == [0, 1, 2, 3]


@wp.struct
class Buffers:
    out: wp.array(dtype=float)
    src: wp.array(dtype=float)


@wp.struct
class Outer:
    bufs: Buffers
    n: int


@wp.kernel
def write_field(s: Buffers):
    i = wp.tid()
    s.out[i] = s.src[i] + 1.0


@wp.kernel
def write_nested_through_alias_func_and_atomic(o: Outer):
    i = wp.tid()
    b = o.bufs
    dst = b.out
    store(dst, i)
    wp.atomic_add(o.bufs.out, i, 1.0)


@wp.kernel
def read_fields(s: Buffers, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = s.out[i] + s.src[i]


@pytest.mark.parametrize("route", ["field", "nested-alias-func-atomic"])
def test_a_read_only_array_in_a_struct_that_the_kernel_writes_is_refused(route, tmp_path):
    """Arrays reached through struct fields are checked at every launch (a struct's fields may be
    reassigned between launches, which the launch's cached signature does not see)."""
    path = tmp_path / "data.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    ro = wp.array(np.memmap(path, dtype=np.float32, mode="r"), copy=False)  # writing would be a segfault
    ok = wp.zeros(4, dtype=float)
    bufs = Buffers(out=ok, src=ro)  # reading the read-only one is fine
    kernel, arg, where = ((write_field, bufs, "s.out") if route == "field"
                          else (write_nested_through_alias_func_and_atomic, Outer(bufs=bufs, n=4), "o.bufs.out"))
    wp.launch(kernel, dim=4, inputs=[arg])
    assert ok.numpy().tolist() == ([1, 2, 3, 4] if route == "field" else [6, 6, 6, 6])  # store 5, then +1
    bufs.out = ro  # reassigned after the first launch: the cached launch entry still checks
    if route != "field":
        arg.bufs = bufs
    with pytest.raises(wp.LaunchError, match=rf"'{where}' is a read-only array .* the kernel writes it"):
        wp.launch(kernel, dim=4, inputs=[arg])
    assert np.fromfile(path, dtype=np.float32).tolist() == [0, 1, 2, 3]
    out = wp.zeros(4, dtype=float)
    wp.launch(read_fields, dim=4, inputs=[bufs, out])  # a kernel that only reads takes it
    assert out.numpy().tolist() == [0, 2, 4, 6]


# -- debug mode: bounds checks -------------------------------------------------------------------------
@wp.kernel
def shift_left(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i + 1]


@wp.kernel
def atomic_grid(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(a, i, j + 2, 1.0)


def test_debug_mode_reports_out_of_bounds_with_kernel_line_index_and_shape():
    a = wp.array(np.arange(4, dtype=np.float32))
    b = wp.zeros(4, dtype=float)
    line = shift_left.source.first_line + 3
    with config.override(mode="debug"):
        wp.launch(shift_left, dim=3, inputs=[a, b])  # in bounds: runs as in release
        assert b.numpy().tolist() == [1, 2, 3, 0]
        with pytest.raises(wp.BoundsError, match=rf"kernel 'shift_left': index \(4\) is out of bounds for shape "
                                                 rf"\(4\) at .*test_bad_input_semantics.py:{line}"):
            wp.launch(shift_left, dim=4, inputs=[a, b])
        grid = wp.zeros((2, 3), dtype=float)
        with pytest.raises(wp.BoundsError, match=r"index \(0, 3\) is out of bounds for shape \(2, 3\)"):
            wp.launch(atomic_grid, dim=(2, 2), inputs=[grid])
    wp.launch(shift_left, dim=3, inputs=[a, b])  # back in release: no check, no error
    assert shift_left.instances.keys() >= {shift_left.concrete_types(), (shift_left.concrete_types(), "debug")}


def test_debug_instances_have_their_own_cache_key():
    types = shift_left.concrete_types()
    release = pipeline.cache_key(pipeline.key_parts(shift_left, types, "release"))
    debug = pipeline.cache_key(pipeline.key_parts(shift_left, types, "debug"))
    assert release != debug


# -- literals and environment --------------------------------------------------------------------------
def test_an_integer_literal_beyond_int64_is_a_compile_error():
    @wp.kernel
    def huge(out: wp.array(dtype=wp.int64)):
        out[0] = 1180591620717411303424

    with pytest.raises(wp.KernelTypeError, match=r"integer literal 1180591620717411303424 does not fit in int64") \
            as info:
        wp.launch(huge, dim=1, inputs=[wp.zeros(1, dtype=wp.int64)])
    assert "test_bad_input_semantics.py" in str(info.value)


@pytest.mark.parametrize("value,expected", [("0", None), ("4,2", 4), ("", None), ("abc", None), (" 3 ", 3)])
def test_omp_num_threads_follows_openmp(value, expected):
    code = "import os, brickwork; print(brickwork.config.default_threads, os.cpu_count())"
    env = dict(os.environ, OMP_NUM_THREADS=value, PYTHONPATH=SRC)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    threads, cores = (int(x) for x in proc.stdout.split())
    assert threads == (expected if expected is not None else cores)


def test_debug_mode_checks_pack_storage_and_scratch():
    from brickwork import la
    from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "Independent"))
    mesh = Mesh(nx=(8, 4), block_nx=(4, 4), nghost=1, packages=[pkg])
    rho = VarTag("rho")
    pack = PackDescriptor(mesh, [rho]).get_pack(mesh.mesh_data())

    @wp.kernel
    def poke(p: Any, i_off: int):
        b, k, j, i = wp.tid()
        p[b, rho(), k, j, i + i_off] = wp.float64(1.0)

    space = la.IndexSpace(la.bovi, la.logical_coords, domain=IndexDomain.interior, nblocks=pack.get_nblocks(),
                          md=mesh.mesh_data())
    def body_writing_at(off):
        def body(rng, b):
            s = la.get_per_point_scratch(wp.float64, rng)
            for k, j, i in la.inner(rng):
                s[k, j, i + off] = wp.float64(2.0)

        return body

    value = pack.kernel_value()
    with config.override(mode="debug"):
        wp.launch(poke, dim=(2, 1, 6, 6), inputs=[value, 0])
        with pytest.raises(wp.BoundsError, match=r"index \(0, 0, 6\) is out of bounds for shape \(1, 6, 6\)"):
            wp.launch(poke, dim=(2, 1, 6, 6), inputs=[value, 1])
        with pytest.raises(wp.BoundsError, match=r"index \(2, 0, 0\) is out of bounds for shape \(2, 1, 2\) at "
                                                 r".*test_bad_input_semantics.py:\d+"):  # a block past the pack's
            wp.launch(poke, dim=(3, 1, 6, 6), inputs=[value, 0])
        la.outer(space, body_writing_at(0))
        with pytest.raises(wp.BoundsError, match=r"is out of bounds for shape \(\d+\) at .*semantics.py"):
            la.outer(space, body_writing_at(40))


def test_index_ranges_beyond_two_to_the_thirty_are_refused():
    from brickwork import la

    seen = wp.zeros(1, dtype=wp.int32)

    def body(i):
        seen[0] = i

    with pytest.raises(wp.LaunchError, match=r"range \(0, 1073741825\) reaches beyond \+-2\*\*30"):
        wp.par_for((0, 2**30 + 1), body)
    wp.par_for((2**30 - 1, 2**30), body)
    assert seen.numpy()[0] in (2**30 - 1, 2**30)
    big = la.IndexSpace.box(la.bvoi, la.logical_flat, nblocks=1, nx=2048, ny=1024, nz=513, nghost=0)

    def outer_body(rng, b):
        for idx in la.inner(rng):
            seen[0] = idx

    with pytest.raises(wp.LaunchError, match=r"more than 2\*\*30"):
        la.outer(big, outer_body)
