"""The ``dealer`` command: a thin click layer over the library.

Each command parses its options, calls one library function and formats the answer. Heavy
modules (pandas, WeasyPrint, NumPy) are imported inside the commands that need them so that
``dealer --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from dealer import __version__

F = TypeVar("F", bound=Callable[..., Any])

LANG_OPTION = click.option(
    "--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
    help="Language of the output.",
)


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
@click.argument("event_file", metavar="EVENT.toml", type=click.Path(dir_okay=False))
@click.option("--key-file", type=click.Path(dir_okay=False), help="Existing key file.")
@click.option("--boards-dir", default="boards", show_default=True, help="Where board sets live.")
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
@click.argument("event_file", metavar="EVENT.toml", type=click.Path(dir_okay=False))
@click.option("--key-file", type=click.Path(dir_okay=False),
              help="Key file to deal with (default: boards/<event>/deal.key, created if absent).")
@click.option("--public-value", help="The public value named by the event (e.g. a lottery draw).")
@click.option("--boards-dir", default="boards", show_default=True, help="Where board sets live.")
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
@user_errors
def verify(boardset: str, key_file: str, public_value: str | None) -> None:
    """Re-derive every board and the commitment from the key; exit 1 on any difference."""
    from dealer.boardsets import verify_boardset
    from dealer.files import read_boardset, read_key

    data = read_boardset(boardset)
    report = verify_boardset(data, read_key(key_file), public_value)
    for problem in report.problems:
        click.echo(f"{boardset}: {problem}", err=True)
    for number in report.differing_boards:
        click.echo(f"{boardset}: board {number} differs from the one the key deals", err=True)
    if not report.ok:
        sys.exit(1)
    click.echo(
        f"{boardset}: set {data['set']} verified: {len(data['boards'])} boards and the "
        f"commitment {data['commitment'][:16]}… match the key"
    )


@main.command()
@click.option("--boards-dir", default="boards", show_default=True)
@click.option("--out", "out_dir", default="output", show_default=True)
@user_errors
def demo(boards_dir: str, out_dir: str) -> None:
    """Deal the built-in example event into boards/demo/ with a throw-away key."""
    from dealer.demo import run_demo

    for line in run_demo(Path(boards_dir), Path(out_dir)):
        click.echo(line)


if __name__ == "__main__":  # pragma: no cover
    main()
