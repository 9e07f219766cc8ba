"""The command line's help in the language of its messages, from the word catalog.

Every command's help is ``[help.commands]`` of ``dealer/data/strings.toml``, keyed by its path
(``"dealer"`` for the program itself, ``"results add"``); every option's is ``[help.options]``,
keyed ``"<path> --name"`` for one command's own text or ``"--name"`` for the text every command
shares (``--boards-dir``), the command's own first. Click's own words (``Usage:``, ``Options``,
``[default: …]``) are ``[help.click]``. The language is the messages' (``dealer --lang``, else
``DEALER_LANG``, else ``LANG``: :func:`default_lang`). A command or option the catalog lacks
shows its docstring or ``help=`` (English): ``tests/test_cli_help.py`` names every entry missing.

Chinese text is wrapped by its width on a terminal (a Han character takes two columns; no line
starts with a closing punctuation mark), which click's ``textwrap`` does not know.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import click

LANGS = ("zh", "en")


def default_lang(environ: Mapping[str, str] = os.environ) -> str:
    """The language of the command line's messages when ``--lang`` is not given: ``DEALER_LANG``
    (``zh…`` or ``en…``), else ``LANG`` (``zh…`` is Chinese; anything else, unset, ``C`` and
    ``POSIX`` too, is English)."""
    for name in ("DEALER_LANG", "LANG"):
        value = environ.get(name, "").strip().lower()
        if value.startswith("zh"):
            return "zh"
        if value.startswith("en") or (name == "LANG" and value):
            return "en"
    return "en"


def context_lang(ctx: click.Context | None) -> str:
    """The messages' language for a command being run or helped: the root's ``--lang`` once read
    (it is eager: read before any ``--help``), else the environment's."""
    lang = ctx.find_root().params.get("message_lang") if ctx is not None else None
    return lang if lang in LANGS else default_lang()


def command_path(ctx: click.Context) -> str:
    """A command's key in the catalog: its names after the program's (``results add``), or
    ``dealer`` for the program itself (whatever name it was started by)."""
    names = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names)) or "dealer"


def option_name(param: click.Parameter) -> str:
    """An option's key in the catalog: its longest spelling (``--help``, not ``-h``)."""
    return max(param.opts, key=len)


def _help() -> dict[str, Any]:
    from dealer.words import catalog

    found: dict[str, Any] = catalog().get("help", {})
    return found


def command_text(path: str, lang: str) -> str | None:
    entry = _help().get("commands", {}).get(path)
    return entry.get(lang) if isinstance(entry, dict) else None


def option_text(path: str, name: str, lang: str) -> str | None:
    options = _help().get("options", {})
    for key in (f"{path} {name}", name):
        entry = options.get(key)
        if isinstance(entry, dict) and lang in entry:
            text: str = entry[lang]
            return text
    return None


def click_word(key: str, lang: str) -> str:
    entry = _help().get("click", {}).get(key)
    return str(entry[lang]) if isinstance(entry, dict) and lang in entry else key


# --- width-aware wrapping ---------------------------------------------------------------------

_METAVAR = re.compile(r"\b(?:OPTIONS|COMMAND|ARGS|INTEGER RANGE|FLOAT RANGE|INTEGER|FLOAT|TEXT|PATH|FILENAME|FILE|"
                      r"DIRECTORY|BOOLEAN)\b")
_TOKEN = re.compile(r"\s+|[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+|.")
#: Marks that never begin a line (they close what came before), and marks that never end one.
_CLOSING = set("，。、；：！？）》」』】…,.;:!?)]}>")
_OPENING = set("（《「『【([{<")


def display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> list[str]:
    """One paragraph in lines of at most ``width`` columns (a word wider than a line stands alone);
    a closing mark that would begin a line takes the character before it along."""
    lines: list[str] = []
    line: list[str] = []  # the tokens of the line being filled
    indent = initial_indent
    for token in _TOKEN.findall(" ".join(text.split())):
        if token.isspace():
            if line:
                line.append(" ")
            continue
        if line and display_width(indent + "".join(line) + token) > width:
            carried = []
            if token[0] in _CLOSING and len(line) > 1 and not line[-1].isspace():
                carried = [line.pop()]
            while len(line) > 1 and (line[-1].isspace() or line[-1][-1] in _OPENING):  # no line ends opening
                mark = line.pop()
                carried = carried if mark.isspace() else [mark, *carried]
            lines.append((indent + "".join(line)).rstrip())
            line, indent = carried, subsequent_indent
        line.append(token)
    lines.append((indent + "".join(line)).rstrip())
    return lines


def _paragraphs(text: str) -> Iterator[str]:
    for part in re.split(r"\n\s*\n", text.strip()):
        if part.strip():
            yield part


# --- the formatter, the context and the commands ----------------------------------------------

