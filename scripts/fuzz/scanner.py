"""Scans of a built site: secrecy (nothing of an unreleased set, no form of the key) and the
withholding of the results of boards still in play.

Secrecy. The secrets come from the event folder (the set files and the key, read by the
harness as the director could): for each set not released, every board's deal code, the set's
fingerprint, the SHA-256 of its file, its file name, and each hand (a multiset of cards, so
order and notation do not matter: matched against every card list in every JSON value, every
``hand`` block of every HTML page, and the hand's card codes joined in several ways as raw
text); for the key (unless released): hex (both cases, with separators), base64 (standard, URL,
unpadded), base32, the raw bytes, the decimal integer, reversed bytes, and every 20-character
window of its hex. Every file of the site folder, its previous generation and any other hidden
folder beside it is read raw, and each zip member (XLSX) and each PDF's text and decompressed
streams are read too. The same scan of the released sets is the positive control: their hands
and codes must be found (so that zero hits on the unreleased ones mean something).

Withholding. From the results database (current, not withdrawn results) and the site's own
round pages (which match plays which set, which is forfeited), a board of an unreleased set is
*in play* while some table of a non-forfeited match playing that set has no result for it.
Every match JSON twin, each ``boards.csv`` and each XLSX sheet with the board columns must then
show nothing for that board (points, level points, trump). Positive control: a board played at
every table shows each table's stored points.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CARD = re.compile(r"^(BJ|LJ|[SHCD](10|[2-9TJQKA]))$")
SUIT_SYMBOL = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}


def _norm_card(code: str) -> tuple[str, str]:
    if code in ("BJ", "LJ"):
        return ("J", code[0])
    rank = code[1:]
    return (code[0], "10" if rank in ("T", "10") else rank)


def hand_signature(cards: list[str]) -> tuple[tuple[tuple[str, str], int], ...]:
    return tuple(sorted(Counter(_norm_card(c) for c in cards).items()))


@dataclass
class Secrets:
    """What must not appear (``tokens``: text → label; ``hands``: signature → label) and, for
    the positive control, the same of the released sets."""

    tokens: dict[bytes, str] = field(default_factory=dict)
    hands: dict[Any, str] = field(default_factory=dict)
    control_tokens: dict[bytes, str] = field(default_factory=dict)
    control_hands: dict[Any, str] = field(default_factory=dict)


def key_encodings(key: bytes) -> dict[bytes, str]:
    h = key.hex()
    found = {
        h.encode(): "key hex", h.upper().encode(): "key HEX",
        ":".join(h[i:i + 2] for i in range(0, len(h), 2)).encode(): "key hex:colons",
        " ".join(h[i:i + 2] for i in range(0, len(h), 2)).encode(): "key hex spaced",
        base64.b64encode(key): "key base64", base64.urlsafe_b64encode(key): "key base64url",
        base64.b64encode(key).rstrip(b"="): "key base64 unpadded",
        base64.urlsafe_b64encode(key).rstrip(b"="): "key base64url unpadded",
        base64.b32encode(key).rstrip(b"="): "key base32", base64.b32encode(key).lower().rstrip(b"="): "key base32 lower",
        key: "key raw bytes", str(int.from_bytes(key, "big")).encode(): "key decimal",
        key[::-1].hex().encode(): "key reversed hex",
        json.dumps(list(key)).encode(): "key JSON byte list", json.dumps(list(key), separators=(",", ":")).encode():
            "key JSON byte list compact",
    }
    for i in range(0, len(h) - 20 + 1, 4):
        found.setdefault(h[i:i + 20].encode(), f"key hex window {i}")
        found.setdefault(h[i:i + 20].upper().encode(), f"key HEX window {i}")
    return found


def _set_tokens(n: int, path: Path) -> tuple[dict[bytes, str], dict[Any, str]]:
    import hashlib

    raw = path.read_bytes()
    doc = json.loads(raw)
    tokens: dict[bytes, str] = {
        doc["fingerprint"].encode(): f"set {n} fingerprint",
        hashlib.sha256(raw).hexdigest().encode(): f"set {n} file SHA-256",
        path.name.encode(): f"set {n} file name",
    }
    hands: dict[Any, str] = {}
    for board in doc["boards"]:
        b = board["number"]
        tokens[board["deal_code"].encode()] = f"set {n} board {b} deal code"
        for seat, cards in board["hands"].items():
            label = f"set {n} board {b} hand {seat}"
            hands[hand_signature(cards)] = label
            for sep in (",", ", ", " ", ""):
                tokens[sep.join(cards).encode()] = label + f" joined {sep!r}"
                tokens[json.dumps(cards, separators=(sep.strip() or ",", ":")).encode()] = label + " JSON"
            tokens[json.dumps(cards).encode()] = label + " JSON spaced"
        if board.get("kitty") and len(board["kitty"]) >= 4:
            hands[hand_signature(board["kitty"])] = f"set {n} board {b} kitty"
    return tokens, hands


def secrets(event_folder: Path, released: set[int], key_released: bool) -> Secrets:
    """The secrets of ``event_folder`` (boards/<event>): sets not in ``released``, and the key
    unless ``key_released``; the released sets' as the control."""
    found = Secrets()
    for path in sorted(event_folder.glob("set-*.json")):
        n = int(path.stem.split("-")[1])
        tokens, hands = _set_tokens(n, path)
        if n in released:
            found.control_tokens.update(tokens)
            found.control_hands.update(hands)
        else:
            found.tokens.update(tokens)
            found.hands.update(hands)
    key_path = event_folder / "deal.key"
    if key_path.exists():
        key = bytes.fromhex(key_path.read_text().strip())
        (found.control_tokens if key_released else found.tokens).update(key_encodings(key))
    return found


