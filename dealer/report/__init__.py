"""Result reports: per-match board-by-board sheets, the cross-table and the standings.

:class:`~dealer.app.standings.ReportData` is the event scored (``EventSession.report()``); :func:`write_reports` writes
HTML (Jinja2, ``templates/report_event.html``), PDF (WeasyPrint, from the same HTML), CSV (UTF-8
with BOM so Excel shows Chinese) and XLSX; :func:`report_json` gives the JSON of
``dealer report --json``. Every report can be rebuilt from the database at any moment.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from dealer.app.standings import ReportData
from dealer.errors import Phrase, UserError
from dealer.explain import supplement_lines, supplement_text, tie_break_name
from dealer.field import round2
from dealer.files import AtomicFile, check_writable_folder, write_atomic
from dealer.levels import ScoredLevelEvent
from dealer.report.field_text import field_csv, field_json
from dealer.report.xlsx import Workbook
from dealer.scoring import BOARD_LINE, MatchScore, MatchSheet
from dealer.standings import CrossCell, Standing
from dealer.words import LANGS, section


def labels(lang: str) -> dict[str, str]:
    """The report words of ``lang`` (``dealer/data/strings.toml``, ``[report.<lang>]``)."""
    return section("report", lang)


def field_labels(lang: str) -> dict[str, str]:
    """The words of what the field says in ``lang`` (``[report.<lang>.field]``)."""
    return dict(section("report", lang)["field"])


def languages() -> list[str]:
    return list(LANGS)


def report_json(data: ReportData, sheets: bool = False, field: bool = True) -> dict[str, Any]:
    """The report as one JSON object; ``sheets``: with every played match's sheet (boards, each
    table's points, level points and trump played), as ``dealer report --json`` and the JSON
    report file give it (20,000 sheets for a 2,000-team league: not by default); ``field``:
    with what the field says (``"field"``: each board's datum and every table's result against
    it, every pair's and team's butler; :mod:`dealer.field`; ``None`` for a level race)."""
    found = {
        "event": data.event.id,
        "profile": data.event.profile.id,
        "profile_version": data.event.profile.version,
        # The event's own rules (补充规定): each profile key it changed, with the value in force.
        "supplement": {k: data.event.profile.data.get(k) for k in data.event.profile.supplement},
        "tie_breaks": list(data.event.profile.tie_breaks),
        "sample_data": data.sample,
        "no_results_yet": data.no_results,
        "results_chain_head": data.chain_head,
        "format": data.event.format.kind,
        "result": data.event.result,  # "boards" (计副制) or "levels" (a level race)
        "standings": [s.as_dict() for s in data.standings],
        "rounds": [{"round": r.number, "byes": list(r.byes)} for r in data.event.rounds],
        "groups": [{"group": chr(65 + g), "standings": [s.as_dict() for s in table]} for g, table in data.groups],
        "status": data.status(),
        "places": None if data.places is None else [{"place": p, "teams": t} for p, t in data.places],
        "prizes": [award.as_dict() for award in data.prizes()],
        "adjustments": [
            *({"round": f.round, "match": f.match, "team": f.team, "kind": "forfeit", "reason": f.reason}
              for f in data.adjustments.forfeits),
            *({"round": d.round, "team": d.team, "kind": "net_level_points", "value": d.net_level_points,
               "reason": d.reason, **({} if d.minutes is None else {"minutes": d.minutes})}
              for d in data.adjustments.deductions),
            *({"round": w.after_round, "team": w.team, "kind": "withdrawal", "back_from": w.back_from,
               "reason": w.reason, "back_reason": w.back_reason} for w in data.adjustments.withdrawals),
            *({"round": p.round, "match": p.match, "team": p.team, "kind": "penalty", "penalty": p.kind,
               "value": p.amount, "table": p.table, "board": p.board, "choice": p.choice, "warning": p.warning,
               "id": p.id, "by": p.by, "reason": p.reason, **({"ruling": p.ruling} if p.ruling else {})}
              for p in data.adjustments.penalties),
        ],
        "appeals": [{"number": a.number, "round": a.round, "team": a.team, "against": a.against, "reason": a.reason,
                     "lodged_at": a.at, "deadline": a.deadline, "decision": a.decision, "decided_by": a.decided_by,
                     "decision_reason": a.decision_reason, "decided_at": a.decided_at} for a in data.appeals],
        "withdrawn_opponents": data.event.profile.withdrawn_opponent,
        "matches": [
            {
                "round": s.round, "match": s.match, "home": s.home, "away": s.away,
                "home_level_points": s.home_levels, "away_level_points": s.away_levels,
                "margin": s.margin, "complete": s.complete,
                "boards_counted": s.boards_counted,
                "home_match_points": s.home_match_points, "away_match_points": s.away_match_points,
                "forfeited_by": list(s.forfeited_by),
                # a knockout: who went through and why (a draw: the tie-break and its figures)
                "advanced": advance.as_dict() if (advance := data.advanced.get((s.round, s.match))) else None,
            }
            for s in data.scored.scores
        ],
    }
    # Line-ups (who played at which table) and the records that follow from them.
    players, pairs = data.records
    found["lineups"] = [lineup.as_dict() for lineup in data.lineups.all()]
    found["players"] = [r.player_dict() for r in players]
    found["pairs"] = [r.pair_dict() for r in pairs]
    found["sheet_columns"] = SHEET_HEAD[2:]  # what each board of a sheet lists, in order
    if field:
        stats = data.field_figures
        found["field"] = None if stats is None else orjson.loads(field_json(stats))
    if sheets:
        found["sheets"] = list(sheets_json(data))
    return found


# --- what a report holds at scale (docs/results.md, "Reports at scale") -----------------------
#
# A report is built once (build_report: scores, standings) and every format is written from it;
# the match sheets, the bulk of a large event, are made once from the scored arrays (a few hundred
# matches at a time, :attr:`dealer.scoring.ScoredEvent.match_sheets`, kept by the scored event)
# and streamed into each file.

#: A cross-table (teams × teams) is given for a field, or for each group, of at most this many
#: teams (21 columns fit an A4 landscape page at 5.5 pt). A larger field gets instead a table of
#: each team's results round by round (teams × rounds cells), in every format.
CROSS_TABLE_TEAMS = 20
#: The HTML report and the PDF carry the match sheets while the event has at most this many played
#: matches. Beyond, the HTML gives one page per round (its results and match sheets) and the PDF
#: says where they are (CSV boards.csv, the XLSX, the round pages).
SHEETS_IN_DOCUMENT = 200
#: The PDF lists at most this many lines of standings (about two pages; WeasyPrint lays out a
#: 2,000-line table in some 30 s on the 2-core machine) (the field's, and of all groups together);
#: beyond, it lists the leaders and says how many more are in the HTML, CSV and XLSX.
PDF_STANDINGS_ROWS = 100
#: The PDF lists at most this many pairs of the "pairs in teams" ranking (the leaders; every pair
#: is in the HTML, CSV and XLSX).
PDF_PAIRS_ROWS = 40
#: The XLSX has one sheet per match while the event has at most this many played matches, else
#: one sheet of board lines per round (a round of a 2,000-team league: 16,000 rows, far below
#: Excel's 1,048,576).
XLSX_MATCH_SHEETS = 64
#: The XLSX gives every table's result against the datum (sheet ``field``) up to this many lines;
#: beyond, each board's datum (``field-boards``) and the pairs (``pairs``) only, every table's result
#: against it being in ``field.csv`` and the JSON (a league's 640,000 lines would add a third to
#: the workbook's time; each table's result is also on the board lines).
XLSX_FIELD_ROWS = 100_000
def standings_table(data: ReportData, lang: str, standings: Sequence[Standing] | None = None
                    ) -> tuple[list[str], list[list[str]]]:
    """The standings (the whole field's, or one group's) with every tie-break value."""
    t = labels(lang)
    names = data.names
    chain = list(data.event.profile.tie_breaks)
    table = data.standings if standings is None else standings
    adjusted = any(s.adjustment for s in table)
    byes = any(s.byes for s in table)
    extra_keys = [k for k in chain if k not in ("net_level_points", "level_points_for")]
    head = [t["rank"], t["team"], t["team_name"], t["mp"], t["lp_for"], t["lp_against"],
            *([t["adjustment"]] if adjusted else []), t["net"], t["played"], *([t["byes"]] if byes else []),
            *(tie_break_name(k, lang) for k in extra_keys)]
    rows = []
    for s in table:
        extra = []
        for key in chain:
            if key in ("net_level_points", "level_points_for"):
                continue
            value = s.tie_values.get(key)
            extra.append("" if value is None else (f"{value:g}" if value != float("inf") else "∞"))
        rows.append([f"{s.rank}{'=' if s.shared else ''}", s.team, names.get(s.team, s.team),
                     str(s.match_points), str(s.level_points_for), str(s.level_points_against),
                     *([str(s.adjustment)] if adjusted else []), str(s.net_level_points), str(s.played),
                     *([str(s.byes)] if byes else []), *extra])
    # head_to_head is computed only for the teams it separates: a column no team needed is dropped.
    fixed = len(head) - len(extra_keys)
    keep = [i for i in range(len(head)) if i < fixed or any(row[i] for row in rows)]
    return [head[i] for i in keep], [[row[i] for i in keep] for row in rows]


def _meeting(cell: CrossCell) -> str:
    return f"{cell.own}:{cell.other} ({cell.match_points}){'' if cell.complete else '*'}"


def cross_table(data: ReportData, teams: Sequence[str] | None = None) -> tuple[list[str], list[list[str]]]:
    """Teams × teams (the field's, or ``teams`` only, in that order): each meeting seen from the
    row's team."""
    order = [s.team for s in data.standings] if teams is None else list(teams)
    cells = data.meetings
    head = ["", *order]
    rows = []
    for team in order:
        row = [team]
        for other in order:
            if team == other:
                row.append("—")
                continue
            row.append(" / ".join(_meeting(c) for c in cells.get((team, other), [])))
        rows.append(row)
    return head, rows


def cross_tables(data: ReportData) -> list[tuple[str | None, tuple[list[str], list[list[str]]]]]:
    """The cross-tables the report gives (:data:`CROSS_TABLE_TEAMS`): the field's, or one per group
    (its name), or none (then :func:`team_results_table`)."""
    if len(data.event.teams) <= CROSS_TABLE_TEAMS:
        return [(None, cross_table(data))]
    if data.groups and all(len(table) <= CROSS_TABLE_TEAMS for _g, table in data.groups):
        return [(chr(65 + g), cross_table(data, [s.team for s in table])) for g, table in data.groups]
    return []


def team_results_table(data: ReportData, lang: str) -> tuple[list[str], list[list[str]]]:
    """Each team's meetings round by round (standings order): ``opponent own:other (MP)``."""
    t = labels(lang)
    rounds = [r.number for r in data.event.rounds]
    by_team: dict[str, dict[int, list[str]]] = {}
    for (team, other), meetings in data.meetings.items():
        for c in meetings:
            by_team.setdefault(team, {}).setdefault(c.round, []).append(f"{other} {_meeting(c)}")
    head = [t["rank"], t["team"], t["team_name"], *(f"{t['round']} {n}" for n in rounds)]
    rows = []
    for s in data.standings:
        mine = by_team.get(s.team, {})
        rows.append([f"{s.rank}{'=' if s.shared else ''}", s.team, data.names.get(s.team, s.team),
                     *(" / ".join(mine.get(n, [])) for n in rounds)])
    return head, rows


def matches_table(data: ReportData, lang: str) -> tuple[list[str], list[list[str]]]:
    t = labels(lang)
    head = [t["round"], t["match"], t["home"], t["away"], t["home"] + " " + t["lp"], t["away"] + " " + t["lp"],
            t["margin"], t["home"] + " " + t["mp"], t["away"] + " " + t["mp"],
            t["tables_counted"] if data.event.levels else t["boards_counted"],
            t["complete"]]
    rows = [
        [str(s.round), s.match, s.home, s.away, str(s.home_levels), str(s.away_levels), str(s.margin),
         str(s.home_match_points), str(s.away_match_points), str(s.boards_counted),
         t["yes"] if s.complete else t["no"]]
        for s in data.scored.scores
    ]
    return head, rows


#: The board lines' columns (CSV ``boards.csv``, the XLSX match sheets): the round, the match and
#: the values of a sheet's board line (:data:`dealer.scoring.BOARD_LINE`, whose trumps come last:
#: added after the others, whose places stay).
SHEET_HEAD = ["round", "match", *BOARD_LINE]

#: A board line: the values of :data:`SHEET_HEAD` after round and match (``None`` for no result).
BoardLineValues = list[Any]


def _sheet_row(round_number: int, match: str, v: BoardLineValues) -> list[Any]:
    """A board line in the order of :data:`SHEET_HEAD`."""
    return [round_number, match, *v]


def played_scores(data: ReportData) -> list[MatchScore]:
    """The matches that have sheets: every match but a forfeited one (footnoted: nothing was played)."""
    return [s for s in data.scored.scores if not s.forfeited_by]


def match_sheets(data: ReportData, scores: Sequence[MatchScore] | None = None) -> Iterator[MatchSheet]:
    """The sheet of each played match (of ``scores``, by default all), as scoring made them once
    (:attr:`dealer.scoring.ScoredEvent.match_sheets`)."""
    sheets = data.scored.match_sheets
    if scores is None:
        yield from sheets.values()
        return
    for s in scores:
        sheet = sheets.get((s.round, s.match))
        if sheet is not None:
            yield sheet


def board_sheets(data: ReportData, scores: Sequence[MatchScore] | None = None) -> Iterator[MatchSheet]:
    """The sheet of each played match (of ``scores``, by default all) of a boards event (a
    level race has no board lines: nothing)."""
    if not isinstance(data.scored, ScoredLevelEvent):
        yield from match_sheets(data, scores)


LEVEL_SHEET_HEAD = ["round", "match", "table", "home", "away", "home_level", "away_level", "home_climbed",
                    "away_climbed", "home_net", "last_game", "table_winner"]


def level_rows(data: ReportData) -> list[list[str]]:
    """A level race's table results: each reported table of each match (the ``tables`` sheet)."""
    scored = data.scored
    if not isinstance(scored, ScoredLevelEvent):
        return []
    return [[str(s.round), s.match, str(line.table), s.home, s.away, line.home_level, line.away_level,
             str(line.home_climbed), str(line.away_climbed), str(line.net), line.last_game or "",
             line.winner or ""]
            for sheet in match_sheets(data) for s in (sheet.score,) for line in sheet.tables]


def tables(data: ReportData, lang: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The report's tables by name (made once per language: every format writes the same)."""
    made = data.made_tables.get(lang)
    if made is None:
        made = data.made_tables[lang] = _tables(data, lang)
    return made


def table_names(data: ReportData) -> list[str]:
    """The names of :func:`tables` (each a CSV file, ``<name>.csv``, and an XLSX sheet), found
    without making the tables; ``boards`` (``boards.csv``) for a boards event."""
    crosses = (["crosstable"] if len(data.event.teams) <= CROSS_TABLE_TEAMS
               else [f"crosstable-{chr(65 + g)}" for g, _t in data.groups]
               if data.groups and all(len(t) <= CROSS_TABLE_TEAMS for _g, t in data.groups) else ["team-results"])
    return ["standings", *crosses, "matches", *([] if data.event.levels else ["field"]),
            "tables" if data.event.levels else "boards",
            *(f"group-{chr(65 + g)}" for g, _t in data.groups),
            *(["adjustments"] if data.adjustments.forfeits or data.adjustments.deductions
              or data.adjustments.withdrawals or data.adjustments.penalties else []),
            *(["pairs", "field-teams", "field-boards"] if not data.event.levels else []),
            *(["prizes"] if data.event.prizes else []),
            *(["rules"] if data.event.profile.supplement else [])]


def _tables(data: ReportData, lang: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The report's tables by name (a CSV file and an XLSX sheet each), heads and rows of text,
    the board lines aside (:func:`board_sheets`): a level race has ``tables`` (its table results);
    a field too large for a cross-table (:data:`CROSS_TABLE_TEAMS`) has ``team-results``."""
    found = {"standings": standings_table(data, lang)}
    crosses = cross_tables(data)
    for name, cross in crosses:
        found["crosstable" if name is None else f"crosstable-{name}"] = cross
    if not crosses:
        found["team-results"] = team_results_table(data, lang)
    found["matches"] = matches_table(data, lang)
    if data.event.levels:
        found["tables"] = (LEVEL_SHEET_HEAD, level_rows(data))
    for group, table in data.groups:
        found[f"group-{chr(65 + group)}"] = standings_table(data, lang, table)
    if notes := data.footnotes(lang):
        found["adjustments"] = ([labels(lang)["adjustments"]], [[note] for note in notes])
    if data.field_figures is not None:
        found["pairs"] = pairs_table(data, lang)
        found["field-teams"] = pairs_table(data, lang, teams=True)
        found["field-boards"] = field_boards_table(data, lang)
    if data.event.prizes:
        t = labels(lang)
        if data.final:
            ties = [a.name for a in data.prizes() if a.tie is not None]
            tie_notes = dict(zip(ties, data.prize_notes(lang), strict=True))
            rows = [[award.name, team, data.names.get(team, team), tie_notes.get(award.name, "")]
                    for award in data.prizes() for team in award.teams]
        else:  # none before the last round is complete
            rows = [[t["prizes_pending"], "", "", " · ".join(data.provisional_note(lang) + data.status_lines(t))]]
        found["prizes"] = ([t["prizes"], t["team"], "", t["note"]], rows)
    if data.event.profile.supplement:  # the event's own rules (补充规定) over its profile's
        profile = data.event.profile
        found["rules"] = ([labels(lang)["profile"], labels(lang)["supplement"]],
                          [[f"{profile.id} v{profile.version}", line] for line in supplement_lines(profile, lang)])
    return found


# --- what the field says (dealer.field) --------------------------------------------------------

#: The columns of ``field.csv`` and of the XLSX's ``field`` sheets: one line per table's result
#: of a board (as ``"field"`` → ``"boards"`` → ``"results"`` of the JSON, the board's datum beside).
FIELD_HEAD = ["set", "board", "datum", "round", "match", "table", "ns", "vs_datum", "trump", "ns_team", "ew_team",
              "left_out"]


def _figure(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def pairs_table(data: ReportData, lang: str, teams: bool = False) -> tuple[list[str], list[list[str]]]:
    """The "pairs in teams" ranking (``teams``: each team's butler): rank, team, the pair's
    players (or its table), boards, butler, a board, as declarer side and as defenders."""
    stats = data.field_figures
    w = field_labels(lang)
    head = [w["rank"], w["team"], *([] if teams else [w["players"], w["table"]]), w["boards"], w["butler"],
            w["per_board"], w["as_declarer"], w["declarer_boards"], w["as_defenders"], w["defender_boards"]]
    rows = []
    for p in (stats.teams if teams else stats.pairs) if stats is not None else ():
        rows.append(["" if p.rank is None else str(p.rank), p.key.team,
                     *([] if teams else [w["separator"].join(p.key.players), p.key.table or ""]),
                     str(p.boards), _figure(round2(p.butler)), _figure(p.per_board), _figure(round2(p.as_declarer)),
                     str(p.declarer_boards), _figure(round2(p.as_defenders)), str(p.defender_boards)])
    return head, rows


def field_boards_table(data: ReportData, lang: str) -> tuple[list[str], list[list[str]]]:
    """Each board's datum: set, board, declarer, datum, tables counted, trimmed, left out."""
    stats = data.field_figures
    w = field_labels(lang)
    head = [w["set"], w["board"], w["declarer"], w["datum"], w["tables"], w["trimmed"], w["left_out"]]
    rows = [[str(b.set), str(b.board), b.declarer, _figure(b.datum), str(b.tables), w["yes"] if b.trimmed else "",
             str(b.left_out)] for b in (stats.boards if stats is not None else ())]
    return head, rows


def field_rows(data: ReportData) -> list[tuple[Any, ...]]:
    """Every table's result of every board against its datum (:data:`FIELD_HEAD`)."""
    stats = data.field_figures
    return [] if stats is None else stats.result_rows()


# --- writers -------------------------------------------------------------------------------


_NUMBER = re.compile(r"-?[0-9]+")
#: A plain decimal number (a datum, a butler: ``-7.5``): a number to a spreadsheet, never a formula.
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
#: A cell starting with one of these is read as a formula by spreadsheets (OWASP, CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` before a formula start (OWASP);
    plain numbers (``-3``, ``-7.5``) are left as numbers."""
    if text.startswith(_FORMULA_START) and not _DECIMAL.fullmatch(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    """A cell written as a number: a whole number in its plain form only (``-3``, ``42``); an id
    such as ``007`` stays the text it is."""
    return bool(_NUMBER.fullmatch(text)) and str(int(text)) == text


def _number_or_text(text: str) -> object:
    return int(text) if _is_number(text) else text


class _Sink:
    """One format being written: what does not depend on the board lines is written when it is
    made; :meth:`add` then takes each played match's board lines as :func:`write_reports` makes
    them (once for every format), and :meth:`finish` completes the files."""

    def __init__(self, data: ReportData, folder: Path, lang: str) -> None:
        raise NotImplementedError

    def add(self, sheet: MatchSheet) -> None:
        """A played match's board lines (in the order of the scores)."""

    def finish(self) -> list[Path]:
        raise NotImplementedError

    def abort(self) -> None:
        """Remove what was begun (an error on the way)."""


def _csv_writer(stream: IO[bytes]) -> tuple[io.TextIOWrapper, Any]:
    """A CSV writer of UTF-8 text with a BOM (Excel shows Chinese), lines ended by CR LF."""
    stream.write(codecs.BOM_UTF8)
    text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
    return text, csv.writer(text, lineterminator="\r\n")


class _CsvSink(_Sink):
    """One CSV per table, formula starts neutralised; ``boards.csv`` streamed."""

    def __init__(self, data: ReportData, folder: Path, lang: str) -> None:
        self.paths: list[Path] = []
        for name, (head, rows) in tables(data, lang).items():
            with AtomicFile(folder / f"{name}.csv") as target:
                text, writer = _csv_writer(target.stream)
                writer.writerow([safe_cell(h) for h in head])
                writer.writerows([safe_cell(v) for v in row] for row in rows)
                text.detach()
                self.paths.append(target.commit())
        self.boards: AtomicFile | None = None
        if not data.event.levels:
            with AtomicFile(folder / "field.csv") as target:
                text, writer = _csv_writer(target.stream)
                writer.writerow(FIELD_HEAD)
                stats = data.field_figures
                text.flush()
                if stats is not None:  # a league's 640,000 lines: made as text at once
                    target.stream.write(field_csv(stats, safe_cell))
                text.detach()
                self.paths.append(target.commit())
            self.boards = AtomicFile(folder / "boards.csv")
            self.text, self.writer = _csv_writer(self.boards.stream)
            self.writer.writerow(SHEET_HEAD)
        self.safe: dict[str, str] = {}

    def add(self, sheet: MatchSheet) -> None:
        score, lines = sheet.score, sheet.boards
        match = self.safe.get(score.match) or self.safe.setdefault(score.match, safe_cell(score.match))
        prefix = [score.round, match]
        self.writer.writerows([prefix + v for v in lines])

    def finish(self) -> list[Path]:
        if self.boards is not None:
            self.text.detach()
            self.paths.append(self.boards.commit())
        return self.paths

    def abort(self) -> None:
        if self.boards is not None:
            self.boards.abort()


def xlsx_sheet_plan(data: ReportData) -> str:
    """How the XLSX holds the board lines: ``"match"`` (one sheet per match, and one of all the
    board lines) while :data:`XLSX_MATCH_SHEETS` allows, else ``"round"`` (one sheet per round)."""
    return "match" if len(played_scores(data)) <= XLSX_MATCH_SHEETS else "round"


class _XlsxSink(_Sink):
    """One sheet per table (whole numbers as numbers, everything else text, never a formula),
    then the board lines: one sheet per match, or per round (:func:`xlsx_sheet_plan`)."""

    def __init__(self, data: ReportData, folder: Path, lang: str) -> None:
        self.target = AtomicFile(folder / f"{data.event.id}-results.xlsx")
        self.book = Workbook(self.target.stream)
        for name, (head, rows) in tables(data, lang).items():
            self.book.add_sheet(name, head, ([_number_or_text(v) for v in row] for row in rows))
        stats = data.field_figures
        if stats is not None and stats.result_count <= XLSX_FIELD_ROWS:
            self.book.add_sheet("field", FIELD_HEAD, stats.result_rows())
        self.by_match = xlsx_sheet_plan(data) == "match"
        self.kept: list[tuple[MatchScore, Sequence[BoardLineValues]]] = []  # by match: a few only
        self.round: int | None = None

    def add(self, sheet: MatchSheet) -> None:
        score, lines = sheet.score, sheet.boards
        if self.by_match:
            self.kept.append((score, lines))
            return
        if score.round != self.round:
            self.book.open_sheet(f"boards-R{score.round}", SHEET_HEAD)
            self.round = score.round
        prefix = [score.round, score.match]
        self.book.write_rows([prefix + v for v in lines])

    def finish(self) -> list[Path]:
        if self.by_match and self.kept:
            self.book.add_sheet("boards", SHEET_HEAD, (_sheet_row(s.round, s.match, v)
                                                       for s, lines in self.kept for v in lines))
            for s, lines in self.kept:
                self.book.add_sheet(f"R{s.round}-M{s.match}", SHEET_HEAD,
                                    (_sheet_row(s.round, s.match, v) for v in lines))
        self.book.close()
        return [self.target.commit()]

    def abort(self) -> None:
        self.target.abort()


def write_csv(data: ReportData, folder: Path, lang: str) -> list[Path]:
    """One CSV per table, UTF-8 with BOM (Excel shows Chinese), formula starts neutralised."""
    return _write_one(_CsvSink(data, folder, lang), data)


def write_xlsx(data: ReportData, folder: Path, lang: str) -> Path:
    """The workbook (:class:`_XlsxSink`)."""
    return _write_one(_XlsxSink(data, folder, lang), data)[0]


def _write_one(sink: _Sink, data: ReportData) -> list[Path]:
    try:
        for sheet in board_sheets(data):
            sink.add(sheet)
        return sink.finish()
    except BaseException:
        sink.abort()
        raise


# --- HTML and PDF ----------------------------------------------------------------------------


def sheets_html(data: ReportData, lang: str, scores: Sequence[MatchScore] | None = None) -> Iterator[str]:
    """The match sheets (of ``scores``, by default every played match) as HTML, one at a time
    (``templates/report_sheet.html``, its rows by :func:`dealer.render.rows.sheet_rows`)."""
    renderer = _SheetRenderer(data, lang)
    for sheet in match_sheets(data, scores):
        yield renderer.render(sheet)


class _SheetRenderer:
    """Renders a report's match sheets, the cells the same on many rows made once."""

    def __init__(self, data: ReportData, lang: str) -> None:
        from dealer.render.templates import environment

        self.data, self.lang = data, lang
        self.template = environment().get_template("report_sheet.html")
        from dealer.render.rows import trump_words
        from dealer.render.strings import strings

        page = strings(lang)
        self.trumps = trump_words(page["no_trump_short"])
        self.common = {"t": labels(lang), "names": data.names, "separator": "、" if lang == "zh" else ", ",
                       "seats": page["seat_short"], "cells": {}}
        self.notes: dict[tuple[int, str], list[str]] = data.penalty_notes_by_match(lang)  # each match's footnotes

    def render(self, sheet: MatchSheet) -> str:
        from dealer.render.rows import board_rows

        s = sheet.score
        levels = isinstance(self.data.scored, ScoredLevelEvent)
        teams = self.data.teams
        return str(self.template.render(
            self.common, s=s, players=(teams[s.home].players, teams[s.away].players),
            boards=None if levels else board_rows(sheet.boards, trumps=self.trumps),
            tables=sheet.tables if levels else None, side={"home": s.home, "away": s.away},
            advanced=self.data.advance_note(s.round, s.match, self.lang),
            notes=self.notes.get((s.round, s.match), ())))


def sheets_inline(data: ReportData) -> bool:
    """Whether the match sheets are in the report document itself (:data:`SHEETS_IN_DOCUMENT`)."""
    return len(played_scores(data)) <= SHEETS_IN_DOCUMENT


def round_page_name(data: ReportData, round_number: int) -> str:
    return f"{data.event.id}-results-round-{round_number:02d}.html"


def _context(data: ReportData, lang: str, pdf: bool) -> dict[str, Any]:
    """What the report template shows: ``pdf`` for the PDF (:data:`PDF_STANDINGS_ROWS`)."""
    import markupsafe

    t = labels(lang)
    made = tables(data, lang)
    standings = made["standings"]
    groups = [(chr(65 + g), made[f"group-{chr(65 + g)}"]) for g, _table in data.groups]
    notes = []
    if pdf:
        budget = PDF_STANDINGS_ROWS
        if len(standings[1]) > budget:
            notes.append(t["pdf_standings_cut"].format(shown=budget, teams=len(standings[1])))
            standings = (standings[0], standings[1][:budget])
        if groups:
            each = max(10, budget // len(groups))
            if any(len(rows) > each for _n, (_h, rows) in groups):
                notes.append(t["pdf_groups_cut"].format(shown=each))
                groups = [(n, (h, rows[:each])) for n, (h, rows) in groups]
    pairs = made.get("pairs")
    if pairs is not None and pdf and len(pairs[1]) > PDF_PAIRS_ROWS:
        notes.append(field_labels(lang)["pdf_cut"].format(shown=PDF_PAIRS_ROWS, pairs=len(pairs[1])))
        pairs = (pairs[0], pairs[1][:PDF_PAIRS_ROWS])
    crosses = cross_tables(data)
    inline = sheets_inline(data)
    team_results = None
    if not crosses:
        notes.append(t["cross_omitted"].format(limit=CROSS_TABLE_TEAMS))
        if not pdf:
            team_results = made["team-results"]
    rounds = []
    if not inline:
        notes.append(t["sheets_elsewhere"].format(limit=SHEETS_IN_DOCUMENT))
        if not pdf:
            counts: dict[int, int] = {}
            for s in played_scores(data):
                counts[s.round] = counts.get(s.round, 0) + 1
            rounds = [(n, round_page_name(data, n), c) for n, c in counts.items()]
    return dict(
        t=t, lang=lang, event=data.event, generated=data.generated, sample=data.sample,
        status=data.provisional_note(lang) + data.status_lines(t), final=data.final, prize_notes=data.prize_notes(lang),
        no_results=data.no_results, chain_head=data.chain_head,
        standings=standings, crosses=crosses, team_results=team_results, notes=notes, rounds=rounds,
        inline=inline,
        sheets=(markupsafe.Markup(text) for text in sheets_html(data, lang)) if inline else (),
        chain=[tie_break_name(k, lang) for k in data.event.profile.tie_breaks],
        profile=data.event.profile, supplement=supplement_text(data.event.profile, lang),
        footnotes=data.footnotes(lang), prizes=data.prizes(), names=data.names,
        places=data.places, bracket=_bracket(data, lang), groups=groups,
        pairs=pairs, field_note=field_labels(lang)["note" if data.event.profile.datum == "trimmed" else "note_mean"]
        if pairs is not None else "",
        pairs_unranked=pairs is not None and any(not row[0] for row in pairs[1]),
    )


def html_text(data: ReportData, lang: str, pdf: bool = False) -> str:
    """The report document as one HTML text (``pdf``: the PDF's, see :func:`_context`)."""
    from dealer.render.templates import environment

    return str(environment().get_template("report_event.html").render(**_context(data, lang, pdf)))


def _bracket(data: ReportData, lang: str) -> list[dict[str, Any]] | None:
    """A knockout's rounds for the bracket drawing: each round's name (决赛, 半决赛, 1/4决赛, or
    第 N 轮), each match's slot, teams, result, winner and, for a drawn match, why the winner
    went through."""
    columns = data.bracket()
    if columns is None:
        return None
    t = labels(lang)
    return [{"round": rnd.number, "name": t[f"stage_{stage}"] if stage else t["round_n"].format(n=rnd.number),
             "byes": list(rnd.byes), "matches": [
                 {"slot": m.slot, "match": m.id, "home": m.home, "away": m.away,
                  "third_place": m.slot == "P3",
                  "home_levels": score.home_levels if score.played else None,
                  "away_levels": score.away_levels if score.played else None,
                  "winner": advance.team if advance else None,
                  "note": data.advance_note(rnd.number, m.id, lang)}
                 for m, score, advance in matches]} for rnd, stage, matches in columns]


class _HtmlSink(_Sink):
    """The report document; beyond :data:`SHEETS_IN_DOCUMENT` played matches, one more page per
    round with its results and match sheets, written as the lines come."""

    def __init__(self, data: ReportData, folder: Path, lang: str) -> None:
        import markupsafe

        self.data, self.folder, self.lang = data, folder, lang
        from dealer.render.templates import environment

        self.env = environment()
        self.path = folder / f"{data.event.id}-results.html"
        self.paths: list[Path] = []
        self.markup = markupsafe.Markup
        self.inline = sheets_inline(data)
        self.t = labels(lang)
        self.sheets = _SheetRenderer(data, lang)
        self.page: AtomicFile | None = None
        self.round: int | None = None
        if not self.inline:
            self._write_document()
            head, rows = matches_table(data, lang)
            self.results_head = head
            self.results: dict[str, list[list[str]]] = {}
            for row in rows:
                self.results.setdefault(row[0], []).append(row)

    def _write_document(self) -> None:
        context = _context(self.data, self.lang, pdf=False)
        with AtomicFile(self.path) as target:
            for piece in self.env.get_template("report_event.html").generate(**context):
                target.stream.write(piece.encode("utf-8"))
            self.paths.insert(0, target.commit())

    def _round_context(self, number: int) -> dict[str, Any]:
        data = self.data
        return dict(t=self.t, lang=self.lang, event=data.event, generated=data.generated, number=number,
                    main=self.path.name, chain_head=data.chain_head,
                    results=(self.results_head, self.results.get(str(number), [])) if number else ([], []))

    def _open_round(self, number: int) -> None:
        self._close_round()
        self.page = AtomicFile(self.folder / round_page_name(self.data, number))
        head = self.env.get_template("report_round.html").render(**self._round_context(number))
        before, self.page_tail = head.split("<!--SHEETS-->")
        self.page.stream.write(before.encode("utf-8"))
        self.round = number

    def _close_round(self) -> None:
        if self.page is not None:
            self.page.stream.write(self.page_tail.encode("utf-8"))
            self.paths.append(self.page.commit())
            self.page = None

    def add(self, sheet: MatchSheet) -> None:
        if self.inline:
            return  # the document makes its own sheets (a few hundred at most)
        if sheet.score.round != self.round:
            self._open_round(sheet.score.round)
        assert self.page is not None
        self.page.stream.write(self.sheets.render(sheet).encode("utf-8"))

    def finish(self) -> list[Path]:
        if self.inline:
            self._write_document()
            return self.paths
        self._close_round()
        if isinstance(self.data.scored, ScoredLevelEvent):  # no board lines: its tables, round by round
            by_round: dict[int, list[MatchScore]] = {}
            for s in played_scores(self.data):
                by_round.setdefault(s.round, []).append(s)
            for number, scores in by_round.items():
                self._open_round(number)
                assert self.page is not None
                for sheet in match_sheets(self.data, scores):
                    self.page.stream.write(self.sheets.render(sheet).encode("utf-8"))
                self._close_round()
        return self.paths

    def abort(self) -> None:
        if self.page is not None:
            self.page.abort()


def _write_html(data: ReportData, folder: Path, lang: str) -> list[Path]:
    return _write_one(_HtmlSink(data, folder, lang), data)


def _write_pdf(data: ReportData, folder: Path, lang: str) -> list[Path]:
    """The PDF: the report document while it is small; beyond :data:`SHEETS_IN_DOCUMENT` played
    matches, the standings (at most :data:`PDF_STANDINGS_ROWS` lines), the director's records and
    the prizes, saying where the rest is."""
    import weasyprint

    from dealer.resources import templates_dir

    pdf = weasyprint.HTML(string=html_text(data, lang, pdf=True), base_url=str(templates_dir())).write_pdf()
    path = folder / f"{data.event.id}-results.pdf"
    write_atomic(path, pdf, replace=True)
    return [path]


def _write_xlsx(data: ReportData, folder: Path, lang: str) -> list[Path]:
    return [write_xlsx(data, folder, lang)]


def sheets_json(data: ReportData, scores: Sequence[MatchScore] | None = None) -> Iterator[dict[str, Any]]:
    """Each played match's sheet for the JSON report: its boards, each table's points, level
    points and trump played (a level race: its tables)."""
    levels = isinstance(data.scored, ScoredLevelEvent)
    penalties: dict[tuple[int, str], list[int]] = {}
    for p in data.adjustments.penalties:
        penalties.setdefault((p.round, p.match), []).append(p.id)
    for sheet in match_sheets(data, scores):
        found = _sheet_json(sheet, levels)
        if (key := (sheet.score.round, sheet.score.match)) in penalties:
            found["penalties"] = penalties[key]  # ids, as "adjustments" lists them
        yield found


def _sheet_json(sheet: MatchSheet, levels: bool = False) -> dict[str, Any]:
    """A match sheet: its boards as lists of the values named by ``sheet_columns`` (a level race:
    its tables)."""
    s = sheet.score
    if levels:
        return {"round": s.round, "match": s.match, "tables": [
            {"table": line.table, "home_level": line.home_level, "away_level": line.away_level,
             "home_climbed": line.home_climbed, "away_climbed": line.away_climbed, "net": line.net,
             "last_game": line.last_game, "winner": line.winner} for line in sheet.tables]}
    return {"round": s.round, "match": s.match, "boards": sheet.boards}


class _JsonSink(_Sink):
    """``dealer report --json``'s object as a file, its ``sheets`` written match by match."""

    def __init__(self, data: ReportData, folder: Path, lang: str) -> None:
        self.data = data
        self.encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        self.target = AtomicFile(folder / f"{data.event.id}-results.json")
        head = self.encode(report_json(data, sheets=False, field=False))[:-1].encode("utf-8")
        # what the field says (a league's 640,000 table results): encoded by orjson, the same JSON
        stats = data.field_figures
        field = b"null" if stats is None else field_json(stats)
        self.target.stream.write(head + b',"field":' + field + b',"sheets":[')
        self.first = True
        if isinstance(data.scored, ScoredLevelEvent):
            for sheet in sheets_json(data):
                self._write(sheet)

    def _write(self, sheet: dict[str, Any]) -> None:
        self.target.stream.write((("" if self.first else ",") + self.encode(sheet)).encode("utf-8"))
        self.first = False

    def add(self, sheet: MatchSheet) -> None:
        self._write(_sheet_json(sheet))

    def finish(self) -> list[Path]:
        self.target.stream.write(b"]}\n")
        return [self.target.commit()]

    def abort(self) -> None:
        self.target.abort()


def _write_json(data: ReportData, folder: Path, lang: str) -> list[Path]:
    return _write_one(_JsonSink(data, folder, lang), data)


#: The report formats, each a writer of that format alone (``dealer report --format``).
REPORT_WRITERS = {"html": _write_html, "pdf": _write_pdf, "csv": write_csv, "xlsx": _write_xlsx,
                  "json": _write_json}
#: The formats whose files take the board lines (written in one pass by :func:`write_reports`).
_SINKS: dict[str, type[_Sink]] = {"html": _HtmlSink, "csv": _CsvSink, "xlsx": _XlsxSink, "json": _JsonSink}


def parse_formats(text: str) -> list[str]:
    """The formats of a comma-separated list, checked (none, unknown: an error)."""
    chosen = list(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    unknown = [f for f in chosen if f not in REPORT_WRITERS]
    if unknown or not chosen:
        raise UserError("report.bad_formats", field="format", unknown=Phrase.of("report.unknown_formats",
                                                                                formats=", ".join(unknown)) if unknown
                        else Phrase("report.no_format"), known=', '.join(REPORT_WRITERS))
    return chosen


def write_reports(data: ReportData, folder: Path, formats: Sequence[str], lang: str = "zh") -> list[Path]:
    """Write ``formats``: the match sheets (made once, :func:`match_sheets`) are handed to every
    format that takes them (HTML, CSV, XLSX, JSON) in one pass; the PDF is made on its own."""
    check_writable_folder(folder, field="out")
    out: list[Path] = []
    sinks: list[_Sink] = []
    try:
        for name in formats:
            if name in _SINKS:
                sinks.append(_SINKS[name](data, folder, lang))
        if sinks:
            for sheet in board_sheets(data):
                for sink in sinks:
                    sink.add(sheet)
    except BaseException:
        for sink in sinks:
            sink.abort()
        raise
    finished = iter(sinks)
    for name in formats:
        if name in _SINKS:
            out.extend(next(finished).finish())
        else:
            out.extend(REPORT_WRITERS[name](data, folder, lang))
    return out