class CatalogFormatter(click.HelpFormatter):
    """Click's formatter with the catalog's words for its headings, usage and option notes, and
    Chinese wrapped by its width."""

    def __init__(self, lang: str, indent_increment: int = 2, width: int | None = None,
                 max_width: int | None = None) -> None:
        super().__init__(indent_increment, width, max_width)
        self.lang = lang

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        if prefix is None:
            word = click_word("usage", self.lang)
            prefix = word if word.endswith("：") else word + " "
        super().write_usage(prog, self._metavars(args), prefix)

    def _metavars(self, text: str) -> str:
        """Click's placeholders (``[OPTIONS]``, ``COMMAND [ARGS]...``, ``TEXT``, ``INTEGER RANGE``)
        in the catalog's words."""
        return _METAVAR.sub(lambda m: click_word("metavar_" + m.group().lower().replace(" ", "_"), self.lang), text)

    def write_heading(self, heading: str) -> None:
        """A section's heading with its colon, as the catalog words it (``选项：``, ``Options:``)."""
        self.write(f"{'':>{self.current_indent}}{click_word(heading.lower().replace(' ', '_'), self.lang)}\n")

    def _notes(self, text: str) -> str:
        """Click's notes after an option's help (``[default: zh]``, ``[required]``) in our words."""
        def worded(match: re.Match[str]) -> str:
            items = []
            for item in match.group(1).split("; "):
                name, colon, value = item.partition(": ")
                if colon and name == "default":
                    items.append(click_word("default", self.lang).format(default=value))
                elif item == "required":
                    items.append(click_word("required", self.lang))
                else:
                    items.append(item)
            return "[" + "; ".join(items) + "]"
        return re.sub(r"\[([^\[\]]*)\]$", worded, text)

    def write_text(self, text: str) -> None:
        if self.lang != "zh":
            super().write_text(text)
            return
        indent = " " * self.current_indent
        blocks = ["\n".join(wrap(part, self.width, indent, indent)) for part in _paragraphs(text)]
        self.write("\n\n".join(blocks) + "\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = [(self._metavars(first), self._notes(second)) for first, second in rows]
        if self.lang != "zh":
            super().write_dl(rows, col_max, col_spacing)
            return
        first_col = min(max((display_width(first) for first, _ in rows), default=0), col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if display_width(first) <= first_col - col_spacing:
                self.write(" " * (first_col - display_width(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            text_width = max(self.width - first_col - 2 - self.current_indent, 10)
            lines = [line for part in _paragraphs(second) for line in wrap(part, text_width)]
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class CatalogContext(click.Context):
    formatter_class = CatalogFormatter

    def make_formatter(self) -> click.HelpFormatter:
        return CatalogFormatter(context_lang(self), width=self.terminal_width, max_width=self.max_content_width)


def _worded(command: click.Command, path: str, lang: str, params: Sequence[click.Parameter]) -> None:
    """Give a command and its options the catalog's help in ``lang`` (each keeps its own, the
    code's English, where the catalog has none)."""
    code: dict[str, str | None] = command.__dict__.setdefault("_code_help", {})
    code.setdefault("", command.help)
    command.help = command_text(path, lang) or code[""]
    for param in params:
        if isinstance(param, click.Option):
            name = option_name(param)
            code.setdefault(name, param.help)
            param.help = option_text(path, name, lang) or code[name]


def short_text(text: str, lang: str, limit: int) -> str:
    """A command's line in its group's list: its first sentence, cut to ``limit`` columns."""
    if lang != "zh":
        return click.Command("x", help=text).get_short_help_str(limit)
    first = re.split(r"(?<=。)", text.strip().split("\n\n")[0], maxsplit=1)[0]
    if display_width(first) <= limit:
        return first
    cut = ""
    for ch in first:
        if display_width(cut + ch) > limit - 1:
            break
        cut += ch
    return cut + "…"


class CatalogCommand(click.Command):
    """A command whose help (and its options') is the catalog's, in the messages' language."""

    context_class = CatalogContext

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _worded(self, command_path(ctx), context_lang(ctx), self.get_params(ctx))
        super().format_help(ctx, formatter)


class CatalogGroup(click.Group):
    """A group of :class:`CatalogCommand`; its list of commands in the catalog's words too."""

    context_class = CatalogContext
    command_class = CatalogCommand

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _worded(self, command_path(ctx), context_lang(ctx), self.get_params(ctx))
        super().format_help(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        lang, path = context_lang(ctx), command_path(ctx)
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            sub = name if path == "dealer" else f"{path} {name}"
            text = command_text(sub, lang) or command.help or ""
            rows.append((name, text))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, short_text(text, lang, limit)) for name, text in rows])


CatalogGroup.group_class = CatalogGroup


def walk(command: click.Command, path: str = "dealer") -> Iterator[tuple[str, click.Command]]:
    """Every command under ``command`` (itself first), with its catalog path."""
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from walk(sub, name if path == "dealer" else f"{path} {name}")
