"""Shengji duplicate dealer and scorer."""

__version__ = "0.2.0"
