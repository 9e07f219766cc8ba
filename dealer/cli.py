"""The ``dealer`` command: a thin click layer over the library.

Each command parses its options, calls one library function and formats the answer. Heavy
modules (WeasyPrint, NumPy, openpyxl) are imported inside the commands that need them so that
``dealer --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from dealer import __version__
from dealer.cli_help import CatalogGroup, context_lang, default_lang
from dealer.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_DIFFERENCE,
    EXIT_ENVIRONMENT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    Phrase,
    UserError,
)

if TYPE_CHECKING:
    from dealer.app import EventFolder
    from dealer.app.session import EventSession
    from dealer.event import Event
    from dealer.words import CommandWords

F = TypeVar("F", bound=Callable[..., Any])

LANG_OPTION = click.option(
    "--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
    help="Language of the output.",
)
BOARDS_DIR_OPTION = click.option(
    "--boards-dir", default=None,
    help="Where the events' folders (board sets, results.sqlite) live (default: found from the event file's place: "
         "its [event] boards_dir, the boards/ folder its own event folder is in, or the boards/ beside it).")
EVENT_ARGUMENT = click.argument("event_file", metavar="EVENT.toml", type=click.Path(dir_okay=False))


class _TypedDigits(click.ParamType[int]):
    """A whole-number option read as every typed number is (:mod:`dealer.numbers`): ASCII digits,
    or a Chinese IME's full-width ones ("２" is 2: :func:`dealer.numbers.fold_typed`), and no other
    digits: click's ``int()`` alone reads another script's "٢" as 2 (and refuses "²" apart)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, str):
            from dealer.numbers import fold_typed

            folded = fold_typed(value)
            if not folded.isascii():
                self.fail(f"{value!r} is not a valid integer.", param, ctx)
            value = folded
        number: int = super().convert(value, param, ctx)
        return number


class IntRange(_TypedDigits, click.IntRange):
    """:class:`click.IntRange`, its digits read as typed (:class:`_TypedDigits`)."""


class Int(_TypedDigits, click.types.IntParamType):
    """``type=int``, its digits read as typed (:class:`_TypedDigits`)."""


# Control characters (ESC, C1, bidirectional overrides) in names and values must not reach the
# terminal raw: they could retitle it, hide text or reorder what a line shows.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def message_lang() -> str:
    """The language chosen with ``dealer --lang`` (or its default) for the command running."""
    return context_lang(click.get_current_context(silent=True))


def command_words() -> CommandWords:
    """The command line's words in the chosen language (the catalog is read on first use)."""
    from dealer.words import command_words

    return command_words(message_lang())


def flag(field: str) -> str:
    return command_words().label(field)


def safe_text(text: str) -> str:
    """Text for a terminal: control characters shown as escapes (``\\x1b``), never sent."""
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                       else f"\\u{ord(m.group()):04x}", text)


def echo(text: str, err: bool = False) -> None:
    click.echo(safe_text(text), err=err)


def echo_json(value: Any, indent: int | None = None) -> None:
    """JSON on stdout; C1 controls and line separators escaped too (JSON allows them raw)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    click.echo(_UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def tell(phrase: Phrase) -> None:
    """What a use case did (its phrase), on stdout, in the chosen language."""
    echo(command_words().text(phrase.key, phrase.params))


def say(key: str, **params: object) -> None:
    """A message of the catalog on stderr, in the chosen language."""
    echo(command_words().text(key, params), err=True)


def show(key: str, err: bool = False, **params: object) -> None:
    """A message of the catalog on stdout (``err``: stderr), in the chosen language."""
    echo(command_words().text(key, params), err=err)


def report_error(error: UserError) -> None:
    """The one place a user error is shown: ``error:`` and its lines, on stderr."""
    words = command_words()
    lines = error.lines(words)
    echo(words.text("cli.error", {"message": lines[0]}), err=True)
    for line in lines[1:]:
        echo(line, err=True)


def _silence_stdout() -> None:
    """Point standard output at the null device: the interpreter's last flush of what is still
    buffered for a closed pipe must not fail again ("Exception ignored … BrokenPipeError")."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError):  # not a real file (a test's captured output): nothing to flush later
        pass


class DealerGroup(CatalogGroup):
    """The error boundary: a :class:`~dealer.errors.UserError` becomes its message and exit
    status; an operating-system refusal that escaped the library is said as one too; anything
    else is a bug: a traceback, a request to report it, and :data:`~dealer.errors.EXIT_INTERNAL`."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except (click.Abort, KeyboardInterrupt):
            say("cli.interrupted")
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # The output's reader went away (`dealer results history … | head -1`): nobody to tell.
            _silence_stdout()
            ctx.exit(EXIT_BROKEN_PIPE)
        except UserError as error:
            report_error(error)
            ctx.exit(error.exit_status)
        except OSError as error:
            from dealer.files import os_problem

            problem = os_problem(error, error.filename or "dealer", Phrase("files.do_complete_command"))
            report_error(problem)
            ctx.exit(problem.exit_status)
        except Exception:
            click.echo(traceback.format_exc(), err=True)
            say("cli.internal_error", version=__version__)
            ctx.exit(EXIT_INTERNAL)


@click.group(cls=DealerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dealer")
@click.option("--lang", "message_lang", type=click.Choice(["zh", "en"]), default=default_lang, is_eager=True,
              help="Language of the command line's messages, errors and hints (default: DEALER_LANG, "
                   "else LANG: zh* is Chinese, anything else English). The papers' own --lang is apart.")
def main(message_lang: str) -> None:
    """Duplicate dealer and scorer for Shengji (升级 / 双升 / 拖拉机).

    Deal fixed boards from a secret key, print what goes on the table, score the results.

    Exit status: 0 done; 1 a check (verify, results audit) found a difference; 2 the input or
    request was rejected, nothing changed; 3 the machine refused (disk full, read-only, database
    locked, cannot print); 70 an internal error (a bug: please report it); 130 interrupted (Ctrl-C);
    141 the output's reader went away (a pipe closed early, `| head`).
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
        show("said_rules.profile", profile=profile_id, decks=decks, name_zh=profile.name_zh,
             name_en=profile.name_en)


@rules.command("explain")
@click.argument("profile_id", metavar="PROFILE|EVENT.toml")
@click.option("--decks", type=IntRange(1, 4), default=None,
              help="Only this deck count (an event file: its own, unless given).")
@LANG_OPTION
def rules_explain(profile_id: str, decks: int | None, lang: str) -> None:
    """Print a profile's whole table: bands, hands, kitty, match points, tie-breaks; given an
    event file, the rules the event is played by, its own (补充规定) first."""
    from dealer.explain import explain_event, explain_profile
    from dealer.resources import load_profile

    if profile_id.endswith(".toml"):
        from dealer.files import load_event

        event = load_event(profile_id)
        echo(explain_event(event.name, event.id, event.profile, decks or event.decks, lang))
        return
    echo(explain_profile(load_profile(profile_id), decks, lang))


