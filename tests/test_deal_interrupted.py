"""A deal that did not finish: killed midway (by SIGKILL too), a leftover set file that is not
what the key deals, two ``dealer deal`` of one event at once. Every command that needs the deal
says it did not finish; ``dealer deal`` again finishes it, keeping the identical files and never
overwriting one that differs (``--discard-incomplete`` removes an unfinished deal's set files), and
the folder is byte for byte an uninterrupted deal's.

Found by the reliability reviews; each test drives ``dealer`` as the reviewer did.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLE_TRAVELLERS, assert_one_error, dealt_demo, event_file, files_under, run_dealer
from test_results_support import dealer_at

from dealer.resources import demo_event_text


def test_an_unfinished_deal_is_refused_then_finished_by_dealing_again(tmp_path: Path) -> None:
    """A deal killed midway (no manifest, a set file missing) is "did not finish" for
    printing, results and reports; ``dealer deal`` again finishes it, keeping the identical files,
    and the folder is byte for byte the uninterrupted deal's."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    dealt = files_under(folder)
    (folder / "manifest.json").unlink()
    (folder / "set-02.json").unlink()
    for args in (("print", "dealing-guide", event, "--set", 1, "--format", "html", "--out", tmp_path / "out"),
                 ("results", "import", event, SAMPLE_TRAVELLERS),
                 ("results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                  "--points", 30),
                 ("report", event, "--json"),
                 ("results", "missing", event)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "did not finish", "dealer deal")
    assert not (tmp_path / "out").exists() and not (folder / "results.sqlite").exists()
    again = dealer_at(tmp_path, "deal", event)
    assert again.exit_code == 0, again.output
    for name in ("set-01.json", "set-03.json"):
        assert f"kept {folder / name}" in again.output, again.output
    for name in ("set-02.json", "manifest.json"):
        assert f"wrote {folder / name}" in again.output, again.output
    assert files_under(folder) == dealt
    elsewhere = tmp_path / "elsewhere"
    other = run_dealer("deal", event, "--key-file", folder / "deal.key", "--boards-dir", elsewhere)
    assert other.exit_code == 0, other.output
    assert files_under(elsewhere / "demo") == {k: v for k, v in dealt.items() if k != "deal.key"}


def test_a_leftover_set_that_differs_is_refused_and_can_be_discarded(tmp_path: Path) -> None:
    """A leftover set file that is not what the key deals is never overwritten: the
    message points to ``--discard-incomplete``, which removes the unfinished deal's set files
    (never a finished deal's); dealing again then gives the uninterrupted deal."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    dealt = files_under(folder)
    assert_one_error(dealer_at(tmp_path, "deal", event, "--discard-incomplete"), "no unfinished deal")
    assert files_under(folder) == dealt  # a finished deal is never touched
    (folder / "manifest.json").unlink()
    changed = (folder / "set-01.json").read_bytes().replace(b'"set":1', b'"set": 1')
    assert changed != dealt["set-01.json"]
    (folder / "set-01.json").write_bytes(changed)
    refused = dealer_at(tmp_path, "deal", event)
    assert_one_error(refused, str(folder / "set-01.json"), "--discard-incomplete")
    assert (folder / "set-01.json").read_bytes() == changed and not (folder / "manifest.json").exists()
    discarded = dealer_at(tmp_path, "deal", event, "--discard-incomplete")
    assert discarded.exit_code == 0, discarded.output
    assert all(f"removed {folder / f'set-0{n}.json'}" in discarded.output for n in (1, 2, 3)), discarded.output
    assert sorted(p.name for p in folder.iterdir()) == ["commitment.json", "deal.key"]
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    assert files_under(folder) == dealt


# The child process runs the real `dealer deal`; to stop it at a known point, the script wraps
# the deal's file writer (in that process only, as tests/test_results_processes.py does): once
# the given number of set files is written, it writes its pid to the marker file and sleeps until
# it is killed. The kill so always finds exactly that many set files, however loaded the machine.
DEAL_THEN_PAUSE = """
import os, sys, time
from pathlib import Path
import dealer.app.dealing as dealing
from dealer.files import write_atomic
writing = dealing.write_new_files
marker, after = Path(sys.argv[1]), int(sys.argv[2])
def write_then_pause(folder, files, *args, **kwargs):
    def pausing():
        for count, item in enumerate(files):
            if count == after:  # the first `after` set files are written
                # whole or not at all: the test reads it the moment it exists
                write_atomic(marker, str(os.getpid()).encode("ascii"), durable=False)
                time.sleep(600)
            yield item
    return writing(folder, pausing(), *args, **kwargs)
dealing.write_new_files = write_then_pause
from dealer.cli import main
main(sys.argv[3:])
"""


def test_a_deal_killed_with_sigkill_is_finished_by_dealing_again(tmp_path: Path) -> None:
    """``dealer deal`` of a larger event killed with SIGKILL
    once some set files are written (here: stopped right after the third, then killed); the next
    ``dealer deal`` finishes it, and the files are byte for byte those of a deal never
    interrupted (same key)."""
    import signal
    import time

    text = demo_event_text().replace("sets = 3 ", "sets = 60 ", 1)
    assert "sets = 60" in text
    event = tmp_path / "big.toml"
    event.write_text(text, encoding="utf-8")
    key = tmp_path / "k.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    folder = tmp_path / "boards" / "demo"
    marker = tmp_path / "paused"
    process = subprocess.Popen(
        [sys.executable, "-c", DEAL_THEN_PAUSE, str(marker), "3",
         "deal", str(event), "--key-file", str(key), "--boards-dir", str(tmp_path / "boards")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the deal never reached its third set file"
            time.sleep(0.01)
        assert marker.read_text() == str(process.pid)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    written = sorted(p.name for p in folder.glob("set-*.json"))
    assert written == ["set-01.json", "set-02.json", "set-03.json"]
    assert not (folder / "manifest.json").exists()
    assert_one_error(dealer_at(tmp_path, "report", event, "--json"), "did not finish")
    again = dealer_at(tmp_path, "deal", event, "--key-file", key)
    assert again.exit_code == 0, again.output
    assert again.output.count("kept ") == len(written)
    other = run_dealer("deal", event, "--key-file", key, "--boards-dir", tmp_path / "elsewhere")
    assert other.exit_code == 0, other.output
    assert files_under(folder) == files_under(tmp_path / "elsewhere" / "demo")


def test_two_deals_at_once_both_finish_with_the_same_files(tmp_path: Path) -> None:
    """Two ``dealer deal`` of one event started
    together: each finishes the deal (exit 0) or, when the other one finished first, says the
    event is already dealt (exit 2); never an error about a temporary file; the files are those
    of one deal."""
    event, _boards = event_file(tmp_path, demo_event_text())
    key = tmp_path / "k.key"
    key.write_text("ef" * 32 + "\n", encoding="ascii")
    command = [sys.executable, "-c", "import sys; from dealer.cli import main; main(sys.argv[1:])",
               "deal", str(event), "--key-file", str(key), "--boards-dir", str(tmp_path / "boards")]
    for _attempt in range(3):
        shutil.rmtree(tmp_path / "boards", ignore_errors=True)
        processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        outputs = [p.communicate(timeout=120) for p in processes]
        codes = [p.returncode for p in processes]
        assert 0 in codes and set(codes) <= {0, 2}, outputs
        for code, (_out, err) in zip(codes, outputs, strict=True):
            assert code == 0 or b"is already dealt" in err, err
            assert b".json." not in err, err  # no temporary file named
    alone = run_dealer("deal", event, "--key-file", key, "--boards-dir", tmp_path / "alone")
    assert alone.exit_code == 0
    assert files_under(tmp_path / "boards" / "demo") == files_under(tmp_path / "alone" / "demo")
