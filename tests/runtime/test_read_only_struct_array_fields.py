"""A kernel that writes an array stored in the elements of an array of structs (``p[i].a[j] = v``, through an
alias ``row = p[i]``, by an atomic) is refused at launch when that array views read-only memory, as for a
struct argument (``s.a``): a read-only memmap's pages would otherwise fault (a segfault of the process)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Holder:
    a: wp.array(dtype=float)
    b: wp.array(dtype=float)


@wp.struct
class Outer:
    items: wp.array(dtype=Holder)


@wp.kernel
def write_element_field(p: wp.array(dtype=Holder)):
    p[0].a[0] = 42.0


@wp.kernel
def write_through_alias(p: wp.array(dtype=Holder)):
    i = wp.tid()
    row = p[i]
    row.a[0] = 7.0


@wp.kernel
def add_atomically(p: wp.array(dtype=Holder)):
    wp.atomic_add(p[0].a, 0, 1.0)


@wp.kernel
def write_b_read_a(p: wp.array(dtype=Holder)):
    p[0].b[0] = p[0].a[1]


@wp.kernel
def write_nested(o: Outer):
    o.items[0].a[0] = 5.0


def read_only_values():
    x = np.arange(3, dtype=np.float32)
    x.setflags(write=False)
    return x


def holders(a, b=None):
    h = Holder()
    h.a = a
    h.b = b if b is not None else wp.zeros(3, dtype=float)
    return wp.array([h], dtype=Holder), h.b


@pytest.mark.parametrize("kernel", [write_element_field, write_through_alias, add_atomically])
def test_writing_a_read_only_array_in_an_element_is_refused(kernel):
    x = read_only_values()
    p, _ = holders(wp.array(x, copy=False))
    with pytest.raises(wp.LaunchError,
                       match=r"'p\[i\]\.a' is a read-only array"):
        wp.launch(kernel, dim=1, inputs=[p])
    assert x.tolist() == [0.0, 1.0, 2.0]


def test_a_read_only_array_only_read_is_fine():
    x = read_only_values()
    p, b = holders(wp.array(x, copy=False))
    wp.launch(write_b_read_a, dim=1, inputs=[p])
    assert b.numpy().tolist() == [1.0, 0.0, 0.0]


def test_an_element_no_longer_holding_the_read_only_array_is_written():
    p, _ = holders(wp.array(read_only_values(), copy=False))
    writable = wp.zeros(3, dtype=float)
    h = Holder()
    h.a = writable
    h.b = wp.zeros(3, dtype=float)
    p[0] = h  # the read-only array is still recorded (entries are pruned now and then) but no element stores it
    wp.launch(write_element_field, dim=1, inputs=[p])
    assert writable.numpy().tolist() == [42.0, 0.0, 0.0]


def test_views_and_nested_arrays_of_structs_are_checked():
    x = read_only_values()
    p, _ = holders(wp.array(x, copy=False))
    with pytest.raises(wp.LaunchError, match="read-only"):
        wp.launch(write_element_field, dim=1, inputs=[p[0:1]])
    o = Outer()
    o.items = p
    with pytest.raises(wp.LaunchError, match=r"'o\.items\[i\]\.a' is a read-only array"):
        wp.launch(write_nested, dim=1, inputs=[o])
    assert x.tolist() == [0.0, 1.0, 2.0]


def test_a_read_only_memmap_in_an_array_of_structs_is_refused_not_a_segfault(tmp_path):
    path = tmp_path / "m.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    script = textwrap.dedent(f"""
        import numpy as np
        import brickwork as wp

        @wp.struct
        class S:
            a: wp.array(dtype=float)

        @wp.kernel
        def k(s: wp.array(dtype=S)):
            s[0].a[0] = 42.0

        s = S()
        s.a = wp.array(np.memmap({str(path)!r}, dtype=np.float32, mode="r"), copy=False)
        try:
            wp.launch(k, dim=1, inputs=[wp.array([s], dtype=S)])
        except wp.LaunchError as e:
            print("refused:", e)
    """)
    probe = tmp_path / "probe.py"  # kernels need a source file
    probe.write_text(script)
    done = subprocess.run([sys.executable, "-X", "faulthandler", str(probe)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "'s[i].a' is a read-only array" in done.stdout
