"""A recorded launch's setter given a name the kernel lacks raises Warp's ``ValueError`` (still a ``KeyError``, as
brickwork's was), with the kernel's parameters named and nothing changed."""

import pytest

import brickwork as wp


@wp.kernel
def scaled_add(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_an_unknown_name_is_a_value_error_naming_the_parameters():
    x, y = wp.full(3, 1.0, dtype=float), wp.zeros(3, dtype=float)
    cmd = wp.launch(scaled_add, dim=3, inputs=[x, y, 2.0], record_cmd=True)
    for caught in (ValueError, KeyError):
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
