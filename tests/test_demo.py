"""`dealer demo` never leaves a half-made demo: a first run that fails or stops part-way removes
what it made; a run over an existing demo keeps it."""

from __future__ import annotations

from pathlib import Path

from conftest import run_dealer as run

from dealer.app.dealing import deal_event
from dealer.demo import run_demo
from dealer.files import load_event_text
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder


def test_a_first_run_that_fails_after_the_deal_removes_what_it_made(tmp_path: Path) -> None:
    boards, out = tmp_path / "boards", tmp_path / "output"
    out.write_text("not a folder", encoding="utf-8")  # the print pack cannot be written: after the deal
    code, stdout, stderr = run("demo", "--boards-dir", boards, "--out", out)
    assert code == 2, stderr
    assert "dealt 3 sets" in stdout and "output/demo: cannot create the folder" in stderr
    assert not boards.exists()  # the deal, the key and the event file are gone with the folder made for them
    assert out.read_text(encoding="utf-8") == "not a folder"


def test_a_first_run_stopped_part_way_removes_what_it_made(tmp_path: Path) -> None:
    boards, out = tmp_path / "boards", tmp_path / "output"
    boards.mkdir()
    (boards / "README.md").write_text("kept", encoding="utf-8")
    lines = run_demo(boards, out)
    assert next(lines).startswith("dealt 3 sets")
    lines.close()  # the reader went away (or Ctrl-C) before the print pack
    assert sorted(p.name for p in boards.iterdir()) == ["README.md"]  # the root was there before: kept
    assert not out.exists()


def test_a_run_over_an_existing_demo_keeps_it(tmp_path: Path) -> None:
    boards, out = tmp_path / "boards", tmp_path / "output"
    deal_event(load_event_text(demo_event_text(), "demo"), EventFolder("demo", boards, out))
    out.mkdir()
    (out / "demo").write_text("in the way", encoding="utf-8")  # a later step fails
    code, stdout, stderr = run("demo", "--boards-dir", boards, "--out", out)
    assert code == 2, stderr
    assert "already dealt" in stdout
    assert (boards / "demo" / "manifest.json").exists()
