"""Shared pieces of the fuzz harnesses (scripts/fuzz/): run the ``dealer`` command with a time
limit, dump a results database, snapshot a folder, serialise an event file, build the base
states (the demo event mid-event, the Swiss after two rounds, the level race after two rounds).

Every harness runs the installed CLI (``.venv/bin/dealer``) as a subprocess, on scratch copies
under /tmp; nothing under the repository is written but the harness's own reports (if asked).
Only the sample-data helpers of ``dealer.demo`` are imported from the package (to write sample
result files for rounds paired by the tool), never anything that decides what is published.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEALER = str(REPO / ".venv" / "bin" / "dealer")
PYTHON = str(REPO / ".venv" / "bin" / "python")
DATA = REPO / "dealer" / "data"
SAMPLE_TRAVELLERS = DATA / "sample-travellers.csv"
DOCUMENTED = {0, 1, 2, 3, 70, 130, 141}
#: Commands for which exit 1 means something (a check found a difference).
EXIT1_OK = {"verify", "audit"}


@dataclass
class Run:
    args: list[str]
    rc: int | str  # "timeout" when killed by the time limit
    out: str
    err: str
    seconds: float

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.err or self.rc == 70

    def short(self) -> str:
        text = (self.err.strip().splitlines() or self.out.strip().splitlines() or [""])
        return text[-1][:300] if self.traceback else text[0][:300]


def run(args: list[str], cwd: Path, timeout: float = 180, env: dict[str, str] | None = None) -> Run:
    """``dealer ARGS`` in ``cwd`` with a time limit (the process group is killed on expiry)."""
    started = time.perf_counter()
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    proc = subprocess.Popen([DEALER, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=full_env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc: int | str = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        rc = "timeout"
    return Run(args, rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
               time.perf_counter() - started)


def py(code: str, cwd: Path, timeout: float = 120) -> str:
    """Run a snippet with the project's interpreter (sample data only)."""
    done = subprocess.run([PYTHON, "-c", code], cwd=cwd, capture_output=True, timeout=timeout, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr)
    return done.stdout


# --- databases -----------------------------------------------------------------------------------


def dump_db(path: Path) -> dict[str, Any] | None:
    """Every table's rows and the schema of the results database at ``path``, read from a copy
    (the database, its WAL and shared memory copied first: reading never touches the original)."""
    if not path.exists():
        return None
    with tempfile.TemporaryDirectory(prefix="fz-dump-") as tmp:
        copy = Path(tmp) / path.name
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(path) + suffix)
            if src.exists():
                shutil.copyfile(src, Path(str(copy) + suffix))
        con = sqlite3.connect(copy)
        try:
            found: dict[str, Any] = {}
            schema = con.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
            found["__schema__"] = schema
            for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
                rows = con.execute(f'SELECT * FROM "{name}"').fetchall()
                found[name] = sorted(rows, key=repr)
            return found
        finally:
            con.close()


def db_digest(dump: dict[str, Any] | None) -> str:
    return hashlib.sha256(repr(dump).encode()).hexdigest()


def db_diff(a: dict[str, Any] | None, b: dict[str, Any] | None) -> list[str]:
    if a == b:
        return []
    if a is None or b is None:
        return [f"database {'created' if a is None else 'removed'}"]
    out = []
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            ra, rb = a.get(name) or [], b.get(name) or []
            out.append(f"{name}: {len(ra)} -> {len(rb)} rows")
    return out


# --- folders -------------------------------------------------------------------------------------


