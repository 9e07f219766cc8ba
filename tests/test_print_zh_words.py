"""No English of the tool's own on a Chinese paper (issue 38): every PDF ``dealer print`` makes in
Chinese for the two demo events (the boards demo's whole round pack with its paperwork, the level
race's), read back, holds no ASCII word but those that are legitimately ASCII:

* the event's own data: its name, team names, clubs and players as the director typed them
  ("升级复式赛示例 Demo Cup");
* addresses (``http://…``), codes and hashes: a token with a digit (team ids T1, tables 1A, the
  sheets' entry codes, fingerprints, the chain head), a run of upper-case code letters (the
  base-32 codes, wrapped over lines), hexadecimal on a line that holds a hash;
* single letters (tables A/B, seats, levels J, Q, K, A).

A profile's id (``official-2002``) is the tool's own word: the papers name the rules by name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_dealer
from print_support import page_texts
from test_print_paperwork import events  # noqa: F401  (the module's fixture, used by name below)

from dealer.files import load_event_text
from dealer.resources import profile_ids

URL = re.compile(r"https?://\S+")
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-']*")
HASH_LINE = re.compile(r"[0-9a-f]{16,}")


def _own_words(event_file: Path) -> set[str]:
    """The ASCII words of the event's own data (what the director typed)."""
    event = load_event_text(event_file.read_text(encoding="utf-8"), str(event_file))
    texts = [event.name, *(t.name for t in event.teams), *(t.club or "" for t in event.teams),
             *(p for t in event.teams for p in t.players), *(t.leader or "" for t in event.teams)]
    return {word for text in texts for word in TOKEN.findall(text)}


def tool_words(text: str, own: set[str]) -> list[str]:
    """The ASCII words of ``text`` that are the tool's own (see the module's docstring)."""
    found = [pid for pid in profile_ids() if pid in text]
    for line in URL.sub(" ", text).splitlines():
        hashes = bool(HASH_LINE.search(line)) or bool(re.fullmatch(r"[0-9a-f\s]+", line))
        for token in TOKEN.findall(line):
            if len(token) < 2 or token in own or any(ch.isdigit() for ch in token):
                continue
            if re.fullmatch(r"[A-Z2-7]+", token) or (hashes and re.fullmatch(r"[0-9a-f]+", token)):
                continue
            found.append(token)
    return found


def _print(events: dict[str, Path], which: str, out: Path, *args: object) -> None:  # noqa: F811
    code, _printed, err = run_dealer("print", *args[:1], events[which], "--lang", "zh", "--out", out, *args[1:])
    assert code == 0, err


@pytest.fixture(scope="module")
def zh_papers(events: dict[str, Path]) -> dict[str, Path]:  # noqa: F811
    """Every Chinese PDF of both demos: the boards demo's round 2 pack (its pairings, every paper
    of the set it plays, its 座位图 and round 1's 成绩公告), the whole event's papers, and the
    level race's round 2 with its papers."""
    papers = events["out"] / "zh-words"
    for which in ("demo", "levels"):
        out = papers / which
        _print(events, which, out, "all", "--round", 2)
        for kind in ("booklet", "prizes", "schedule"):
            _print(events, which, out, kind)
        _print(events, which, out, "bulletin", "--round", 1)
    _print(events, "demo", papers / "demo", "team-cards")
    return {f"{p.parent.name}/{p.name}": p for p in sorted(papers.glob("*/*.pdf"))}


def _texts(papers: dict[str, Path], events: dict[str, Path]) -> Iterator[tuple[str, list[str]]]:  # noqa: F811
    for name, path in papers.items():
        own = _own_words(events["demo" if name.startswith("demo/") else "levels"])
        yield name, tool_words("\n".join(page_texts(path)), own)


def test_the_checker_finds_the_words_the_review_found() -> None:
    own = {"Demo", "Cup"}
    assert tool_words("扣底倍数: single ×2, pair ×4 · 上台计一级（tai_counts_as_level）: 关", own) == [
        "single", "pair", "tai_counts_as_level"]
    assert tool_words("规则配置 official-2002 v1", own) == ["official-2002"]
    assert tool_words("录取名次在最后一轮结束后公布 (rounds 3 to 5 not paired)", own) == [
        "rounds", "to", "not", "paired"]
    # What is legitimately ASCII passes: the event's name, ids, codes, hashes, addresses.
    assert tool_words("升级复式赛示例 Demo Cup · T1 东风队 · 1A 桌 · 代码 DRVQ3QTX\n2HBMTRW5Z3KAD\nUWYRGIJQ\n"
                      "或在 http://127.0.0.1:8000 输入 · 校验值: 9335a9e003ecedfb\n9d4bface", own) == []


def test_every_chinese_paper_holds_no_english_word_of_the_tools_own(
        zh_papers: dict[str, Path], events: dict[str, Path]) -> None:  # noqa: F811
    assert len(zh_papers) >= 15  # every kind of both demos was printed
    kinds = {re.sub(r"(-set-\d+|-round-\d+)?-zh\.pdf$", "", name.split("/")[1]) for name in zh_papers}
    assert {"pairings", "hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets",
            "table-cards", "seating", "bulletin", "prizes", "schedule", "booklet", "team-cards",
            "level-sheets"} <= kinds
    found = {name: words for name, words in _texts(zh_papers, events) if words}
    assert found == {}
