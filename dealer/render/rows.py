"""The rows of the big tables of the site and the reports, written as HTML by format strings
(template filters): a match sheet's boards (the site's match pages, the report's sheets) and a
board's results across the field (the site's board pages).

A league's site holds about two million table rows: a match sheet's 16 boards on each of 20,000
match pages, and every table's result of a board (2,000 rows) on each board page, in two
languages. Jinja spends about a microsecond on each ``{{ expression }}`` (lookup, filter,
escape); a row of a dozen cells costs it 20–30 µs, a format string a few. The templates keep
the tables (captions, heads, wrappers); these filters give the ``<tbody>`` rows, exactly as the
row loops they replace wrote them. Text is escaped; numbers need not be. Cells the same on many
rows are made once per build: the ``cells`` dict a render is given (a template's ``cells``
variable), never kept by this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any
from unicodedata import east_asian_width

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from dealer.words import local_time

#: Cells made once for the rows of one build (see the module's docstring).
Cells = MutableMapping[tuple[Any, ...], Any]


def _num(v: Any) -> str:
    """The ``num`` filter: nothing for ``None``, floats without a trailing ``.0``."""
    if v is None:
        return ""
    return f"{v:g}" if isinstance(v, float) else str(v)


def _signed(v: Any) -> str:
    """The ``signed`` filter: nothing for ``None``, else with its sign."""
    if v is None:
        return ""
    return f"{v:+g}" if isinstance(v, float) else f"{v:+d}"


_UNCOUNTED = ' class="uncounted"'
_MISSING = ' class="missing"'


#: A suit played as trump as every page shows it (no trump: the language's word, ``no_trump_short``).
TRUMP_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def trump_words(no_trump: str) -> dict[str, str]:
    """A stored trump code (``S``, ``H``, ``C``, ``D``, ``NT``) → how a page in one language shows it."""
    return {**TRUMP_SYMBOLS, "NT": no_trump}


def board_rows(lines: Sequence[Sequence[Any]], page: Callable[[int], str | None] | None = None,
               trumps: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """A match sheet's board lines (:attr:`dealer.scoring.MatchSheet.boards`) as the rows
    :func:`sheet_rows` takes: the site's match page holds them (``page``: a board's page, or
    ``None``), the report adds the trump played at each table (``trumps``: each code's text,
    :func:`trump_words`)."""
    rows = []
    for v in lines:
        row = {"board": v[0], "declarer": v[1], "level": v[2], "page": page(v[0]) if page is not None else None,
               "a_points": v[3], "a_ns_level_points": v[4], "a_ew_level_points": v[5],
               "b_points": v[6], "b_ns_level_points": v[7], "b_ew_level_points": v[8],
               "home_level_points": v[9], "away_level_points": v[10],
               "home_running": v[11], "away_running": v[12], "counted": bool(v[13])}
        if trumps is not None:
            row["a_trump"], row["b_trump"] = (trumps.get(code, code) if code else code for code in (v[14], v[15]))
        rows.append(row)
    return rows


def sheet_rows(boards: Sequence[Mapping[str, Any]], seat_words: Mapping[str, str] | None = None,
               cells: Cells | None = None, report: bool = False, urls: Any = None) -> Markup:
    """A match sheet's rows, one per board (:func:`board_rows`): the site's (its match page's
    ``boards``: the board linked to its page at the address ``urls`` makes
    (:class:`dealer.site.render.PageUrls`), the declarer in words, the running totals in one
    cell) or, ``report``, the report's (the trump played beside each table's points, a dash for
    a table without a result, the declarer's seat (in ``seat_words`` when given, else its letter),
    each side's board and running total)."""
    out = []
    cells = {} if cells is None else cells
    for b in boards:
        a, a_ns, a_ew = b["a_points"], b["a_ns_level_points"], b["a_ew_level_points"]
        bp, b_ns, b_ew = b["b_points"], b["b_ns_level_points"], b["b_ew_level_points"]
        home, away = b["home_level_points"], b["away_level_points"]
        if report:
            seat = b["declarer"] if seat_words is None else seat_words.get(b["declarer"], b["declarer"])
            report_key: tuple[Any, ...] = ("report", b["board"], seat, b["level"])
            head = cells.get(report_key) or _report_head(report_key, cells)
            out.append(
                f'<tr{"" if b["counted"] else _MISSING}>{head}'
                f'<td>{"—" if a is None else a}</td><td>{_text(b["a_trump"])}</td>'
                f'<td>{_num(a_ns)}</td><td>{_num(a_ew)}</td>'
                f'<td>{"—" if bp is None else bp}</td><td>{_text(b["b_trump"])}</td>'
                f'<td>{_num(b_ns)}</td><td>{_num(b_ew)}</td>'
                f'<td>{_num(home)}</td><td>{b["home_running"]}</td>'
                f'<td>{_num(away)}</td><td>{b["away_running"]}</td></tr>\n')
            continue
        assert seat_words is not None and urls is not None
        # A board's head (its link, declarer, level) is the same on every match that plays it.
        head_key = ("sheet", urls, b["page"], b["board"], b["declarer"], b["level"], seat_words[b["declarer"]])
        head = cells.get(head_key) or _sheet_head(head_key, cells)
        out.append(
            f'<tr{"" if b["counted"] else _UNCOUNTED}>\n{head}'
            f'<td class="n">{a if type(a) is int else _num(a)}</td>'  # int: most cells (as str())
            f'<td class="n">{a_ns if type(a_ns) is int else _num(a_ns)}</td>'
            f'<td class="n">{a_ew if type(a_ew) is int else _num(a_ew)}</td>\n'
            f'<td class="n">{bp if type(bp) is int else _num(bp)}</td>'
            f'<td class="n">{b_ns if type(b_ns) is int else _num(b_ns)}</td>'
            f'<td class="n">{b_ew if type(b_ew) is int else _num(b_ew)}</td>\n'
            f'<td class="n">{home if type(home) is int else _num(home)}</td>'
            f'<td class="n">{away if type(away) is int else _num(away)}</td>'
            f'<td class="n">{b["home_running"]} : {b["away_running"]}</td>\n'
            f'</tr>\n')
    return Markup("".join(out))