# --- reading a site's files ------------------------------------------------------------------


def site_roots(out: Path) -> list[Path]:
    """The site folder and every hidden folder beside it that a build makes (``.X-previous``,
    ``.X.new``, ``.X-previous.partial``, ``.X.old-*``)."""
    roots = [out]
    parent = out.parent
    if parent.is_dir():
        for entry in sorted(parent.iterdir()):
            if entry.name.startswith(f".{out.name}") and entry.is_dir() and not entry.is_symlink():
                roots.append(entry)
    return roots


def _pdf_texts(data: bytes) -> list[bytes]:
    texts = []
    for m in re.finditer(rb"stream\r?\n", data):
        start = m.end()
        end = data.find(b"endstream", start)
        if end < 0:
            continue
        try:
            texts.append(zlib.decompress(data[start:end].rstrip(b"\r\n")))
        except zlib.error:
            pass
    try:
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(data)
        parts = []
        for page in doc:
            tp = page.get_textpage()
            parts.append(tp.get_text_range())
            tp.close()
            page.close()
        doc.close()
        texts.append("\n".join(parts).encode("utf-8"))
    except Exception as error:
        texts.append(f"<pdf text failed: {error}>".encode())
    return texts


def file_texts(path: Path) -> list[tuple[str, bytes]]:
    """(where, bytes) of a file: its raw bytes, each zip member, a PDF's text and streams."""
    data = path.read_bytes()
    out = [("raw", data)]
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in z.infolist():
                    out.append((f"zip:{info.filename}", z.read(info)))
        except zipfile.BadZipFile:
            pass
    if data[:5] == b"%PDF-":
        out += [(f"pdf:{i}", t) for i, t in enumerate(_pdf_texts(data))]
    if data[:6] == b"\x93NUMPY" or path.suffix == ".npz":
        pass
    return out


def _walk_json(value: Any, found: list[list[str]]) -> None:
    if isinstance(value, list):
        if len(value) >= 4 and all(isinstance(x, str) and CARD.match(x) for x in value):
            found.append(value)
        for x in value:
            _walk_json(x, found)
    elif isinstance(value, dict):
        lines = value.get("lines")
        if isinstance(lines, list) and lines and all(isinstance(x, dict) and "cards" in x for x in lines):
            cards = _lines_cards([(line.get("symbol", ""), line.get("cls", ""),
                                   [(c.get("cls", ""), c.get("text", "")) for c in line["cards"] if isinstance(c, dict)])
                                  for line in lines])
            if len(cards) >= 4:
                found.append(cards)
        for x in value.values():
            _walk_json(x, found)


def _lines_cards(lines: list[tuple[str, str, list[tuple[str, str]]]]) -> list[str]:
    """Card codes of a hand record's lines (symbol, line class, [(card class, text)])."""
    cards = []
    for symbol, line_cls, items in lines:
        suit = SUIT_SYMBOL.get(symbol.strip())
        for cls, text in items:
            if "joker" in cls or "jokers" in line_cls:
                cards.append("BJ" if "big" in cls else "LJ")
            elif suit is not None:
                text = text.strip()
                cards.append(suit + ("T" if text == "10" else text))
    return cards


_SECTION = re.compile(r'<section class="hand[^"]*"[^>]*>(.*?)</section>', re.S)
_LI = re.compile(r'<li class="([^"]*)"><span class="sym"[^>]*>([^<]*)</span>(.*?)</li>', re.S)
_CARD_SPAN = re.compile(r'<span class="card([^"]*)">([^<]*)</span>')


