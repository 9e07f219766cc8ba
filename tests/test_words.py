"""The word catalog (``dealer/data/strings.toml``): every message in Chinese and English with the
same parameters, every key the code uses in it, and the command line speaking either language."""

from __future__ import annotations

import ast
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_results_support import HEADER, write_csv, write_event

from dealer.errors import EXIT_REJECTED, Phrase, Problem, Rejected, UserError
from dealer.words import LANGS, catalog, command_words, flags, hints, messages, parameters, section, words

PACKAGE = Path(__file__).resolve().parent.parent / "dealer"

#: Calls whose argument at this position is a message key (the error classes' first argument is
#: found by their ancestry); the local helpers of the results package pass a key on too.
KEY_ARGUMENTS = {"Problem": 5, "Phrase": 0, "of": 0, "NotAWholeNumber": 0, "problem": 1, "refuse": 1,
                 "_rejected": 2, "required_int": 1, "number": 1, "say": 0, "show": 0}
ROOTS = {"UserError", "FileProblem", "EnvironmentProblem"}

#: A key that is not a literal, where it is given, and why that is fine.
NOT_LITERAL = {
    ("dealer/errors.py", "key"): "UserError and Problem word whatever key they were given",
    ("dealer/app/validate.py", "message"): "the helpers problem()/refuse() pass their caller's literal key on",
    ("dealer/app/validate.py", "refused.key"): "a NotAWholeNumber's key, literal where it is raised",
    ("dealer/app/validate.py", "what"): "required_int()'s and number()'s callers give literal keys",
    ("dealer/app/results.py", "message"): "the helper _rejected() passes its caller's literal key on",
    ("dealer/app/results.py", "error.key"): "a PayloadError's key, literal where it is raised",
    ("dealer/tournament/knockout.py", "key"): "ResultMissing passes its caller's literal key on",
    ("dealer/app/live.py", "self.key"): "an Outcome words the literal key it was made with",
    ("dealer/app/live.py", "value['phrase']"): "a stored outcome's phrase, literal where it was made",
    ("dealer/serve/security.py", "key"): "the guard's answer() passes its caller's literal key on",
}


def _error_classes(trees: dict[str, ast.Module]) -> set[str]:
    """The names of UserError and every class deriving from it, in the package's source."""
    names, grew = set(ROOTS), True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name not in names and any(
                        isinstance(b, ast.Name) and b.id in names for b in node.bases):
                    names.add(node.name)
                    grew = True
    return names - {"Rejected", "AttributionError"}  # their arguments are the problems they word


def _key_uses() -> list[tuple[str, int, ast.expr]]:
    """(file, line, key argument) of every call that gives a message key."""
    trees = {path.relative_to(PACKAGE.parent).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(PACKAGE.rglob("*.py"))}
    positions = {name: 0 for name in _error_classes(trees)} | KEY_ARGUMENTS
    uses = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if called == "of" and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                       and func.value.id == "Phrase"):
                continue
            if called not in positions:
                continue
            index = positions[called]
            given = [k.value for k in node.keywords if k.arg == "key"]
            argument = node.args[index] if len(node.args) > index else given[0] if given else None
            # `"a.key" if … else "b.key"`: both keys are used.
            while isinstance(argument, ast.IfExp):
                uses.append((name, node.lineno, argument.body))
                argument = argument.orelse
            if argument is not None and not isinstance(argument, ast.Starred):
                uses.append((name, node.lineno, argument))
    return uses


def test_every_message_has_both_languages_with_the_same_parameters() -> None:
    for table in (messages(), hints(), flags()):
        for key, entry in table.items():
            assert set(entry) == set(LANGS), key
            assert parameters(entry["zh"]) == parameters(entry["en"]), key
            assert entry["zh"].strip() and entry["en"].strip(), key


def _shape(value: object, prefix: str = "") -> dict[str, set[str]]:
    """Every key of a nested table with the parameters of its text."""
    if isinstance(value, dict):
        out: dict[str, set[str]] = {}
        for key, inner in value.items():
            out |= _shape(inner, f"{prefix}{key}.")
        return out
    return {prefix.rstrip("."): parameters(value) if isinstance(value, str) else set()}


@pytest.mark.parametrize("part", [None, "report", "explain"])
def test_every_part_of_the_catalog_has_the_same_keys_and_parameters_in_both_languages(part: str | None) -> None:
    zh, en = (catalog()["zh"], catalog()["en"]) if part is None else (section(part, "zh"), section(part, "en"))
    assert _shape(zh) == _shape(en)


