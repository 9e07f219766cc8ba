"""How ``dealer`` says no (dealer/errors.py): one ``error:`` line that names the value and, for a
long one, quotes it cut short with its length; terminal escapes shown escaped, never sent raw;
never a traceback for anything a user can type or a machine can refuse; and each exit status
meaning one thing: 0 done, 1 a check found a difference, 2 rejected, 3 the machine refused, 70 an
internal error (a bug, with its traceback), 130 interrupted, 141 a reader that went away.

Found by the reliability reviews; each test drives ``dealer`` as the reviewer did, on the
hand-worked event (``test_results_support``), the demo or seed 001's level race.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_one_error, run_dealer
from test_levels import seed_001_race
from test_results_support import (
    EVENT_TOML,
    HAND,
    HEADER,
    dealer_at,
    hand_rows,
    results_rows,
    scored_hand_event,
    write_csv,
    write_event,
)

REPO = Path(__file__).resolve().parent.parent
ESC = "\x1b"


# --- exit statuses ---------------------------------------------------------------------------------


def test_exit_statuses_are_documented() -> None:
    """Each exit status means one thing, and ``dealer --help`` says which."""
    result = run_dealer("--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for status, meaning in (("0", "done"), ("1", "found a difference"), ("2", "rejected"),
                            ("3", "the machine refused"), ("70", "internal error")):
        assert f"{status} " in text and meaning in text, (status, meaning, text)


def test_an_internal_error_is_a_traceback_and_status_70(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (here a library function made to raise) is not dressed up as a user
    error: a traceback, "internal error … please report", exit 70."""
    from click.testing import CliRunner

    import dealer.app.standings
    from dealer.cli import main

    event = write_event(tmp_path)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug on purpose")

    monkeypatch.setattr(dealer.app.standings, "build_report", broken)
    result = CliRunner().invoke(main, ["report", str(event), "--json", "--boards-dir", str(tmp_path / "boards")])
    assert result.exit_code == 70, result.output
    assert "Traceback" in result.output and "RuntimeError: a bug on purpose" in result.output
    assert "internal error" in result.output and "please report" in result.output


def test_an_interrupted_command_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C is not "a check found a difference" (1): it exits 130, with no traceback."""
    from click.testing import CliRunner

    from dealer.app.session import EventSession
    from dealer.cli import main

    def interrupted(*args: object, **options: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(EventSession, "open", interrupted)
    result = CliRunner().invoke(main, ["report", str(tmp_path / "e.toml"), "--json"])
    assert result.exit_code == 130 and "Traceback" not in result.output


def run_with_closed_stdout(*args: object) -> subprocess.CompletedProcess[bytes]:
    """``dealer ARGS`` in a process whose stdout is a pipe nobody reads any more (as after
    ``| head -1`` has exited): every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        return subprocess.run([sys.executable, "-m", "dealer.cli", *map(str, args)], stdout=write_end,
                              stderr=subprocess.PIPE, env=env, timeout=120, check=False)
    finally:
        os.close(write_end)


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """`dealer results history EVENT | head -1` said "error: … Broken pipe" and exited 2
    ("rejected"): now nothing on stderr, and 141 (128 + SIGPIPE, as a shell reports a command
    the pipe stopped; README, "Exit statuses")."""
    event = seed_001_race(tmp_path)
    for args in (("results", "history", event, "--boards-dir", tmp_path / "boards"), ("rules", "list")):
        done = run_with_closed_stdout(*args)
        assert done.returncode == 141, done.stderr
        assert done.stderr == b""



# --- one line, the value quoted ----------------------------------------------------------------------


def test_huge_or_garbage_points_are_one_error(tmp_path: Path) -> None:
    """``--points`` of 5,000 digits (results add, rules level) and garbage are refused
    with one line that quotes the value cut short with its length."""
    event = write_event(tmp_path)
    huge = "5" * 5000
    result = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", "A",
                       "--board", 1, "--points", huge)
    assert_one_error(result, "--points", "5,000")
    assert results_rows(tmp_path) == []
    for points in (huge, "5" * 5000 + "x", "abc", "1e3", "٥٠"):
        result = run_dealer("rules", "level", "official-2002", "--decks", 2, "--points", points)
        assert_one_error(result, "--points")
        if len(points) > 100:
            assert "5,00" in result.output and huge not in result.output, result.output


def test_long_values_are_quoted_cut_with_their_length(tmp_path: Path) -> None:
    """An error quotes at most about 60 characters of a value, then its length."""
    event = write_event(tmp_path)
    for flag_name, value in (("--match", "M" * 5000), ("--table", "T" * 5000), ("--board", "9" * 5000),
                             ("--by", "b" * 5000), ("--note", "n" * 5000)):
        values = {"--round": "1", "--match": "1", "--table": "A", "--board": "1", "--points": "5",
                  flag_name: value}
        args = [item for pair in values.items() for item in pair]
        result = dealer_at(tmp_path, "results", "add", event, *args)
        assert_one_error(result, "5,000")
        assert value[:61] not in result.output, (flag_name, result.output)


