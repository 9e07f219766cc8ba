"""The papers of a round whose tables share copies of its set (issue 37), read back from the PDFs
and compared with ``dealer round show --json``; and the default's papers (one copy a match)
unchanged, byte for byte.

The default's papers are pinned by the SHA-256 of each HTML file of a small event dealt from a
fixed key (tests/data/default-papers.json), written from the tree before shared copies existed:
``PYTHONPATH=<that tree> python tests/test_movement_papers.py --write`` writes it again (do so
only for a deliberate change of the default papers, and say so in the commit)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "default-papers.json"

#: A small fixed event: 6 teams, two rounds of three matches on two sets of 8 boards.
DEFAULT_EVENT = """\
[event]
id = "pinned"
name = "Pinned Cup"
date = "2026-12-06"
profile = "renmin-shuangsheng"
decks = 2
boards_per_set = 8
sets = 2
round_minutes = 60

[[teams]]
id = "A"
name = "东风队"
players = ["张一", "王二", "李三", "赵四"]
[[teams]]
id = "B"
name = "长城队"
[[teams]]
id = "C"
name = "黄河队"
[[teams]]
id = "D"
name = "泰山队"
[[teams]]
id = "E"
name = "昆仑队"
[[teams]]
id = "F"
name = "珠江队"

[[rounds]]
number = 1
matches = [
  { id = "1", home = "A", away = "B", set = 1 },
  { id = "2", home = "C", away = "D", set = 1 },
  { id = "3", home = "E", away = "F", set = 1 },
]
[[rounds]]
number = 2
matches = [
  { id = "1", home = "A", away = "C", set = 2 },
  { id = "2", home = "B", away = "E", set = 2 },
  { id = "3", home = "D", away = "F", set = 2 },
]
"""


def dealer_run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``dealer`` in a process of its own (the tree on ``PYTHONPATH`` when writing the pin)."""
    code = "import sys; from dealer.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          env=env, check=False)


def render_default_pack(root: Path) -> dict[str, str]:
    """Deal the pinned event from a fixed key and entry key, render every paper of each round
    (print all, the timer, the seating plan) in both languages as HTML: file name → SHA-256."""
    env = dict(os.environ)
    event_file = root / "pinned.toml"
    event_file.write_text(DEFAULT_EVENT, encoding="utf-8")
    folder = root / "boards" / "pinned"
    folder.mkdir(parents=True, mode=0o700)
    for name, key in (("deal.key", bytes(range(32))), ("entry.key", bytes(range(32, 64)))):
        (folder / name).write_text(key.hex() + "\n", encoding="ascii")
        (folder / name).chmod(0o600)
    boards = ("--boards-dir", root / "boards")
    out = root / "out"
    steps: list[tuple[object, ...]] = [("deal", event_file, *boards)]
    for number in (1, 2):
        for lang in ("zh", "en"):
            steps.append(("print", "all", event_file, *boards, "--round", number, "--format", "html",
                          "--lang", lang, "--out", out, "--jobs", 1))
            steps.append(("print", "timer", event_file, *boards, "--round", number, "--format", "html",
                          "--lang", lang, "--out", out))
    for step in steps:
        done = dealer_run(*step, env=env)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(out.iterdir())}


def test_the_default_papers_are_unchanged_byte_for_byte(tmp_path: Path) -> None:
    pinned = json.loads(GOLDEN.read_text(encoding="utf-8"))
    rendered = render_default_pack(tmp_path)
    assert sorted(rendered) == sorted(pinned)  # no paper added (no movement sheet) or lost
    changed = [name for name in pinned if rendered[name] != pinned[name]]
    assert changed == []


# --- A 20-team Swiss round with copies = 2: papers against the JSON ---------------------------


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    from conftest import run_dealer as run
    from test_movement import swiss_text

    root = tmp_path_factory.mktemp("shared")
    event_file = root / "swiss.toml"
    event_file.write_text(swiss_text(20, "2"), encoding="utf-8")
    boards = ("--boards-dir", root / "boards")
    assert run("deal", event_file, *boards).exit_code == 0
    assert run("round", "pair", event_file, "--round", 1, *boards).exit_code == 0
    shown = run("round", "show", event_file, "--round", 1, "--json", *boards)
    assert shown.exit_code == 0, shown.output
    for kind in ("table-cards", "movement", "labels", "score-sheets"):
        done = run("print", kind, event_file, *boards, "--round", 1, "--out", root / "out", "--jobs", 1)
        assert done.exit_code == 0, done.output
    return json.loads(shown.stdout)["movement"], root / "out"


