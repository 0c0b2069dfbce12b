"""A 3-D field's PNG is the plane of cells ``nx3 // 2``, and its title says which (``x3 = ...``): the image
alone looked like a 2-D run's."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from brickwork.io import png  # noqa: E402


def _titles(monkeypatch):
    """The titles of the figures ``png.save`` draws, and their images' arrays."""
    seen = []
    make = png._figure

    def recording(figsize):
        fig = make(figsize)
        seen.append(fig)
        return fig

    monkeypatch.setattr(png, "_figure", recording)
    return lambda: [(f.axes[0].get_title(), f.axes[0].images[0].get_array() if f.axes[0].images else None)
                    for f in seen]


@pytest.mark.parametrize("title, expected", [("jet  t = 0.05", "jet  t = 0.05  (x3 = 0.2812)"), ("", "x3 = 0.2812")])
def test_a_3d_field_is_drawn_at_its_middle_plane_of_cells_named_in_the_title(tmp_path, monkeypatch, title, expected):
    drawn = _titles(monkeypatch)
    field = np.arange(8 * 6 * 4, dtype=np.float64).reshape(8, 6, 4)  # (nx3, nx2, nx1)
    png.save(str(tmp_path / "u.png"), field, [0.0, 0.0, 0.0], [1.0, 0.75, 0.5], 3, "u", title)
    (got, image), = drawn()
    assert got == expected  # cell 4 of 8 over [0, 0.5]: centre (4 + 0.5) / 16
    np.testing.assert_array_equal(image, field[4])


def test_a_2d_field_keeps_its_title(tmp_path, monkeypatch):
    drawn = _titles(monkeypatch)
    field = np.ones((1, 6, 4))
    png.save(str(tmp_path / "u.png"), field, [0.0, 0.0], [1.0, 0.75], 2, "u", "kh  t = 1")
    assert drawn()[0][0] == "kh  t = 1"
