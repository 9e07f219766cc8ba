"""Result reports: per-match board-by-board sheets, the cross-table and the standings.

:func:`build_report` scores the event from its results database; :func:`write_reports` writes
HTML (Jinja2, ``templates/report_event.html``), PDF (WeasyPrint, from the same HTML), CSV (UTF-8
with BOM so Excel shows Chinese) and XLSX; :func:`report_json` gives the JSON of
``dealer report --json``. Every report can be rebuilt from the database at any moment.
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from dealer.errors import UserError
from dealer.event import Event
from dealer.explain import tie_break_name
from dealer.files import check_writable_folder, write_atomic
from dealer.folder import EventFolder
from dealer.levels import ScoredLevelEvent
from dealer.results.entry import open_existing_results, score_stored, stored_attribution_problems
from dealer.scoring import Adjustments, AttributionError, ScoredEvent
from dealer.standings import Standing, group_standings
from dealer.standings import cross_table as standings_cross_table
from dealer.standings import standings as rank_teams

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
    adjustments: Adjustments = field(default_factory=Adjustments)
    places: list[tuple[int, list[str]]] | None = None  # knockout: final places so far
    groups: list[tuple[int, list[Standing]]] = field(default_factory=list)  # grouped round robin

    def prizes(self) -> list[tuple[str, list[str]]]:
        """The event's prizes with the teams that take them: places in a knockout, ranks
        otherwise; teams sharing the last rank of a prize share the prize."""
        order = ([team for _place, teams in self.places for team in teams] if self.places is not None
                 else [s.team for s in self.standings])
        out, start = [], 0
        for prize in self.event.prizes:
            out.append((prize.name, order[start:start + prize.teams]))
            start += prize.teams
        return out

    def footnotes(self) -> list[str]:
        """Every forfeit and deduction, with its reason: each report prints them."""
        notes = [f"R{f.round} M{f.match}: {f.team} 弃权 forfeit — {f.reason}" for f in self.adjustments.forfeits]
        notes += [f"R{d.round}: {d.team} {d.net_level_points:+d} 小分 net LP — {d.reason}"
                  for d in self.adjustments.deductions]
        return notes


def build_report(event: Event, folder: EventFolder) -> ReportData:
    """Score the event from its results database, read-only; with no results yet, empty standings
    (and no database is created: reporting only reads). Refuses results that the event file, as
    edited, would credit to other teams (:class:`~dealer.scoring.AttributionError`)."""
    from dealer.results.rounds import folder_seed, scheduled, stored_adjustments

    store = open_existing_results(event, folder)
    sample = False
    head = None
    adjustments = Adjustments()
    event = scheduled(event, store)
    scored = score_stored(event, None)
    if store is not None:
        with store:
            adjustments = stored_adjustments(store)
            found = stored_attribution_problems(event, store)
            if found:
                raise AttributionError(found)
            scored = score_stored(event, store, adjustments)
            sample = store.has_sample_rows()  # rows of an import whose file said "# sample data"
            head = store.chain_head()
    places = None
    if event.format.kind == "knockout":
        from dealer.results.rounds import RoundError
        from dealer.tournament.knockout_round import bracket_conflicts, knockout_places

        conflicts = bracket_conflicts(scored)
        if conflicts:
            raise RoundError("a corrected result changed who went through after the next round was paired: "
                             + "; ".join(conflicts) + " (correct the result back: a played round's pairing "
                             "stays)", field="round")
        places = knockout_places(scored)
    seed = folder_seed(folder)
    groups = group_standings(scored, seed) if event.format.groups > 1 else []
    return ReportData(event, scored, rank_teams(scored, seed), sample,
                      dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                      no_results=not scored.has_results() and not adjustments.forfeits,
                      chain_head=head,
                      adjustments=adjustments, places=places, groups=groups)


def report_json(data: ReportData) -> dict[str, Any]:
    return {
        "event": data.event.id,
        "profile": data.event.profile.id,
        "tie_breaks": list(data.event.profile.tie_breaks),
        "sample_data": data.sample,
        "no_results_yet": data.no_results,
        "results_chain_head": data.chain_head,
        "format": data.event.format.kind,
        "result": data.event.result,  # "boards" (计副制) or "levels" (a level race)
        "standings": [s.as_dict() for s in data.standings],
        "rounds": [{"round": r.number, "byes": list(r.byes)} for r in data.event.rounds],
        "groups": [{"group": chr(65 + g), "standings": [s.as_dict() for s in table]} for g, table in data.groups],
        "places": None if data.places is None else [{"place": p, "teams": t} for p, t in data.places],
        "prizes": [{"name": name, "teams": teams} for name, teams in data.prizes()],
        "adjustments": [
            *({"round": f.round, "match": f.match, "team": f.team, "kind": "forfeit", "reason": f.reason}
              for f in data.adjustments.forfeits),
            *({"round": d.round, "team": d.team, "kind": "net_level_points", "value": d.net_level_points,
               "reason": d.reason} for d in data.adjustments.deductions),
        ],
        "matches": [
            {
                "round": s.round, "match": s.match, "home": s.home, "away": s.away,
                "home_level_points": s.home_levels, "away_level_points": s.away_levels,
                "margin": s.margin, "complete": s.complete,
                "boards_counted": s.boards_counted,
                "home_match_points": s.home_match_points, "away_match_points": s.away_match_points,
                "forfeited_by": list(s.forfeited_by),
            }
            for s in data.scored.scores
        ],
    }


# --- tables shared by every format ---------------------------------------------------------


def _num(value: int | None) -> str:
    return "" if value is None else str(value)


def standings_table(data: ReportData, lang: str, standings: Sequence[Standing] | None = None
                    ) -> tuple[list[str], list[list[str]]]:
    """The standings (the whole field's, or one group's) with every tie-break value."""
    t = labels(lang)
    names = {team.id: team.name for team in data.event.teams}
    chain = list(data.event.profile.tie_breaks)
    table = data.standings if standings is None else standings
    adjusted = any(s.adjustment for s in table)
    byes = any(s.byes for s in table)
    extra_keys = [k for k in chain if k not in ("net_level_points", "level_points_for")]
    head = [t["rank"], t["team"], "", t["mp"], t["lp_for"], t["lp_against"],
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


def cross_table(data: ReportData) -> tuple[list[str], list[list[str]]]:
    order = [s.team for s in data.standings]
    cells = standings_cross_table(data.scored)
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
            for s in scored.scores if not s.forfeited_by for line in scored.table_lines(s.round, s.match)]


def tables(data: ReportData, lang: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The report's tables by name (a CSV file and an XLSX sheet each): heads and rows of text;
    a level race has ``tables`` (its table results) where a boards event has ``boards``."""
    found = {
        "standings": standings_table(data, lang),
        "crosstable": cross_table(data),
        "matches": matches_table(data, lang),
    }
    if data.event.levels:
        found["tables"] = (LEVEL_SHEET_HEAD, level_rows(data))
    else:
        found["boards"] = (SHEET_HEAD, [row for s in data.scored.scores if not s.forfeited_by
                                        for row in sheet_rows(data, s.round, s.match)])
    for group, table in data.groups:
        found[f"group-{chr(65 + group)}"] = standings_table(data, lang, table)
    if data.footnotes():
        found["adjustments"] = ([labels(lang)["adjustments"]], [[note] for note in data.footnotes()])
    if data.event.prizes:
        found["prizes"] = ([labels(lang)["prizes"], labels(lang)["team"]],
                           [[name, team] for name, teams in data.prizes() for team in teams])
    return found


