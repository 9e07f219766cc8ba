"""Shengji duplicate dealer and scorer."""

__version__ = "0.4.0"
