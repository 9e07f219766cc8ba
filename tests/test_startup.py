"""Start-up of the commands a scorer runs in a loop: each imports only what it uses (issue 24),
and the word catalog is read from its cache when the cache was made from the same bytes.

Times are never asserted (the machine is shared): ``benchmarks/startup.py`` measures them. What
is checked here is what a command loads, as a whole process, the way a scorer runs it.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import demo_event

from dealer import words
from dealer.app.dealing import deal_event
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

#: Runs ``dealer ARGS`` (sys.argv[2:]) as ``python -m dealer.cli`` does, then writes the names of
#: the modules the process loaded to the file sys.argv[1], however the command exits.
_LOADED = """
import atexit, json, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["dealer", *sys.argv[2:]]
runpy.run_module("dealer.cli", run_name="__main__", alter_sys=True)
"""

#: Heavy modules that only dealing, scoring, ranking, printing or the site use.
HEAVY = ("numpy", "dealer.batch", "jinja2", "weasyprint", "openpyxl", "dealer.render", "dealer.tournament.knockout",
         "dealer.standings", "dealer.lineups")


def loaded_by(tmp_path: Path, *args: object) -> set[str]:
    out = tmp_path / "modules.json"
    process = subprocess.run([sys.executable, "-c", _LOADED, str(out), *map(str, args)], capture_output=True,
                             text=True, env={**os.environ, "DEALER_LANG": "en"}, check=False)
    assert process.returncode == 0, process.stderr
    return set(json.loads(out.read_text()))


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, Path]:
    event_file = tmp_path / "demo.toml"
    event_file.write_text(demo_event_text(), encoding="utf-8")
    root = tmp_path / "boards"
    deal_event(demo_event(), EventFolder("demo", root))
    return event_file, root


@pytest.mark.parametrize("command", [
    ["results", "add", "{event}", "--round", "1", "--match", "1", "--table", "A", "--board", "3", "--points", "60"],
    ["round", "show", "{event}", "--round", "1"],
])
def test_a_command_of_the_scorers_loop_loads_no_numpy_nor_printing(tmp_path: Path, demo: tuple[Path, Path],
                                                                    command: list[str]) -> None:
    event_file, root = demo
    args = [part.format(event=event_file) for part in command] + ["--boards-dir", root]
    loaded = loaded_by(tmp_path, *args)
    assert "dealer.app.session" in loaded  # the command ran
    assert sorted(name for name in loaded if name.split(".")[0] in HEAVY or name in HEAVY) == []


def test_results_missing_loads_no_printing(tmp_path: Path, demo: tuple[Path, Path]) -> None:
    event_file, root = demo
    loaded = loaded_by(tmp_path, "results", "missing", event_file, "--boards-dir", root)
    assert "dealer.scoring" in loaded
    assert {"jinja2", "weasyprint", "openpyxl", "dealer.render", "dealer.formats.qr"} & loaded == set()


def test_the_catalog_is_parsed_once_then_read_from_its_cache_until_the_file_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    source = tmp_path / "strings.toml"
    source.write_text('[messages.a]\nb = { zh = "乙", en = "b" }\n', encoding="utf-8")
    cache = tmp_path / "__pycache__" / "strings.toml.marshal"
    assert words._cached_toml(source, source.read_bytes()) == tomllib.loads(source.read_text(encoding="utf-8"))
    digest, parsed = marshal.loads(cache.read_bytes())
    assert parsed == {"messages": {"a": {"b": {"zh": "乙", "en": "b"}}}}
    # The cache is what is read while it matches the bytes (a cache holding other words shows it) …
    cache.write_bytes(marshal.dumps((digest, {"from": "cache"})))
    assert words._cached_toml(source, source.read_bytes()) == {"from": "cache"}
    # … and an edit of the catalog is parsed again, the cache rewritten.
    source.write_text('[messages.a]\nb = { zh = "丙", en = "c" }\n', encoding="utf-8")
    assert words._cached_toml(source, source.read_bytes())["messages"]["a"]["b"]["en"] == "c"
    assert marshal.loads(cache.read_bytes())[1]["messages"]["a"]["b"]["en"] == "c"
    # A damaged cache is ignored.
    cache.write_bytes(b"\x00not marshal")
    assert words._cached_toml(source, source.read_bytes())["messages"]["a"]["b"]["zh"] == "丙"


def test_no_cache_is_written_when_python_writes_no_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    source = tmp_path / "strings.toml"
    source.write_text('[hints]\na = { zh = "甲", en = "a" }\n', encoding="utf-8")
    assert words._cached_toml(source, source.read_bytes()) == {"hints": {"a": {"zh": "甲", "en": "a"}}}
    assert not (tmp_path / "__pycache__").exists()


WEB_STACK = ("starlette", "uvicorn", "anyio", "h11", "dealer.serve")


def test_help_loads_no_web_stack(tmp_path: Path) -> None:
    """`dealer --help` (and so every other command's start) stays free of the server's imports."""
    loaded = loaded_by(tmp_path, "--help")
    assert sorted(name for name in loaded if name.split(".")[0] in WEB_STACK or name in WEB_STACK) == []
