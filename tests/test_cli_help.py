"""The command line's help in both languages, from the word catalog (issue 38: "The command line's
help is English only, even with LANG=zh_CN.UTF-8 or DEALER_LANG=zh").

Every command and every option of every command has its help in ``[help.commands]`` and
``[help.options]`` of ``dealer/data/strings.toml`` in zh and en; a command added without them is
named here, entry by entry, with the TOML lines to add."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dealer.cli import main
from dealer.cli_help import command_text, display_width, option_name, option_text, walk, wrap
from dealer.words import catalog

HAN = re.compile("[\u4e00-\u9fff]")


def _entries() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    table = catalog().get("help", {})
    return table.get("commands", {}), table.get("options", {})


def test_every_command_and_option_has_its_help_in_both_languages() -> None:
    commands, options = _entries()
    missing = []
    for path, command in walk(main):
        for lang in ("zh", "en"):
            if lang not in commands.get(path, {}):
                missing.append(f'[help.commands] "{path}".{lang} = "…"  # the command {path}')
        for param in command.get_params(click.Context(command)):
            if not isinstance(param, click.Option):
                continue
            name = option_name(param)
            for lang in ("zh", "en"):
                if lang not in options.get(f"{path} {name}", options.get(name, {})):
                    missing.append(f'[help.options] "{path} {name}".{lang} = "…"  '
                                   f'# (or "{name}".{lang}, shared by every command)')
    assert not missing, "dealer/data/strings.toml lacks these help entries:\n" + "\n".join(missing)


def test_the_catalogs_english_help_is_the_codes() -> None:
    """The catalog's English is the code's docstring and ``help=`` (so a new option's help is not a
    shared text of another command's, and an edit of either is seen): each entry that differs is
    named with the text to put in the catalog (and its Chinese to write)."""
    import inspect

    differs = []
    for path, command in walk(main):
        code = inspect.cleandoc(command.help or "")
        if code and command_text(path, "en") not in (None, code):
            differs.append(f'[help.commands] "{path}".en = {json.dumps(code, ensure_ascii=False)}')
        for param in command.get_params(click.Context(command)):
            if isinstance(param, click.Option) and param.help:
                name = option_name(param)
                if option_text(path, name, "en") not in (None, param.help):
                    differs.append(f'[help.options] "{path} {name}".en = {json.dumps(param.help, ensure_ascii=False)}'
                                   "  # and its .zh")
    assert not differs, "the catalog's English help differs from the code's:\n" + "\n".join(differs)


def test_every_help_entry_is_of_a_command_or_option_that_exists() -> None:
    commands, options = _entries()
    paths = dict(walk(main))
    names = {(path, option_name(p)) for path, c in paths.items()
             for p in c.get_params(click.Context(c)) if isinstance(p, click.Option)}
    stale = [f'[help.commands] "{path}"' for path in commands if path not in paths]
    for key in options:
        path, _, name = key.rpartition(" ")
        if (path and (path, name) not in names) or (not path and name not in {n for _, n in names}):
            stale.append(f'[help.options] "{key}"')
    assert not stale, "help entries of no command or option:\n" + "\n".join(stale)


def test_the_chinese_help_is_chinese_and_the_english_english() -> None:
    commands, options = _entries()
    for key, entry in [*commands.items(), *options.items()]:
        assert HAN.search(entry["zh"]), key
        assert entry["en"].strip(), key


def _help(lang: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["--lang", lang, *args, "--help"], prog_name="dealer", terminal_width=80)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", [path for path, _ in walk(main)])
def test_every_commands_chinese_help_has_no_click_english_and_fits_the_terminal(path: str) -> None:
    args = [] if path == "dealer" else path.split()
    zh = _help("zh", *args)
    assert zh.startswith("用法：dealer") and "选项：" in zh and "显示本帮助并退出。" in zh
    for word in ("Usage", "Options", "Commands", "Show this message", "default:", "required", "[OPTIONS]", "TEXT"):
        assert word not in zh, (path, word)
    # A Han character takes two columns: no line wider than the terminal (a single long path or
    # address may stand alone on its line).
    assert [line for line in zh.splitlines() if display_width(line) > 80 and " " in line.strip()] == []
    en = _help("en", *args)
    assert en.startswith("Usage: dealer") and "Options:" in en and "Show this message and exit." in en


def test_a_groups_list_shows_each_commands_first_sentence_in_the_language() -> None:
    zh = _help("zh", "results")
    assert "命令：" in zh and re.search(r"\n  add +录入一张桌一副牌的成绩（升级赛：一张桌的最终级别）。\n", zh)
    en = _help("en", "results")
    assert "Commands:" in en and re.search(r"\n  add +Enter one table's result of one board", en)


def test_the_options_default_and_required_are_worded_in_the_language() -> None:
    zh = _help("zh", "results", "late")
    assert re.search(r"--team 文本 +迟到的队。 +\[必填\]", zh)
    assert "[默认：zh]" in _help("zh", "print")
    assert "[default: zh]" in _help("en", "print")


def _run(env: dict[str, str], *args: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEALER_LANG", "LANG", "LC_ALL", "COLUMNS")}
    dealer = Path(sys.executable).with_name("dealer")  # the installed command, as a terminal runs it
    process = subprocess.run([str(dealer), *args], capture_output=True, text=True,
                             env={**clean, **env}, check=False)
    assert process.returncode == 0, process.stderr
    return process.stdout


def test_dealer_help_follows_dealer_lang_then_lang_as_the_messages_do() -> None:
    """`DEALER_LANG=zh dealer --help` and `DEALER_LANG=zh dealer results --help` print Chinese, as
    a volunteer's terminal starts them; LANG=zh_CN.UTF-8 too; --lang en before --help wins."""
    top = _run({"DEALER_LANG": "zh"}, "--help")
    assert "升级（双升、拖拉机）复式赛的发牌与记分工具。" in top and "退出状态：" in top and "Usage" not in top
    results = _run({"DEALER_LANG": "zh"}, "results", "--help")
    assert "成绩：导入随牌记分条" in results and "Options" not in results
    assert "用法：dealer results" in _run({"LANG": "zh_CN.UTF-8"}, "results", "add", "--help")
    assert "Duplicate dealer and scorer" in _run({"DEALER_LANG": "en", "LANG": "zh_CN.UTF-8"}, "--help")
    assert "Duplicate dealer and scorer" in _run({"DEALER_LANG": "zh"}, "--lang", "en", "--help")
    assert "Enter one table's result" in _run({"LANG": "C"}, "results", "add", "--help")


def test_a_command_the_catalog_lacks_shows_its_own_english_help() -> None:
    """The fallback a new command has until its catalog entries are added (the test above names them)."""
    @main.command("zz-new")
    @click.option("--thing", help="A thing.")
    def zz_new(thing: str) -> None:
        """Do a new thing."""

    try:
        zh = _help("zh", "zz-new")
        assert "Do a new thing." in zh and "A thing." in zh and "用法：" in zh
    finally:
        del main.commands["zz-new"]


def test_chinese_is_wrapped_by_its_width() -> None:
    lines = wrap("一二三四五六七八九十，一二三四五六七八九十。abc defghij", 20)
    # A closing mark never begins a line: it takes the character before it along.
    assert lines == ["一二三四五六七八九", "十，一二三四五六七八", "九十。abc defghij"]
    assert all(display_width(line) <= 20 for line in lines)
    # An opening mark never ends a line: it goes along with what it opens.
    assert wrap("一二三四五六七八（--decide）", 18) == ["一二三四五六七八", "（--decide）"]