@rules.command("level")
@click.argument("profile_id", metavar="PROFILE")
@click.option("--decks", type=IntRange(1, 4), required=True, help="Decks per board.")
@click.option("--points", "points_text", required=True, help="Defenders' points (a multiple of 5).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def rules_level(profile_id: str, decks: int, points_text: str, as_json: bool) -> None:
    """Convert a board's defenders' points into level points."""
    from dealer.errors import quote
    from dealer.numbers import whole_number_or_none
    from dealer.resources import load_profile

    points = whole_number_or_none(points_text)
    if points is None:
        raise UserError("cli.points_not_a_number", field="points", points=quote(points_text))
    result = load_profile(profile_id).level_points(decks, points)
    if as_json:
        echo_json(result.as_dict())
        return
    if result.outcome == "declarer":
        show("said_rules.declarer", points=points, levels=result.declarer_levels)
    elif result.outcome == "tai":
        extra = Phrase.of("said_rules.tai_extra", levels=result.defenders_levels) if result.defenders_levels else ""
        show("said_rules.tai", points=points, extra=extra)
    else:
        show("said_rules.tai_levels", points=points, levels=result.defenders_levels)


# --- dealing -------------------------------------------------------------------------------


def _event_folder(event_file: str, boards_dir: str | None) -> tuple[Event, EventFolder]:
    """The event file's event and its folder (:meth:`dealer.app.EventFolder.for_file`: ``--boards-dir``,
    else found from the event file's place)."""
    from dealer.app import EventFolder
    from dealer.files import load_event

    event = load_event(event_file)
    return event, EventFolder.for_file(event_file, event, boards_dir)


def said_created(folder: Path) -> None:
    """Say that a command created the event's folder, and where (never silently)."""
    show("said_files.created_folder", path=folder)


@contextlib.contextmanager
def _session(event_file: str, boards_dir: str | None, *, write: bool = False, check_deal: bool = True,
             check_identity: bool = True, results: bool = True, as_played: bool = True) -> Iterator[EventSession]:
    """The command's one session of the event (:class:`dealer.app.EventSession`), closed at the
    end; the folder it created, if it did (a level race's first write), said."""
    from dealer.app.session import EventSession

    with EventSession.open(event_file, boards_dir, write=write, check_deal=check_deal, check_identity=check_identity,
                           results=results, as_played=as_played) as session:
        yield session
    if session.created is not None:
        said_created(session.created)


@main.command()
@EVENT_ARGUMENT
@click.option("--key-file", type=click.Path(dir_okay=False), help="Existing key file.")
@BOARDS_DIR_OPTION
def commit(event_file: str, key_file: str | None, boards_dir: str | None) -> None:
    """Create the key and write the commitment to publish before the deal and play."""
    from dealer.app.dealing import commit_event

    event, folder = _event_folder(event_file, boards_dir)
    report = commit_event(event, folder, key_file)
    if report.folder_created:
        said_created(folder.path)
    if report.key_created:
        show("said_files.key_created", path=report.key_file)
    show("said_files.commitment", commitment=report.commitment)
    show("said_files.publish", path=folder.commitment_path)


@main.command()
@EVENT_ARGUMENT
@click.option("--key-file", type=click.Path(dir_okay=False),
              help="Key file to deal with (default: boards/<event>/deal.key, created if absent).")
@click.option("--public-value", help="The public value named by the event (e.g. a lottery draw).")
@click.option("--discard-incomplete", is_flag=True,
              help="Remove the set files of a deal that did not finish (no manifest.json), then stop.")
@BOARDS_DIR_OPTION
def deal(event_file: str, key_file: str | None, public_value: str | None, discard_incomplete: bool,
         boards_dir: str | None) -> None:
    """Deal every board set of an event into boards/<event>/. Never prints a hand.

    A deal that stopped midway is finished by running the same command again (the files already
    written must be the ones this key and public value deal).
    """
    from dealer.app.dealing import deal_event
    from dealer.app.dealing import discard_incomplete as discard

    event, folder = _event_folder(event_file, boards_dir)
    if discard_incomplete:
        for path in discard(folder):
            show("said_files.removed", path=path)
        return
    report = deal_event(event, folder, key_file, public_value)
    if report.folder_created:
        said_created(folder.path)
    for warning in report.warnings:
        say("cli.warning", warning=warning)
    if report.key_created:
        show("said_files.key_created", path=report.key_file)
    for path in report.kept:
        show("said_files.kept", path=path)
    for path in report.files:
        show("said_files.wrote", path=path)
    show("said_files.commitment", commitment=report.commitment)


@main.command()
@click.argument("boardsets", metavar="BOARDSET.json...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--key-file", required=True, type=click.Path(dir_okay=False),
              help="The revealed key.")
@click.option("--public-value", help="The announced public value (checked against the file's).")
@click.option("--commitment", "published",
              help="The commitment published before play: 64 hex digits or its commitment.json (which also "
                   "holds the plan; by default the commitment.json beside each set file).")
def verify(boardsets: tuple[str, ...], key_file: str, public_value: str | None, published: str | None) -> None:
    """Check set files whole and re-derive every board and the commitment from the key; exit 1
    on any difference."""
    from dealer.app.dealing import verify_files

    differing = False
    for boardset, report in zip(boardsets, verify_files(boardsets, key_file, public_value, published), strict=True):
        for problem in report.problems:
            show("said_verify.problem", err=True, path=boardset, problem=problem)
        for number in report.differing_boards:
            show("said_verify.board_differs", err=True, path=boardset, board=number)
        if not report.ok:
            differing = True
            continue
        for note in report.notes:
            say("cli.note", note=note)
        checked = Phrase("said_verify.published" if published else "said_verify.in_file")
        show("said_verify.verified", path=boardset, set=report.set_number, boards=report.boards, checked=checked)
        show("said_files.commitment", commitment=report.commitment)
    if differing:
        sys.exit(EXIT_DIFFERENCE)


@main.command()
@click.option("--boards-dir", default="boards", show_default=True,
              help="Where the demo's event folders (boards/demo/ with its event.toml, …) are made.")
@click.option("--out", "out_dir", default="output", show_default=True, help="Where the print pack and reports go.")
def demo(boards_dir: str, out_dir: str) -> None:
    """Deal the built-in example event into boards/demo/ with a throw-away key, print and score it."""
    from dealer.demo import run_demo

    for line in run_demo(Path(boards_dir), Path(out_dir)):
        echo(line)


# --- results and reports -------------------------------------------------------------------


def _identity_options(function: F) -> F:
    for option in reversed([
        click.option("--round", "round_", help="Round number."),
        click.option("--match", help="Match id in the round."),
        click.option("--table", help="Table A or B (a level race: its number, or its letter, A = 1)."),
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


@main.group()
def results() -> None:
    """Results: import travellers, add, correct, history, missing, audit (boards/<event>/results.sqlite)."""


@results.command("import")
@EVENT_ARGUMENT
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--by", "entered_by", help="Who enters these results (记分员).")
@click.option("--sheet", help="XLSX: the sheet to read (default: the one visible sheet holding data).")
@BOARDS_DIR_OPTION
def results_import(event_file: str, files: tuple[str, ...], entered_by: str | None, sheet: str | None,
                   boards_dir: str | None) -> None:
    """Import traveller files (CSV UTF-8/GBK or XLSX); each file goes in whole or not at all."""
    from dealer.app.result_files import import_files

    with _session(event_file, boards_dir, write=True) as session:
        outcomes = import_files(session, files, entered_by, sheet)
    failed = [o for o in outcomes if isinstance(o, UserError)]
    for outcome in outcomes:
        if isinstance(outcome, UserError):
            report_error(outcome)
        else:
            tell(outcome.phrase())
    for path in files[len(outcomes):]:  # after the database itself refused
        say("cli.not_tried", path=path)
    if failed:
        say("cli.files_rejected", failed=len(failed), files=len(files))
        sys.exit(max(error.exit_status for error in failed))


def _level_options(function: F) -> F:
    """A level race's table result (result = "levels"), for ``results add`` and ``correct``."""
    for option in reversed([
        click.option("--home-level", help="Level race: the home side's final level (2…A, 过A or A+ past A)."),
        click.option("--away-level", help="Level race: the away side's final level."),
        click.option("--last-game", help="Level race: who won the last game, home or away (末局胜方; decides a tie)."),
        click.option("--home-games", help="Level race: games won by the home side (optional)."),
        click.option("--away-games", help="Level race: games won by the away side (optional)."),
    ]):
        function = option(function)
    return function


def _result_kind_fields(kind_name: str, fields: dict[str, str | None]) -> None:
    """Refuse the flags of another kind of result (a level race has no boards, and so on)."""
    from dealer.app.kinds import KINDS

    own = KINDS[kind_name].own_fields
    wrong = [k for other in KINDS.values() if other.name != kind_name for k in other.own_fields if k not in own]
    given = [flag(k) for k in wrong if fields.get(k) not in (None, "")]
    kind = Phrase("store.a_level_race") if kind_name == "levels" else Phrase("cli.a_boards_event")
    if given:
        raise UserError("cli.not_a_field", given=', '.join(given), kind=kind)


@results.command("add")
@EVENT_ARGUMENT
@_identity_options
@click.option("--qr", "qr_payload", help="Traveller or score-sheet QR payload instead of the identity flags.")
@click.option("--points", help="Defenders' points (防守方得分); required for a boards event.")
@click.option("--ns-team", help="Team sitting N-S (checked against home/away).")
@click.option("--ew-team", help="Team sitting E-W (checked against home/away).")
@_level_options
@_played_options
@BOARDS_DIR_OPTION
def results_add(event_file: str, qr_payload: str | None, accept_implausible: bool, boards_dir: str | None,
                **values: Any) -> None:
    """Enter one table's result of one board (a level race: one table's final levels)."""
    from dealer.app.results import add_result

    with _session(event_file, boards_dir, write=True) as session:
        fields = _slip(session, values, qr_payload)
        tell(add_result(session, fields, not accept_implausible).phrase())


def _slip(session: EventSession, values: dict[str, Any], qr_payload: str | None) -> dict[str, str | None]:
    """One slip's fields from the options, the identity taken from a QR payload when one is
    given; the flags of the other kind of result refused."""
    from dealer.app.results import apply_qr

    names = {"round_": "round", "points": "defenders_points"}
    fields = {names.get(k, k): v for k, v in values.items()}
    _result_kind_fields(session.event.result, fields)
    if qr_payload:
        apply_qr(session.event, fields, qr_payload)
    return fields


@results.command("correct")
@EVENT_ARGUMENT
@_identity_options
@click.option("--qr", "qr_payload", help="Traveller or score-sheet QR payload instead of the identity flags.")
@click.option("--points", help="The right defenders' points.")
@click.option("--withdraw", is_flag=True,
              help="Withdraw the result (entered for the wrong slot); with only --round and --match, "
                   "every current result of that match.")
@click.option("--reason", required=True, help="Why (kept in the audit trail).")
@click.option("--expect-current", help="The value you believe is stored (points or 'withdrawn'): "
                                       "refused if another correction changed it meanwhile.")
@_level_options
@_played_options
@BOARDS_DIR_OPTION
def results_correct(event_file: str, qr_payload: str | None, withdraw: bool, reason: str,
                    expect_current: str | None, accept_implausible: bool, boards_dir: str | None,
                    **values: Any) -> None:
    """Replace a stored result by a new value (the old one stays in the history)."""
    from dealer.app.results import correct

    with _session(event_file, boards_dir, write=True) as session:
        fields = _slip(session, values, qr_payload)
        tell(correct(session, fields, reason, withdraw=withdraw, check_plausible=not accept_implausible,
                     expect_current=expect_current).phrase())


@results.command("history")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), help="Round number.")
@click.option("--match", help="Match id in the round.")
@click.option("--table", help="Table A or B (a level race: its number, or its letter, A = 1).")
@click.option("--board", type=IntRange(1, 64), help="Board number.")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON document: a list of the stored rows, as the lines give them.")
@BOARDS_DIR_OPTION
def results_history(event_file: str, round_: int | None, match: str | None, table: str | None,
                    board: int | None, as_json: bool, boards_dir: str | None) -> None:
    """The audit trail: every stored row, superseded ones included, with who, when and why."""
    from dealer.app.kinds import kind_of
    from dealer.app.results import history
    from dealer.app.session import EventSession

    event, folder = _event_folder(event_file, boards_dir)
    kind = kind_of(event)
    asked = kind.asked_table(table)  # as the kind's store holds a table (refused before the results are read)
    with EventSession.open(event, folder) as session:
        if session.store is None:
            say("cli.no_results_yet")
            return
        rows = history(session, round_, match, asked, board)
    if as_json:  # one document: every row, in the order the lines give them
        echo_json([item.as_dict() for item in rows])
        return
    for row in rows:
        tell(kind.history_text(row, event.timezone))


@results.command("missing")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), help="Only this round.")
@BOARDS_DIR_OPTION
def results_missing(event_file: str, round_: int | None, boards_dir: str | None) -> None:
    """Per match, the boards and tables that still have no result."""
    from dealer.app.results import missing

    with _session(event_file, boards_dir) as session:
        reports = missing(session, round_)
    for report in reports:
        tell(report.phrase())
    gaps = sum(len(r.gaps) for r in reports)
    if gaps:
        show("said_missing.total", gaps=gaps)
    else:
        show("said_missing.nothing")


