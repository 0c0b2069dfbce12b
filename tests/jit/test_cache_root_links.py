"""A cache root that is a symbolic link the system cannot follow (a loop of links) is refused as an unsafe
cache, naming the root and why: the build raised a bare ``OSError: Too many levels of symbolic links``."""

import os

import pytest

from brickwork.jit import cache

KEY = "ab" + "c" * 38


def test_a_loop_of_links_as_the_root_is_refused_by_name(quick_build, root, tmp_path):
    other = tmp_path / "other"
    os.symlink(other, root)
    os.symlink(root, other)
    with pytest.raises(cache.UnsafeCacheError) as e:
        quick_build(KEY)
    assert str(e.value) == (f"refusing to use kernel cache {root}: its symbolic link cannot be followed: Too many "
                            f"levels of symbolic links")
    assert os.readlink(root) == str(other) and os.readlink(other) == str(root)  # left as they were
