"""PNG snapshots (``io/png.py``): the image holds the field, and writing one neither imports pyplot nor
changes the process's matplotlib backend (a notebook's plots keep their backend after a run)."""

import json
import struct
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from brickwork.io import png  # noqa: E402


def _size(path) -> tuple:
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def test_a_2d_field_is_drawn_as_an_image(tmp_path):
    field = np.linspace(0.0, 1.0, 64 * 32).reshape(1, 32, 64)
    path = png.save(str(tmp_path / "rho.png"), field, [0.0, 0.0], [2.0, 1.0], 2, "rho", "t = 0")
    assert _size(path) == (600, 520)
    from matplotlib.image import imread

    pixels = imread(path)
    assert pixels.shape[:2] == (520, 600) and pixels[..., :3].std() > 0.05  # not a blank page


def test_a_1d_field_with_a_reference_curve(tmp_path):
    field = np.sin(np.linspace(0, 3, 50)).reshape(1, 1, 50)
    x = np.linspace(0, 1, 200)
    path = png.save(str(tmp_path / "u.png"), field, [0.0], [1.0], 1, "u", reference=(x, np.sin(3 * x), "exact"))
    assert _size(path) == (640, 480)


def test_writing_a_png_leaves_the_backend_and_imports_no_pyplot(tmp_path):
    code = f"""
import json, sys
import matplotlib
matplotlib.use("svg")  # the user's choice, which a snapshot must not change
import numpy as np
from brickwork.io import png
png.save({str(tmp_path / 'a.png')!r}, np.ones((1, 4, 4)), [0, 0], [1, 1], 2, "a")
print(json.dumps({{"backend": matplotlib.get_backend(), "pyplot": "matplotlib.pyplot" in sys.modules}}))
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"backend": "svg", "pyplot": False}
    assert _size(tmp_path / "a.png") == (600, 520)