@results.command("template")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="The round (paired).")
@click.option("--format", "fmt", type=click.Choice(["csv", "xlsx"]), default="csv", show_default=True,
              help="The file's format: csv or xlsx.")
@click.option("--output", type=click.Path(dir_okay=False),
              help="The file to write (default: output/<event>/results-template-round-NN.csv|xlsx); never replaced.")
@LANG_OPTION
@BOARDS_DIR_OPTION
def results_template(event_file: str, round_: int, fmt: str, output: str | None, lang: str,
                     boards_dir: str | None) -> None:
    """Write a round's result file to fill in: every slot (boards: every board of both tables; a
    level race: every table) pre-filled with round, match, table, board, teams, declarer and level,
    in the columns `dealer results import` reads (headers in --lang)."""
    from dealer.app.result_files import write_template

    with _session(event_file, boards_dir) as session:
        tell(write_template(session, round_, fmt, Path(output) if output else None, lang).phrase())


@results.command("audit")
@EVENT_ARGUMENT
@click.option("--head", "published_head",
              help="The chain head a report published: check that the results it showed are still there.")
@BOARDS_DIR_OPTION
def results_audit(event_file: str, published_head: str | None, boards_dir: str | None) -> None:
    """Check the whole results database: every row as the tool wrote it (hash chain), nothing
    deleted or added behind its back, the append-only guards in place, and (with --head) the
    results a published report showed; exit 1 on any finding."""
    # A meta naming another event is the audit's to report (a finding), not a refusal; the rounds
    # as stored are the audit's to check, not to apply.
    with _session(event_file, boards_dir, check_identity=False, as_played=False) as session:
        store = session.store
        if store is None:
            show("said_audit.no_database")
            return
        report = store.audit(published_head)
    for finding in report.findings:
        show("said_audit.finding", err=True, path=store.path, where=finding.where, kind=finding.kind,
             detail=finding.detail)
    show("said_audit.checked", rows=report.rows, head=report.head or "-")
    if report.published_link is not None:
        show("said_audit.published_link", link=report.published_link)
    if not report.ok:
        say("cli.audit_findings", findings=len(report.findings))
        sys.exit(EXIT_DIFFERENCE)
    show("said_audit.passed")


@results.command("forfeit")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--match", help="Match id in the round (not needed with --withdraw).")
@click.option("--team", required=True, help="The team that forfeits (弃权); the other team wins.")
@click.option("--withdraw", is_flag=True, help="Withdraw the forfeit recorded for this team and round.")
@click.option("--reason", required=True, help="Why (kept in the audit trail, footnoted in reports).")
@click.option("--by", "entered_by", help="Who records it.")
@BOARDS_DIR_OPTION
def results_forfeit(event_file: str, round_: int, match: str | None, team: str, withdraw: bool, reason: str,
                    entered_by: str | None, boards_dir: str | None) -> None:
    """Record a forfeit; it scores as the rule profile says (seed 002: the winner nets 5 levels a table)."""
    from dealer.app.rounds import record_forfeit, withdraw_adjustment

    if not withdraw and match is None:
        raise UserError("cli.forfeit_needs_match", field="match")
    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        if withdraw:
            tell(withdraw_adjustment(session, round_, team, "forfeit", reason, entered_by))
            return
        assert match is not None
        tell(record_forfeit(session, round_, match, team, reason, entered_by))


