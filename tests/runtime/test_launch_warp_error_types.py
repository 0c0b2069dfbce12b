"""Launch errors of the exception types Warp 1.19 raises, so a Warp program's ``except`` catches them: a recorded
launch's setter given a name the kernel lacks raises a ``ValueError`` (still a ``KeyError``, as brickwork's was),
a negative ``dim`` a ``ValueError`` (still a ``wp.LaunchError``); each names the problem and changes nothing."""

import pytest

import brickwork as wp


@wp.kernel
def scaled_add(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_an_unknown_name_is_a_value_error_naming_the_parameters():
    x, y = wp.full(3, 1.0, dtype=float), wp.zeros(3, dtype=float)
    cmd = wp.launch(scaled_add, dim=3, inputs=[x, y, 2.0], record_cmd=True)
    for caught in (ValueError, KeyError, wp.BrickworkError):
        with pytest.raises(caught) as e:
            cmd.set_param_by_name("b", 5.0)
        assert str(e.value) == "kernel 'scaled_add' has no parameter 'b' (it has x, y, a)"
    with pytest.raises(ValueError, match="has no parameter 'b'"):
        cmd.set_param_by_name_from_ctype("b", 5.0)
    assert cmd.params[2] == 2.0
    cmd.launch()
    cmd.set_param_by_name("a", 10.0)
    cmd.launch()
    assert y.numpy().tolist() == [12.0] * 3


@pytest.mark.parametrize("dim", [-1, (3, -2), (-2, -3)])
def test_a_negative_dim_is_a_value_error_as_warps(dim):
    x, y = wp.full(3, 1.0, dtype=float), wp.full(3, 5.0, dtype=float)
    for caught in (ValueError, wp.LaunchError):
        with pytest.raises(caught) as e:
            wp.launch(scaled_add, dim=dim, inputs=[x, y, 2.0])
        assert str(e.value) == f"launch of 'scaled_add': dim must not be negative, got {dim!r}"
    assert y.numpy().tolist() == [5.0] * 3
