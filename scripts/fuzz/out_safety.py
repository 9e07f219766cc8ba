"""``dealer site --out``: never delete or move a file the tool did not write.

Each case sets up a sandbox (a copy of the demo base state: dealt, sample results, set 1
released) with some user files around ``--out``, snapshots the whole sandbox, runs
``dealer site --no-pdf --out X`` two or three times (a first build and rebuilds: the deletion of
review 3's defect 1 came on the *second* build), and checks that every user file is still there,
byte for byte, at its own path, and that links still point where they did. A build that is
refused must change nothing at all. Cases: a non-empty user folder, an empty one, ``.``, the
boards folder, the event folder, a link to a user folder, a link to an empty folder, a dangling
link, a link to a file, a user ``.X-previous`` (folder, file, link to a folder, link to a site),
user ``.X.new`` / ``.X-previous.partial``, a user file inside the live site and inside its
previous generation, a user's ``.X-scores.npz`` (file and link), a copy of a site with user
files added, a folder holding only a forged manifest, a parent that is read-only.

Usage: out_safety.py [--work /tmp/fuzz-out]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from common import run

B = ["--boards-dir", "b"]


def user_tree(path: Path, tag: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{tag}-thesis.txt").write_text(f"precious {tag}\n")
    (path / "sub").mkdir(exist_ok=True)
    (path / "sub" / f"{tag}-photo.jpg").write_bytes(os.urandom(64))


def user_files(snap: dict[str, tuple[Any, ...]]) -> dict[str, tuple[Any, ...]]:
    """The entries of a snapshot that the user made (thesis/photo files and links), by path."""
    return {k: v for k, v in snap.items() if "thesis" in k or "photo" in k or "user-" in k or v[0] == "link"}


Case = tuple[str, Callable[[Path], None], str, int]  # name, setup(root), --out, builds


def cases() -> list[Case]:
    def nonempty(r: Path) -> None:
        user_tree(r / "mydocs", "a")

    def empty(r: Path) -> None:
        (r / "empty").mkdir()

    def link_user(r: Path) -> None:
        user_tree(r / "www", "b")
        (r / "live").symlink_to("www")

    def link_empty(r: Path) -> None:
        (r / "www2").mkdir()
        (r / "live2").symlink_to("www2")

    def dangling(r: Path) -> None:
        (r / "gone").symlink_to("nowhere")

    def link_file(r: Path) -> None:
        (r / "user-file.txt").write_text("mine\n")
        (r / "lf").symlink_to("user-file.txt")

    def prev_user_folder(r: Path) -> None:
        user_tree(r / ".new1-previous", "c")

    def prev_user_file(r: Path) -> None:
        (r / ".new2-previous").write_text("user-thesis\n")

    def prev_link_user(r: Path) -> None:
        user_tree(r / "elsewhere", "d")
        (r / ".new3-previous").symlink_to("elsewhere")

    def prev_link_site(r: Path) -> None:
        (r / ".new4-previous").symlink_to("s")

    def new_user(r: Path) -> None:
        user_tree(r / ".new5.new", "e")

    def partial_user(r: Path) -> None:
        user_tree(r / ".new6-previous.partial", "f")

    def in_live(r: Path) -> None:
        (r / "s" / "user-CNAME").write_text("results.example.org\n")
        user_tree(r / "s" / "user-extra", "g")

    def in_previous(r: Path) -> None:
        (r / ".s-previous" / "user-note.txt").write_text("note\n")

    def scores_user(r: Path) -> None:
        (r / ".s-scores.npz").unlink(missing_ok=True)
        (r / ".s-scores.npz").write_text("user-thesis scores\n")

    def scores_link(r: Path) -> None:
        (r / "user-target.txt").write_text("user-thesis target\n")
        (r / ".s-scores.npz").unlink(missing_ok=True)
        (r / ".s-scores.npz").symlink_to("user-target.txt")

    def scores_partial_user(r: Path) -> None:
        (r / ".s-scores.npz.partial").write_text("user-thesis partial\n")

    def copied_site(r: Path) -> None:
        shutil.copytree(r / "s", r / "copy", symlinks=True)
        (r / "copy" / "user-index-extra.html").write_text("mine\n")

    def forged_manifest(r: Path) -> None:
        user_tree(r / "fm", "h")
        (r / "fm" / ".site-manifest.json").write_text('{"files": {}}')

    def marker_only(r: Path) -> None:
        user_tree(r / "mk", "i")
        (r / "mk" / ".shengji-dealer-site").write_text("x\n")

    def readonly_parent(r: Path) -> None:
        (r / "ro").mkdir()
        os.chmod(r / "ro", 0o555)

    def nested_in_event(r: Path) -> None:
        pass

    return [
        ("non-empty user folder", nonempty, "mydocs", 2),
        ("empty folder", empty, "empty", 3),
        ("the current folder", lambda r: None, ".", 2),
        ("the boards folder", lambda r: None, "b", 2),
        ("the event folder", lambda r: None, "b/demo", 2),
        ("link to a user folder", link_user, "live", 2),
        ("link to an empty folder", link_empty, "live2", 3),
        ("dangling link", dangling, "gone", 2),
        ("link to a file", link_file, "lf", 2),
        ("user .X-previous folder", prev_user_folder, "new1", 2),
        ("user .X-previous file", prev_user_file, "new2", 2),
        ("user .X-previous link to a folder", prev_link_user, "new3", 2),
        ("user .X-previous link to a site", prev_link_site, "new4", 2),
        ("user .X.new folder", new_user, "new5", 2),
        ("user .X-previous.partial folder", partial_user, "new6", 2),
        ("user files in the live site", in_live, "s", 3),
        ("user file in the previous generation", in_previous, "s", 3),
        ("user file named .X-scores.npz", scores_user, "s", 2),
        ("link named .X-scores.npz", scores_link, "s", 2),
        ("user file named .X-scores.npz.partial", scores_partial_user, "s", 2),
        ("copy of a site with a user file", copied_site, "copy", 3),
        ("user folder with a forged manifest", forged_manifest, "fm", 2),
        ("user folder with only the marker", marker_only, "mk", 2),
        ("read-only parent", readonly_parent, "ro/site", 2),
        ("inside the event folder", nested_in_event, "b/demo/site", 2),
        ("the parent of the sandbox", lambda r: None, "..", 1),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/fuzz-out")
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    work = Path(a.work)
    if work.exists():
        for p in work.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                os.chmod(p, 0o755)
        shutil.rmtree(work)
    work.mkdir(parents=True)
    base = common.build_state("demo")
    results = []
    for i, (name, setup, out, builds) in enumerate(cases()):
        if a.only and a.only not in name:
            continue
        # the sandbox: its own folder inside a guard folder holding a user file, so `..` is safe
        guard = work / f"guard-{i:02d}"
        guard.mkdir()
        (guard / "user-guard-thesis.txt").write_text("guard\n")
        root = guard / "box"
        common.copy_tree(base, root)
        setup(root)
        before = common.snapshot(guard, skip_db=False)
        mine = user_files(before)
        runs = []
        for _ in range(builds):
            before_run = common.snapshot(guard, skip_db=False)
            r = run(["site", "e.toml", "--no-pdf", *B, "--out", out], root, timeout=300)
            after_run = common.snapshot(guard, skip_db=False)
            changed = common.snap_diff(before_run, after_run)
            runs.append({"rc": r.rc, "msg": r.short()[:240], "changed": len(changed),
                         "changed_list": changed[:8] if r.rc != 0 else []})
        after = common.snapshot(guard, skip_db=False)
        lost = [k for k, v in mine.items() if after.get(k) != v]
        bad = [x for x in runs if x["rc"] not in (0, 2, 3) or (x["rc"] != 0 and x["changed"])]
        verdict = "ok" if not lost and not bad else "FINDING"
        results.append({"case": name, "out": out, "runs": runs, "user_entries": len(mine), "lost_or_moved": lost,
                        "verdict": verdict})
        print(f"{verdict:8} {name:40} --out {out:14} rcs {[x['rc'] for x in runs]} lost {lost[:4]}"
              + "".join(f"\n           run {k}: {x['msg']}" + (f" CHANGED {x['changed_list']}" if x['changed_list'] else "")
                        for k, x in enumerate(runs)))
        for p in guard.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                os.chmod(p, 0o755)
    common.write_json(work / "report.json", results)


if __name__ == "__main__":
    main()