def _text(value: Any) -> str:
    return "" if value is None else str(escape(value))


def _sheet_head(key: tuple[Any, ...], cells: Cells) -> str:
    _kind, urls, page, board, _declarer, level, seat = key
    link = f'<a href="{escape(urls.page[page])}">{escape(board)}</a>' if page else str(escape(board))
    found = cells[key] = f'<th scope="row">{link}</th>\n<td>{escape(seat)}</td><td>{escape(level)}</td>\n'
    return found


def _report_head(key: tuple[Any, ...], cells: Cells) -> str:
    _kind, board, declarer, level = key
    found = cells[key] = f"<td>{escape(board)}</td><td>{escape(declarer)}</td><td>{escape(level)}</td>"
    return found


@pass_context
def _sheet_rows_filter(context: Context, boards: Sequence[Mapping[str, Any]],
                       seat_words: Mapping[str, str] | None = None, urls: Any = None, report: bool = False) -> Markup:
    """The ``sheet_rows`` filter: :func:`sheet_rows` with the render's ``cells``."""
    return sheet_rows(boards, seat_words, context.get("cells"), report, urls)


def team_link(ref: Mapping[str, Any], urls: Any) -> Markup:
    """A team by name, linked to its page (when it has one) at the address ``urls`` makes
    (:class:`dealer.site.render.PageUrls`)."""
    if ref["page"]:
        return Markup(f'<a href="{escape(urls.page[ref["page"]])}" data-team="{escape(ref["id"])}">'
                      f'{escape(ref["name"])}</a>')
    return escape(ref["name"])


