"""The ``dealer`` command: a thin click layer over the library.

Each command parses its options, calls one library function and formats the answer. Heavy
modules (pandas, WeasyPrint, NumPy) are imported inside the commands that need them so that
``dealer --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import closing
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from dealer import __version__

if TYPE_CHECKING:
    from dealer.event import Event

F = TypeVar("F", bound=Callable[..., Any])

LANG_OPTION = click.option(
    "--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
    help="Language of the output.",
)
BOARDS_DIR_OPTION = click.option("--boards-dir", default="boards", show_default=True,
                                 help="Where board sets and results.sqlite live.")
EVENT_ARGUMENT = click.argument("event_file", metavar="EVENT.toml", type=click.Path(dir_okay=False))


def fail(message: str, status: int = 2) -> NoReturn:
    """One-line error on stderr and a non-zero exit."""
    click.echo(f"error: {message}", err=True)
    sys.exit(status)


def user_errors(function: F) -> F:
    """Turn the library's user-facing errors into a one-line message and exit status 2."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from dealer.event import EventError
        from dealer.files import FileProblem
        from dealer.profiles import ProfileError

        try:
            return function(*args, **kwargs)
        except (FileProblem, EventError, ProfileError) as error:
            fail(str(error))

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dealer")
def main() -> None:
    """Duplicate dealer and scorer for Shengji (升级 / 双升 / 拖拉机).

    Deal fixed boards from a secret key, print what goes on the table, score the results.
    """


# --- rules ---------------------------------------------------------------------------------


@main.group()
def rules() -> None:
    """Rule profiles: list them, explain one, convert points into level points."""


@rules.command("list")
def rules_list() -> None:
    """List the rule profiles."""
    from dealer.resources import load_profile, profile_ids

    for profile_id in profile_ids():
        profile = load_profile(profile_id)
        decks = ",".join(str(d) for d in profile.supported_decks)
        click.echo(f"{profile_id:22} decks {decks:6} {profile.name_zh} / {profile.name_en}")


@rules.command("explain")
@click.argument("profile_id", metavar="PROFILE")
@click.option("--decks", type=int, default=None, help="Only this deck count.")
@LANG_OPTION
@user_errors
def rules_explain(profile_id: str, decks: int | None, lang: str) -> None:
    """Print a profile's whole table: bands, hands, kitty, match points, tie-breaks."""
    from dealer.explain import explain_profile
    from dealer.resources import load_profile

    click.echo(explain_profile(load_profile(profile_id), decks, lang))