def _frame(head: Sequence[str], rows: Sequence[Sequence[str]], cell: Callable[[str], object]) -> Any:
    """A table as a pandas DataFrame, each text turned into its cell by ``cell``."""
    import pandas as pd

    return pd.DataFrame([[cell(v) for v in row] for row in rows], columns=[cell(h) for h in head], dtype=object)


def _number_or_text(text: str) -> object:
    return int(text) if _is_number(text) else text


def write_csv(data: ReportData, folder: Path, lang: str) -> list[Path]:
    """One CSV per table, UTF-8 with BOM (Excel shows Chinese), formula starts neutralised."""
    out = []
    for name, (head, rows) in tables(data, lang).items():
        text = _frame(head, rows, safe_cell).to_csv(index=False, lineterminator="\r\n")
        path = folder / f"{name}.csv"
        write_atomic(path, text.encode("utf-8-sig"), replace=True)
        out.append(path)
    return out


def write_xlsx(data: ReportData, folder: Path, lang: str) -> Path:
    """One sheet per table: whole numbers as numbers, everything else as text cells."""
    import pandas as pd

    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        for name, (head, rows) in tables(data, lang).items():
            _frame(head, rows, _number_or_text).to_excel(writer, sheet_name=name, index=False)
            for row in writer.sheets[name].iter_rows():
                for cell in row:
                    if cell.data_type == "f":  # openpyxl reads "=1+1" as a formula: a team name stays text
                        cell.data_type = "s"
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
        if s.forfeited_by:
            continue  # footnoted: no board was played
        sheet: dict[str, Any] = {"score": s, "boards": data.scored.sheet(s.round, s.match),
                                 "home_name": names.get(s.home, s.home), "away_name": names.get(s.away, s.away)}
        if isinstance(data.scored, ScoredLevelEvent):
            sheet["tables"] = data.scored.table_lines(s.round, s.match)
        sheets.append(sheet)
    return env.get_template("report_event.html").render(
        t=labels(lang), lang=lang, event=data.event, generated=data.generated, sample=data.sample,
        no_results=data.no_results, chain_head=data.chain_head,
        standings=standings_table(data, lang), cross=cross_table(data), sheets=sheets,
        chain=[tie_break_name(k, lang) for k in data.event.profile.tie_breaks],
        profile=data.event.profile, footnotes=data.footnotes(), prizes=data.prizes(), names=names,
        places=data.places, bracket=_bracket(data),
        groups=[(chr(65 + g), standings_table(data, lang, table)) for g, table in data.groups],
    )


def _bracket(data: ReportData) -> list[dict[str, Any]] | None:
    """A knockout's rounds for the bracket drawing: each match's slot, teams, result, winner."""
    if data.event.format.kind != "knockout":
        return None
    seed_rank = {t.id: i for i, t in enumerate(data.event.seeded_teams(), start=1)}
    columns = []
    for rnd in data.event.rounds:
        cells = []
        for m in rnd.matches:
            score = data.scored.score(rnd.number, m.id)
            cells.append({"slot": m.slot, "home": m.home, "away": m.away,
                          "home_levels": score.home_levels if score.played else None,
                          "away_levels": score.away_levels if score.played else None,
                          "winner": data.scored.winner(rnd.number, m.id, seed_rank)})
        columns.append({"round": rnd.number, "matches": cells, "byes": list(rnd.byes)})
    return columns


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
