"""The one word catalog, ``dealer/data/strings.toml``, and the faces that say its messages.

The catalog has the words of the pages (``[zh]``, ``[en]``), of the reports (``[report.zh]``,
``[report.en]``), of ``dealer rules explain`` (``[explain.*]``) and every message of an error or
a problem (``[messages.*]``: each key with its ``zh`` and ``en`` template, ``{name}`` parameters
as :meth:`str.format` takes them); ``[hints]`` and ``[flags]`` are the command line's own words.
It is read once, the first time a word is needed: from a cache of the parsed catalog beside it
(``dealer/data/__pycache__/strings.toml.marshal``, as Python caches bytecode) when that cache was
made from the very same bytes, else parsed (a command that says one message would otherwise spend
most of its own time reading the TOML; ``benchmarks/startup.py``).
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LANGS = ("zh", "en")


@functools.cache
def catalog() -> dict[str, Any]:
    """The whole catalog, as TOML reads it."""
    # The package is a folder on disk (dealer.resources.package_folder refuses anything else):
    # its data read by path, without importlib.resources (a tenth of a scorer's command's start).
    source = Path(__file__).resolve().parent / "data" / "strings.toml"
    return _cached_toml(source, source.read_bytes())


def _cached_toml(source: Path, data: bytes) -> dict[str, Any]:
    """``tomllib.loads`` of ``data`` (the bytes of ``source``), through a cache beside it that
    holds the SHA-256 of the bytes it was parsed from: any edit of the file parses it again. The
    cache is written when Python writes bytecode (not under ``PYTHONDONTWRITEBYTECODE``), whole
    or not at all; a cache that cannot be read or written is simply not used."""
    digest = hashlib.sha256(data).digest()
    cache = source.parent / "__pycache__" / f"{source.name}.marshal"
    try:
        found_digest, parsed = marshal.loads(cache.read_bytes())
        if found_digest == digest and isinstance(parsed, dict):
            return parsed
    except (OSError, EOFError, ValueError, TypeError):
        pass
    import tomllib  # only when the cache misses: `dealer --help` reads the catalog too (its help)

    parsed = tomllib.loads(data.decode("utf-8"))
    if not sys.dont_write_bytecode:
        try:
            cache.parent.mkdir(exist_ok=True)
            import tempfile

            handle, temporary = tempfile.mkstemp(dir=cache.parent, prefix=f".{cache.name}.")
            try:
                with open(handle, "wb") as stream:
                    stream.write(marshal.dumps((digest, parsed)))
                os.replace(temporary, cache)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass
    return parsed


def _leaves(table: Mapping[str, Any], prefix: str = "") -> dict[str, dict[str, str]]:
    """``{"a": {"b": {"zh": …, "en": …}}}`` → ``{"a.b": {"zh": …, "en": …}}``."""
    out: dict[str, dict[str, str]] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()) \
                and set(value) <= set(LANGS):
            out[key] = value
        elif isinstance(value, dict):
            out.update(_leaves(value, key + "."))
        else:
            raise ValueError(f"strings.toml: {key} is not a table of languages")
    return out


@functools.cache
def messages() -> dict[str, dict[str, str]]:
    """Every message key → its template per language."""
    return _leaves(catalog()["messages"])


@functools.cache
def hints() -> dict[str, dict[str, str]]:
    return _leaves(catalog()["hints"])


@functools.cache
def flags() -> dict[str, dict[str, str]]:
    return _leaves(catalog()["flags"])


def section(name: str, lang: str) -> dict[str, Any]:
    """The words of one part (``report``, ``explain``) in ``lang``."""
    return dict(catalog()[name][check_lang(lang)])


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r} (zh or en)")
    return lang


def parameters(template: str) -> set[str]:
    """The parameter names a template uses."""
    import string

    return {name.split(".")[0].split("[")[0] for _text, name, _spec, _conv in string.Formatter().parse(template)
            if name}


@functools.cache
def known_zone(name: str) -> bool:
    """Whether ``name`` is an IANA time zone this machine knows (``Asia/Shanghai``)."""
    import zoneinfo  # only where a time is shown: most commands show none

    try:
        zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return False
    return True


def local_time(stamp: str, zone: str | None = None) -> str:
    """A stored time (ISO 8601 with its offset, as the results database and the reports keep
    it) as every output shows it: in the event's zone (``timezone`` in ``[event]``, an IANA
    name; ``None``: the machine's own), to the second, with the zone's offset
    (``2026-12-02 02:24:05 (UTC+08:00)``). A time without an offset is read as UTC; text that is
    no time is shown as it is."""
    try:
        moment = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    import zoneinfo

    local = moment.astimezone(zoneinfo.ZoneInfo(zone) if zone else None)
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M:%S} (UTC{offset[:3]}:{offset[3:]})"


class Words:
    """The messages in one language. Fields are named as they are (``defenders_points``) and
    hints are not said: an interface that has its own (the command line) subclasses."""

    def __init__(self, lang: str) -> None:
        self.lang = check_lang(lang)

    def text(self, key: str, params: Mapping[str, object] | None = None) -> str:
        entry = messages().get(key)
        if entry is None:  # a key the catalog lacks (a test catches it): say what there is
            shown = ", ".join(f"{name}={value}" for name, value in (params or {}).items())
            return f"{key} ({shown})" if shown else key
        values = {name: self._value(value) for name, value in (params or {}).items()}
        return entry[self.lang].format(**values)

    def _value(self, value: object) -> object:
        """A parameter as the message shows it: a phrase or an error (its message) in this language,
        a list of them joined as clauses; anything else as it is (numbers keep their format)."""
        # A phrase or an error (dealer.errors, which imports this module only to word itself):
        # anything with a catalog key and its parameters.
        key, params = getattr(value, "key", None), getattr(value, "params", None)
        if isinstance(key, str) and isinstance(params, Mapping):
            return self.text(key, params)
        if isinstance(value, list | tuple):
            return self.text("errors.clause_separator").join(str(self._value(v)) for v in value)
        return value

    def label(self, field: str) -> str:
        return field

    def hint(self, key: str) -> str | None:
        return None

    def message(self, error: Any) -> str:
        """An error (:class:`~dealer.errors.UserError`) or problem as printed, its lines joined."""
        lines = error.lines(self) if hasattr(error, "lines") else [error.text(self)]
        return "\n".join(lines)


class CommandWords(Words):
    """The command line's words: a field named by its flag, a hint said as the command to use."""

    def label(self, field: str) -> str:
        entry = flags().get(field)
        return entry[self.lang] if entry else "--" + field.replace("_", "-")

    def hint(self, key: str) -> str | None:
        entry = hints().get(key)
        return entry[self.lang] if entry else None


@functools.cache
def words(lang: str) -> Words:
    return Words(lang)


@functools.cache
def command_words(lang: str) -> CommandWords:
    return CommandWords(lang)