@rules.command("level")
@click.argument("profile_id", metavar="PROFILE")
@click.option("--decks", type=int, required=True, help="Decks per board.")
@click.option("--points", type=str, required=True, help="Defenders' points (a multiple of 5).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def rules_level(profile_id: str, decks: int, points: str, as_json: bool) -> None:
    """Convert a board's defenders' points into level points."""
    from dealer.profiles import ProfileError
    from dealer.resources import load_profile

    try:
        value = int(points.strip())
    except ValueError:
        fail(f"--points: expected a whole number of points, got {points!r}")
    try:
        result = load_profile(profile_id).level_points(decks, value)
    except ProfileError as error:
        fail(str(error))
    if as_json:
        click.echo(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    if result.outcome == "declarer":
        click.echo(f"{value} points: declarer side +{result.declarer_levels}")
    elif result.outcome == "tai":
        extra = f", defenders +{result.defenders_levels}" if result.defenders_levels else ""
        click.echo(f"{value} points: 上台 (defenders take over){extra}")
    else:
        click.echo(f"{value} points: 上台, defenders +{result.defenders_levels}")


# --- dealing -------------------------------------------------------------------------------


@main.command()
@EVENT_ARGUMENT
@click.option("--key-file", type=click.Path(dir_okay=False), help="Existing key file.")
@BOARDS_DIR_OPTION
@user_errors
def commit(event_file: str, key_file: str | None, boards_dir: str) -> None:
    """Create the key and write the commitment to publish before the deal and play."""
    from dealer.boardsets import commit_event
    from dealer.files import load_event

    report = commit_event(load_event(event_file), key_file, boards_dir)
    if report.key_created:
        click.echo(f"created key file {report.key_file} (mode 0600): keep it secret until play ends")
    click.echo(f"commitment: {report.commitment}")
    click.echo(f"publish: {report.folder / 'commitment.json'}")


@main.command()
@EVENT_ARGUMENT
@click.option("--key-file", type=click.Path(dir_okay=False),
              help="Key file to deal with (default: boards/<event>/deal.key, created if absent).")
@click.option("--public-value", help="The public value named by the event (e.g. a lottery draw).")
@BOARDS_DIR_OPTION
@user_errors
def deal(event_file: str, key_file: str | None, public_value: str | None, boards_dir: str) -> None:
    """Deal every board set of an event into boards/<event>/. Never prints a hand."""
    from dealer.boardsets import deal_event
    from dealer.files import load_event

    report = deal_event(load_event(event_file), key_file, public_value, boards_dir)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    if report.key_created:
        click.echo(f"created key file {report.key_file} (mode 0600): keep it secret until play ends")
    for path in report.files:
        click.echo(f"wrote {path}")
    click.echo(f"commitment: {report.commitment}")


@main.command()
@click.argument("boardset", metavar="BOARDSET.json", type=click.Path(dir_okay=False))
@click.option("--key-file", required=True, type=click.Path(dir_okay=False),
              help="The revealed key.")
@click.option("--public-value", help="The public value (default: the one in the file).")
@click.option("--commitment", "published",
              help="The commitment published before play: 64 hex digits or its commitment.json.")
@user_errors
def verify(boardset: str, key_file: str, public_value: str | None, published: str | None) -> None:
    """Re-derive every board and the commitment from the key; exit 1 on any difference."""
    from dealer.boardsets import verify_boardset
    from dealer.files import FileProblem, read_boardset, read_json, read_key

    data = read_boardset(boardset)
    if published is not None and Path(published).is_file():
        published = str(read_json(published, "commitment").get("commitment", ""))
    try:
        report = verify_boardset(data, read_key(key_file), public_value, published)
    except FileProblem as error:
        fail(f"{boardset}: {error}")
    for problem in report.problems:
        click.echo(f"{boardset}: {problem}", err=True)
    for number in report.differing_boards:
        click.echo(f"{boardset}: board {number} differs from the one the key deals", err=True)
    if not report.ok:
        sys.exit(1)
    checked = "the published commitment" if published else "the commitment in the file"
    click.echo(f"{boardset}: set {data['set']} verified: {len(data['boards'])} boards and {checked} "
               f"match the key")
    click.echo(f"commitment: {data['commitment']}")


@main.command()
@click.option("--boards-dir", default="boards", show_default=True)
@click.option("--out", "out_dir", default="output", show_default=True)
@user_errors
def demo(boards_dir: str, out_dir: str) -> None:
    """Deal the built-in example event into boards/demo/ with a throw-away key."""
    from dealer.demo import run_demo

    for line in run_demo(Path(boards_dir), Path(out_dir)):
        click.echo(line)


# --- results and reports -------------------------------------------------------------------



def _identity_options(function: F) -> F:
    for option in reversed([
        click.option("--round", "round_", help="Round number."),
        click.option("--match", help="Match id in the round."),
        click.option("--table", help="Table A or B."),
        click.option("--board", help="Board number."),
    ]):
        function = option(function)
    return function


def _played_options(function: F) -> F:
    """What a slip may say beyond the points, shared by ``results add`` and ``results correct``."""
    for option in reversed([
        click.option("--trump", help="Trump suit as played: S H C D NT (♠ ♥ ♣ ♦ 无主)."),
        click.option("--declarer", help="Declarer seat as played (checked against the schedule)."),
        click.option("--level", help="Level as played (checked against the schedule)."),
        click.option("--note", help="Free note."),
        click.option("--by", "entered_by", help="Who enters it (记分员)."),
        click.option("--accept-implausible", is_flag=True,
                     help="Admit points outside the plausible range (a real, extraordinary result)."),
    ]):
        function = option(function)
    return function


def _rejected(function: F) -> F:
    """Print a rejection (every problem) on stderr and exit with status 2."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from dealer.results.importer import Rejected

        try:
            return function(*args, **kwargs)
        except Rejected as error:
            click.echo(str(error), err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


@main.group()
def results() -> None:
    """Results: import travellers, add, correct, history, missing (boards/<event>/results.sqlite)."""


@results.command("import")
@EVENT_ARGUMENT
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--by", "entered_by", help="Who enters these results (记分员).")
@BOARDS_DIR_OPTION
@user_errors
def results_import(event_file: str, files: tuple[str, ...], entered_by: str | None, boards_dir: str) -> None:
    """Import traveller files (CSV UTF-8/GBK or XLSX); each file goes in whole or not at all."""
    from dealer.files import FileProblem, load_event
    from dealer.results.importer import Rejected, import_file
    from dealer.results.manage import open_results

    event = load_event(event_file)
    failed = 0
    with closing(open_results(event, boards_dir)) as conn:
        for path in files:
            try:
                click.echo(import_file(conn, event, path, entered_by).summary())
            except (Rejected, FileProblem) as error:
                click.echo(str(error), err=True)
                failed += 1
    if failed:
        click.echo(f"{failed} of {len(files)} file(s) rejected", err=True)
        sys.exit(2)


@results.command("add")
@EVENT_ARGUMENT
@_identity_options
@click.option("--qr", "qr_payload", help="Traveller or score-sheet QR payload instead of the identity flags.")
@click.option("--points", required=True, help="Defenders' points (防守方得分).")
@click.option("--ns-team", help="Team sitting N-S (checked against home/away).")
@click.option("--ew-team", help="Team sitting E-W (checked against home/away).")
@_played_options
@BOARDS_DIR_OPTION
@user_errors
@_rejected
def results_add(event_file: str, qr_payload: str | None, accept_implausible: bool, boards_dir: str,
                **values: Any) -> None:
    """Enter one table's result of one board."""
    from dealer.results.manage import add_result, open_results

    event, fields = _slip(event_file, values, qr_payload)
    with closing(open_results(event, boards_dir)) as conn:
        click.echo(add_result(conn, event, fields, not accept_implausible))


def _slip(event_file: str, values: dict[str, Any], qr_payload: str | None
          ) -> tuple[Event, dict[str, str | None]]:
    """The event and one slip's fields from the options, the identity taken from a QR payload
    when one is given."""
    from dealer.files import load_event
    from dealer.results.manage import apply_qr

    event = load_event(event_file)
    names = {"round_": "round", "points": "defenders_points"}
    fields = {names.get(k, k): v for k, v in values.items()}
    if qr_payload:
        apply_qr(event, fields, qr_payload)
    return event, fields


@results.command("correct")
@EVENT_ARGUMENT
@_identity_options
@click.option("--qr", "qr_payload", help="Traveller or score-sheet QR payload instead of the identity flags.")
@click.option("--points", help="The right defenders' points.")
@click.option("--withdraw", is_flag=True, help="Withdraw the result (entered for the wrong slot).")
@click.option("--reason", required=True, help="Why (kept in the audit trail).")
@_played_options
@BOARDS_DIR_OPTION
@user_errors
@_rejected
def results_correct(event_file: str, qr_payload: str | None, withdraw: bool, reason: str,
                    accept_implausible: bool, boards_dir: str, **values: Any) -> None:
    """Replace a stored result by a new value (the old one stays in the history)."""
    from dealer.results.manage import correct_result, open_results

    if withdraw == (values.get("points") is not None):
        fail("give either --points or --withdraw")
    event, fields = _slip(event_file, values, qr_payload)
    with closing(open_results(event, boards_dir)) as conn:
        click.echo(correct_result(conn, event, fields, reason, withdraw, not accept_implausible))


@results.command("history")
@EVENT_ARGUMENT
@_identity_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object per stored row.")
@BOARDS_DIR_OPTION
@user_errors
def results_history(event_file: str, round_: str | None, match: str | None, table: str | None,
                    board: str | None, as_json: bool, boards_dir: str) -> None:
    """The audit trail: every stored row, superseded ones included, with who, when and why."""
    import dataclasses

    from dealer.files import load_event
    from dealer.results.db import history
    from dealer.results.manage import open_results

    event = load_event(event_file)
    with closing(open_results(event, boards_dir)) as conn:
        try:
            rows = history(conn, int(round_) if round_ else None, match,
                           table.upper() if table else None, int(board) if board else None)
        except ValueError:
            fail("--round and --board take whole numbers")
    for row in rows:
        if as_json:
            click.echo(json.dumps(dataclasses.asdict(row), ensure_ascii=False))
            continue
        value = "withdrawn" if row.withdrawn else f"{row.defenders_points:>4}"
        state = "current" if row.current else "superseded"
        source = row.source + (f" row {row.source_row}" if row.source_row else "")
        line = (f"#{row.id} R{row.round} M{row.match} {row.table} board {row.board:>2}: {value}  "
                f"[{state}] {row.entered_at[:19]} by {row.entered_by or '-'} from {source}")
        if row.supersedes is not None:
            line += f"; supersedes #{row.supersedes}, reason: {row.reason}"
        click.echo(line)


@results.command("missing")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=int, help="Only this round.")
@BOARDS_DIR_OPTION
@user_errors
def results_missing(event_file: str, round_: int | None, boards_dir: str) -> None:
    """Per match, the boards and tables that still have no result."""
    from dealer.files import load_event
    from dealer.results.manage import missing_results

    reports = missing_results(load_event(event_file), boards_dir, round_)
    for report in reports:
        click.echo(report.text())
    gaps = sum(len(r.gaps) for r in reports)
    click.echo(f"{gaps} table result(s) missing" if gaps else "nothing missing")


@main.command()
@EVENT_ARGUMENT
@click.option("--format", "formats", default="html,pdf,csv,xlsx", show_default=True,
              help="Comma-separated: html, pdf, csv, xlsx.")
@click.option("--out", "out_dir", help="Folder (default: output/<event>/reports).")
@click.option("--json", "as_json", is_flag=True, help="Print standings and matches as JSON instead.")
@LANG_OPTION
@BOARDS_DIR_OPTION
@user_errors
def report(event_file: str, formats: str, out_dir: str | None, as_json: bool, lang: str,
           boards_dir: str) -> None:
    """Match sheets, cross-table and standings from the results database."""
    from dealer.files import load_event
    from dealer.report import build_report, report_json, write_reports

    event = load_event(event_file)
    data = build_report(event, boards_dir)
    if as_json:
        click.echo(json.dumps(report_json(data), ensure_ascii=False, indent=1))
        return
    chosen = [f.strip().lower() for f in formats.split(",") if f.strip()]
    unknown = set(chosen) - {"html", "pdf", "csv", "xlsx"}
    if unknown:
        fail(f"--format: unknown {', '.join(sorted(unknown))}; expected html, pdf, csv, xlsx")
    folder = Path(out_dir) if out_dir else Path("output") / event.slug / "reports"
    for path in write_reports(data, folder, chosen, lang):
        click.echo(f"wrote {path}")


# --- printing ------------------------------------------------------------------------------


@main.command("print")
@click.argument("kind", type=click.Choice(["hand-records", "labels", "curtain-cards", "dealing-guide",
                                           "travellers", "score-sheets", "all"]))
@EVENT_ARGUMENT
@click.option("--set", "sets", type=int, multiple=True, help="Only this set (repeatable; default: all).")
@click.option("--copies", type=int, default=None,
              help="Copies of each board (labels, curtain cards; default: one per match playing the set).")
@LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["pdf", "html"]), default="pdf", show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output folder (default: output/<event>/).")
@BOARDS_DIR_OPTION
@click.option("--key-file", type=click.Path(dir_okay=False), default=None,
              help="Key for the labels' check tag (default: boards/<event>/deal.key).")