def test_every_key_the_code_uses_is_in_the_catalog() -> None:
    known, missing, unlisted = messages(), [], []
    for name, line, argument in _key_uses():
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            if argument.value not in known:
                missing.append(f"{name}:{line}: {argument.value}")
        elif (name, ast.unparse(argument)) not in NOT_LITERAL:
            unlisted.append(f"{name}:{line}: {ast.unparse(argument)}")
    assert not missing, "keys not in strings.toml [messages]:\n" + "\n".join(missing)
    assert not unlisted, "keys that are not literals (list them in NOT_LITERAL with a reason):\n" + "\n".join(unlisted)


def test_a_catalog_key_looks_like_one() -> None:
    for key in messages():
        assert re.fullmatch(r"[a-z_]+\.[a-z0-9_]+", key), key


def test_a_problem_is_worded_with_the_same_place_and_value_in_both_languages() -> None:
    problem = Problem("slips.csv", 3, "defenders_points", 'E "defenders_points"', "37",
                      "result.points_not_multiple_of_5")
    en, zh = problem.text(words("en")), problem.text(words("zh"))
    assert en == ("slips.csv: row 3, column E \"defenders_points\": value '37': "
                  "defenders' points must be a multiple of 5")
    assert zh == "slips.csv：第 3 行，列 E \"defenders_points\"：值 '37'：防守方得分必须是 5 的倍数"
    assert str(problem) == en
    rejected = Rejected("slips.csv", [problem], 4)
    assert rejected.lines(words("zh"))[0] == "slips.csv：被拒绝，未导入任何内容（4 行中 1 行有问题，共 1 个问题）"


def test_a_phrase_and_an_error_are_worded_in_the_language_of_the_message_holding_them() -> None:
    outer = UserError("number.missing", what=Phrase("terms.the_board_number"))
    assert str(outer) == "the board number is missing; expected a whole number"
    assert words("zh").text("number.missing", {"what": UserError("terms.the_round_number")}) == "缺少轮次；应为整数"
    assert command_words("zh").label("teams") == "比赛文件 [[teams]]"
    assert command_words("en").label("defenders_points") == "--points"
    assert command_words("en").label("round") == "--round"
    assert command_words("zh").hint("use_add") == "请用 `dealer results add`"


def test_an_error_survives_a_process_boundary() -> None:
    error = UserError("result.table_not_a_or_b", field="table", hint="use_add")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.key, copy.field, copy.hint, str(copy)) == (
        UserError, error.key, "table", "use_add", "table must be A or B")


def _import(folder: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    event = write_event(folder)
    bad = write_csv(folder / "bad.csv", HEADER, [[1, "1", "B", 1, 37], [9, "1", "A", 2, 30], [1, "1", "C", 99, "x"]])
    return subprocess.run([sys.executable, "-m", "dealer.cli", *options, "results", "import", str(event), str(bad),
                           "--boards-dir", str(folder / "boards")],
                          env={**os.environ, **env}, capture_output=True, text=True, check=False)


_PLACE = re.compile(r"^  (?P<file>\S+\.csv)\D+(?P<row>\d+)\D+?(?P<column>[A-Z] \"\w+\").*?(?P<value>'[^']*')")


def _places(stderr: str, folder: Path) -> list[tuple[str, ...]]:
    """File, row, column and value of each problem line, whatever the language."""
    found = [_PLACE.match(line.replace(str(folder), "T")) for line in stderr.splitlines() if line.startswith("  ")]
    return [tuple(m.groups()) if m else () for m in found]


def test_the_command_line_says_a_rejected_file_in_chinese_or_english(tmp_path: Path) -> None:
    zh = _import(tmp_path / "zh", {"DEALER_LANG": "zh"})
    en = _import(tmp_path / "en", {"DEALER_LANG": "zh"}, "--lang", "en")
    assert zh.returncode == en.returncode == EXIT_REJECTED
    assert zh.stderr.startswith("错误：") and "防守方得分必须是 5 的倍数" in zh.stderr
    assert en.stderr.startswith("error: ") and "defenders' points must be a multiple of 5" in en.stderr
    zh_places, en_places = _places(zh.stderr, tmp_path / "zh"), _places(en.stderr, tmp_path / "en")
    assert len(zh_places) == 5 and all(zh_places)
    assert zh_places == en_places


@pytest.mark.parametrize(("environ", "expected"), [
    ({"DEALER_LANG": "zh"}, "zh"), ({"DEALER_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "C"}, "en"), ({"LANG": "POSIX"}, "en"), ({}, "en"),
    ({"DEALER_LANG": "fr", "LANG": "zh_TW.UTF-8"}, "zh"),
])
def test_the_language_of_messages_defaults_from_the_environment(environ: dict[str, str], expected: str) -> None:
    from dealer.cli import default_lang

    assert default_lang(environ) == expected