def snapshot(root: Path, skip_db: bool = True) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``root`` (links not followed): kind, mode and content digest (files),
    link target (links). The results database files are left to :func:`dump_db` (reading it
    may touch its -shm)."""
    found: dict[str, tuple[Any, ...]] = {}
    if not os.path.lexists(root):
        return found
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if skip_db and name.startswith("results.sqlite"):
                continue
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                found[rel] = ("file", stat.S_IMODE(st.st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def snap_diff(a: dict[str, tuple[Any, ...]], b: dict[str, tuple[Any, ...]], ignore: tuple[str, ...] = ()) -> list[str]:
    out = []
    for name in sorted(set(a) | set(b)):
        if any(name.startswith(p) for p in ignore):
            continue
        if a.get(name) != b.get(name):
            what = "added" if name not in a else "removed" if name not in b else "changed"
            out.append(f"{name}: {what}")
    return out


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, symlinks=True)


# --- TOML ----------------------------------------------------------------------------------------


def _toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o == 0x7f:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _key(k: str) -> str:
    return k if k and all(c.isascii() and (c.isalnum() or c in "-_") for c in k) else _toml_str(k)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def dump_toml(doc: dict[str, Any]) -> str:
    """A TOML document from nested dicts/lists: scalars, then tables, then arrays of tables
    (whose nested values are written inline)."""
    lines = []
    for k, v in doc.items():
        if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)):
            lines.append(f"{_key(k)} = {toml_value(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"\n[{_key(k)}]")
            for kk, vv in v.items():
                lines.append(f"{_key(kk)} = {toml_value(vv)}")
    for k, v in doc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"\n[[{_key(k)}]]")
                for kk, vv in item.items():
                    lines.append(f"{_key(kk)} = {toml_value(vv)}")
    return "\n".join(lines) + "\n"


# --- base states ---------------------------------------------------------------------------------

STATES = Path(os.environ.get("FUZZ_STATES", "/tmp/fuzz-states"))


def _ok(r: Run) -> Run:
    if r.rc != 0:
        raise RuntimeError(f"setup failed: dealer {' '.join(r.args)}: {r.rc}\n{r.out}\n{r.err}")
    return r


def sample_round(cwd: Path, event_file: str, number: int, levels: bool = False, boards: str = "b") -> str:
    """Sample results of a paired round (dealer.demo's invented data), as the demo writes them."""
    fn = "sample_levels_csv" if levels else "sample_round_csv"
    return py(
        "import sys\n"
        "from pathlib import Path\n"
        "from dealer.files import load_event\n"
        "from dealer.store.folder import EventFolder\n"
        "from dealer.app.rounds import load_scheduled\n"
        f"from dealer.demo import {fn} as f\n"
        f"e = load_event(Path({event_file!r}))\n"
        f"folder = EventFolder(e.id, Path({boards!r}), Path('output'))\n"
        f"sys.stdout.write(f(load_scheduled(e, folder), {number}))\n", cwd)


def build_state(name: str, fresh: bool = False) -> Path:
    """A base state in STATES/name (made once): ``e.toml``, ``b/`` (boards), ``s/`` (a site
    built at the state), and for each the files a case imports."""
    root = STATES / name
    if root.exists() and (root / ".ready").exists() and not fresh:
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    if name == "demo":
        shutil.copy(DATA / "demo-event.toml", root / "e.toml")
        _ok(run(["deal", "e.toml", "--boards-dir", "b"], root))
        _ok(run(["results", "import", "e.toml", str(SAMPLE_TRAVELLERS), "--boards-dir", "b"], root))
        _ok(run(["release", "e.toml", "--set", "1", "--reason", "round 1 played", "--boards-dir", "b"], root))
        (root / "missing.csv").write_text("round,match,table,board,defenders_points\n3,2,B,16,45\n")
        shutil.copy(SAMPLE_TRAVELLERS, root / "sample.csv")
    elif name == "swiss":
        shutil.copy(DATA / "demo-swiss.toml", root / "e.toml")
        _ok(run(["deal", "e.toml", "--boards-dir", "b"], root))
        for n in (1, 2):
            _ok(run(["round", "pair", "e.toml", "--round", str(n), "--boards-dir", "b"], root))
            (root / f"r{n}.csv").write_text(sample_round(root, "e.toml", n))
            _ok(run(["results", "import", "e.toml", f"r{n}.csv", "--boards-dir", "b"], root))
        _ok(run(["release", "e.toml", "--set", "1", "--reason", "round 1 played", "--boards-dir", "b"], root))
        # round 3's sample results, as the unmutated event would pair it (made on a copy)
        tmp = STATES / (name + "-r3")
        if tmp.exists():
            shutil.rmtree(tmp)
        copy_tree(root, tmp)
        _ok(run(["round", "pair", "e.toml", "--round", "3", "--boards-dir", "b"], tmp))
        (root / "r3.csv").write_text(sample_round(tmp, "e.toml", 3))
        shutil.rmtree(tmp)
    elif name == "levels":
        shutil.copy(DATA / "demo-levels.toml", root / "e.toml")
        (root / "b" / "demo-levels").mkdir(parents=True)
        os.chmod(root / "b" / "demo-levels", 0o700)
        for n in (1, 2):
            _ok(run(["round", "pair", "e.toml", "--round", str(n), "--boards-dir", "b"], root))
            (root / f"r{n}.csv").write_text(sample_round(root, "e.toml", n, levels=True))
            _ok(run(["results", "import", "e.toml", f"r{n}.csv", "--boards-dir", "b"], root))
        tmp = STATES / (name + "-r3")
        if tmp.exists():
            shutil.rmtree(tmp)
        copy_tree(root, tmp)
        _ok(run(["round", "pair", "e.toml", "--round", "3", "--boards-dir", "b"], tmp))
        (root / "r3.csv").write_text(sample_round(tmp, "e.toml", 3, levels=True))
        shutil.rmtree(tmp)
    else:
        raise ValueError(name)
    _ok(run(["site", "e.toml", "--no-pdf", "--boards-dir", "b", "--out", "s"], root))
    (root / ".ready").write_text("ok\n")
    return root


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")


def log(*parts: Any) -> None:
    print(*parts, file=sys.stderr, flush=True)


@dataclass
class Tally:
    """Exit statuses per command, and the findings."""

    statuses: dict[str, dict[str, int]] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)

    def count(self, command: str, rc: int | str) -> None:
        per = self.statuses.setdefault(command, {})
        per[str(rc)] = per.get(str(rc), 0) + 1

    def find(self, kind: str, **details: Any) -> None:
        self.findings.append({"kind": kind, **details})
        log(f"  FINDING {kind}: {json.dumps(details, ensure_ascii=False, default=str)[:600]}")
