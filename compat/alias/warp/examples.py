"""``warp.examples`` for Warp's test files: they import it for ``get_asset_directory()``, whose USD meshes
their tests read only where ``usd-core`` is installed (they skip otherwise). brickwork ships no Warp assets;
the directory named is where they would be."""

import os


def get_asset_directory() -> str:
    return os.path.join(os.path.dirname(__file__), "assets")


def get_source_directory() -> str:
    return os.path.dirname(__file__)
