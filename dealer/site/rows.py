"""The rows of the site's two big tables, written as HTML by format strings (template filters).

A league's site holds about two million table rows: a match sheet's 16 boards on each of 20,000
match pages, and every table's result of a board (2,000 rows) on each board page, in two
languages. Jinja spends about a microsecond on each ``{{ expression }}`` (lookup, filter,
escape); a row of a dozen cells costs it 20–30 µs, a format string a few. The templates keep
the tables (captions, heads, wrappers); these filters give the ``<tbody>`` rows, exactly as the
row loops they replace wrote them. Text is escaped; numbers need not be.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape


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


def sheet_rows(boards: Sequence[Mapping[str, Any]], seat_words: Mapping[str, str]) -> Markup:
    """A match sheet's rows, one per board (the match page's ``boards``)."""
    out = []
    cells = _CELLS
    for b in boards:
        # A board's head (its link, declarer, level) is the same on every match that plays it.
        head_key = ("sheet", b["page"], b["board"], b["declarer"], b["level"], seat_words[b["declarer"]])
        head = cells.get(head_key) or _sheet_head(head_key)
        a, a_ns, a_ew = b["a_points"], b["a_ns_level_points"], b["a_ew_level_points"]
        bp, b_ns, b_ew = b["b_points"], b["b_ns_level_points"], b["b_ew_level_points"]
        home, away = b["home_level_points"], b["away_level_points"]
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


def _sheet_head(key: tuple[Any, ...]) -> str:
    _kind, page, board, _declarer, level, seat = key
    link = f'<a href="{escape(page)}.html">{escape(board)}</a>' if page else str(escape(board))
    found = _CELLS[key] = f'<th scope="row">{link}</th>\n<td>{escape(seat)}</td><td>{escape(level)}</td>\n'
    return found


def team_link(ref: Mapping[str, Any]) -> Markup:
    """A team by name, linked to its page (when it has one)."""
    if ref["page"]:
        return Markup(f'<a href="{escape(ref["page"])}.html" data-team="{escape(ref["id"])}">{escape(ref["name"])}</a>')
    return escape(ref["name"])


def field_rows(tables: Sequence[Mapping[str, Any]], match_label: str) -> Markup:
    """A board's results across the field, one row per table (the board page's
    ``field.tables``); ``match_label``: the words' ``match_n`` ("Round {r}, match {m}")."""
    out = []
    cells = _CELLS
    for r in tables:
        ns, ew = r["ns"], r["ew"]
        # A table's head (its match, teams and links) is the same on every board of its set.
        key = (match_label, r["page"], r["round"], r["match"], r["table"],
               ns["id"], ns["name"], ns["page"], ew["id"], ew["name"], ew["page"])
        head = cells.get(key) or _field_head(key)
        points, ns_lp, ew_lp, vs_ns, vs_ew = (r["points"], r["ns_level_points"], r["ew_level_points"],
                                              r["ns_vs_field"], r["ew_vs_field"])
        out.append(
            f'{head}<td class="n">{points}</td><td class="n">{ns_lp}</td><td class="n">{ew_lp}</td>\n'
            f'<td class="n">{"" if vs_ns is None else format(vs_ns, "+g")}</td>'
            f'<td class="n">{"" if vs_ew is None else format(vs_ew, "+g")}</td></tr>\n')
    return Markup("".join(out))


def _field_head(key: tuple[Any, ...]) -> str:
    label, page, round_, match, table, ns_id, ns_name, ns_page, ew_id, ew_name, ew_page = key
    found = _CELLS[key] = (
        f'<tr data-team="{escape(ns_id)} {escape(ew_id)}"><th scope="row"><a href="{escape(page)}.html">'
        f'{escape(label.format(r=round_, m=match))}</a></th><td>{escape(table)}</td>\n'
        f'<td><a href="{escape(ns_page)}.html">{escape(ns_name)}</a></td>'
        f'<td><a href="{escape(ew_page)}.html">{escape(ew_name)}</a></td>')
    return found


#: Cells made by :func:`field_rows`, kept for the next board (one process renders many).
_CELLS: dict[tuple[Any, ...], Any] = {}


def index_by(items: Sequence[Mapping[str, Any]], key: str, value: str) -> dict[Any, Any]:
    """``item[key]`` → ``item[value]`` (a team page's rank after each round, looked up per match)."""
    return {item[key]: item[value] for item in items}


FILTERS = {"num": _num, "signed": _signed, "sheet_rows": sheet_rows, "field_rows": field_rows, "index_by": index_by,
           "team_link": team_link}