@results.command("late")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--team", required=True, help="The team that was late.")
@click.option("--minutes", type=IntRange(0, 1000), help="Minutes late.")
@click.option("--withdraw", is_flag=True, help="Withdraw the lateness recorded for this team and round.")
@click.option("--reason", required=True, help="What happened (kept in the audit trail, footnoted in reports).")
@click.option("--by", "entered_by", help="Who records it.")
@BOARDS_DIR_OPTION
def results_late(event_file: str, round_: int, team: str, minutes: int | None, withdraw: bool, reason: str,
                 entered_by: str | None, boards_dir: str | None) -> None:
    """Record lateness as the profile says (seed 002: 5–15 minutes −2 小分; over 15 a forfeit)."""
    from dealer.app.rounds import record_lateness, withdraw_adjustment

    if not withdraw and minutes is None:
        raise UserError("cli.minutes_needed", field="minutes")
    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        if withdraw:
            tell(withdraw_adjustment(session, round_, team, "late", reason, entered_by))
            return
        assert minutes is not None
        tell(record_lateness(session, round_, team, minutes, reason, entered_by))


@results.command("appeal")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="The round the appeal is about.")
@click.option("--team", required=True, help="The team that appeals (申诉).")
@click.option("--against", help="What it appeals against: a ruling (a penalty, a forfeit) or a result.")
@click.option("--decide", type=click.Choice(["upheld", "dismissed"]),
              help="Record the committee's decision (仲裁) on the team's open appeal of the round.")
@click.option("--reason", required=True, help="Why (the appeal's grounds, or the decision's).")
@click.option("--by", "entered_by", help="Who records it; with --decide, the member of the arbitration committee.")
@BOARDS_DIR_OPTION
def results_appeal(event_file: str, round_: int, team: str, against: str | None, decide: str | None, reason: str,
                   entered_by: str | None, boards_dir: str | None) -> None:
    """Lodge an appeal (申诉) within the event's window after the round's bulletin, or record the
    arbitration committee's decision on it (--decide); while one is open the standings and prizes
    are provisional. An upheld appeal's effect: `dealer results correct` or `results penalty --withdraw`."""
    from dealer.app.appeals import decide_appeal, lodge_appeal

    if decide is None and not against:
        raise UserError("appeal.lodge_needs_against", field="against")
    if decide is not None and not entered_by:
        raise UserError("appeal.decide_needs_by", field="by")
    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        if decide is not None:
            tell(decide_appeal(session, round_, team, decide, reason, entered_by))
            return
        assert against is not None
        tell(lodge_appeal(session, round_, team, against, reason, entered_by))


# --- teams: registration, withdrawals ------------------------------------------------------


@main.command()
@click.argument("event_file", metavar="EVENT.toml", type=click.Path(dir_okay=False))
@click.option("--profile", "profile_id", required=True, help="The rule profile (dealer rules list).")
@click.option("--format", "format_kind", type=click.Choice(["swiss", "round-robin", "knockout", "fixed"]),
              default="swiss", show_default=True, help="How rounds are made.")
@click.option("--result", type=click.Choice(["boards", "levels"]), default="boards", show_default=True,
              help="Fixed boards (计副制, dealt) or a level race (计时制 / 计局制).")
@click.option("--teams", "teams_sheet", type=click.Path(dir_okay=False),
              help="A registration sheet (CSV or XLSX) to import the teams from.")
@click.option("--sheet", help="XLSX: the sheet to read.")
@BOARDS_DIR_OPTION
def init(event_file: str, profile_id: str, format_kind: str, result: str, teams_sheet: str | None,
         sheet: str | None, boards_dir: str) -> None:
    """Write a commented event file to start from (never over an existing file)."""
    from dealer.app.setup import init_event

    tell(init_event(event_file, profile_id, format_kind, result, teams_sheet, boards_dir, sheet).phrase())


@main.group()
def teams() -> None:
    """Teams: import a registration sheet (报名表), list them, withdraw and rejoin (暂退与重加入)."""


@teams.command("import")
@EVENT_ARGUMENT
@click.argument("sheet_file", metavar="FILE.xlsx|csv", type=click.Path(dir_okay=False))
@click.option("--replace", is_flag=True, help="The sheet replaces the registration (only before round 1 is paired).")
@click.option("--sheet", help="XLSX: the sheet to read (default: the one visible sheet holding data).")
@BOARDS_DIR_OPTION
def teams_import(event_file: str, sheet_file: str, replace: bool, sheet: str | None, boards_dir: str) -> None:
    """Register the teams of a sheet into the event's teams_file; whole or not at all."""
    from dealer.app.teams import import_teams

    tell(import_teams(event_file, sheet_file, boards_dir, replace=replace, sheet=sheet).phrase())


@teams.command("list")
@EVENT_ARGUMENT
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@BOARDS_DIR_OPTION
def teams_list(event_file: str, as_json: bool, boards_dir: str) -> None:
    """The registered teams: club, leader, players, seed, contact, withdrawals."""
    from dealer.app.teams import list_teams

    event, lines = list_teams(event_file, boards_dir)
    if as_json:
        echo_json({"event": event.id, "teams": [line.as_dict() for line in lines]})
        return
    show("said_teams.list_head", teams=len(lines), event=event.id)
    words = command_words()
    for line in lines:
        t = line.team
        details = [words.text(f"said_teams.field_{key}", {"value": value}) for key, value in (
            ("club", t.club), ("leader", t.leader), ("seed", t.seed), ("contact", t.contact)) if value]
        if t.mixed_club:
            details.append(words.text("said_teams.field_mixed_club"))
        show("said_teams.list_line", id=t.id, name=t.name, players="、".join(t.players) or "-",
             details=words.text("errors.list_separator").join(details))
        for w in line.withdrawals:
            show("said_teams.list_withdrawn", round=w.after_round, reason=w.reason,
                 back=Phrase.of("said_teams.list_back", round=w.back_from, reason=w.back_reason)
                 if w.back_from is not None else "")


@teams.command("withdraw")
@EVENT_ARGUMENT
@click.argument("team")
@click.option("--after-round", type=IntRange(0, 999), required=True,
              help="The last round it played (0: before round 1).")
@click.option("--reason", required=True, help="Why (kept in the audit trail, footnoted in reports).")
@click.option("--by", "entered_by", help="Who records it.")
@BOARDS_DIR_OPTION
def teams_withdraw(event_file: str, team: str, after_round: int, reason: str, entered_by: str | None,
                   boards_dir: str) -> None:
    """Withdraw a team (暂退): not paired from the next round; its played results stay."""
    from dealer.app.teams import withdraw_team

    with _session(event_file, boards_dir, write=True, as_played=False, check_deal=False) as session:
        tell(withdraw_team(session, team, after_round, reason, entered_by))


@teams.command("rejoin")
@EVENT_ARGUMENT
@click.argument("team")
@click.option("--from-round", type=IntRange(1, 999), required=True, help="The first round it plays again.")
@click.option("--reason", required=True, help="Why (kept in the audit trail).")
@click.option("--by", "entered_by", help="Who records it.")
@BOARDS_DIR_OPTION
def teams_rejoin(event_file: str, team: str, from_round: int, reason: str, entered_by: str | None,
                 boards_dir: str) -> None:
    """Bring a withdrawn team back (重加入) from a round not yet paired."""
    from dealer.app.teams import rejoin_team

    with _session(event_file, boards_dir, write=True, as_played=False, check_deal=False) as session:
        tell(rejoin_team(session, team, from_round, reason, entered_by))