def field_rows(tables: Sequence[Mapping[str, Any]], match_label: str, urls: Any,
               cells: Cells | None = None) -> Markup:
    """A board's results across the field, one row per table (the board page's
    ``field.tables``), linked at the addresses ``urls`` makes
    (:class:`dealer.site.render.PageUrls`); ``match_label``: the words' ``match_n`` ("Round {r},
    match {m}")."""
    out = []
    cells = {} if cells is None else cells
    for r in tables:
        ns, ew = r["ns"], r["ew"]
        # A table's head (its match, teams and links) is the same on every board of its set.
        key = (match_label, urls, r["page"], r["round"], r["match"], r["table"],
               ns["id"], ns["name"], ns["page"], ew["id"], ew["name"], ew["page"])
        head = cells.get(key) or _field_head(key, cells)
        points, ns_lp, ew_lp, vs_ns, vs_ew = (r["points"], r["ns_level_points"], r["ew_level_points"],
                                              r["ns_vs_field"], r["ew_vs_field"])
        out.append(
            f'{head}<td class="n">{points}</td><td class="n">{ns_lp}</td><td class="n">{ew_lp}</td>\n'
            f'<td class="n">{"" if vs_ns is None else format(vs_ns, "+g")}</td>'
            f'<td class="n">{"" if vs_ew is None else format(vs_ew, "+g")}</td></tr>\n')
    return Markup("".join(out))


def _field_head(key: tuple[Any, ...], cells: Cells) -> str:
    label, urls, page, round_, match, table, ns_id, ns_name, ns_page, ew_id, ew_name, ew_page = key
    pages = urls.page
    found = cells[key] = (
        f'<tr data-team="{escape(ns_id)} {escape(ew_id)}"><th scope="row"><a href="{escape(pages[page])}">'
        f'{escape(label.format(r=round_, m=match))}</a></th><td>{escape(table)}</td>\n'
        f'<td><a href="{escape(pages[ns_page])}">{escape(ns_name)}</a></td>'
        f'<td><a href="{escape(pages[ew_page])}">{escape(ew_name)}</a></td>')
    return found


@pass_context
def _field_rows_filter(context: Context, tables: Sequence[Mapping[str, Any]], match_label: str,
                       urls: Any) -> Markup:
    """The ``field_rows`` filter: :func:`field_rows` with the render's ``cells``."""
    return field_rows(tables, match_label, urls, context.get("cells"))


def pair_board_rows(boards: Sequence[Mapping[str, Any]], words: Mapping[str, str], urls: Any) -> Markup:
    """A pair's boards against the field (a team page's ``field_pairs`` → ``boards_played``), one
    row each, by format strings (a league's team pages hold 2.5 million of them): round, set and
    board (linked to the board's page), seat and side, trump, the table's result and the pair's
    butler; ``words``: the catalog's ``field`` words."""
    pages = urls.page
    seat = {("NS", True): f"{escape(words['ns_side'])} {{t}} · {escape(words['declarer_side'])}",
            ("NS", False): f"{escape(words['ns_side'])} {{t}} · {escape(words['defenders_side'])}",
            ("EW", True): f"{escape(words['ew_side'])} {{t}} · {escape(words['declarer_side'])}",
            ("EW", False): f"{escape(words['ew_side'])} {{t}} · {escape(words['defenders_side'])}"}
    trumps: dict[str | None, str] = {None: escape(words["not_recorded"]), "NT": escape(words["no_trump"]),
              **{s: f'<span class="{"red" if s in ("♥", "♦") else "black"}">{s}</span>' for s in ("♠", "♥", "♣", "♦")}}
    out = []
    for b in boards:
        name = f'{b["set"]}·{b["board"]}'
        link = f'<a href="{escape(pages[b["page"]])}">{name}</a>' if b["page"] else name
        out.append(f'<tr><td class="n">{b["round"]}</td><th scope="row">{link}</th>'
                   f'<td>{seat[(b["side"], b["declarer"])].format(t=escape(b["table"]))}</td>'
                   f'<td>{trumps.get(b["trump"], escape(str(b["trump"])))}</td>'
                   f'<td class="n">{b["ns"]:+d}</td><td class="n">{b["butler"]:+g}</td></tr>\n')
    return Markup("".join(out))


