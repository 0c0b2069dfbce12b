"""Launch errors of the exception types Warp 1.19 raises, so a Warp program's ``except`` catches them: a recorded
launch's setter given a name the kernel lacks raises a ``ValueError`` (still a ``KeyError``, as brickwork's was),
a negative ``dim`` a ``ValueError`` (still a ``wp.LaunchError``), a vector argument that converts to no vector a
``ValueError`` (Warp: 'Failed to convert argument'; newuser round 9); each names the problem and changes nothing."""

import numpy as np
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


@wp.kernel
def shifted(x: wp.array(dtype=wp.vec3), by: wp.vec3):
    i = wp.tid()
    x[i] = x[i] + by


@pytest.mark.parametrize("by, message", [
    ((1.0, 2.0), "vec3f needs 3 components, got 2 from ((1.0, 2.0),)"),
    ([1.0, "2", 3.0], "component '2' is a str, not a real number"),
    (np.array([1 + 5j, 2, 3]), "its numpy data is of dtype complex128, not real numbers"),
])
def test_a_vector_argument_that_converts_to_no_vector_is_a_value_error(by, message):
    x = wp.array(np.ones((2, 3), dtype=np.float32), dtype=wp.vec3)
    wp.launch(shifted, dim=2, inputs=[x, (1.0, 1.0, 1.0)])  # a list or tuple launched before with numbers
    for caught in (ValueError, wp.LaunchError):
        with pytest.raises(caught) as e:
            wp.launch(shifted, dim=2, inputs=[x, by])
        assert str(e.value) == f"launch of 'shifted': argument 'by' must be vec3f: {message}"
    assert x.numpy().tolist() == [[2.0] * 3] * 2
