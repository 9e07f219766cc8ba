"""The projector's round timer (issue 22, item 6: ``dealer print timer``): one self-contained HTML
page counting down from the round's time (the event's ``round_minutes``, else the profile's
``timing``: seed 002 §七.7, 90 minutes, warned with 15 left), run in Debian's Chromium with its
clock advanced by Playwright; refused, saying what to set, for an event whose rules give no time."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer
from serve_support import CHROMIUM, launched_chromium

EVENT = """\
[event]
id = "ruc-timer"
name = "人大双升赛"
profile = "renmin-shuangsheng"
result = "levels"
tables = 2
{extra}
[format]
kind = "swiss"
rounds = 3
first_round = "pinyin"
""" + "".join(f'[[teams]]\nid = "A{i:02d}"\nname = "队{i}"\nmixed_club = false\n' for i in range(1, 5))


def _event(tmp_path: Path, extra: str = "") -> Path:
    tmp_path.mkdir(exist_ok=True)
    event = tmp_path / "ruc.toml"
    event.write_text(EVENT.format(extra=extra), encoding="utf-8")
    paired = run_dealer("round", "pair", event, "--round", 1)
    assert paired.exit_code == 0, paired.output
    return event


def _timer(event: Path, out: Path, *more: object) -> Path:
    done = run_dealer("print", "timer", event, "--round", 1, "--out", out, *more)
    assert done.exit_code == 0, done.output
    pages = sorted(out.glob("timer-round-01-*.html"))
    assert len(pages) == 1, pages
    return pages[0]


def _text(page: str) -> str:
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page)
    return re.sub(r"\s+", " ", re.sub(r"(?s)<[^>]*>", " ", page))


def test_the_timer_page_states_the_rounds_time_and_warning_and_needs_nothing_else(tmp_path: Path) -> None:
    event = _event(tmp_path)
    page = _timer(event, tmp_path / "zh")
    assert page.name == "timer-round-01-zh.html"  # an HTML page whatever --format says
    html = page.read_text(encoding="utf-8")
    text = _text(html)
    assert "人大双升赛 · 第 1 轮 计时" in text and "本轮限时 90 分钟 · 还剩 15 分钟时提醒" in text
    assert "1:30:00" in text  # what the page shows without JavaScript
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", html)  # nothing fetched: works offline
    own = _event(tmp_path / "en", 'round_minutes = 45\nboards_dir = "boards"')  # the event's own time
    english = _text(_timer(own, tmp_path / "en-out", "--lang", "en").read_text(encoding="utf-8"))
    assert "Round 1 timer" in english and "Time for the round: 45 minutes" in english and "0:45:00" in english
    assert not re.search(r"[\u3400-\u9fff]", english.replace("人大双升赛", ""))


def test_an_event_whose_rules_give_no_round_time_is_refused_saying_what_to_set(tmp_path: Path) -> None:
    event = tmp_path / "cup.toml"
    # Seed 003's text gives no round time (seed 001's four-deck-2v2 does since issue 38: 2.5 hours).
    silent = EVENT.format(extra="").replace('profile = "renmin-shuangsheng"', 'profile = "shenzhen-community"')
    event.write_text(silent.replace("mixed_club = false\n", ""), encoding="utf-8")
    assert run_dealer("round", "pair", event, "--round", 1).exit_code == 0
    refused = run_dealer("print", "timer", event, "--round", 1, "--out", tmp_path / "out")
    assert refused.exit_code == 2 and "round_minutes" in refused.stderr, refused.output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    assert run_dealer("print", "timer", event, "--out", tmp_path / "out").exit_code == 2  # one round's page


@pytest.fixture(scope="module")
def browser() -> Any:
    if not Path(CHROMIUM).exists():  # `make test` installs it: a missing browser fails, never skips
        pytest.fail(f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps`", pytrace=False)
    with launched_chromium() as chromium:
        yield chromium


@pytest.mark.slow
def test_the_timer_counts_down_warns_and_ends_in_chromium(tmp_path: Path, browser: Any) -> None:
    page_file = _timer(_event(tmp_path), tmp_path / "zh")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: errors.append(request.url) if not request.url.startswith("file:") else None)
    start = dt.datetime(2026, 12, 5, 9, 0, tzinfo=dt.UTC)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))  # only fast_forward moves the time: no flake
    page.goto(page_file.as_uri())
    clock, state = page.locator("#clock"), page.locator("#state")
    assert clock.inner_text() == "1:30:00" and state.inner_text() == ""
    page.clock.fast_forward("30:00")
    assert clock.inner_text() == "1:00:00"
    page.reload()  # the start is kept: a reload does not give the round its time back
    assert clock.inner_text() == "1:00:00"
    page.clock.fast_forward(45 * 60 * 1000 + 1000)  # 75:01 gone: 14:59 left, past the warning
    assert clock.inner_text() == "0:14:59"
    assert state.inner_text() == "还剩不到 15 分钟" and "warned" in (page.locator("body").get_attribute("class") or "")
    page.locator("#pause").click()
    page.clock.fast_forward("10:00")
    assert clock.inner_text() == "0:14:59"  # paused
    page.locator("#pause").click()
    page.clock.fast_forward("15:00")
    assert clock.inner_text() == "0:00:00" and state.inner_text() == "时间到"
    page.locator("#restart").click()
    assert clock.inner_text() == "1:30:00"
    assert errors == []
    page.close()
