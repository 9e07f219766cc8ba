"""Page layouts of the slip kinds (data: ``dealer/data/pages.toml``)."""

from __future__ import annotations

import functools
import tomllib
from typing import Any


@functools.cache
def _all() -> dict[str, dict[str, Any]]:
    from dealer.resources import data_path

    text = data_path("pages.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def page_layout(kind: str) -> dict[str, Any]:
    """The layout of ``kind`` (``columns``, ``rows``, ``slip_width_mm``, ``slip_height_mm``)."""
    return dict(_all()[kind])


def slips_per_page(kind: str) -> int:
    layout = _all()[kind]
    return int(layout["columns"]) * int(layout["rows"])
