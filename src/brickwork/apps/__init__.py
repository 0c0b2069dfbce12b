"""Applications built on brickwork's public API (``brickwork.apps.hydro``: Euler hydrodynamics)."""