@results.command("penalty")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--match", help="Match id in the round (checked against the team's match).")
@click.option("--team", required=True, help="The team the penalty is given to.")
@click.option("--table", help="The table: A or B (boards), a level race's table number.")
@click.option("--board", type=IntRange(1, 999), help="The board (points, a lost board in a boards event).")
@click.option("--points", type=Int(), help="± the team's points of that board's table, before the conversion.")
@click.option("--levels", type=Int(),
              help="± the team's level points after the conversion (a level race: at the table).")
@click.option("--lose-board", is_flag=True, help="判本盘负: the board (a level race: the table's game) lost.")
@click.option("--as-points", type=Int(),
              help="With --lose-board in a boards event: the defenders' points it scores as.")
@click.option("--lose-match", is_flag=True, help="判负: the match lost, scored as the profile's forfeit.")
@click.option("--match-points", type=Int(), help="± match points in the standings.")
@click.option("--net-levels", type=Int(), help="± 小分 (net level points) in the standings.")
@click.option("--disqualify", is_flag=True, help="Disqualify the team (ranked below every other).")
@click.option("--choice", help="The option taken where the rules give one (seed 001 劳改: +2 levels or ±160 points).")
@click.option("--ruling", metavar="NAME",
              help="One of the profile's combined rulings, given as one decision (dealer rules explain; seed 002 "
                   "七.1 revoke_found_late: the board lost and two levels off); in a boards event a lost board "
                   "needs --as-points.")
@click.option("--withdraw", is_flag=True, help="Withdraw the team's penalties of the round (of one kind, if given).")
@click.option("--reason", required=True, help="Why (kept in the audit trail, footnoted in reports).")
@click.option("--by", "entered_by", required=True, help="Who gives it (the director or referee).")
@BOARDS_DIR_OPTION
def results_penalty(event_file: str, round_: int, match: str | None, team: str, table: str | None,
                    board: int | None, points: int | None, levels: int | None, lose_board: bool,
                    as_points: int | None, lose_match: bool, match_points: int | None, net_levels: int | None,
                    disqualify: bool, choice: str | None, ruling: str | None, withdraw: bool, reason: str,
                    entered_by: str, boards_dir: str) -> None:
    """Give a team a penalty in a match (seed 002 §六–七, seed 001 §8), footnoted everywhere."""
    from dealer.app.penalties import PenaltyAsk, record_penalty, record_ruling, withdraw_penalty

    given = [(kind, amount) for kind, amount, there in (
        ("points", points or 0, points is not None), ("levels", levels or 0, levels is not None),
        ("board", as_points or 0, lose_board), ("match", 0, lose_match),
        ("match_points", match_points or 0, match_points is not None),
        ("net_levels", net_levels or 0, net_levels is not None), ("disqualify", 0, disqualify)) if there]
    if ruling is not None and not withdraw:
        if given:
            raise UserError("penalty.one_kind", field="ruling")
        with _session(event_file, boards_dir, write=True, as_played=False) as session:
            tell(record_ruling(session, round_, match, team, ruling, reason, entered_by, table=table, board=board,
                               as_points=as_points))
        return
    if len(given) > 1 or (not given and not withdraw):
        raise UserError("penalty.one_kind", field="points")
    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        if withdraw:
            tell(withdraw_penalty(session, round_, team, given[0][0] if given else None, reason, entered_by,
                                  check_roster=True))
            return
        kind, amount = given[0]
        ask = PenaltyAsk(kind, amount, table, board, choice)
        tell(record_penalty(session, round_, match, team, ask, reason, entered_by, check_roster=True))


@results.command("warn")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--match", help="Match id in the round (checked against the team's match).")
@click.option("--team", required=True, help="The player's team.")
@click.option("--player", required=True, help="The player warned (as registered).")
@click.option("--table", help="Where an escalation step applies: A or B (boards), a level race's table "
              "(default: the player's table in the team's line-up for the round).")
@click.option("--board", type=IntRange(1, 999), help="The board an escalation step applies to (boards).")
@click.option("--as-points", type=Int(), help="A lost board's defenders' points, if the step loses the board (boards).")
@click.option("--withdraw", is_flag=True, help="Withdraw the player's last warning of the round and what it applied.")
@click.option("--reason", required=True, help="What happened (kept in the audit trail).")
@click.option("--by", "entered_by", required=True, help="Who gives it (the director or referee).")
@BOARDS_DIR_OPTION
def results_warn(event_file: str, round_: int, match: str | None, team: str, player: str, table: str | None,
                 board: int | None, as_points: int | None, withdraw: bool, reason: str, entered_by: str,
                 boards_dir: str) -> None:
    """Warn a player; the profile's escalation (seed 002: 2nd 判本盘负 + 罚一级, 3rd 此轮判负) is applied and said."""
    from dealer.app.penalties import record_warning, withdraw_warning

    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        if withdraw:
            tell(withdraw_warning(session, round_, team, player, reason, entered_by))
            return
        tell(record_warning(session, round_, match, team, player, reason, entered_by, table=table, board=board,
                            as_points=as_points, check_roster=True))


# --- the round loop ------------------------------------------------------------------------


@main.group("round")
def round_group() -> None:
    """The round loop of a Swiss, round robin or knockout: pair, show, undo; and the end of any
    event declared early (stored in results.sqlite)."""


def _echo_round(view: Any, event: Event) -> None:
    names = {t.id: t.name for t in event.teams}
    show("said_round.head", round=view.number)
    for m in view.matches:
        extra = (Phrase.of("said_round.slot", slot=m.slot) if m.slot else
                 Phrase.of("said_round.group", group=chr(65 + m.group)) if m.group is not None else "")
        # The match (场) and its tables as the hall names them; a level race plays no set.
        show("said_round.level_match" if event.levels else "said_round.match", match=m.id,
             tables="/".join(event.table_names(m).values()), set=m.set, home=m.home,
             home_name=names.get(m.home, ""), away=m.away, away_name=names.get(m.away, ""), extra=extra)
    for team in view.byes:
        show("said_round.bye", team=team, name=names.get(team, ""))
    if view.sort_keys:
        show("said_round.sort_keys")
    for place, (team, key) in enumerate(view.sort_keys, start=1):
        show("said_round.sort_key", place=place, sort_key=key, team=team, name=names.get(team, ""))
    for warning in view.warning_phrases():
        say("cli.warning", warning=warning)


@round_group.command("pair")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), help="The round to pair.")
@click.option("--all", "pair_all", is_flag=True,
              help="A round robin: pair every round not paired yet, before any result (the whole schedule).")
@click.option("--accept-warnings", is_flag=True, help="Store the round even with a forced rematch or a second bye.")
@click.option("--allow-incomplete", is_flag=True,
              help="Pair although the previous round has missing results or open flags of the live entry.")
@click.option("--key-file", type=click.Path(dir_okay=False),
              help="Swiss round 1 by lots: the event key (default: boards/<event>/deal.key).")
@click.option("--by", "entered_by", help="Who pairs (the director).")
@BOARDS_DIR_OPTION
def round_pair(event_file: str, round_: int | None, pair_all: bool, accept_warnings: bool, allow_incomplete: bool,
               key_file: str | None, entered_by: str | None, boards_dir: str | None) -> None:
    """Compute and store round N's pairings (teams, home/away, tables, set); a round robin's
    whole schedule with --all."""
    from dealer.app.rounds import pair_round, pair_schedule

    if pair_all == (round_ is not None):
        raise UserError("cli.round_or_all", field="round")
    if round_ is None:
        with _session(event_file, boards_dir, write=True, as_played=False) as session:
            event = session.declared
            views = pair_schedule(session, entered_by)
        for view in views:
            _echo_round(view, event)
        if not views:
            show("said_round.all_paired", rounds=event.format.rounds_needed(len(event.teams)))
            return
        show("said_round.stored_all", first=views[0].number, last=views[-1].number,
             matches=sum(len(v.matches) for v in views))
        return
    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        event = session.declared
        view, stored = pair_round(session, round_, accept_warnings=accept_warnings,
                                  allow_incomplete=allow_incomplete, key_file=key_file, entered_by=entered_by)
    _echo_round(view, event)
    if not stored:
        raise UserError("cli.round_has_warnings",
                        hint="accept_warnings", round=round_)
    show("said_round.stored", round=round_, matches=len(view.matches), byes=len(view.byes))


