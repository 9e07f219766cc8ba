"""Every word a page context prints for a seat, the kitty or a joker comes from the strings data
(dealer/data/strings.toml), never from names hard-coded elsewhere (such as dealer.cards)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dealer.app.dealing import deal_event
from dealer.cards import SEATS, SUITS
from dealer.files import load_event_text
from dealer.render import context as ctx
from dealer.render.strings import Strings, strings
from dealer.resources import demo_event_text
from dealer.store.folder import EventFolder

#: Words of the two languages that name seats, the kitty, jokers and suits.
WORDS = {
    str(word)
    for lang in ("zh", "en")
    for key in ("seat", "seat_short", "suit")
    for word in strings(lang)[key].values()
} | {str(strings(lang)[key]) for lang in ("zh", "en") for key in ("kitty", "kitty_short", "big_joker", "small_joker")}


def sentinel_strings() -> Strings:
    """English strings with every seat, kitty and joker word replaced by a marker."""
    t = Strings(strings("en"))
    t["seat"] = {s: f"<seat {s}>" for s in SEATS}
    t["seat_short"] = {s: f"<short {s}>" for s in SEATS}
    t["suit"] = {suit.value: f"<suit {suit.value}>" for suit in SUITS}
    for key in ("kitty", "kitty_short", "big_joker", "small_joker"):
        t[key] = f"<{key}>"
    return t


@pytest.mark.parametrize("mode", ["in-hand", "separate"])
def test_page_contexts_take_seat_kitty_and_joker_words_from_the_strings(tmp_path: Path, mode: str) -> None:
    text = demo_event_text().replace('# kitty_mode = "in-hand"', f'kitty_mode = "{mode}"')
    event = load_event_text(text, "event.toml")
    assert event.kitty_mode == mode
    deal_event(event, EventFolder(event.id, tmp_path))
    boards = EventFolder(event.id, tmp_path).read_set(event, 1).boards
    t = sentinel_strings()
    contexts = [
        ctx.hand_record_pages(boards, 2, t),
        ctx.label_items(event, 1, 1, bytes(32), True, t)[0],
        ctx.curtain_pages(boards, 1, t),
        ctx.guide_pages(boards, t),
    ]
    dumped = json.dumps(contexts, ensure_ascii=False)
    plain = re.sub(r"<[^<>]*>", " ", dumped)
    leaked = {
        word for word in WORDS
        if (word in plain if not word.isascii() else re.search(rf"\b{re.escape(word)}\b", plain))
        and len(word) > 1  # single letters N E S W are also the seat codes of the data
    }
    assert not leaked
    assert "<seat N>" in dumped and "<big_joker>" in dumped
    assert ("<kitty>" in dumped) == ("<kitty_short>" in dumped) == (mode == "separate")