def pair_match_rows(rows: Sequence[Mapping[str, Any]], words: Mapping[str, str], match_n: str,
                    urls: Any) -> Markup:
    """A pair's figures match by match (a team page's ``field_pairs`` → ``by_match``), one row
    each, by format strings (a league's team pages hold 160,000 of them): the match (linked to
    its page), side and table, boards, butler, as declarer side and as defenders; ``words``: the
    catalog's ``field`` words, ``match_n``: the site's words for a match."""
    pages = urls.page
    sides = {"NS": escape(words["ns_side"]), "EW": escape(words["ew_side"])}
    out = []
    for r in rows:
        name = escape(match_n.format(r=r["round"], m=r["match"]))
        link = f'<a href="{escape(pages[r["page"]])}">{name}</a>' if r["page"] else name
        out.append(f'<tr><th scope="row">{link}</th><td>{sides.get(r["side"], sides["EW"])} {escape(r["table"])}</td>'
                   f'<td class="n">{r["boards"]}</td><td class="n">{escape(_signed(r["butler"]))}</td>'
                   f'<td class="n">{escape(_signed(r["as_declarer"]))}</td>'
                   f'<td class="n">{escape(_signed(r["as_defenders"]))}</td></tr>\n')
    return Markup("".join(out))


def mono_width(text: str) -> int:
    """Width in half-width characters of a monospaced face: a wide character (Han) is two."""
    return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)


#: The space of a column of half-width characters: an en space is half an em in every CJK face,
#: proportional or not (a plain space is not: a fifth of an em in Noto Sans CJK).
COLUMN_SPACE = "\u2002"


def figures(items: Sequence[Any]) -> Markup:
    """The ``figures`` filter: a few short figures or words as one cell's text, each right-aligned
    in two columns of half-width characters (a wide character, e.g. Han, fills two), one column
    apart: the hand record's analysis prints a seat's trumps, pairs and tractors in one cell, not
    three (WeasyPrint's time goes by the box), under a heading aligned the same way."""
    out = []
    for item in items:
        text = str(item)
        out.append(COLUMN_SPACE * max(0, 2 - mono_width(text)) + text)
    return Markup(COLUMN_SPACE.join(str(escape(text)) for text in out))


def text_rows(rows: Sequence[Sequence[Any]], name_column: int = 3) -> Markup:
    """The ``text_rows`` filter: rows of text as ``<tr><td>…</td>…</tr>`` (the ``name_column``-th
    cell, from 1, of class ``name``), each cell escaped: the report's pairs ranking (a league's
    4,000 rows) without a Jinja expression per cell."""
    out = []
    for row in rows:
        cells = [f"<td>{escape(v)}</td>" for v in row]
        if len(cells) >= name_column:
            cells[name_column - 1] = f'<td class="name">{escape(row[name_column - 1])}</td>'
        out.append("<tr>" + "".join(cells) + "</tr>")
    return Markup("".join(out))


def index_by(items: Sequence[Mapping[str, Any]], key: str, value: str) -> dict[Any, Any]:
    """``item[key]`` → ``item[value]`` (a team page's rank after each round, looked up per match)."""
    return {item[key]: item[value] for item in items}


FILTERS = {"num": _num, "signed": _signed, "sheet_rows": _sheet_rows_filter, "field_rows": _field_rows_filter,
           "index_by": index_by, "figures": figures, "pair_board_rows": pair_board_rows,
           "pair_match_rows": pair_match_rows,
           "text_rows": text_rows,
           "team_link": team_link,
           "local_time": local_time}