@click.option("--per-page", type=click.Choice(["1", "2", "4"]), default="2", show_default=True,
              help="Hand records: boards per page.")
@click.option("--layout", default="a4-3x8", show_default=True,
              help="Label sheet layout (dealer/data/labels/*.toml), e.g. a4-3x8 or a4-half.")
@click.option("--jobs", type=int, default=None, help="Worker processes (default: CPU count; 1 = serial).")
@user_errors
def print_command(kind: str, event_file: str, sets: tuple[int, ...], copies: int | None, lang: str,
                  fmt: str, out_dir: str | None, boards_dir: str, key_file: str | None, per_page: str,
                  layout: str, jobs: int | None) -> None:
    """Render the print pack: hand records, wallet labels, curtain cards, dealing guide,
    travellers and table score sheets (PDF or HTML)."""
    from dealer.files import load_event
    from dealer.render import PrintOptions, build_documents, render_documents

    options = PrintOptions(
        lang=lang, fmt=fmt, out_dir=Path(out_dir) if out_dir else None, sets=sets or None,
        copies=copies, boards_root=Path(boards_dir), key_file=Path(key_file) if key_file else None,
        per_page=int(per_page), layout=layout,
    )
    documents = build_documents(load_event(event_file), kind, options)
    total = sum(len(doc.pages) for doc in documents)
    if total > 12:
        with click.progressbar(length=total, label=f"rendering {total} pages", file=sys.stderr) as bar:
            written = render_documents(documents, fmt, jobs, bar.update)
    else:
        written = render_documents(documents, fmt, jobs)
    for item in written:
        units = ", ".join(f"{n} {name}" for name, n in item.units.items())
        click.echo(f"{item.path}  {item.pages} pages  {item.size / 1024:.0f} KiB  ({units})")
    size = sum(item.size for item in written)
    click.echo(f"{len(written)} files, {total} pages, {size / 1024 / 1024:.1f} MiB")


@main.command()
def doctor() -> None:
    """Check that this machine can print, and which font Chinese text will use."""
    from dealer.render.doctor import run_checks

    checks = run_checks()
    for check in checks:
        click.echo(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    if not all(check.ok for check in checks):
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
