"""Targets: each bundles its passes, renderer, compiler and loader (``Target``)."""

from __future__ import annotations

from .. import config


def target_named(name: str):
    """The target called ``name`` (``config.TARGETS``); each is imported on first use."""
    if name == "cpu":
        from .cpu import CPU

        return CPU
    if name == "cuda-emulation":
        from .emulate import EMULATION

        return EMULATION
    raise ValueError(f"unknown target {name!r} (known: {', '.join(config.TARGETS)})")


def current_target():
    """The target ``config.target`` names (``BRICKWORK_TARGET``)."""
    return target_named(config.target)
