"""Package data: rule profiles, label layouts, the demo event, and the templates folder."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.errors import FileProblem
from dealer.profiles import Profile, ProfileError, profile_from_mapping

if TYPE_CHECKING:
    from dealer.tournament.knockout import BracketOrder

#: The package's own folder: an installed package is files on disk (a wheel, an editable install,
#: the source tree), read by path (importlib.resources costs a scorer's command a tenth of its start).
_PACKAGE = Path(__file__).resolve().parent
_DATA = _PACKAGE / "data"


def data_path(*parts: str) -> Path:
    """A file of the package's data (``dealer/data/…``)."""
    return _DATA.joinpath(*parts)


def _read_toml(*parts: str) -> dict[str, Any]:
    return tomllib.loads(data_path(*parts).read_text(encoding="utf-8"))


def profile_ids() -> list[str]:
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in (_DATA / "profiles").iterdir()
        if entry.name.endswith(".toml")
    )


@functools.cache
def load_profile(profile_id: str) -> Profile:
    """The rule profile ``profile_id``; raises :class:`ProfileError` when unknown."""
    if profile_id not in profile_ids():
        raise ProfileError(
            "resources.unknown_profile", profile_id=profile_id, profile_ids=', '.join(profile_ids())
        )
    return profile_from_mapping(_read_toml("profiles", f"{profile_id}.toml"))


def label_layouts() -> dict[str, dict[str, Any]]:
    """Label sheet geometries, by id (``dealer/data/labels/*.toml``)."""
    folder = _DATA / "labels"
    return {
        entry.name.removesuffix(".toml"): _read_toml("labels", entry.name)
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    }


def demo_event_text() -> str:
    return (_DATA / "demo-event.toml").read_text(encoding="utf-8")


def init_event_template() -> str:
    """The template of ``dealer init``'s event file (``dealer/data/init-event.toml``)."""
    return (_DATA / "init-event.toml").read_text(encoding="utf-8")


def package_folder() -> Path:
    """The installed ``dealer`` package as a folder on disk (a wheel's or an editable install's
    files, or the source tree's): Jinja's ``FileSystemLoader`` and WeasyPrint's ``base_url`` need
    a real folder, so a package imported from a zip archive is refused."""
    if not _PACKAGE.is_dir():  # imported from a zip archive
        raise FileProblem("resources.not_on_disk", folder=_PACKAGE)
    return _PACKAGE


def templates_dir() -> Path:
    """The Jinja2 templates with their CSS and the site's assets: ``templates/`` at the top of the
    source tree (the product card's layout), the package resource ``dealer/templates`` (a link to
    it in the source tree, so editable installs and PYTHONPATH see it; a copy in the wheel)."""
    folder = package_folder() / "templates"
    if not folder.is_dir():
        raise FileProblem(
            "resources.no_templates", folder=folder
        )
    return folder.resolve()


def bracket_names() -> list[str]:
    return sorted(entry.name.removesuffix(".toml") for entry in (_DATA / "brackets").iterdir()
                  if entry.name.endswith(".toml"))


@functools.cache
def load_bracket_order(name: str) -> BracketOrder:
    """The knockout bracket order ``dealer/data/brackets/<name>.toml`` (a
    :class:`~dealer.tournament.knockout.BracketOrder`), checked."""
    if name not in bracket_names():
        raise FileProblem("resources.unknown_bracket_order",
                          field="bracket", name=name, known=', '.join(bracket_names()))
    from dealer.tournament.knockout import bracket_order_from_mapping  # only a knockout reads one

    return bracket_order_from_mapping(_read_toml("brackets", f"{name}.toml"))


@functools.cache
def exchange_runs() -> int:
    """The runs a match's own copy is cut into when each match has one (``[table-cards] stanzas``
    of pages.toml: an even number, 2 by default)."""
    return int(_read_toml("pages.toml")["table-cards"]["stanzas"])
