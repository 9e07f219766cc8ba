"""The words printed on pages, in Chinese and English (data: ``dealer/data/strings.toml``, read
by :mod:`dealer.words`, the one loader of the word catalog)."""

from __future__ import annotations

from typing import Any

from dealer.words import LANGS, catalog, check_lang

__all__ = ["LANGS", "Strings", "strings"]


class Strings(dict[str, Any]):
    """The strings of one language; ``t.key`` and ``t.fmt("key", n=3)`` in templates."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def fmt(self, key: str, **values: Any) -> str:
        return str(self[key]).format(**values)


def strings(lang: str) -> Strings:
    return Strings(catalog()[check_lang(lang)])
