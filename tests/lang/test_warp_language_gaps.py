"""Language features Warp code uses: negative component indices, sub-array views, reversed
ranges, default and keyword arguments of @wp.func."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config


@wp.kernel
def row_sums(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    r = a[i]
    out[i] = r[0] + r[1]
    r[2] = 9.0  # writes through the view


@wp.kernel
def last_parts(v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), out: wp.array(dtype=float)):
    out[0] = v[0][-1]
    out[1] = m[0][-1, -2]
    out[2] = m[0][-1][0]


def test_negative_component_indices_count_from_the_end():
    v = wp.array([wp.vec3(1.0, 2.0, 3.0)], dtype=wp.vec3)
    m = wp.array([wp.mat22(1.0, 2.0, 3.0, 4.0)], dtype=wp.mat22)
    out = wp.zeros(3, dtype=float)
    wp.launch(last_parts, dim=1, inputs=[v, m, out])
    assert out.numpy().tolist() == [3.0, 3.0, 3.0]

    @wp.kernel
    def too_far(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        out[0] = v[0][-4]

    with pytest.raises(wp.KernelTypeError, match=r"index -4 is out of range for vec3f"):
        wp.launch(too_far, dim=1, inputs=[v, out])


def test_sub_array_views_read_and_write_the_same_memory():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = wp.zeros(2, dtype=float)
    wp.launch(row_sums, dim=2, inputs=[a, out])
    assert out.numpy().tolist() == [1.0, 7.0] and a.numpy()[:, 2].tolist() == [9.0, 9.0]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    x.setflags(write=False)
    with pytest.raises(wp.LaunchError, match="read-only"):  # the write through the view counts
        wp.launch(row_sums, dim=2, inputs=[wp.array(x, copy=False), out])
    with config.override(mode="debug"), pytest.raises(wp.BoundsError, match=r"index \(2\) is out of bounds"):
        wp.launch(row_sums, dim=3, inputs=[a, wp.zeros(3, dtype=float)])


@wp.kernel
def backwards(out: wp.array(dtype=int), n: int):
    k = 0
    for i in reversed(range(n)):
        out[k] = i
        k += 1
    for i in reversed(range(2, 11, 3)):
        out[k] = i
        k += 1
    for i in reversed(range(10, 1, -4)):
        out[k] = i
        k += 1
    for i in reversed(range(5, 5)):
        out[k] = 99


def test_reversed_range_visits_the_same_values_backwards():
    out = wp.full(12, -1, dtype=int)
    wp.launch(backwards, dim=1, inputs=[out, 4])
    expected = list(reversed(range(4))) + list(reversed(range(2, 11, 3))) + list(reversed(range(10, 1, -4)))
    assert out.numpy().tolist()[:len(expected)] == expected
    assert out.numpy().tolist()[len(expected):] == [-1] * (12 - len(expected))


@wp.func
def scaled(x: float, s: float = 2.0, off: wp.float64 = wp.float64(0.5)) -> float:  # noqa: B008 - typed default
    return x * s + float(off)


@wp.kernel
def defaults(out: wp.array(dtype=float)):
    out[0] = scaled(1.0)
    out[1] = scaled(1.0, 3.0)
    out[2] = scaled(1.0, off=wp.float64(1.0))
    out[3] = scaled(x=2.0, s=1.0)


def test_func_default_and_keyword_arguments():
    out = wp.zeros(4, dtype=float)
    wp.launch(defaults, dim=1, inputs=[out])
    assert out.numpy().tolist() == [2.5, 3.5, 3.0, 2.5]

    @wp.kernel
    def wrong(out: wp.array(dtype=float)):
        out[0] = scaled(1.0, scale=3.0)

    with pytest.raises(wp.KernelTypeError, match=r"scaled\(\): has no parameter 'scale'"):
        wp.launch(wrong, dim=1, inputs=[out])


@wp.kernel
def too_few(x: int):
    wp.printf("%f %d\n", x)


@wp.kernel
def too_many(x: int):
    wp.printf("%d\n", x, x)


@wp.kernel
def a_string(x: int):
    wp.printf("%s\n", x)


@wp.kernel
def text_for_a_number(x: int):
    wp.printf("%d %d\n", x, "x")


@pytest.mark.parametrize("kernel,message", [
    (too_few, r"has 2 conversion\(s\) but 1 value\(s\)"),
    (too_many, r"has 1 conversion\(s\) but 2 value\(s\)"),
    (a_string, r"conversion '%s' prints no kernel value"),
    (text_for_a_number, r"conversion '%d' got the string 'x' \(a string constant prints with %s\)"),
], ids=["too_few", "too_many", "string", "text_for_a_number"])
def test_printf_formats_are_checked(kernel, message):
    with pytest.raises(wp.KernelTypeError, match=message) as info:
        wp.launch(kernel, dim=1, inputs=[1])
    assert "test_warp_language_gaps.py" in str(info.value)


@wp.kernel
def labelled(n: int):
    wp.printf("%s=%d %-5s|%.2s|%% %s\n", "x", n, "ab", "xyz", "100%")


def test_printf_prints_string_constants_with_percent_s(capfd):
    """As Warp: a string constant for %s (flags, width and precision applied; its own % printed as is)."""
    wp.launch(labelled, dim=1, inputs=[3])
    wp.synchronize()
    assert capfd.readouterr().out == "x=3 ab   |xy|% 100%\n"


@wp.kernel
def well_formed(x: int, y: float):
    wp.printf("%5d|%-8.3f|%*d|100%%\n", x, y, x, x)


def test_printf_accepts_widths_stars_and_percent(capfd):
    wp.launch(well_formed, dim=1, inputs=[7, 1.5])
    assert capfd.readouterr().out == "    7|1.500   |      7|100%\n"
