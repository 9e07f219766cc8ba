"""The words printed on pages, in Chinese and English (data: ``dealer/data/strings.toml``)."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

LANGS = ("zh", "en")


class Strings(dict[str, Any]):
    """The strings of one language; ``t.key`` and ``t.fmt("key", n=3)`` in templates."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def fmt(self, key: str, **values: Any) -> str:
        return str(self[key]).format(**values)


@functools.cache
def _all() -> dict[str, dict[str, Any]]:
    text = (resources.files("dealer") / "data" / "strings.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def strings(lang: str) -> Strings:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (zh or en)")
    return Strings(_all()[lang])
