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
            f'<td class="n">{"" if a is None else _num(a)}</td>'
            f'<td class="n">{"" if a_ns is None else _num(a_ns)}</td>'
            f'<td class="n">{"" if a_ew is None else _num(a_ew)}</td>\n'
            f'<td class="n">{"" if bp is None else _num(bp)}</td>'
            f'<td class="n">{"" if b_ns is None else _num(b_ns)}</td>'
            f'<td class="n">{"" if b_ew is None else _num(b_ew)}</td>\n'
            f'<td class="n">{"" if home is None else _num(home)}</td>'
            f'<td class="n">{"" if away is None else _num(away)}</td>'
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
        # A match's cell, a table's name and a team's link recur on every board of a set: made once.
        head = (match_label, r["round"], r["match"], r["page"], r["table"])
        match_cells = cells.get(head) or _match_cells(head)
        ns_key, ew_key = (ns["id"], ns["name"], ns["page"]), (ew["id"], ew["name"], ew["page"])
        ns_id, ns_link = cells.get(ns_key) or _team_cells(ns_key)
        ew_id, ew_link = cells.get(ew_key) or _team_cells(ew_key)
        vs_ns, vs_ew = r["ns_vs_field"], r["ew_vs_field"]
        out.append(
            f'<tr data-team="{ns_id} {ew_id}">{match_cells}\n'
            f'<td>{ns_link}</td><td>{ew_link}</td><td class="n">{r["points"]}</td>'
            f'<td class="n">{r["ns_level_points"]}</td><td class="n">{r["ew_level_points"]}</td>\n'
            f'<td class="n">{"" if vs_ns is None else format(vs_ns, "+g")}</td>'
            f'<td class="n">{"" if vs_ew is None else format(vs_ew, "+g")}</td></tr>\n')
    return Markup("".join(out))


#: Cells made by :func:`field_rows`, kept for the next board (one process renders many).
_CELLS: dict[tuple[Any, ...], Any] = {}


def _match_cells(head: tuple[Any, ...]) -> str:
    label, round_, match, page, table = head
    found = _CELLS[head] = (f'<th scope="row"><a href="{escape(page)}.html">{escape(label.format(r=round_, m=match))}'
                            f'</a></th><td>{escape(table)}</td>')
    return found


def _team_cells(key: tuple[Any, ...]) -> tuple[str, str]:
    team, name, page = key
    found = _CELLS[key] = (str(escape(team)), f'<a href="{escape(page)}.html">{escape(name)}</a>')
    return found


def index_by(items: Sequence[Mapping[str, Any]], key: str, value: str) -> dict[Any, Any]:
    """``item[key]`` → ``item[value]`` (a team page's rank after each round, looked up per match)."""
    return {item[key]: item[value] for item in items}


FILTERS = {"num": _num, "signed": _signed, "sheet_rows": sheet_rows, "field_rows": field_rows, "index_by": index_by,
           "team_link": team_link}
