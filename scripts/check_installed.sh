#!/usr/bin/env bash
# The package as a user gets it (`make installed`, part of `make test`): build the wheel, check
# what it holds, install it into a fresh virtual environment in a temporary folder (runtime
# dependencies from the package index or pip's cache), and from an empty folder run
# `dealer doctor`, `dealer demo` and `dealer site` on the demo event. Any failure stops it with a
# non-zero status; the temporary folder is removed either way.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
PYTHON=${PYTHON:-python3}
PIP=${PIP:-.venv/bin/pip}
unset PYTHONPATH  # the installed package, never the source tree
start=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/dealer-installed.XXXXXX")
trap 'rm -rf "$work"' EXIT

rm -rf build  # setuptools' scratch folder: a stale copy of a removed file would ship in the wheel
"$PIP" wheel -q --no-deps -w "$work/dist" .
rm -rf build
wheels=("$work"/dist/*.whl)
echo "installed: built ${wheels[0]##*/}"

# What the wheel holds: the templates and the data, no tests, no compiled files.
"$PYTHON" - "${wheels[0]}" "$repo" <<'PY'
import sys, zipfile
from pathlib import Path

names = set(zipfile.ZipFile(sys.argv[1]).namelist())
repo = Path(sys.argv[2])
wanted = {f"dealer/templates/{p.relative_to(repo / 'templates').as_posix()}"
          for p in (repo / "templates").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
wanted |= {f"dealer/data/{p.relative_to(repo / 'dealer' / 'data').as_posix()}"
           for p in (repo / "dealer" / "data").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
problems = [f"missing from the wheel: {name}" for name in sorted(wanted - names)]
problems += [f"not for the wheel: {name}" for name in sorted(names)
             if name.startswith("tests/") or "__pycache__" in name or name.endswith(".pyc")]
if problems:
    sys.exit("installed: " + "\n".join(problems))
print(f"installed: the wheel holds {len(names)} files ({len(wanted)} templates and data files)")
PY

"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "${wheels[0]}"
mkdir "$work/run"
cd "$work/run"
"$work/venv/bin/python" -I -c 'import dealer, sys; sys.exit(0 if "/site-packages/" in dealer.__file__ else
    f"installed: dealer imported from {dealer.__file__}, not the fresh environment")'
"$work/venv/bin/dealer" doctor
"$work/venv/bin/dealer" demo
"$work/venv/bin/dealer" site boards/demo/event.toml
echo "installed: doctor, demo and site from the wheel in $((SECONDS - start)) s"