@round_group.command("show")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@BOARDS_DIR_OPTION
def round_show(event_file: str, round_: int, as_json: bool, boards_dir: str | None) -> None:
    """Print a round's pairings (tables, home/away, set, byes, warnings)."""
    from dealer.app.rounds import show_round

    with _session(event_file, boards_dir, as_played=False) as session:
        event, view = session.declared, show_round(session, round_)
    if as_json:
        echo_json(view.as_dict())
        return
    _echo_round(view, event)
    for movement in view.movements:
        if movement.movement.shared:  # one copy a match: its exchange is today's, said on the table cards
            _echo_movement(movement)


def _echo_movement(shown: Any) -> None:
    """A shared movement, a line per table and per relay stack (``dealer round show``)."""
    words = command_words()
    m = shown.movement

    def place(where: Any) -> str:
        return shown.place_name(where, words.text("movement.relay", {"n": "{n}"})) or words.text("movement.director")

    def run(boards: Sequence[int]) -> str:
        return f"{boards[0]}–{boards[-1]}" if len(boards) > 1 else str(boards[0])

    relays = words.text("movement.relays", {"n": len(m.relays)}) if m.relays else ""
    show("movement.head", set=shown.set, copies=m.copies, wallets=m.wallets, stanzas=m.stanzas,
         moves=m.board_moves(), relays=relays)
    sep = words.text("movement.play_sep")
    for table in m.tables:
        plays = sep.join(words.text("movement.play", {
            "stanza": p.stanza, "boards": run(p.boards), "copy": p.copy,
            "source": place(p.source), "target": place(p.target)}) for p in table.plays)
        show("movement.table", name=shown.name(table), plays=plays)
    for relay in m.relays:
        holds = sep.join(words.text("movement.relay_hold", {
            "stanza": stanza, "boards": run(m.groups[held[0] - 1]), "copy": held[1]})
            for stanza, held in enumerate(relay.holds, start=1) if held is not None)
        show("movement.relay_line", name=words.text("movement.relay", {"n": relay.number}), holds=holds)


@round_group.command("copies")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), default=None,
              help="The round, as listed or paired (default: the event file alone, before dealing: a round of "
                   "one match every two teams; a fixed event: its largest round).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@BOARDS_DIR_OPTION
def round_copies(event_file: str, round_: int | None, as_json: bool, boards_dir: str | None) -> None:
    """Show the ways to serve a round before dealing: one copy of the set a match (the default),
    [event] copies = "auto", and each number of copies that gives its own movement, with the
    wallets to fill, stanzas, boards a stanza, board moves and relay stacks of each."""
    from dealer.app.rounds import copy_choices

    # Without --round the event file alone (before dealing); a round as listed or paired and stored.
    with _session(event_file, boards_dir, check_deal=False, results=round_ is not None, as_played=False) as session:
        found = copy_choices(session, round_)
    if as_json:
        echo_json(found.as_dict())
        return
    words = command_words()
    setting = words.text("movement.no_setting") if found.setting is None else json.dumps(found.setting)
    if found.round is None:
        show("movement.choices_unpaired", tables=found.tables, boards=found.boards, setting=setting)
    else:
        show("movement.choices_head", round=found.round, tables=found.tables, boards=found.boards,
             setting=setting)
    for choice in found.choices:
        label = (words.text("movement.choice_default") if choice.setting is None else
                 words.text("movement.choice_auto") if choice.setting == "auto" else
                 words.text("movement.choice_number", {"n": choice.setting}))
        low, high = choice.boards_per_stanza
        mark = words.text("movement.chosen") if choice.setting == found.setting else ""
        show("movement.choice", label=label, copies=choice.copies, wallets=choice.wallets,
             stanzas=choice.stanzas, per=str(low) if low == high else f"{low}–{high}", moves=choice.board_moves,
             relays=choice.relay_stacks, mark=mark)


@round_group.command("undo")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="The round to undo.")
@click.option("--reason", required=True, help="Why (kept in the audit trail).")
@click.option("--by", "entered_by", help="Who undoes it.")
@BOARDS_DIR_OPTION
def round_undo(event_file: str, round_: int, reason: str, entered_by: str | None, boards_dir: str | None) -> None:
    """Undo the last paired round while it has no result (appended; the pairing stays in the history)."""
    from dealer.app.rounds import undo_round

    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        view = undo_round(session, round_, reason, entered_by)
    show("said_round.undone", round=view.number, matches=len(view.matches), reason=reason.strip())


@round_group.command("end")
@EVENT_ARGUMENT
@click.option("--reason", required=True, help="Why the event ends before all its rounds are complete (kept in the "
              "audit trail).")
@click.option("--withdraw", is_flag=True, help="Withdraw the declared end (only before the key is released).")
@click.option("--by", "entered_by", help="Who declares it (裁判长).")
@BOARDS_DIR_OPTION
def round_end(event_file: str, reason: str, withdraw: bool, entered_by: str | None, boards_dir: str | None) -> None:
    """Declare the event over early (rounds not played, a result never to come): no round is paired
    after it, and the key can be released once every set is released or declared unused."""
    from dealer.app.rounds import end_event, withdraw_end

    with _session(event_file, boards_dir, write=True, as_played=False) as session:
        tell((withdraw_end if withdraw else end_event)(session, reason, entered_by))


@main.command("lineup")
@EVENT_ARGUMENT
@click.option("--round", "round_", type=IntRange(1, 999), required=True, help="Round number.")
@click.option("--team", help="The team whose line-up this is (without --table: show only its line-up).")
@click.option("--table", "tables", type=(str, str), multiple=True, metavar="TABLE PLAYERS",
              help="A table and its pair, e.g. --table A 张伟,王芳 (a level race: --table 1 …); once per table. "
                   "Without it: show the round's line-ups.")
@click.option("--reason", help="Why the line-up changes (needed to replace one; kept in the audit trail).")
@click.option("--by", "entered_by", help="Who records it.")
@click.option("--json", "as_json", is_flag=True, help="Show: print one JSON object.")
@BOARDS_DIR_OPTION
def lineup(event_file: str, round_: int, team: str | None, tables: tuple[tuple[str, str], ...], reason: str | None,
           entered_by: str | None, as_json: bool, boards_dir: str) -> None:
    """Record who plays where in a round (上场名单: the pair at each table of the team's match),
    checked against the team's registered players; a change is refused once the round has a
    result. Without --table: show the round's line-ups."""
    from dealer.app.lineups import lineup_text, record_lineup, round_lineups

    if tables:
        if team is None:
            raise UserError("lineup.needs_team", field="team")
        with _session(event_file, boards_dir, write=True, check_deal=False, as_played=False) as session:
            tell(record_lineup(session, round_, team, tables, reason=reason, entered_by=entered_by))
        return
    with _session(event_file, boards_dir, check_deal=False) as session:
        found = [one for one in round_lineups(session, round_) if team is None or one.team == team]
    if as_json:
        echo_json({"round": round_, "lineups": [one.as_dict() for one in found]})
        return
    if not found:
        show("outcome.lineup_none", round=round_)
    for one in found:
        changes = Phrase.of("outcome.lineup_changes", count=len(one.replaced)) if one.replaced else ""
        show("outcome.lineup_line", round=one.round, team=one.team, lineup=lineup_text(one), changes=changes)


