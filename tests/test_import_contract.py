"""The import contract of ``dealer/``: no import cycle, a pure domain, storage (and all SQL) behind the
application.

The graph is read from the code's own imports, at module level and inside functions, by
``scripts/import_graph.py`` (dev tooling: loaded here by its path, never shipped in the package).
``python scripts/import_graph.py --layers`` prints the same graph and the edges per layer pair.

To update as modules move: put a new module's name (or its package's ``dealer.x.*``) under its
layer in :data:`LAYERS`; the most specific name wins (a ``dealer.x.y`` listed on its own beats
``dealer.x.*``). :data:`KNOWN_CYCLES` and :data:`KNOWN_BREAKS` are the
breaks the refactor has still to remove: the tests fail on any break not listed there, and on a
listed one that is gone (delete its line then), so the lists only ever shrink.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: Every module of dealer/ by layer; ``dealer.x.*`` is the package dealer.x and everything in it.
LAYERS: dict[str, list[str]] = {
    "domain": [
        "dealer.cards", "dealer.profiles", "dealer.event", "dealer.commitment", "dealer.deal", "dealer.batch",
        "dealer.analysis", "dealer.scoring", "dealer.adjustments", "dealer.attribution", "dealer.standings",
        "dealer.levels", "dealer.race", "dealer.lineups", "dealer.field", "dealer.numbers", "dealer.errors",
        "dealer.explain", "dealer.organization", "dealer.tournament.*",
        "dealer.words",  # the word catalog: shipped data (strings.toml) read as constants, as profiles are
    ],
    "format": ["dealer.formats.*"],
    # The file system's primitives (safe reads with limits, atomic writes, folder checks): every
    # layer that writes a file uses them (the print pack its PDFs, the site its pages).
    "files": ["dealer.files"],
    # The package's own data, read-only (profiles, label layouts, templates, the demo events).
    "package data": ["dealer.resources"],
    # An event's storage: its folder (deal, key, commitment) and its results database.
    "storage": ["dealer.store.*"],
    "application": ["dealer.app.*"],
    "rendering": ["dealer.render.*", "dealer.report.*", "dealer.site.*"],
    "face": ["dealer.cli", "dealer.cli_help", "dealer.demo", "dealer.serve.*"],
    "package": ["dealer"],  # dealer/__init__.py: the version only
}

#: The pure layers, and what they never import (contract b).
PURE = ("domain", "format")
NOT_FROM_PURE = ("files", "package data", "storage", "application", "rendering", "face")
#: The only layers that import storage (contract c).
STORAGE_USERS = ("application", "storage")

#: Import cycles still to break (each as its sorted modules; none today). Imports under
#: ``if TYPE_CHECKING:`` never run, so they make no cycle here (they still count for the layers).
KNOWN_CYCLES: list[list[str]] = []

#: Edges (importer, imported) that still break contract b or c (none today: faces and rendering
#: reach an event's folder and database only through the application, ``dealer.app``).
KNOWN_BREAKS: list[tuple[str, str]] = []


def _load_graph_module() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "scripts" / "import_graph.py"
    spec = importlib.util.spec_from_file_location("import_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_graph", module)
    spec.loader.exec_module(module)
    return module


graph = _load_graph_module()
MODULES, EDGES = graph.build_graph()
RUNTIME_EDGES = [e for e in EDGES if e.kind != "type-checking"]


def _described(breaks: dict[tuple[str, str], list[str]]) -> list[str]:
    return [f"{a} -> {b} at {', '.join(where)}" for (a, b), where in sorted(breaks.items())]


def _breaks() -> dict[tuple[str, str], list[str]]:
    """Every edge that breaks contract b or c, with where it is imported."""
    found: dict[tuple[str, str], list[str]] = {}
    for edge in EDGES:
        source, target = graph.layer_of(edge.source, LAYERS), graph.layer_of(edge.target, LAYERS)
        bad = (source in PURE and target in NOT_FROM_PURE) or (target == "storage" and source not in STORAGE_USERS)
        if bad:
            found.setdefault((edge.source, edge.target), []).append(f"{edge.where()} ({edge.kind})")
    return found


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if graph.layer_of(m, LAYERS) is None] == []


def test_no_import_cycle_but_the_known_ones() -> None:
    found = graph.cycles(MODULES, RUNTIME_EDGES)
    new = [c for c in found if c not in KNOWN_CYCLES]
    described = ["; ".join(f"{e.source} -> {e.target} ({e.where()})" for e in graph.cycle_path(c, RUNTIME_EDGES))
                 for c in new]
    assert described == [], "new import cycle(s)"
    assert [c for c in KNOWN_CYCLES if c not in found] == [], "a known cycle is gone: delete it from KNOWN_CYCLES"


def test_the_pure_domain_and_formats_import_no_storage_application_rendering_or_face() -> None:
    new = {pair: where for pair, where in _breaks().items()
           if graph.layer_of(pair[0], LAYERS) in PURE and pair not in KNOWN_BREAKS}
    assert _described(new) == []


def test_only_application_and_storage_import_storage() -> None:
    new = {pair: where for pair, where in _breaks().items()
           if graph.layer_of(pair[0], LAYERS) not in PURE and pair not in KNOWN_BREAKS}
    assert _described(new) == []


def test_every_known_break_still_breaks() -> None:
    assert [pair for pair in KNOWN_BREAKS if pair not in _breaks()] == [], \
        "a known break is gone: delete it from KNOWN_BREAKS"


def test_no_code_outside_the_store_runs_sql() -> None:
    """Contract d: every SQL statement is in ``dealer/store/`` (its methods named for what they
    do), where the schema declares the tables it reads and writes."""
    assert [f"{graph.module_path(c.module)}:{c.line} {c.call}" for c in graph.sql_calls()] == []


# --- the graph's rules, on a package made here ---------------------------------------------

def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_graph_counts_function_level_submodule_package_and_relative_imports(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "dealer/__init__.py": "",
        "dealer/a.py": "def f():\n    import dealer.sub.c\n",
        "dealer/b.py": "from dealer.sub import c\nfrom dealer import a\n",
        "dealer/sub/__init__.py": "X = 1\n",
        "dealer/sub/c.py": "from . import d\nfrom dealer.sub import X\n",
        "dealer/sub/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\n",
    })
    modules, edges = graph.build_graph(root)
    assert modules == ["dealer", "dealer.a", "dealer.b", "dealer.sub", "dealer.sub.c", "dealer.sub.d"]
    assert {(e.source, e.target, e.kind, e.why) for e in edges} == {
        ("dealer.a", "dealer.sub.c", "function", "import"),
        ("dealer.a", "dealer.sub", "function", "package"),  # importing dealer.sub.c runs dealer/sub/__init__
        ("dealer.b", "dealer.sub.c", "top", "submodule"),
        ("dealer.b", "dealer.sub", "top", "package"),
        ("dealer.b", "dealer.a", "top", "submodule"),  # no edge to dealer: every module is inside it
        ("dealer.sub.c", "dealer.sub.d", "top", "submodule"),  # inside dealer.sub: no package edge
        ("dealer.sub.c", "dealer.sub", "top", "import"),  # a name of dealer.sub's own
        ("dealer.sub.d", "dealer.a", "type-checking", "import"),  # never runs: no cycle through it
    }
    assert graph.cycles(modules, edges) == [["dealer.a", "dealer.sub.c", "dealer.sub.d"]]
    assert graph.cycles(modules, [e for e in edges if e.kind != "type-checking"]) == []


def test_the_sql_rule_finds_statements_and_connections_outside_the_store(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "dealer/__init__.py": "",
        "dealer/store/db.py": "import sqlite3\nconn = sqlite3.connect(':memory:')\nconn.execute('SELECT 1')\n",
        "dealer/app/live.py": "def f(store):\n    store.conn.execute('DELETE FROM x')\n    store.live.outcome('n')\n",
        "dealer/serve/app.py": "import sqlite3\nsqlite3.connect('x').executemany('INSERT', [])\n",
    })
    assert [(c.module, c.line, c.call) for c in graph.sql_calls(root)] == [
        ("dealer.app.live", 2, "store.conn.execute"),
        ("dealer.serve.app", 2, "sqlite3.connect"),
        ("dealer.serve.app", 2, "sqlite3.connect('x').executemany"),
    ]


@pytest.mark.parametrize(("module", "layer"), [
    ("dealer.store.db", "storage"), ("dealer.app.rounds", "application"), ("dealer.files", "files"),
    ("dealer.tournament", "domain"),
    ("dealer.tournament.swiss", "domain"), ("dealer.store.events", "storage"), ("dealer.cardsx", None),
])
def test_the_most_specific_layer_pattern_wins(module: str, layer: str | None) -> None:
    assert graph.layer_of(module, LAYERS) == layer