def plays_of(movement: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {t["name"]: t["plays"] for t in movement["tables"]}


def run_text(boards: list[int]) -> str:
    return f"{boards[0]}–{boards[-1]}" if len(boards) > 1 else str(boards[0])


CARD_HEAD = re.compile(r"桌卡 · (\S+) 号桌 · 第 \d+ 场 [AB] 桌")
CARD_STEP = re.compile(r"第 (\d+) 段 打牌号 (\S+) \(副本 (\d+)\)")
CARD_MOVE = re.compile(r"(从裁判处领|从 (\S+) 号桌接|从中转堆 (\d+) 接) · "
                       r"(打完交还裁判|打完交 (\S+) 号桌|打完放到中转堆 (\d+))")


def test_table_cards_agree_with_the_json(shared: tuple[dict[str, Any], Path]) -> None:
    from print_support import page_texts

    movement, out = shared
    expected = plays_of(movement)
    found: dict[str, tuple[list[tuple[str, ...]], list[tuple[str | None, str | None]]]] = {}
    for page in page_texts(out / "table-cards-set-01-zh.pdf"):
        # each card: its moves (set on the right, read first), then its head and its stanzas
        for part in page.split("按段的顺序打。")[:-1]:
            heads = CARD_HEAD.findall(part)
            assert len(heads) == 1, part
            moves = [(m.group(2) or (f"relay {m.group(3)}" if m.group(3) else None),
                      m.group(5) or (f"relay {m.group(6)}" if m.group(6) else None))
                     for m in CARD_MOVE.finditer(part)]
            found[heads[0]] = (CARD_STEP.findall(part), moves)
    assert sorted(found) == sorted(expected)
    for name, plays in expected.items():
        steps, moves = found[name]
        assert steps == [(str(p["stanza"]), run_text(p["boards"]), str(p["copy"])) for p in plays], name
        assert moves == [(p["from"], p["to"]) for p in plays], name


def test_the_movement_sheet_agrees_with_the_json(shared: tuple[dict[str, Any], Path]) -> None:
    from print_support import page_texts

    movement, out = shared
    cell = re.compile(r"(\S+) \((\d+)\) → (\S+)")
    found: dict[str, list[tuple[str, str, str]]] = {}
    for page in page_texts(out / "movement-set-01-zh.pdf"):
        for line in page.splitlines():
            name, _, rest = line.partition(" ")
            if re.fullmatch(r"\d+[AB]", name):
                found.setdefault(name, []).extend(cell.findall(rest))
    expected = {name: [(run_text(p["boards"]), str(p["copy"]), p["to"] or "裁判") for p in plays]
                for name, plays in plays_of(movement).items()}
    assert found == expected


def test_labels_are_the_movements_wallets(shared: tuple[dict[str, Any], Path]) -> None:
    from print_support import label_texts

    movement, out = shared
    wallets = set()
    for text in label_texts(out / "labels-set-01-zh.pdf"):
        head = re.match(r"(\d+)\s+庄家", text)
        copy = re.search(r"副本 (\d+)/(\d+)", text)
        if head and copy:
            assert copy.group(2) == str(movement["copies"])
            wallets.add((int(head.group(1)), int(copy.group(1))))
    boards = sorted({b for group in movement["groups"] for b in group})
    assert len(wallets) == movement["wallets"]
    assert wallets == {(b, c) for b in boards for c in range(1, movement["copies"] + 1)}


def test_score_sheets_list_the_boards_in_playing_order(shared: tuple[dict[str, Any], Path]) -> None:
    from print_support import page_texts

    movement, out = shared
    names = {(t["match"], t["table"]): t["name"] for t in movement["tables"]}
    found = {}
    for page in page_texts(out / "score-sheets-set-01-zh.pdf"):
        table = re.search(r"记分表 · ([AB]) 桌", page)
        match = re.search(r"第 \d+ 轮 · 第 (\d+) 场", page)
        assert table and match, page
        rows = re.findall(r"^(\d+) [北东南西] \S+$", page.split("合计")[0], re.M)
        found[names[(match.group(1), table.group(1))]] = [int(r) for r in rows]
    assert found == {name: [b for p in plays for b in p["boards"]] for name, plays in plays_of(movement).items()}


if __name__ == "__main__":  # write the pin from the tree on PYTHONPATH
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: PYTHONPATH=<tree> python tests/test_movement_papers.py --write")
    with tempfile.TemporaryDirectory() as folder:
        digests = render_default_pack(Path(folder))
    GOLDEN.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}: {len(digests)} papers")
