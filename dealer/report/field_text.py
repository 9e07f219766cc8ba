"""What the field says as the report's files hold it: ``field.csv`` and ``"field"`` of the JSON,
made column by column from :class:`dealer.field.FieldStats`' arrays.

A 2,000-team league has 640,000 table results. Made as a tuple (``field.csv``) or a dict (the
JSON) per line and then encoded cell by cell, they took about 1 s for each format; here each
distinct cell's text is made once (a match's ``round,match,table``: 40,000 texts; a result: a few
hundred; a board's ``set,board,datum``: 320) and the lines are joined from those texts in C
(``str.join`` over ``zip``), the same bytes a ``csv.writer`` or ``orjson`` gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dealer.field import LEFT_OUT, TRIM_FROM, TRUMP_NAMES, FieldStats
from dealer.scoring import TABLES


def _texts(values: Any, text: Callable[[Any], str]) -> Any:
    """``text`` of each value of the array ``values`` (an array of texts), made once per distinct
    value."""
    import numpy as np

    distinct, inverse = np.unique(values, return_inverse=True)
    return _by_key([text(v) for v in distinct.tolist()], inverse.reshape(-1))


def _by_key(texts: list[str], keys: Any) -> Any:
    """``texts[k]`` for each ``k`` of the array ``keys`` (an array of texts)."""
    import numpy as np

    made = np.empty(len(texts), dtype=object)
    made[:] = texts
    return made[keys]


def _pieces(columns: list[Any]) -> list[str]:
    """The texts of ``columns`` (arrays of texts, one a line) line after line: joined, the lines."""
    import numpy as np

    found = np.empty((len(columns[0]), len(columns)), dtype=object)
    for c, column in enumerate(columns):
        found[:, c] = column
    return list(found.ravel().tolist())


#: A cell ``csv.writer`` quotes (the delimiter, the quote, a line end).
_QUOTED = re.compile('[,"\r\n]')


def csv_cell(text: str) -> str:
    """A cell as ``csv.writer`` (the excel dialect, minimal quoting) writes it."""
    if _QUOTED.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _float_text(value: float, nan: str, text: Callable[[float], str]) -> str:
    return nan if value != value else text(value + 0.0)  # NaN: none; no "-0.0"


def field_csv(stats: FieldStats, ids: Callable[[str], str]) -> bytes:
    """``field.csv``'s lines after its head (:data:`dealer.report.FIELD_HEAD`, lines ended by
    CR LF), as :meth:`FieldStats.result_rows` lists them; ``ids``: how match and team ids are
    written (a CSV's safe cells)."""
    import numpy as np

    i, b, t, sets = stats.result_cells
    if not len(i):
        return b""
    matches = stats.scored.matches
    n_boards = stats.event.boards_per_set
    datum = np.round(stats.datum_by_set, 2)
    board_texts = [f"{s},{bb + 1},{_float_text(float(datum[s, bb]), '', str)}"
                   for s in range(datum.shape[0]) for bb in range(n_boards)]
    seat_texts = []
    for m in matches:
        match, home, away = csv_cell(ids(m.id)), csv_cell(ids(m.home)), csv_cell(ids(m.away))
        seat_texts += [f"{m.round},{match},{TABLES[0]}", f"{away},{home}", f"{m.round},{match},{TABLES[1]}",
                       f"{home},{away}"]
    seat = i * 2 + t
    counted = stats.counted[i, b, t]
    vs = np.where(counted, np.round(stats.vs[i, b, t], 2), np.nan)
    why = np.where(counted, len(LEFT_OUT), stats.left_why[i, b, t])
    pieces = _pieces([
        _by_key([f"{text}," for text in board_texts], sets * n_boards + b),
        _by_key([f"{text}," for text in seat_texts], seat * 2),
        _texts(stats.net[i, b, t].astype(np.int64), lambda v: f"{v},"),
        _texts(vs, lambda v: _float_text(v, "", str) + ","),
        _by_key([csv_cell(name or "") + "," for name in TRUMP_NAMES], stats.scored.trumps[i, b, t]),
        _by_key([f"{text}," for text in seat_texts], seat * 2 + 1),
        _by_key([f"{text}\r\n" for text in [*LEFT_OUT, ""]], why)])
    return "".join(pieces).encode("utf-8")


def field_json(stats: FieldStats) -> bytes:
    """``"field"`` of the JSON: ``{"rule", "trim_from", "boards", "pairs", "teams"}``, each board
    with every table's result (round, match, table, ns, vs_datum, trump and, left out, why), the
    same document ``orjson.dumps`` of the dicts gives."""
    import numpy as np
    import orjson

    def dumps(value: Any) -> str:
        return orjson.dumps(value).decode("utf-8")

    i, b, t, sets = stats.result_cells
    matches = stats.scored.matches
    n_boards = stats.event.boards_per_set
    heads = []
    for m in matches:
        head = f'{{"round":{m.round},"match":{dumps(m.id)},"table":'
        heads += [f'{head}"{TABLES[0]}","ns":', f'{head}"{TABLES[1]}","ns":']
    counted = stats.counted[i, b, t]
    vs = np.where(counted, np.round(stats.vs[i, b, t], 2), np.nan)
    tails = []
    for code in range(len(TRUMP_NAMES) * 3):
        trump, why = TRUMP_NAMES[code // 3], code % 3
        tails.append(f',"trump":{dumps(trump)}' + ("}," if why == 2 else f',"left_out":{dumps(LEFT_OUT[why])}}},'))
    trump_why = stats.scored.trumps[i, b, t].astype(np.int64) * 3 + np.where(counted, 2, stats.left_why[i, b, t])
    pieces = _pieces([  # each result followed by a comma (the last of a board's left out)
        _by_key(heads, i * 2 + t), _texts(stats.net[i, b, t].astype(np.int64), str),
        _texts(vs, lambda v: ',"vs_datum":' + _float_text(v, "null", dumps)), _by_key(tails, trump_why)])
    key = sets * n_boards + b  # sorted: the results of a board follow each other
    boards = []
    for figures in stats.boards:
        k = figures.set * n_boards + figures.board - 1
        first, end = (4 * np.searchsorted(key, [k, k + 1])).tolist()
        light = dumps(FieldStats.board_dict_light(figures))
        boards.append(f'{light[:-1]},"results":[{"".join(pieces[first:end])[:-1]}]}}')
    pairs = dumps([p.as_dict() for p in stats.pairs])
    teams = dumps([{k: v for k, v in t.as_dict().items() if k not in ("players", "table")} for t in stats.teams])
    return (f'{{"rule":{dumps(stats.rule)},"trim_from":{TRIM_FROM},"boards":[{",".join(boards)}],'
            f'"pairs":{pairs},"teams":{teams}}}').encode()