def html_hands(text: str) -> list[list[str]]:
    hands = []
    for section in _SECTION.finditer(text):
        lines = []
        for li in _LI.finditer(section.group(1)):
            lines.append((li.group(2), li.group(1), [(m.group(1), m.group(2)) for m in _CARD_SPAN.finditer(li.group(3))]))
        cards = _lines_cards(lines)
        if cards:
            hands.append(cards)
    return hands


@dataclass
class ScanResult:
    files: int = 0
    blobs: int = 0
    hits: list[tuple[str, str, str]] = field(default_factory=list)  # (file, where, label)
    control: Counter[str] = field(default_factory=Counter)  # label → times found
    hands_parsed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"files": self.files, "blobs": self.blobs, "hits": len(self.hits), "hit_list": self.hits[:50],
                "control_labels_found": len(self.control), "hands_parsed": self.hands_parsed}


def scan(out: Path, found: Secrets, controls: bool = True) -> ScanResult:
    """Every file under the site's roots, for every secret (and, with ``controls``, the
    released sets' tokens, counted)."""
    result = ScanResult()
    tokens = list(found.tokens.items())
    ctokens = list(found.control_tokens.items()) if controls else []
    for root in site_roots(out):
        for dirpath, _dirs, files in os.walk(root, followlinks=False):
            for name in files:
                path = Path(dirpath) / name
                if path.is_symlink():
                    result.hits.append((str(path), "link", "a symlink in the site"))
                    continue
                result.files += 1
                rel = str(path.relative_to(out.parent))
                for where, blob in file_texts(path):
                    result.blobs += 1
                    for token, label in tokens:
                        if token in blob:
                            result.hits.append((rel, where, label))
                    for token, label in ctokens:
                        if token in blob:
                            result.control[label] += 1
                    parsed: list[list[str]] = []
                    if name.endswith(".json") or where.startswith("zip:"):
                        try:
                            _walk_json(json.loads(blob), parsed)
                        except (ValueError, UnicodeDecodeError):
                            pass
                    if name.endswith(".html") or b"<section class=\"hand" in blob:
                        parsed += html_hands(blob.decode("utf-8", "replace"))
                    for cards in parsed:
                        result.hands_parsed += 1
                        sig = hand_signature(cards)
                        if sig in found.hands:
                            result.hits.append((rel, where + ":parsed-hand", found.hands[sig]))
                        if sig in found.control_hands:
                            result.control[found.control_hands[sig]] += 1
    return result


# --- the results database, read from a copy --------------------------------------------------


def read_db(path: Path) -> dict[str, Any]:
    """Current non-withdrawn results by (round, match, table, board), releases (kind, set)."""
    with tempfile.TemporaryDirectory(prefix="fz-db-") as tmp:
        copy = Path(tmp) / "r.sqlite"
        for suffix in ("", "-wal", "-shm"):
            if Path(str(path) + suffix).exists():
                shutil.copyfile(str(path) + suffix, str(copy) + suffix)
        con = sqlite3.connect(copy)
        try:
            results = {}
            for rnd, match, tbl, board, points, trump in con.execute(
                    "SELECT round, match, tbl, board, defenders_points, trump FROM results r WHERE withdrawn = 0 "
                    "AND NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id)"):
                results[(rnd, str(match), tbl, board)] = (points, trump)
            releases = con.execute("SELECT kind, set_number FROM releases").fetchall()
        finally:
            con.close()
    return {"results": results, "released": {n for k, n in releases if k == "set"},
            "unused": {n for k, n in releases if k == "unused"}, "key": any(k == "key" for k, _n in releases)}


# --- withholding -------------------------------------------------------------------------------

RESULT_COLUMNS = ("A_points", "A_ns_levels", "A_ew_levels", "B_points", "B_ns_levels", "B_ew_levels", "home_levels",
                  "away_levels", "A_trump", "B_trump")
MATCH_FIELDS = ("a_points", "a_ns_level_points", "a_ew_level_points", "b_points", "b_ns_level_points",
                "b_ew_level_points", "home_level_points", "away_level_points")


@dataclass
class WithheldResult:
    in_play: dict[int, list[int]] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    shown_ok: int = 0  # control: a fully played board's stored points shown
    shown_wrong: list[str] = field(default_factory=list)
    checked_rows: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"in_play": self.in_play, "leaks": len(self.leaks), "leak_list": self.leaks[:50],
                "control_shown_ok": self.shown_ok, "control_wrong": self.shown_wrong[:20],
                "checked_rows": self.checked_rows}