@main.command()
@EVENT_ARGUMENT
@click.option("--format", "formats", default="html,pdf,csv,xlsx", show_default=True,
              help="Comma-separated: html, pdf, csv, xlsx.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Folder (default: output/<event>/reports).")
@click.option("--json", "as_json", is_flag=True, help="Print standings and matches as JSON instead.")
@LANG_OPTION
@BOARDS_DIR_OPTION
def report(event_file: str, formats: str, out_dir: str | None, as_json: bool, lang: str,
           boards_dir: str | None) -> None:
    """Match sheets, cross-table and standings from the results database."""
    from dealer.report import parse_formats, report_json, sheets_inline, write_reports

    chosen = parse_formats(formats)
    with _session(event_file, boards_dir) as session:
        data = session.report()
        folder = session.folder
    if as_json:
        # Indented while a reader may page through it; a large event's sheets are printed compact
        # (json's indenting encoder is pure Python: minutes at 20,000 matches).
        echo_json(report_json(data, sheets=True), indent=1 if sheets_inline(data) else None)
        return
    for path in write_reports(data, Path(out_dir) if out_dir else folder.reports_path, chosen, lang):
        show("said_files.wrote", path=path)
    show("said_files.chain_head", head=data.chain_head or "-")


@main.command()
@EVENT_ARGUMENT
@click.option("--set", "set_number", type=Int(), help="The board set whose hands to make public.")
@click.option("--key", "reveal_key", is_flag=True,
              help="Reveal the key, once the event is over (every round complete, or its end declared with "
                   "`dealer round end`) and every set released or declared unused: the site then shows it and the "
                   "verify command.")
@click.option("--unused", is_flag=True,
              help="With --set N: declare the set unused (no match played it or will): never shown as a played "
                   "set; the key reveals it at the end.")
@click.option("--reason", required=True, help="Why (kept with the results, shown on the site).")
@click.option("--by", "entered_by", help="Who releases (裁判长).")
@click.option("--accept-missing", is_flag=True,
              help="Release although a match playing the set still misses results (or none has played it).")
@BOARDS_DIR_OPTION
def release(event_file: str, set_number: int | None, reveal_key: bool, unused: bool, reason: str,
            entered_by: str | None, accept_missing: bool, boards_dir: str | None) -> None:
    """Make a board set's hands public on the players' site, declare a set unused, or reveal the
    key at the end (recorded with time and reason)."""
    from dealer.app.release import asked_set
    from dealer.app.release import release as release_set

    asked = asked_set(set_number, reveal_key)
    with _session(event_file, boards_dir, write=True) as session:
        outcome = release_set(session, asked, reason, entered_by=entered_by, accept_missing=accept_missing,
                              unused=unused)
    for warning in outcome.warnings:
        say("cli.warning", warning=warning)
    tell(outcome.phrase())
    if outcome.release is not None:
        show("said_files.rebuild_site")


@main.command()
@EVENT_ARGUMENT
@click.option("--out", "out_dir", help="The site's folder (default: output/<event>/site).")
@click.option("--key-file", type=click.Path(dir_okay=False),
              help="The key, once revealed, when it is not in the event's folder.")
@click.option("--no-pdf", is_flag=True, help="Leave out the PDF downloads (hand records, report): a much faster "
              "build; CSV and XLSX stay.")
@LANG_OPTION
@BOARDS_DIR_OPTION
def site(event_file: str, out_dir: str | None, key_file: str | None, no_pdf: bool, lang: str,
         boards_dir: str | None) -> None:
    """The players' static results site (Chinese, with its English twin under en/): copy the folder
    to any web host, shared drive or USB stick."""
    from dealer.app.session import EventSession
    from dealer.site import build_site, check_out

    event, folder = _event_folder(event_file, boards_dir)
    out = check_out(Path(out_dir) if out_dir else None, folder)  # refused before the results are read
    with EventSession.open(event, folder) as session:
        summary = build_site(session, out, key_file=key_file, lang=lang, pdf=not no_pdf)
    tell(summary.phrase())


@main.command()
@click.argument("championship_file", metavar="CHAMPIONSHIP.toml", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@BOARDS_DIR_OPTION
def championship(championship_file: str, as_json: bool, boards_dir: str | None) -> None:
    """The overall championship: each named event's final places scored by place points
    (seed 001: 10 / 7 / 5 / 3), summed per team; an unfinished event is marked provisional."""
    from dealer.app.championship import build_championship

    head, events, lines = build_championship(championship_file, boards_dir)
    if as_json:
        echo_json({"name": head.name, "provisional": any(e.provisional for e in events),
                   "events": [{"event": e.event, "provisional": e.provisional, "unfinished": list(e.unfinished),
                               "place_points": list(e.place_points),
                               "places": [{"place": p, "teams": list(t)} for p, t in e.places]} for e in events],
                   "table": [line.as_dict() for line in lines]}, indent=1)
        return
    if head.name:
        echo(head.name)
    else:
        show("said_championship.untitled")
    for e in events:
        if e.provisional:
            show("said_championship.provisional", event=e.event, unfinished="; ".join(e.unfinished))
    for line in lines:
        per = "  ".join(f"{e.event} {line.per_event[e.event]}" for e in events)
        show("said_championship.line", rank=line.rank, shared="=" if line.shared else " ", team=line.team,
             name=line.name, total=line.total, per=per)


# --- printing ------------------------------------------------------------------------------

#: The print kinds (``dealer.render.KINDS``, repeated here so that ``--help`` imports nothing
#: heavy; a test pins the two equal).
PRINT_KINDS = ("hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets", "table-cards")
#: The movement sheet (``dealer.render.writers.SHARED_KINDS``: in `all` only when a round's tables share copies).
SHARED_PRINT_KINDS = ("movement",)
#: The round's paperwork (``dealer.render.writers.PAPERWORK``; a test pins the two equal).
PAPERWORK_KINDS = ("booklet", "seating", "bulletin", "prizes", "timer", "team-cards")
#: Above this many pages a progress bar is shown.
PROGRESS_PAGES = 12


@main.command("print")
@click.argument("kind", type=click.Choice([*PRINT_KINDS, *SHARED_PRINT_KINDS, "pairings", "schedule",
                                           *PAPERWORK_KINDS, "review", "alignment", "all"]))
@EVENT_ARGUMENT
@click.option("--set", "sets", type=IntRange(1, 999), multiple=True,
              help="Only this set (repeatable; default: all).")
@click.option("--copies", type=Int(), default=None,
              help="Copies of each board (labels, curtain cards; default: one per match playing the set).")
@LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["pdf", "html"]), default="pdf", show_default=True,
              help="Output format.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Output folder (default: output/<event>/).")
@BOARDS_DIR_OPTION
@click.option("--key-file", type=click.Path(dir_okay=False), default=None,
              help="Key for the labels' check tag (default: boards/<event>/deal.key).")
@click.option("--per-page", type=click.Choice(["1", "2", "4"]), default="2", show_default=True,
              help="Hand records: boards per page.")
@click.option("--layout", default="a4-3x8", show_default=True,
              help="Label sheet layout: a4-3x8 (Avery Zweckform 3474), a4-3x8-36 (3475), a4-half, "
                   "or a .toml file of your own.")
@click.option("--start-at", type=IntRange(1, 999), default=1, show_default=True,
              help="Labels: first label position to use on the first sheet (a part-used sheet).")
@click.option("--offset-x", type=float, default=0.0, help="Labels: move the print right by this many mm.")
@click.option("--offset-y", type=float, default=0.0, help="Labels: move the print down by this many mm.")
@click.option("--board", "boards", type=IntRange(1, 999), multiple=True,
              help="Only this board (repeatable): reprint a fouled wallet's papers.")
