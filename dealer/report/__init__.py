"""Result reports: per-match board-by-board sheets, the cross-table and the standings.

:func:`build_report` scores the event from its results database; :func:`write_reports` writes
HTML (Jinja2, ``templates/report_event.html``), PDF (WeasyPrint, from the same HTML), CSV (UTF-8
with BOM so Excel shows Chinese) and XLSX; :func:`report_json` gives the JSON of
``dealer report --json``. Every report can be rebuilt from the database at any moment.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import io
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from dealer.errors import UserError
from dealer.event import Event
from dealer.explain import tie_break_name
from dealer.files import check_writable_folder, write_atomic
from dealer.folder import EventFolder
from dealer.results.entry import open_existing_results
from dealer.scoring import AttributionError, ResultColumns, ScoredEvent, Standing, attribution_problems, score_event

STRINGS_FILE = "report-strings.toml"  # in dealer/data: the words of the reports, zh and en


@functools.cache
def _strings() -> dict[str, dict[str, str]]:
    text = (resources.files("dealer") / "data" / STRINGS_FILE).read_text(encoding="utf-8")
    tables: dict[str, dict[str, str]] = tomllib.loads(text)
    keys = {lang: set(table) for lang, table in tables.items()}
    first = next(iter(keys.values()))
    for lang, names in keys.items():
        if names != first:
            raise ValueError(f"{STRINGS_FILE}: [{lang}] does not have the same keys as the others: "
                             f"{', '.join(sorted(names ^ first))}")
    return tables


def labels(lang: str) -> dict[str, str]:
    """The report words of ``lang`` (``dealer/data/report-strings.toml``)."""
    return _strings()[lang]


def languages() -> list[str]:
    return list(_strings())


@dataclass
class ReportData:
    event: Event
    scored: ScoredEvent
    standings: list[Standing]
    sample: bool
    generated: str
    no_results: bool = False  # no result is stored (no database yet, or none current)
    chain_head: str | None = None  # the results database's last chain link: a rewrite shows against it


def build_report(event: Event, folder: EventFolder) -> ReportData:
    """Score the event from its results database, read-only; with no results yet, empty standings
    (and no database is created: reporting only reads). Refuses results that the event file, as
    edited, would credit to other teams (:class:`~dealer.scoring.AttributionError`)."""
    store = open_existing_results(event, folder)
    rows: list[tuple[int, str, str, int, int]] = []
    sample = False
    head = None
    if store is not None:
        with store:
            found = attribution_problems(event, store.seatings())
            if found:
                raise AttributionError(found)
            rows = store.scoring_rows()
            sample = store.has_sample_rows()  # rows of an import whose file said "# sample data"
            head = store.chain_head()
    scored = score_event(event, ResultColumns.from_rows(rows))
    return ReportData(event, scored, scored.standings(), sample,
                      dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                      no_results=not rows, chain_head=head)


def report_json(data: ReportData) -> dict[str, Any]:
    return {
        "event": data.event.id,
        "profile": data.event.profile.id,
        "tie_breaks": list(data.event.profile.tie_breaks),
        "sample_data": data.sample,
        "no_results_yet": data.no_results,
        "results_chain_head": data.chain_head,
        "standings": [s.as_dict() for s in data.standings],
        "matches": [
            {
                "round": s.round, "match": s.match, "home": s.home, "away": s.away,
                "home_level_points": s.home_levels, "away_level_points": s.away_levels,
                "margin": s.margin, "complete": s.complete,
                "boards_counted": s.boards_counted,
                "home_match_points": s.home_match_points, "away_match_points": s.away_match_points,
            }
            for s in data.scored.scores
        ],
    }


# --- tables shared by every format ---------------------------------------------------------


def _num(value: int | None) -> str:
    return "" if value is None else str(value)


def standings_table(data: ReportData, lang: str) -> tuple[list[str], list[list[str]]]:
    t = labels(lang)
    names = {team.id: team.name for team in data.event.teams}
    chain = list(data.event.profile.tie_breaks)
    head = [t["rank"], t["team"], "", t["mp"], t["lp_for"], t["lp_against"], t["net"], t["played"],
            *(tie_break_name(k, lang) for k in chain if k not in ("net_level_points", "level_points_for"))]
    rows = []
    for s in data.standings:
        extra = []
        for key in chain:
            if key in ("net_level_points", "level_points_for"):
                continue
            value = s.tie_values.get(key)
            extra.append("" if value is None else (f"{value:g}" if value != float("inf") else "∞"))
        rows.append([f"{s.rank}{'=' if s.shared else ''}", s.team, names.get(s.team, s.team),
                     str(s.match_points), str(s.level_points_for), str(s.level_points_against),
                     str(s.net_level_points), str(s.played), *extra])
    return head, rows


def cross_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    order = [s.team for s in data.standings]
    cells = data.scored.cross_table()
    head = ["", *order]
    rows = []
    for team in order:
        row = [team]
        for other in order:
            if team == other:
                row.append("—")
                continue
            meetings = cells.get((team, other), [])
            row.append(" / ".join(
                f"{c.own}:{c.other} ({c.match_points}){'' if c.complete else '*'}" for c in meetings))
        rows.append(row)
    return head, rows


def matches_table(data: ReportData, lang: str) -> tuple[list[str], list[list[str]]]:
    t = labels(lang)
    head = [t["round"], t["match"], t["home"], t["away"], t["home"] + " LP", t["away"] + " LP",
            t["margin"], t["home"] + " " + t["mp"], t["away"] + " " + t["mp"], t["boards_counted"],
            t["complete"]]
    rows = [
        [str(s.round), s.match, s.home, s.away, str(s.home_levels), str(s.away_levels), str(s.margin),
         str(s.home_match_points), str(s.away_match_points), str(s.boards_counted),
         t["yes"] if s.complete else t["no"]]
        for s in data.scored.scores
    ]
    return head, rows


SHEET_HEAD = ["round", "match", "board", "declarer", "level",
              "A_points", "A_ns_levels", "A_ew_levels", "B_points", "B_ns_levels", "B_ew_levels",
              "home_levels", "away_levels", "home_running", "away_running", "counted"]


def sheet_rows(data: ReportData, round_number: int, match: str) -> list[list[str]]:
    return [
        [str(round_number), match, str(b.board), b.declarer, b.level,
         _num(b.points[0]), _num(b.ns_levels[0]), _num(b.ew_levels[0]),
         _num(b.points[1]), _num(b.ns_levels[1]), _num(b.ew_levels[1]),
         _num(b.home_levels), _num(b.away_levels), str(b.home_running), str(b.away_running),
         "1" if b.counted else "0"]
        for b in data.scored.sheet(round_number, match)
    ]


# --- writers -------------------------------------------------------------------------------


_NUMBER = re.compile(r"-?[0-9]+")
#: A cell starting with one of these is read as a formula by spreadsheets (OWASP, CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` before a formula start (OWASP);
    plain whole numbers (``-3``) are left as numbers."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    """A cell written as a number: a whole number in its plain form only (``-3``, ``42``); an id
    such as ``007`` stays the text it is."""
    return bool(_NUMBER.fullmatch(text)) and str(int(text)) == text


def _csv_bytes(head: Sequence[str], rows: Sequence[Sequence[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([safe_cell(c) for c in head])
    writer.writerows([safe_cell(c) for c in row] for row in rows)
    return buffer.getvalue().encode("utf-8-sig")


def write_csv(data: ReportData, folder: Path, lang: str) -> list[Path]:
    boards = [row for s in data.scored.scores for row in sheet_rows(data, s.round, s.match)]
    files = {
        "standings.csv": standings_table(data, lang),
        "crosstable.csv": cross_table(data),
        "matches.csv": matches_table(data, lang),
        "boards.csv": (SHEET_HEAD, boards),
    }
    out = []
    for name, (head, rows) in files.items():
        path = folder / name
        write_atomic(path, _csv_bytes(head, rows), replace=True)
        out.append(path)
    return out


def write_xlsx(data: ReportData, folder: Path, lang: str) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    book.remove(first)
    boards = [row for s in data.scored.scores for row in sheet_rows(data, s.round, s.match)]
    for title, (head, rows) in (
        ("standings", standings_table(data, lang)),
        ("crosstable", cross_table(data)),
        ("matches", matches_table(data, lang)),
        ("boards", (SHEET_HEAD, boards)),
    ):
        sheet = book.create_sheet(title)
        for values in (head, *rows):
            sheet.append([int(v) if _is_number(v) else None for v in values])
            for cell, value in zip(sheet[sheet.max_row], values, strict=False):
                if not _is_number(value):
                    # A text cell, never a formula: a team called "=1+1" stays that text.
                    cell.value = value
                    cell.data_type = "s"
    buffer = io.BytesIO()
    book.save(buffer)
    path = folder / f"{data.event.id}-results.xlsx"
    write_atomic(path, buffer.getvalue(), replace=True)
    return path


def html_text(data: ReportData, lang: str) -> str:
    import jinja2

    from dealer.resources import templates_dir

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(["html"]),
    )
    names = {team.id: team.name for team in data.event.teams}
    sheets = []
    for s in data.scored.scores:
        sheets.append({"score": s, "boards": data.scored.sheet(s.round, s.match),
                       "home_name": names.get(s.home, s.home), "away_name": names.get(s.away, s.away)})
    return env.get_template("report_event.html").render(
        t=labels(lang), lang=lang, event=data.event, generated=data.generated, sample=data.sample,
        no_results=data.no_results, chain_head=data.chain_head,
        standings=standings_table(data, lang), cross=cross_table(data), sheets=sheets,
        chain=[tie_break_name(k, lang) for k in data.event.profile.tie_breaks],
        profile=data.event.profile,
    )


def _write_html(data: ReportData, folder: Path, lang: str) -> list[Path]:
    path = folder / f"{data.event.id}-results.html"
    write_atomic(path, html_text(data, lang).encode("utf-8"), replace=True)
    return [path]


def _write_pdf(data: ReportData, folder: Path, lang: str) -> list[Path]:
    import weasyprint

    from dealer.resources import templates_dir

    pdf = weasyprint.HTML(string=html_text(data, lang), base_url=str(templates_dir())).write_pdf()
    path = folder / f"{data.event.id}-results.pdf"
    write_atomic(path, pdf, replace=True)
    return [path]


def _write_xlsx(data: ReportData, folder: Path, lang: str) -> list[Path]:
    return [write_xlsx(data, folder, lang)]


#: The report formats, each a writer (``dealer report --format``).
REPORT_WRITERS = {"html": _write_html, "pdf": _write_pdf, "csv": write_csv, "xlsx": _write_xlsx}


def parse_formats(text: str) -> list[str]:
    """The formats of a comma-separated list, checked (none, unknown: an error)."""
    chosen = list(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    unknown = [f for f in chosen if f not in REPORT_WRITERS]
    if unknown or not chosen:
        raise UserError(f"{'unknown ' + ', '.join(unknown) if unknown else 'no format given'}; expected "
                          f"one or more of {', '.join(REPORT_WRITERS)}, separated by commas", field="format")
    return chosen


def write_reports(data: ReportData, folder: Path, formats: Sequence[str], lang: str = "zh") -> list[Path]:
    check_writable_folder(folder, field="out")
    out: list[Path] = []
    for name in formats:
        out.extend(REPORT_WRITERS[name](data, folder, lang))
    return out