def _json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def withheld_check(out: Path, db: dict[str, Any], siblings: bool = False) -> WithheldResult:
    """Check the site in ``out`` against the database's results (see module docstring);
    ``siblings``: the downloads of its previous generation too (right only when that generation
    was built at the same state: an earlier one could rightly show what was public then)."""
    result = WithheldResult()
    released = db["released"]
    matches: dict[tuple[int, str], dict[str, Any]] = {}
    for path in sorted(out.glob("round-*.json")):
        page = _json_file(path)
        if not isinstance(page, dict):
            continue
        for m in page.get("matches", []):
            matches[(m["round"], str(m["match"]))] = m
    boards_per_set = 0
    for (rnd, mid), m in matches.items():
        page = _json_file(out / f"{m['page']}.json") if m.get("page") else None
        if isinstance(page, dict):
            boards_per_set = max(boards_per_set, len(page.get("boards", [])))
    if not boards_per_set:
        return result  # a level race, or no match pages
    results = db["results"]
    in_play: set[tuple[int, int]] = set()
    for s in sorted({m["set"] for m in matches.values()} - released):
        playing = [k for k, m in matches.items() if m["set"] == s and not m.get("forfeited_by")]
        for b in range(1, boards_per_set + 1):
            if any((r, mid, t, b) not in results for r, mid in playing for t in "AB"):
                in_play.add((s, b))
                result.in_play.setdefault(s, []).append(b)
    for (rnd, mid), m in matches.items():
        if not m.get("page"):
            continue
        page = _json_file(out / f"{m['page']}.json")
        if not isinstance(page, dict):
            continue
        total_home = 0
        for row in page.get("boards", []):
            result.checked_rows += 1
            b = row["board"]
            if (m["set"], b) in in_play:
                shown = [f for f in MATCH_FIELDS if row.get(f) is not None]
                if shown:
                    result.leaks.append(f"{m['page']}.json board {b} (set {m['set']} in play): {shown}")
            else:
                for t, f in (("A", "a_points"), ("B", "b_points")):
                    stored = results.get((rnd, mid, t, b))
                    if stored is not None and not page.get("forfeited_by"):
                        if row.get(f) == stored[0]:
                            result.shown_ok += 1
                        else:
                            result.shown_wrong.append(f"{m['page']} board {b} table {t}: {row.get(f)} != {stored[0]}")
            if row.get("home_level_points") is not None:
                total_home += row["home_level_points"]
        if page.get("boards") and page.get("home_level_points") is not None and not page.get("forfeited_by") \
                and total_home != page["home_level_points"]:
            result.leaks.append(f"{m['page']}.json: home level points {page['home_level_points']} != the sum of "
                                f"its shown boards {total_home}")
    set_of = {k: m["set"] for k, m in matches.items()}
    for root in site_roots(out) if siblings else [out]:
        for path in sorted(root.rglob("boards.csv")):
            text = path.read_text(encoding="utf-8-sig")
            for row in csv.DictReader(io.StringIO(text)):
                _check_row(result, f"{path.relative_to(out.parent)}", row, set_of, in_play)
        for path in sorted(root.rglob("*.xlsx")):
            _check_xlsx(result, path, out, set_of, in_play)
    return result


def _check_row(result: WithheldResult, where: str, row: dict[str, Any], set_of: dict[tuple[int, str], int],
               in_play: set[tuple[int, int]]) -> None:
    try:
        key = (int(row["round"]), str(row["match"]))
        b = int(row["board"])
    except (KeyError, TypeError, ValueError):
        return
    result.checked_rows += 1
    s = set_of.get(key)
    if s is None:
        result.leaks.append(f"{where}: a row of round {key[0]} match {key[1]}, which the site's rounds do not list")
        return
    if (s, b) in in_play:
        shown = [c for c in RESULT_COLUMNS if row.get(c) not in (None, "")]
        if shown:
            result.leaks.append(f"{where}: round {key[0]} match {key[1]} board {b} (set {s} in play): {shown}")


def _check_xlsx(result: WithheldResult, path: Path, out: Path, set_of: dict[tuple[int, str], int],
                in_play: set[tuple[int, int]]) -> None:
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        for ws in wb.worksheets:
            rows = ws.iter_rows(values_only=True)
            head = next(rows, None)
            if not head or "board" not in head or "A_points" not in head:
                continue
            names = [str(h) if h is not None else "" for h in head]
            for values in rows:
                _check_row(result, f"{path.relative_to(out.parent)}[{ws.title}]", dict(zip(names, values)), set_of,
                           in_play)
    finally:
        wb.close()
