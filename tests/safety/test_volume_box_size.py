"""Volume.allocate of a box whose grid no array can hold is refused before anything is built (attacker probe):
max=(1023, 1023, 1023) of float voxels was built for 44 s and several GiB, then refused by the array's shape
check ('Array shapes must not exceed the maximum representable value of a signed 32-bit integer, got
4513899392'), which named no volume; (4095,) * 3 ran out of memory in numpy (a raw MemoryError)."""

from __future__ import annotations

import pytest

import brickwork as wp
from brickwork.runtime.volume_load import VolumeError


@pytest.mark.parametrize("top, bg_value, tiles, nbytes", [
    (1023, 0.0, 128 ** 3, 128 ** 3 * 2144),        # float: 512 values of 4 bytes and a leaf header of 96
    (1023, (0.0, 0.0, 0.0), 128 ** 3, 128 ** 3 * 6240),
    (8191, None, 1024 ** 3, 1024 ** 3 * 96),        # an index grid's leaves hold no values
])
def test_a_box_past_one_arrays_bytes_is_refused_at_once(top, bg_value, tiles, nbytes):
    with pytest.raises(VolumeError, match=rf"^Volume\.allocate: the box covers {tiles} tiles of 8\^3 voxels, a grid "
                                          rf"of at least {nbytes} bytes, more than the 2\*\*31 - 1 bytes of one "
                                          rf"array; allocate a smaller box, or the tiles you need with "
                                          rf"Volume\.allocate_by_tiles$"):
        wp.Volume.allocate(min=[0, 0, 0], max=[top] * 3, voxel_size=1.0, bg_value=bg_value)


def test_a_box_within_the_limit_is_built():
    volume = wp.Volume.allocate(min=[-8, 0, 0], max=[7, 15, 23], voxel_size=1.0, bg_value=2.5)
    assert volume.get_tile_count() == 2 * 2 * 3
    assert volume.get_voxel_count() == 12 * 512