@click.option("--with-results", is_flag=True,
              help="Hand records: each table's trump and defenders' points beside the board (once scored).")
@click.option("--jobs", type=IntRange(1, 64), default=None,
              help="Worker processes (default: CPU count; 1 = serial).")
@click.option("--round", "round_", type=IntRange(1, 999), default=None,
              help="One round: with `all`, its pairings (对阵表), seating plan (座位图), the results bulletin "
                   "(成绩公告) posted as it starts, and every paper of the set(s) it plays (travellers, score "
                   "sheets and table cards of its matches only); a level race's pairings, score sheets, seating plan "
                   "and bulletin.")
@click.option("--serve-url", default=None, metavar="URL",
              help="Score sheets: the address the players' phones reach `dealer serve` at, which the entry "
                   "QR codes hold (e.g. http://192.168.1.20:8000; default: [event] serve_url, else "
                   "http://127.0.0.1:8000, this machine only).")
def print_command(kind: str, event_file: str, sets: tuple[int, ...], copies: int | None, lang: str,
                  fmt: str, out_dir: str | None, boards_dir: str | None, key_file: str | None, per_page: str,
                  layout: str, start_at: int, offset_x: float, offset_y: float, boards: tuple[int, ...],
                  with_results: bool, jobs: int | None, round_: int | None, serve_url: str | None) -> None:
    """Render the print pack: hand records, wallet labels, curtain cards, dealing guide,
    travellers, table score sheets and table cards (PDF or HTML), a round's pairings, the whole
    schedule of a round robin or fixed event (轮次表), the booklet (秩序册), a round's seating
    plan (座位图) and results bulletin (成绩公告), the prize receipt sheet (奖励签收表), a round's timer
    page for the projector (HTML), the teams' cards with their confirmation codes (队卡, once for
    the event: also in `all` without --round), the movement sheet of a round whose tables share
    a set's copies (牌套移动表, `movement`), the hands of the round (赛后复盘) of a released set
    (`review --set N`: each board's hands and analysis, the field's datum, spread, biggest swings
    and trumps); `alignment` prints a label test sheet. Score sheets carry each table's entry QR
    code for `dealer serve` (--serve-url)."""
    from dealer.render import PrintOptions, plan_documents, render_documents
    from dealer.render.writers import CODE_KINDS

    options = PrintOptions(
        lang=lang, fmt=fmt, out_dir=Path(out_dir) if out_dir else None, sets=sets or None,
        copies=copies, boards_root=Path(boards_dir) if boards_dir else None,
        key_file=Path(key_file) if key_file else None,
        per_page=int(per_page), layout=layout, start_at=start_at, offset_x=offset_x, offset_y=offset_y,
        boards=boards or None, with_results=with_results, round=round_, serve_url=serve_url,
    )
    # The alignment sheet needs no deal; everything else prints the rounds as played.
    with _session(event_file, boards_dir, check_deal=False, results=kind != "alignment") as session:
        plan = plan_documents(session, kind, options)
    documents = plan.documents
    for left_out in plan.left_out:
        tell(left_out.phrase())
    total = sum(len(doc.pages) for doc in documents)
    if total > PROGRESS_PAGES:
        label = command_words().text("said_print.rendering", {"pages": total})
        with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
            written = render_documents(documents, fmt, jobs, bar.update)
    else:
        written = render_documents(documents, fmt, jobs)
    for item in written:
        units = ", ".join(f"{n} {name}" for name, n in item.units.items())
        show("said_print.file", path=item.path, pages=item.pages, kib=item.size / 1024, units=units,
             secret="" if not item.secret else Phrase("said_print.secret_codes") if item.kind in CODE_KINDS
             else Phrase("said_print.secret"))
    size = sum(item.size for item in written)
    show("said_print.total", files=len(written), pages=sum(item.pages for item in written), mib=size / 1024 / 1024)
    for note in plan.notes:
        tell(note)


@main.command("check-label")
@EVENT_ARGUMENT
@click.argument("payloads", metavar="PAYLOAD...", nargs=-1)
@click.option("--key-file", type=click.Path(dir_okay=False), default=None,
              help="The event's key (default: boards/<event>/deal.key); checked against the commitment.")
@BOARDS_DIR_OPTION
def check_label_command(event_file: str, payloads: tuple[str, ...], key_file: str | None,
                        boards_dir: str | None) -> None:
    """Check wallet labels before play: for each scanned QR payload (arguments, or one per line on
    stdin as a keyboard-wedge scanner types them), whether its check tag is genuine and which set,
    board and copy it is; exit 1 if any is not."""
    from dealer.formats.qr import check_label_payload

    event, folder = _event_folder(event_file, boards_dir)
    key = folder.read_key(event, key_file)
    lines = list(payloads) or [line for line in sys.stdin if line.strip()]
    if not lines:
        raise UserError("cli.no_payload", field="payloads")
    checks = [check_label_payload(key, event.id, event.sets, event.boards_per_set, line) for line in lines]
    for check in checks:
        show("said_label.genuine" if check.genuine else "said_label.not_genuine", payload=check.payload,
             text=check.phrase)
    bad = sum(not check.genuine for check in checks)
    show("said_label.total", err=bool(bad), genuine=len(checks) - bad, labels=len(checks))
    if bad:
        sys.exit(EXIT_DIFFERENCE)


@main.command()
def doctor() -> None:
    """Check that this machine can print, and which font Chinese text will use (exit 3 if not)."""
    from dealer.render.doctor import run_checks

    checks = run_checks()
    for check in checks:
        show("said_doctor.ok" if check.ok else "said_doctor.fail", name=check.name, detail=check.detail)
    if not all(check.ok for check in checks):
        sys.exit(EXIT_ENVIRONMENT)


@main.command()
@EVENT_ARGUMENT
@click.option("--lan", is_flag=True, help="Serve the venue's network (one interface: --host, else the one the "
              "default route leaves by). Without it, this machine only (127.0.0.1).")
@click.option("--host", default=None, help="The address to bind with --lan (default: this machine's LAN address).")
@click.option("--port", type=IntRange(1, 65535), default=None,
              help="The port (default: the event's serve_url's, else 8000).")
@click.option("--double-entry", is_flag=True,
              help="A result counts once both sides enter it on their own phones and agree (no team codes).")
@click.option("--rate", type=click.FloatRange(0.1, 100000), default=None,
              help="Writes a second one address may make (default 10, bursts of 40).")
@click.option("--director-link", "link_only", is_flag=True,
              help="Print a new one-time director link (for another director) and stop; the server may be running.")
@BOARDS_DIR_OPTION
def serve(event_file: str, lan: bool, host: str | None, port: int | None, double_entry: bool,
          rate: float | None, link_only: bool, boards_dir: str | None) -> None:
    """Serve live entry from the players' phones, the director's console and live pages (docs/serve.md).

    Prints the URL, a QR of it and a one-time director link. Stop with Ctrl-C."""
    from dealer.files import load_event
    from dealer.serve.run import binding, terminal_qr
    from dealer.serve.run import serve as run_server

    serve_url = load_event(event_file).serve_url
    bound = binding(lan, host, port, serve_url)
    if link_only:
        from dealer.app.live import new_director_link

        with _session(event_file, boards_dir, write=True) as session:
            token = new_director_link(session)
        show("said_serve.director_link", link=f"{bound.url}/-/login?token={token}")
        return

    def started(url: str, link: str) -> None:
        show("said_serve.listening", url=url)
        echo(terminal_qr(url))
        show("said_serve.director_link", link=link)
        if not lan:
            show("said_serve.local_only")
        if serve_url is not None and serve_url != url:
            show("said_serve.sheets_elsewhere", err=True, serve_url=serve_url, url=url)

    run_server(event_file, boards_dir, bound, double_entry=double_entry, rate=rate, started=started)


if __name__ == "__main__":  # pragma: no cover
    main()
