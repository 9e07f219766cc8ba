"""Live entry's secrets and the table score sheet's entry URL (spec: ``docs/qr.md``, prefix ``SJE1``).

Pure domain code. Everything here is made from the event's **entry key** (``entry.key``, 32 random
bytes, owner-only, in the event folder), never from the dealing key: the dealing key is revealed
when play ends, and would then make every tag forgeable.

* the **sheet tag** (16 base32 characters, 80 bits) authorises entry at one table of one match of
  one round, for one *generation* of the printed sheet: a reprint raises the generation and the old
  sheet's tag stops working;
* the **fallback code** (8 base32 characters) is printed under the QR and typed on the server's
  home page when a phone cannot open the QR;
* the **team code** (6 digits) is printed on the team's own card, never on a table's sheet: the
  side that did not keep score confirms the results with it.

The entry URL is ``<base>/t/SJE1/<event>/<round>/<match>/<table>/<generation>/<tag>``.
"""

from __future__ import annotations

import base64
import hmac
import re
from dataclasses import dataclass

from dealer.errors import UserError, quote
from dealer.event import EVENT_ID, MATCH_ID
from dealer.numbers import fold_typed

PREFIX = "SJE1"
SHEET_TAG = b"shengji-dealer/entry-tag/v1\x00"
SHEET_CODE = b"shengji-dealer/entry-code/v1\x00"
TEAM_CODE = b"shengji-dealer/team-code/v1\x00"
TAG_LENGTH = 16  # 80 bits
CODE_LENGTH = 8  # 40 bits: typed by hand, and five wrong tries lock nothing but the typist out
TEAM_CODE_DIGITS = 6
KEY_BYTES = 32

_NUMBER = re.compile(r"[1-9][0-9]{0,8}")
_TABLE = re.compile(r"[AB]|[1-9][0-9]{0,2}")
_BASE32 = re.compile(r"[A-Z2-7]+")


class EntryUrlError(UserError, ValueError):
    """An entry URL (or a typed fallback code) does not follow the spec."""


@dataclass(frozen=True)
class SheetId:
    """One printed table score sheet: a table (``A``/``B``, or a level race's ``1``, ``2``, …) of
    one match of one round, in its ``generation``."""

    event: str
    round: int
    match: str
    table: str
    generation: int = 1

    def fields(self) -> str:
        return f"{self.event}\x00{self.round}\x00{self.match}\x00{self.table}\x00{self.generation}"


def _mac(key: bytes, domain: bytes, message: str) -> bytes:
    if len(key) != KEY_BYTES:
        raise ValueError("an entry key is 32 bytes")
    return hmac.digest(key, domain + message.encode("utf-8"), "sha256")


def _base32_head(mac: bytes, chars: int) -> str:
    """The first ``chars`` characters of the MAC in base32: only the bytes they show are encoded
    (five bytes make eight characters), the same text as the whole MAC's prefix."""
    return base64.b32encode(mac[:-(-chars * 5 // 40) * 5]).decode("ascii")[:chars]


def sheet_tag(key: bytes, sheet: SheetId) -> str:
    return _base32_head(_mac(key, SHEET_TAG, sheet.fields()), TAG_LENGTH)


def sheet_code(key: bytes, sheet: SheetId) -> str:
    return _base32_head(_mac(key, SHEET_CODE, sheet.fields()), CODE_LENGTH)


def team_code(key: bytes, event: str, team: str) -> str:
    """The team's confirmation code: the same in every round (it is on the team's card)."""
    number = int.from_bytes(_mac(key, TEAM_CODE, f"{event}\x00{team}")[:8], "big")
    return f"{number % 10 ** TEAM_CODE_DIGITS:0{TEAM_CODE_DIGITS}d}"


def check_tag(key: bytes, sheet: SheetId, tag: str) -> bool:
    """Whether ``tag`` is this sheet's (constant-time comparison)."""
    return hmac.compare_digest(sheet_tag(key, sheet).encode(), tag.encode("ascii", "replace"))


def same_code(expected: str, typed: str) -> bool:
    """A typed code against the expected one, in constant time, after
    :func:`~dealer.numbers.fold_typed` (full-width digits and letters as typed on a Chinese keyboard;
    a circled or superscript digit is not the digit), case and spaces ignored."""
    given = "".join(fold_typed(typed).split()).upper()
    return hmac.compare_digest(expected.encode(), given.encode("ascii", "replace"))


def entry_path(sheet: SheetId, tag: str) -> str:
    return f"/t/{PREFIX}/{sheet.event}/{sheet.round}/{sheet.match}/{sheet.table}/{sheet.generation}/{tag}"


def entry_url(base: str, key: bytes, sheet: SheetId) -> str:
    """The URL a sheet's QR holds (``base``: the server as the players' phones reach it)."""
    return base.rstrip("/") + entry_path(sheet, sheet_tag(key, sheet))


def _positive(text: str, name: str, shown: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise EntryUrlError("entry_url.bad_number", shown=shown, name=name)
    return int(text)


def parse_entry_path(path: str) -> tuple[SheetId, str]:
    """The sheet and tag of an entry URL's path (or of the whole URL); raises :class:`EntryUrlError`."""
    shown = quote(path)
    text = path.strip()
    if "://" in text:
        text = "/" + text.split("://", 1)[1].split("/", 1)[-1]
    parts = text.split("?", 1)[0].strip("/").split("/")
    if len(parts) < 2 or parts[0] != "t" or parts[1] != PREFIX:
        raise EntryUrlError("entry_url.not_an_entry_url", shown=shown, prefix=PREFIX)
    fields = parts[2:]
    if len(fields) != 6:
        raise EntryUrlError("entry_url.field_count", shown=shown)
    event, round_text, match, table, generation, tag = fields
    if not EVENT_ID.fullmatch(event):
        raise EntryUrlError("entry_url.bad_event_id", shown=shown, event=quote(event))
    if not MATCH_ID.fullmatch(match):
        raise EntryUrlError("entry_url.bad_match_id", shown=shown, match=quote(match))
    if not _TABLE.fullmatch(table):
        raise EntryUrlError("entry_url.bad_table", shown=shown)
    if len(tag) != TAG_LENGTH or not _BASE32.fullmatch(tag):
        raise EntryUrlError("entry_url.bad_tag", shown=shown)
    sheet = SheetId(event, _positive(round_text, "round", shown), match, table,
                    _positive(generation, "generation", shown))
    return sheet, tag


def normal_code(typed: str) -> str:
    """A typed fallback code as the alphabet spells it (:func:`~dealer.numbers.fold_typed`, spaces
    and dashes dropped, upper case; ``0``/``1``/``8`` read as ``O``/``I``/``B``, the letters base32
    has instead; a circled ``⑧`` is not ``8``)."""
    text = "".join(fold_typed(typed).replace("-", " ").split()).upper()
    return text.translate(str.maketrans("018", "OIB"))