def test_long_values_in_a_qr_payload_are_quoted_cut(tmp_path: Path) -> None:
    event = scored_hand_event(tmp_path, hand_rows()[:2])
    result = dealer_at(tmp_path, "results", "add", event, "--qr", "SJD1:T:" + "x" * 5000 + ":1:1:1", "--table", "A",
                       "--points", 5)
    assert_one_error(result, "5,000 characters")


def test_control_characters_are_shown_escaped(tmp_path: Path) -> None:
    """Terminal escapes in ``--by``, ``--reason``, team ids and file names never reach
    the terminal raw (``\\x1b]0;title\\x07`` would retitle it); they are shown as ``\\x1b``."""
    title = ESC + "]0;owned" + "\x07"
    text = EVENT_TOML.replace('"X"', '"X\\u001b[2J"')
    event = write_event(tmp_path, text)
    odd_file = write_csv(tmp_path / f"slips{ESC}[31m.csv", HEADER, hand_rows()[:2])
    outcomes = [
        dealer_at(tmp_path, "results", "import", event, odd_file, "--by", title),
        dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 2,
                  "--points", HAND[2][0], "--by", title),
        dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board",
                  1, "--points", 5, "--reason", f"misread {ESC}[8m hidden", "--by", title),
        dealer_at(tmp_path, "results", "history", event),
        dealer_at(tmp_path, "results", "missing", event),
        dealer_at(tmp_path, "results", "import", event, tmp_path / f"missing{ESC}[31m.csv"),
        dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1,
                  "--points", 5, "--ns-team", f"Y{ESC}[2J"),
    ]
    for outcome in outcomes:
        assert ESC not in outcome.output and "\x07" not in outcome.output, outcome.output
    shown = "".join(o.output for o in outcomes)
    for escaped in ("\\x1b]0;owned\\x07", "misread \\x1b[8m hidden", "slips\\x1b[31m.csv", "X\\x1b[2J",
                    "missing\\x1b[31m.csv", "Y\\x1b[2J"):
        assert escaped in shown, (escaped, shown)


@pytest.mark.parametrize("where", ["integer", "nesting"])
def test_a_pathological_event_file_is_one_error_and_writes_nothing(tmp_path: Path, where: str) -> None:
    """An event TOML with a 5,000-digit integer or an array nested 5,000 deep is
    refused by ``deal`` and ``results missing`` with one line naming the file; nothing written."""
    text = (EVENT_TOML.replace("boards_per_set = 16", "boards_per_set = " + "1" * 5000) if where == "integer"
            else EVENT_TOML + "\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    event = tmp_path / "odd.toml"
    event.write_text(text, encoding="utf-8")
    for args in (("deal", event), ("results", "missing", event)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, str(event))
        assert "set_int_max_str_digits" not in result.output  # advice for programmers, not users
    assert not (tmp_path / "boards").exists()


@pytest.fixture
def no_rendering(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls of the print renderer and of the report writers: a refused ``--out`` must
    be found before any page or report is made."""
    import dealer.render
    import dealer.report

    calls: list[int] = []

    def counted(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(dealer.render, "render_documents", counted(dealer.render.render_documents))
    for name, writer in list(dealer.report.REPORT_WRITERS.items()):
        monkeypatch.setitem(dealer.report.REPORT_WRITERS, name, counted(writer))
    return calls


def test_a_bad_out_folder_is_refused_before_rendering(tmp_path: Path, no_rendering: list[int]) -> None:
    """``--out`` a file, a folder under a file, ``/proc/x`` or ``/dev/null`` is refused
    with one line (exit 2 or 3) for ``print`` and ``report``, and nothing is rendered first."""
    event = scored_hand_event(tmp_path, hand_rows())
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder", encoding="utf-8")
    for out in (a_file, a_file / "sub", Path("/proc/x"), Path("/dev/null")):
        for args in (("print", "travellers", event, "--set", 1, "--format", "html"),
                     ("print", "labels", event, "--set", 1),
                     ("report", event, "--format", "csv,html")):
            result = dealer_at(tmp_path, *args, "--out", out)
            assert result.exit_code in (2, 3), (args, out, result.output)
            assert "Traceback" not in result.output
            assert str(out) in result.output or repr(str(out)) in result.output, (args, out, result.output)
    assert no_rendering == []
    assert a_file.read_text(encoding="utf-8") == "not a folder"
    assert not Path("/proc/x").exists()
