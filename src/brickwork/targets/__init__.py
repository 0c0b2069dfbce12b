"""Targets: each bundles its passes, renderer, compiler and loader (``Target``)."""
