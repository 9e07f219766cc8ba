"""The table of writers: one per KIND, each turning the event into documents to render.

Writers read the dealt boards and, for labels, the key through :class:`~dealer.app.EventSession`
(each set file checked against the manifest, the key against the commitment); they never deal,
and never change anything under ``boards/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.deal import Board
from dealer.errors import FileProblem, Phrase, UserError, quote
from dealer.event import DEFAULT_SERVE_URL, Event, Team, parse_serve_url
from dealer.explain import conversion_rows
from dealer.files import check_writable_folder
from dealer.formats.boardset import BoardSet
from dealer.profiles import Profile
from dealer.render import context as ctx
from dealer.render.engine import Document
from dealer.render.labels import LabelLayout, check_offsets, load_label_layout
from dealer.render.pages import page_layout
from dealer.render.qrcodes import qr_module_mm
from dealer.render.rows import TRUMP_SYMBOLS
from dealer.render.strings import strings
from dealer.standings import records_before

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.app.standings import ReportData

KINDS = ("hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets", "table-cards")
#: Kinds printed per match (so only for the sets matches play; a round of them with --round).
MATCH_KINDS = ("travellers", "score-sheets", "table-cards", "movement")
#: Kinds that hold every board of a match: not printed for one board's papers (--board).
WHOLE_SET_KINDS = ("score-sheets", "table-cards", "movement")
#: Kinds ``dealer print all`` prints only when the round's tables share copies (``[event] copies``):
#: one copy a match needs no movement sheet (its table cards say the exchange). Printed on its own
#: (``dealer print movement``) for any event.
SHARED_KINDS = ("movement",)
HAND_RECORDS_PER_PAGE = (1, 2, 4)
DEFAULT_LAYOUT = "a4-3x8"
#: Kinds that show cards: written owner-only (0600), like the board sets, until play ends.
SECRET_KINDS = frozenset({"hand-records", "curtain-cards", "dealing-guide"})
#: Kinds written owner-only for the codes they show (every team's), not for cards.
CODE_KINDS = frozenset({"team-cards"})
#: Layers of the papers printed once a copy or once a match (dealer/render/engine.py).
TWO_LAYERS = ("base", "top")
#: Most copies of a board set printed at once (a round of 50 matches on one set needs 50).
MAX_COPIES = 200
#: The side of a score sheet's entry QR code, quiet zone included (at most 0.6 mm a module: a
#: longer URL gets smaller modules, never a bigger code).
ENTRY_QR_MM = 25.0


@dataclass
class PrintOptions:
    lang: str = "zh"
    fmt: str = "pdf"
    out_dir: Path | None = None
    sets: tuple[int, ...] | None = None
    copies: int | None = None
    boards_root: Path | None = None
    key_file: Path | None = None
    per_page: int = 2
    layout: str = DEFAULT_LAYOUT
    #: Labels: first position to use on the first sheet (1 = top left), and printer drift (mm).
    start_at: int = 1
    offset_x: float = 0.0
    offset_y: float = 0.0
    #: Only these boards (a fouled wallet's papers reprinted); None = every board.
    boards: tuple[int, ...] | None = None
    #: Hand records: each table's trump and defenders' points beside the board (after play).
    with_results: bool = False
    round: int | None = None  # travellers and score sheets of this round only; pairings need it
    #: For public output (the players' site): only sets the director released are read.
    public: bool = False
    #: The server the score sheets' entry QR codes point at (``--serve-url``: over ``[event] serve_url``).
    serve_url: str | None = None



class Source:
    """What the writers read: the event (the session's, or one round of it), its dealt sets (the
    session's: checked once, read once) and, for labels, the key."""

    def __init__(self, session: EventSession, event: Event, options: PrintOptions) -> None:
        self.session = session
        self.event = event
        self.options = options
        self.folder = session.folder
        self._key: bytes | None = None
        self._entry_key: bytes | None = None
        self._layout: LabelLayout | None = None
        #: ``dealer print review``: the public report and the released sets, read once.
        self.review_data: tuple[Any, dict[int, dict[str, Any]]] | None = None
        #: What the print summary says besides the files (an entry key made, QR codes that only
        #: this machine opens).
        self.notes: list[Phrase] = []

    def set_numbers(self) -> list[int]:
        if self.options.sets is None:
            return list(range(1, self.event.sets + 1))
        for number in self.options.sets:
            if not 1 <= number <= self.event.sets:
                raise UserError("render.no_such_set", field="set", number=number, sets=self.event.sets)
        return list(dict.fromkeys(self.options.sets))

    def copies(self, set_number: int) -> int:
        if self.options.copies is not None:
            if not 1 <= self.options.copies <= MAX_COPIES:
                raise UserError("render.bad_copies",
                                  field="copies", copies=self.options.copies, most=MAX_COPIES)
            return self.options.copies
        return self.event.copies_needed(set_number)

    def output_dir(self) -> Path:
        """Where the documents go: ``--out``, or the event's output folder."""
        return self.options.out_dir if self.options.out_dir is not None else self.folder.output_path

    def boardset(self, set_number: int) -> BoardSet:
        if self.options.public:
            return self.session.public_board_set(set_number)
        return self.session.board_set(set_number)

    def boards(self, set_number: int) -> list[Board]:
        """The dealt boards of a set, or only those of ``--board``."""
        wanted = self.board_numbers()
        return [b for b in self.boardset(set_number).boards if wanted is None or b.number in wanted]

    def board_numbers(self) -> tuple[int, ...] | None:
        if self.options.boards is None:
            return None
        for number in self.options.boards:
            if not 1 <= number <= self.event.boards_per_set:
                raise UserError("render.no_such_board",
                                field="board", number=number, boards=self.event.boards_per_set)
        return tuple(sorted(set(self.options.boards)))

    def key(self) -> bytes:
        if self._key is None:
            # The labels' check tag is made with the key: it must be the committed one.
            self._key = self.folder.read_key(self.event, self.options.key_file, "wallet labels")
        return self._key

    def entry_key(self) -> bytes:
        """The event's entry key (``entry.key``: sheet tags, fallback codes, team codes), made at
        the first print that needs it; never the dealing key."""
        if self._entry_key is None:
            path = self.folder.entry_key_path
            existed = path.exists()
            key = self.folder.entry_key(create=True)
            assert key is not None
            if not existed:
                self.notes.append(Phrase.of("said_print.entry_key_made", path=path))
            self._entry_key = key
        return self._entry_key

    def serve_url(self) -> str:
        """The server the entry QR codes point at: ``--serve-url``, else ``[event] serve_url``,
        else :data:`~dealer.event.DEFAULT_SERVE_URL` (this machine only: the summary says so)."""
        given = self.options.serve_url
        if given is not None:
            checked = parse_serve_url(given)
            if checked is None:
                raise UserError("render.bad_serve_url", field="serve_url", value=quote(given))
            return checked
        return self.event.serve_url or DEFAULT_SERVE_URL

    def check_serve_url(self) -> None:
        """Refuse a bad ``--serve-url`` before anything is made."""
        self.serve_url()

    def sheet_entry(self, round_number: int, match: str, table: str) -> dict[str, Any]:
        """The entry QR code of one table score sheet (a boards match's table A or B, a level
        race's table 1, 2, …) and the fallback code printed under it: the URL of the sheet in its
        current generation (a reprint after ``revoke`` prints the new one), made with the entry
        key. The one place a score sheet's QR payload is made."""
        from dealer.app.live import generation
        from dealer.formats.entry import SheetId, entry_url, sheet_code

        base = self.serve_url()
        if base == DEFAULT_SERVE_URL and not any(n.key == "said_print.local_qr" for n in self.notes):
            self.notes.append(Phrase.of("said_print.local_qr", base=base))
        key = self.entry_key()
        sheet = SheetId(self.event.id, round_number, match, table,
                        generation(self.session.store, round_number, match, table))
        url = entry_url(base, key, sheet)
        return {"url": url, "code": sheet_code(key, sheet), "generation": sheet.generation,
                "module_mm": qr_module_mm(url, ENTRY_QR_MM)}

    def layout(self) -> LabelLayout:
        if self._layout is None:
            self._layout = load_label_layout(self.options.layout)
            check_offsets(self.options.offset_x, self.options.offset_y)
            if not 1 <= self.options.start_at <= self._layout.per_sheet:
                raise UserError("render.bad_start_at", field="start_at", start_at=self.options.start_at,
                                layout_id=self._layout.id, per_sheet=self._layout.per_sheet)
        return self._layout

    def common(self, kind: str, set_number: int | None) -> dict[str, Any]:
        event = self.event
        return {
            "lang": self.options.lang,
            "kind": kind,
            "css": f"{kind}.css",
            "event_name": event.name,
            "event_id": event.id,
            "event_date": event.date,
            # Every paper names the rules by their title, never the profile's id (issue 38).
            "profile": profile_title(event.profile, self.options.lang),
            # the rules as players read them: their name and version in words (issue 38)
            "profile_name": profile_words(event, self.options.lang),
            "time_limits": card_time_limits(event, strings(self.options.lang).paper),
            "decks": event.decks,
            "set_number": set_number,
        }

    def played_sets_only(self, kind: Phrase, set_number: int) -> None:
        """Travellers and score sheets are per match: a set no match plays has none."""
        if not any(m.set == set_number for m in self.event.matches()):
            raise UserError("render.set_not_played",
                              field="set", set_number=set_number, kind=kind)

    def path(self, kind: str, set_number: int) -> Path:
        suffix = "pdf" if self.options.fmt == "pdf" else "html"
        return self.output_dir() / f"{kind}-set-{set_number:02d}-{self.options.lang}.{suffix}"


Writer = Callable[[Source, int], Document]


def hand_records(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    per_page = source.options.per_page
    if per_page not in HAND_RECORDS_PER_PAGE:
        raise UserError("render.bad_per_page", field="per_page", per_page=per_page)
    boardset = source.boardset(set_number)
    boards = source.boards(set_number)
    common = source.common("hand-records", set_number)
    common["fingerprint"] = boardset.fingerprint
    common["commitment"] = boardset.commitment  # equal to the published one (checked on reading)
    common["per_page"] = per_page
    results = played_results(source, set_number, t) if source.options.with_results else None
    pages = ctx.hand_record_pages(boards, per_page, t, results)
    return Document(source.path("hand-records", set_number), "hand-records", "hand-records.html",
                    common, pages, {"boards": len(boards)})


def played_results(source: Source, set_number: int, t: Any) -> dict[int, list[dict[str, Any]]]:
    """Board → per match playing the set, what tables A and B played (trump, defenders' points),
    from the results database (read only)."""
    from dealer.app.kinds import BOARD_RESULTS

    store = source.session.store
    if store is None:
        raise UserError("render.no_results_yet", field="with_results")
    source.session.check_attribution()  # the rows are credited as the event file says
    rows = store.current(BOARD_RESULTS.table)
    shown: dict[int, list[dict[str, Any]]] = {}
    for match in ctx.matches_of_set(source.event, set_number):
        for board in source.event.set_boards(set_number):
            tables = []
            for table in ("A", "B"):
                row = rows.get((match.round, match.id, table, board.number))
                if row is None or row["withdrawn"]:
                    tables.append({"table": table, "points": None, "trump": "", "trump_cls": ""})
                    continue
                trump = row["trump"]
                symbol = "?" if trump is None else str(t.no_trump_short) if trump == "NT" else TRUMP_SYMBOLS[trump]
                tables.append({"table": table, "points": row["defenders_points"], "trump": symbol,
                               "trump_cls": "red" if trump in ("H", "D") else "black"})
            shown.setdefault(board.number, []).append({"round": match.round, "match": match.id, "tables": tables})
    return shown




def labels(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    layout = source.layout()
    copies = source.copies(set_number)
    options = source.options
    cells, wallets = ctx.label_items(source.event, set_number, copies, source.key(),
                                     layout.pocket_labels == "inline", t, source.board_numbers())
    common = source.common("labels", set_number)
    common["layout"] = layout.as_dict()
    common["copies"] = copies
    pages = ctx.label_pages(cells, layout, options.start_at, options.offset_x, options.offset_y)
    return Document(source.path("labels", set_number), "labels", "labels.html", common, pages,
                    {"wallet labels": wallets, "pocket labels": wallets * len(ctx.pocket_places(source.event))},
                    layers=TWO_LAYERS)


def alignment(source: Source, set_number: int | None = None) -> Document:
    """The label alignment test sheet of the layout, with the offsets given (no set, no key)."""
    layout = source.layout()
    common = source.common("labels", None)
    common["layout"] = layout.as_dict()
    page = ctx.alignment_page(layout, source.options.offset_x, source.options.offset_y)
    suffix = "pdf" if source.options.fmt == "pdf" else "html"
    name = f"alignment-{Path(layout.id).stem}-{source.options.lang}.{suffix}"
    return Document(source.output_dir() / name, "alignment", "labels.html", common, [page],
                    {"test sheets": 1})


def curtain_cards(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    copies = source.copies(set_number)
    boards = source.boards(set_number)
    common = source.common("curtain-cards", set_number)
    common["slip"] = page_layout("curtain-cards")
    pages = ctx.curtain_pages(boards, copies, t)
    return Document(source.path("curtain-cards", set_number), "curtain-cards", "curtain-cards.html",
                    common, pages, {"slips": sum(len(page["slips"]) for page in pages)}, layers=TWO_LAYERS)


def dealing_guide(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    boards = source.boards(set_number)
    common = source.common("dealing-guide", set_number)
    common["copies"] = source.copies(set_number)
    pages = ctx.guide_pages(boards, t)
    return Document(source.path("dealing-guide", set_number), "dealing-guide", "dealing-guide.html",
                    common, pages, {"boards": len(boards)})


def travellers(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    source.played_sets_only(Phrase("render.travellers"), set_number)
    common = source.common("travellers", set_number)
    common["slip"] = page_layout("travellers")
    common["conversion"] = conversion(source)
    pages = ctx.traveller_pages(source.event, set_number, t, source.board_numbers())
    count = sum(len(page["slips"]) for page in pages)
    return Document(source.path("travellers", set_number), "travellers", "travellers.html",
                    common, pages, {"travellers": count},
                    layers=("form", "base", "match", "top"))


def conversion(source: Source) -> list[dict[str, str]]:
    """The profile's conversion table in the print language (the rows of `dealer rules explain`)."""
    lang = source.options.lang
    return [{"range": row.range_text(), "outcome": row.outcome_text(lang)}
            for row in conversion_rows(source.event.profile, source.event.decks)]


def _whole_match_only(source: Source, kind: Phrase, one: Phrase, set_number: int) -> None:
    """The papers of :data:`WHOLE_SET_KINDS`: for sets that matches play, never for one board."""
    source.played_sets_only(kind, set_number)
    if source.board_numbers() is not None:
        raise UserError("render.whole_match_only", field="board", one=one)


def score_sheets(source: Source, set_number: int) -> Document:
    t = strings(source.options.lang)
    _whole_match_only(source, Phrase("render.score_sheets"), Phrase("render.a_score_sheet"), set_number)
    common = source.common("score-sheets", set_number)
    common["conversion"] = conversion(source)
    common["serve_url"] = source.serve_url()
    pages = ctx.score_sheet_pages(source.event, set_number, t, source.sheet_entry, source.session.lineups)
    return Document(source.path("score-sheets", set_number), "score-sheets", "score-sheets.html",
                    common, pages, {"score sheets": len(pages)}, layers=TWO_LAYERS)


def table_cards(source: Source, set_number: int) -> Document:
    """A card per table of each match: the boards it plays, in order, and when it exchanges wallets."""
    t = strings(source.options.lang)
    _whole_match_only(source, Phrase("render.table_cards"), Phrase("render.a_table_card"), set_number)
    common = source.common("table-cards", set_number)
    common["slip"] = page_layout("table-cards")
    pages = ctx.table_card_pages(source.event, set_number, t, int(common["slip"]["stanzas"]),
                                 source.session.lineups)
    return Document(source.path("table-cards", set_number), "table-cards", "table-cards.html", common, pages,
                    {"table cards": sum(len(page["slips"]) for page in pages)})


def movement_sheet(source: Source, set_number: int) -> Document:
    """The movement sheet of each round on the set: its tables and relay stacks by stanzas."""
    t = strings(source.options.lang)
    _whole_match_only(source, Phrase("movement.sheet_kind"), Phrase("movement.a_movement"), set_number)
    common = source.common("movement", set_number)
    pages = ctx.movement_pages(source.event, set_number, t)
    return Document(source.path("movement", set_number), "movement", "movement.html", common, pages,
                    {"tables": sum(1 for page in pages for row in page["rows"] if not row.get("relay"))})


def pairings(source: Source, round_number: int) -> Document:
    """The round's 对阵表 (one document per round, not per set)."""
    common = source.common("pairings", None)
    suffix = "pdf" if source.options.fmt == "pdf" else "html"
    name = f"pairings-round-{round_number:02d}-{source.options.lang}.{suffix}"
    path = source.output_dir() / name
    page = ctx.pairings_page(source.event, round_number, points_before(source, round_number))
    return Document(path, "pairings", "pairings.html", common, [page],
                    {"matches": len(page["matches"]), "byes": len(page["byes"])})


def schedule(source: Source) -> Document:
    """The whole 轮次表 (``dealer print schedule``): every round's matches, home and away, and for
    a boards event the set, on one sheet while it fits."""
    event = source.event
    if event.format.kind in ("swiss", "knockout"):
        raise UserError("render.schedule_not_fixed", field="event_format", kind=event.format.kind)
    needed = event.format.rounds_needed(len(event.teams)) if event.format.paired else len(event.rounds)
    if len(event.rounds) < needed:
        raise UserError("render.schedule_not_paired", field="round", hint="round_pair_all",
                        paired=len(event.rounds), rounds=needed)
    common = source.common("schedule", None)
    common["boards"] = not event.levels
    common["groups"] = any(m.group is not None for m in event.matches())
    suffix = "pdf" if source.options.fmt == "pdf" else "html"
    pages = ctx.schedule_pages(event)
    return Document(source.output_dir() / f"schedule-{source.options.lang}.{suffix}", "schedule", "schedule.html",
                    common, pages, {"rounds": len(event.rounds), "matches": len(event.matches())})


def points_before(source: Source, round_number: int) -> dict[str, tuple[int, int]] | None:
    """A Swiss round after the first: each team's match points and 小分 (net level points) before
    it, which the pairing was made from; otherwise nothing."""
    if source.event.format.kind != "swiss" or round_number == 1:
        return None
    before = records_before(source.session.scored(), round_number)
    return {t.id: (before.match_points[t.id], before.net(t.id)) for t in source.event.teams}


def level_sheets(source: Source, round_number: int) -> Document:
    """A level race's score sheets for one round (one page per match)."""
    t = strings(source.options.lang)
    common = source.common("level-sheets", None)
    suffix = "pdf" if source.options.fmt == "pdf" else "html"
    name = f"level-sheets-round-{round_number:02d}-{source.options.lang}.{suffix}"
    common["serve_url"] = source.serve_url()
    pages = ctx.level_sheet_pages(source.event, round_number, t, source.sheet_entry, source.session.lineups)
    return Document(source.output_dir() / name, "level-sheets", "level-sheets.html",
                    common, pages, {"score sheets": len({page["match"] for page in pages})})


# --- the round's paperwork (秩序册, 座位图, 成绩公告, 奖励签收表): one document an event or a round ---


def _paper_path(source: Source, kind: str, round_number: int | None = None) -> Path:
    suffix = "pdf" if source.options.fmt == "pdf" else "html"
    number = f"-round-{round_number:02d}" if round_number is not None else ""
    return source.output_dir() / f"{kind}{number}-{source.options.lang}.{suffix}"


def _team_entry(team: Team, sep: str) -> dict[str, Any]:
    return {"id": team.id, "name": team.name, "players": sep.join(team.players),
            "club": team.club or "", "leader": team.leader or ""}


def profile_title(profile: Profile, lang: str) -> str:
    """The rule text a profile follows, by its title ("《中国升级竞赛规则》(2002)"; English: its name),
    never its id: what every paper names the rules by."""
    if lang == "zh":
        title = profile.source.split(" 第")[0].strip() or profile.name_zh  # the title, not the clauses read
        return title if title.startswith("《") else f"《{title}》"
    return profile.name_en


def profile_words(event: Event, lang: str) -> str:
    """The rules as players read them (issue 38): the rule text they follow by its title, its
    version and the decks, in words; never the profile's id ("《中国升级竞赛规则》(2002)，第 1 版，2 副牌")."""
    profile = event.profile
    name = profile_title(profile, lang)
    return str(strings(lang).paper["profile_value"]).format(name=name, version=profile.version, decks=event.decks)


def _duration(seconds: int, words: Mapping[str, str]) -> str:
    """90 → "1 分 30 秒", 20 → "20 秒", 120 → "2 分钟" (the time limits in words)."""
    minutes, rest = divmod(seconds, 60)
    if not minutes:
        return words["seconds"].format(n=rest)
    if not rest:
        return words["whole_minutes"].format(m=minutes)
    return words["minutes_seconds"].format(m=minutes, s=rest)


def time_limit_lines(event: Event, words: Mapping[str, str]) -> list[str]:
    """The event's time limits in words (the booklet's 比赛时限): the round's time and its warning,
    a play's and the kitty's (seed 001 8(8), seed 002 §八.7); none where the rules set none."""
    profile = event.profile
    lines = []
    minutes = event.round_minutes or profile.round_minutes
    if minutes:
        warning = profile.warning_minutes
        lines.append(words["round_time"].format(minutes=minutes)
                     + (words["round_warning"].format(minutes=warning) if warning and warning < minutes else ""))
    if profile.play_seconds:
        lines.append(words["play_time"].format(time=_duration(profile.play_seconds, words)))
    if profile.kitty_seconds:
        lines.append(words["kitty_time"].format(time=_duration(profile.kitty_seconds, words)))
    if profile.play_seconds or profile.kitty_seconds:
        lines.append(words["timing_enforced"])
    return lines


def card_time_limits(event: Event, words: Mapping[str, str]) -> str:
    """A table card's line of the time limits of a play and the kitty ("" when the rules set none)."""
    profile = event.profile
    if not profile.play_seconds:
        return ""
    kitty = words["limits_card_kitty"].format(kitty=_duration(profile.kitty_seconds, words)) \
        if profile.kitty_seconds else ""
    return words["limits_card"].format(play=_duration(profile.play_seconds, words), kitty=kitty)


def _timetable(event: Event, words: Mapping[str, str], rounds: int) -> list[tuple[str, str]]:
    """The 日程: the captains' meeting, then each round's start and end (its start plus the round's
    time, when known), as the event file's ``start_times`` give them."""
    import datetime as dt

    org = event.organization
    minutes = event.round_minutes or event.profile.round_minutes
    rows = [(words["timetable_meeting"], org.captains_meeting)] if org.captains_meeting else []
    for number in range(1, max(rounds, len(org.start_times)) + 1):
        start = org.start(number)
        if start is None:
            continue
        end = start + dt.timedelta(minutes=minutes) if minutes else None
        shown = words["timetable_time"].format(start=start.strftime("%Y-%m-%d %H:%M"),
                                               end=end.strftime("%H:%M")) if end else start.strftime("%Y-%m-%d %H:%M")
        rows.append((words["timetable_round"].format(n=number), shown))
    return rows


def booklet(source: Source) -> Document:
    """The 秩序册 as a Chinese event publishes it (issue 38): its 竞赛规程 (name, date, venue, 主办 /
    承办 / 协办, the rules named by their text and version, the method with the boards a round,
    the 补充规定, the prizes, the time limits, arrival and the captains' meeting with how lateness
    is handled, the appeal procedure), the officials (裁判长, 副裁判长, 裁判员, 仲裁委员会), the
    timetable, the teams with their players, the schedule (a fixed or round-robin event's rounds)
    or the format's method in words, and the rules with their level tables in words (no identifier
    of the tool's, no note about the text they interpret: that stays in ``dealer rules explain``)."""
    from dealer.explain import explain_profile, rule_lines, supplement_lines

    t = strings(source.options.lang)
    words = t.paper
    lang = source.options.lang
    event = source.event
    profile = event.profile
    org = event.organization
    officials = org.officials
    sep = str(t.list_sep)
    common = source.common("booklet", None)
    rounds = event.format.rounds_needed(len(event.teams)) if event.format.paired else len(event.rounds)
    method = None
    if event.format.kind in ("swiss", "knockout") or not event.rounds:
        method = t.fmt(f"booklet_method_{event.format.kind.replace('-', '_')}", rounds=rounds)
    profile_value = profile_words(event, lang)
    organisation = [(words[key], value) for key, value in (
        ("venue", org.venue), ("host", org.host), ("organizer", org.organizer),
        ("co_organizers", sep.join(org.co_organizers))) if value]
    play = (words["levels_method"].format(tables=event.tables) if event.levels
            else words["boards_method"].format(boards=event.boards_per_set))
    prizes = [words["prize_line"].format(name=p.name, teams=p.teams) for p in event.prizes]
    arrival = []
    if org.captains_meeting:
        arrival.append(words["captains_meeting"].format(value=org.captains_meeting))
    if org.arrival_minutes is not None:
        arrival.append(words["arrival_minutes"].format(minutes=org.arrival_minutes))
    lateness = rule_lines(profile, "lateness", lang) + ([org.lateness] if org.lateness else [])
    if lateness:
        arrival.append(words["lateness"] + sep.join(lateness))
    body = words["appeal_body_arbitration"] if officials.arbitration else words["appeal_body_referees"]
    appeal = [words["appeal_window"].format(minutes=org.appeal_minutes, body=body) if org.appeal_minutes is not None
              else words["appeal_no_window"].format(body=body)]
    if org.appeal_deposit:
        appeal.append(words["appeal_deposit"].format(value=org.appeal_deposit))
    appeal.append(words["appeal_provisional"])
    people = [(words[key], value) for key, value in (
        ("chief_referee", officials.chief_referee or ""), ("deputy_referees", sep.join(officials.deputy_referees)),
        ("referees", sep.join(officials.referees)), ("arbitration", sep.join(officials.arbitration))) if value]
    skip = ["timing", "lateness", "prize_ties"]
    if event.format.kind != "knockout":
        skip.append("knockout_tie_breaks")
    if not event.levels:
        skip.append("level_race")
    page = {
        "profile_value": profile_value,
        "organisation": organisation,
        "play": play,
        "supplement": supplement_lines(profile, lang, paper=True),
        "prizes": prizes,
        "time_limits": time_limit_lines(event, words),
        "arrival": arrival,
        "appeal": appeal,
        "officials": people,
        "timetable": _timetable(event, words, rounds),
        "rules": explain_profile(profile, event.decks, lang, paper=True, skip=skip).splitlines(),
        "teams": [_team_entry(team, sep) for team in event.teams],
        "clubs": any(team.club for team in event.teams), "leaders": any(team.leader for team in event.teams),
        "method": method,
        "schedule": [] if method else [row for p in ctx.schedule_pages(event) for row in p["rows"]],
    }
    common["boards"] = not event.levels
    common["groups"] = any(m.group is not None for m in event.matches())
    return Document(_paper_path(source, "booklet"), "booklet", "booklet.html", common, [page],
                    {"teams": len(event.teams)})


def seating(source: Source, round_number: int) -> Document:
    """The round's 座位图: each table by its name in the hall, who sits where (a boards event: the
    N-S and E-W team of each table, home E-W at A and N-S at B; a level race: each table's home and
    away pair), each side's pair from the round's line-ups where they are recorded; a team that
    forfeited the round is marked absent (弃权) at its seats."""
    t = strings(source.options.lang)
    event = source.event
    rnd = event.round(round_number)
    assert rnd is not None
    lineups = source.session.lineups
    sep = str(t.list_sep)
    absent = {f.team for f in source.session.report().adjustments.forfeits if f.round == round_number}
    tables = []
    for m in rnd.matches:
        names = event.table_names(m)
        for table, name in names.items():
            if event.levels:
                sides = [(str(t.home), m.home), (str(t.away), m.away)]
            else:
                seats = m.seats(table)
                sides = [(str(t.seat_ns), seats["NS"]), (str(t.seat_ew), seats["EW"])]
            tables.append({"name": name, "match": m.id, "sides": [
                {"seat": seat, "team": ctx._team_line(event, team), "absent": team in absent,
                 "home": team == m.home, "pair": sep.join(lineups.pair(round_number, team, table))}
                for seat, team in sides]})
    page = {"round": round_number, "tables": tables, "byes": [ctx._team_line(event, b) for b in rnd.byes]}
    common = source.common("seating", None)
    common["levels"] = event.levels
    return Document(_paper_path(source, "seating", round_number), "seating", "seating.html", common, [page],
                    {"tables": len(tables)})


def round_events(data: ReportData, round_number: int, lang: str) -> list[str]:
    """What happened in round ``round_number`` besides the boards, in ``lang`` (the bulletin's
    notes, issue 38): each forfeit (弃权, with its reason), each lateness and what it cost, each
    team that withdrew after the round before (or rejoined), each penalty, each appeal and its
    decision."""
    words = strings(lang).paper
    names = data.names
    adjustments = data.adjustments
    lines = []
    for f in adjustments.forfeits:
        if f.round != round_number:
            continue
        score = data.scored.score(f.round, f.match)
        other = score.away if score.home == f.team else score.home
        lines.append(words["forfeit_line"].format(match=f.match, team=f.team, name=names.get(f.team, ""),
                                                  reason=f.reason, other=other, name_other=names.get(other, "")))
    for d in adjustments.deductions:
        if d.round != round_number:
            continue
        effect = words["late_deduct"].format(points=d.net_level_points) if d.net_level_points else words["late_free"]
        if d.minutes is not None:
            lines.append(words["late_line"].format(team=d.team, name=names.get(d.team, ""), minutes=d.minutes,
                                                   reason=d.reason, effect=effect))
        else:
            lines.append(f"{d.team} {names.get(d.team, '')}: {effect} ({d.reason})")
    for w in adjustments.withdrawals:
        if w.after_round == round_number - 1:
            lines.append(words["withdrawal_line"].format(team=w.team, name=names.get(w.team, ""), round=w.after_round,
                                                         reason=w.reason))
        if w.back_from == round_number:
            lines.append(f"{w.team} {names.get(w.team, '')}: "
                         + words["withdrawal_back"].format(round=w.back_from, reason=w.back_reason))
    round_penalties = {m.id for rnd in data.event.rounds if rnd.number == round_number for m in rnd.matches}
    for match in sorted(round_penalties):
        lines += data.penalty_notes(lang, round_number, match)
    return lines + data.appeal_notes(lang, round_number)


def bulletin(source: Source, round_number: int) -> Document:
    """The round's 成绩公告: each match's score and match points (a forfeited match says 弃权 and
    who), the standings after the round (the report's read model, ranked as the report ranks;
    provisional while an appeal is open), what happened besides the boards (forfeits, lateness,
    withdrawals, penalties, appeals: :func:`round_events`), the results store's chain head, and
    places for the chief director's signature and the posting time."""
    data = source.session.report()
    lang = source.options.lang
    words = strings(lang).paper
    names = data.names
    results = [{"match": s.match, "home": f"{s.home} {names.get(s.home, '')}",
                "away": f"{s.away} {names.get(s.away, '')}",
                "score": f"{s.home_levels} : {s.away_levels}" if s.played else "",
                "points": f"{s.home_match_points} : {s.away_match_points}" if s.played else "",
                "forfeit": words["absent_team"].format(team=sep_join(s.forfeited_by)) if s.forfeited_by else "",
                "complete": s.complete}
               for s in data.scored.scores if s.round == round_number]
    standings = [{"rank": s.rank, "shared": s.shared, "team": f"{s.team} {names.get(s.team, '')}",
                  "match_points": s.match_points, "net": s.net_level_points}
                 for s in data.standings_after(round_number)]
    page = {"round": round_number, "results": results, "standings": standings,
            "chain_head": data.chain_head or "—", "notes": round_events(data, round_number, lang),
            "provisional": data.provisional_note(lang, round_number)}
    common = source.common("bulletin", None)
    return Document(_paper_path(source, "bulletin", round_number), "bulletin", "bulletin.html", common, [page],
                    {"matches": len(results)})


def sep_join(teams: tuple[str, ...]) -> str:
    return "/".join(teams)


def prize_sheet(source: Source) -> Document:
    """The 奖励签收表: each prize with its team(s) and their players and a signature line each,
    once the standings are final (:meth:`ReportData.prizes`); before, no line, and why."""
    t = strings(source.options.lang)
    data = source.session.report()
    teams = data.teams
    sep = str(t.list_sep)
    rows = [{"prize": award.name, "team": f"{team} {teams[team].name}", "players": sep.join(teams[team].players)}
            for award in data.prizes() for team in award.teams]
    pending = bool(source.event.prizes) and not data.final
    why = ("；" if source.options.lang == "zh" else "; ").join(data.unfinished_in(source.options.lang))
    page = {"rows": rows, "pending": pending, "why": why if pending else "",
            "none": not source.event.prizes, "notes": data.prize_notes(source.options.lang)}
    page["provisional"] = data.provisional_note(source.options.lang)  # an appeal open: no prize yet (issue 38)
    common = source.common("prizes", None)
    return Document(_paper_path(source, "prizes"), "prizes", "prizes.html", common, [page], {"prizes": len(rows)})


def timer(source: Source, round_number: int) -> Document:
    """The projector's page for the round: a countdown from the round's time (``[event]
    round_minutes``, else the profile's ``timing``), warned at the profile's warning time; one
    self-contained HTML file (no resource fetched: it works from ``file://`` offline), the time
    kept across a reload, the limits stated in words where JavaScript is off."""
    event = source.event
    minutes = event.round_minutes or event.profile.round_minutes
    if minutes is None:
        raise UserError("render.timer_needs_minutes", event_id=event.id)
    warning = event.profile.warning_minutes
    page = {"round": round_number, "minutes": minutes,
            "warning": warning if warning is not None and warning < minutes else None,
            "stanzas": _shared_stanzas(event, round_number)}
    common = source.common("timer", None)
    path = source.output_dir() / f"timer-round-{round_number:02d}-{source.options.lang}.html"
    return Document(path, "timer", "timer.html", common, [page], {"minutes": minutes}, screen=True)


def _shared_stanzas(event: Event, round_number: int) -> int | None:
    """The stanzas of the round's movement when its tables share copies (the timer shows each
    change); ``None``: one copy a match (its timer as it always was)."""
    rnd = event.round(round_number)
    if event.copies is None or event.levels or rnd is None or not rnd.matches:
        return None
    return max(event.movement(round_number, s).stanzas for s in {m.set for m in rnd.matches})


def team_cards(source: Source) -> Document:
    """The 队卡: a card per team (several to a page, cut along the dashed lines) with the event,
    the team's name and id, its team code in large digits (made from the entry key: the code it
    confirms the other side's entries with) and what to do with it. Never a sheet's tag or code,
    never the dealing key. Printed once for the event: the code is the same in every round."""
    from dealer.formats.entry import team_code

    event = source.event
    key = source.entry_key()
    slip = page_layout("team-cards")
    cards = [{"id": team.id, "name": team.name, "code": team_code(key, event.id, team.id)} for team in event.teams]
    common = source.common("team-cards", None)
    common["slip"] = slip
    pages = [{"slips": group} for group in ctx.chunked(cards, int(slip["columns"]) * int(slip["rows"]))]
    document = Document(_paper_path(source, "team-cards"), "team-cards", "team-cards.html", common, pages,
                        {"team cards": len(cards)})
    document.secret = True  # every team's code: the director's, until each card is handed out
    return document


def review(source: Source, set_number: int) -> Document:
    """The hands of the round (赛后复盘) of a released set: each board's hands and analysis (the
    hand record's), the field's datum, spread, biggest swings and each trump chosen against its
    result, one board a page; only the released sets' boards the whole field has played count
    (the withholding rule), a board still being played says so."""
    from dealer.app.public import public_field

    data, released = source.review_data or public_field(source.session)
    source.review_data = (data, released)
    if set_number not in released:
        raise UserError("review.not_released", field="set", set=set_number)
    t = strings(source.options.lang)
    stats = data.field_figures
    boardset = source.boardset(set_number)
    pages = []
    names = data.names
    for board in source.boards(set_number):
        found = None if stats is None else stats.board_review(set_number, board.number, swings=REVIEW_SWINGS)
        if found is not None:
            for r in (*found["swings"], *found["left_out"]):
                r["ns_name"] = names.get(r["ns_team"], r["ns_team"])
                r["ew_name"] = names.get(r["ew_team"], r["ew_team"])
        pages.append({"board": ctx.hand_record_board(board, t), "review": found})
    common = source.common("review", set_number)
    common.update(css="hand-records.css", extra_css=["review.css"], fingerprint=boardset.fingerprint,
                  released=released[set_number])
    return Document(source.path("review", set_number), "review", "review.html", common, pages,
                    {"boards": len(pages)})


#: The biggest swings a board of the review lists.
REVIEW_SWINGS = 6


#: The paperwork's writers: kind → (whether it is one round's, the writer of its one document).
PAPERWORK: dict[str, tuple[bool, Callable[..., Document]]] = {
    "booklet": (False, booklet),
    "seating": (True, seating),
    "bulletin": (True, bulletin),
    "prizes": (False, prize_sheet),
    "timer": (True, timer),
    "team-cards": (False, team_cards),
}
#: Paperwork ``dealer print all`` prints with the pack of a boards event (without ``--round``): once an event.
ONCE_PER_EVENT = ("team-cards",)


def round_paperwork(session: EventSession, options: PrintOptions, round_number: int) -> tuple[
        list[Document], list[LeftOut]]:
    """The wall papers of ``dealer print all --round N`` (and the console's 全部文件): the round's
    座位图, and the 成绩公告 posted as it starts (the previous round's); the round's own bulletin
    too once every match of it is scored. Read from the whole event as played (the previous
    round's results), whatever part of it the pack prints."""
    source = Source(session, session.event, options)
    documents = [seating(source, round_number)]
    left_out: list[LeftOut] = []
    if round_number > 1 and session.event.round(round_number - 1) is not None:
        documents.append(bulletin(source, round_number - 1))
    scores = [s for s in session.report().scored.scores if s.round == round_number]
    if scores and all(s.complete for s in scores):
        documents.append(bulletin(source, round_number))
    elif round_number == 1:
        left_out.append(LeftOut("bulletin", Phrase("render.why_no_bulletin_yet")))
    return documents, left_out


WRITERS: dict[str, Writer] = {
    "hand-records": hand_records,
    "labels": labels,
    "curtain-cards": curtain_cards,
    "dealing-guide": dealing_guide,
    "travellers": travellers,
    "score-sheets": score_sheets,
    "table-cards": table_cards,
    "movement": movement_sheet,
}


def expand_kinds(kind: str, shared: bool = False) -> list[str]:
    """The kinds ``dealer print KIND`` prints (``shared``: the event's tables share copies)."""
    if kind == "all":
        return [*KINDS, *SHARED_KINDS] if shared else list(KINDS)
    if kind == "pairings":
        return [kind]
    if kind not in WRITERS:
        raise UserError("render.unknown_kind", field="kind", kind=kind, kinds=', '.join((*KINDS, *SHARED_KINDS)))
    return [kind]


#: The word of each kind in the messages (``dealer print all`` says which kinds it left out).
KIND_WORDS = {"pairings": Phrase("render.pairings"), "hand-records": Phrase("render.hand_records"),
              "labels": Phrase("render.labels"), "curtain-cards": Phrase("render.curtain_cards"),
              "dealing-guide": Phrase("render.dealing_guide"), "travellers": Phrase("render.travellers"),
              "score-sheets": Phrase("render.score_sheets"), "table-cards": Phrase("render.table_cards"),
              "movement": Phrase("movement.sheet_kind"),
              "booklet": Phrase("render.booklet"), "seating": Phrase("render.seating"),
              "bulletin": Phrase("render.bulletin"), "prizes": Phrase("render.prizes"),
              "timer": Phrase("render.timer"), "team-cards": Phrase("render.team_cards"),
              "review": Phrase("review.kind")}
#: A level race's kinds (``print all --round N``): its pairings and its level-race score sheets.
LEVEL_RACE_KINDS = ("pairings", "score-sheets")


@dataclass(frozen=True)
class LeftOut:
    """A kind ``dealer print all`` did not print, and why (a phrase of the word catalog)."""

    kind: str
    why: Phrase

    def phrase(self) -> Phrase:
        return Phrase.of("said_print.left_out", kind=KIND_WORDS[self.kind], why=self.why)


@dataclass
class PrintPlan:
    """The documents of ``dealer print KIND``, not yet rendered, and (for ``all``) the kinds left out."""

    documents: list[Document]
    left_out: list[LeftOut] = dataclasses.field(default_factory=list)
    #: What the summary says besides (:attr:`Source.notes`).
    notes: list[Phrase] = dataclasses.field(default_factory=list)


def build_documents(session: EventSession, kind: str, options: PrintOptions) -> list[Document]:
    """Every document that ``dealer print KIND`` writes for the event as played, not yet rendered
    (:func:`plan_documents` without the kinds left out)."""
    return plan_documents(session, kind, options).documents


def plan_documents(session: EventSession, kind: str, options: PrintOptions) -> PrintPlan:
    """Every document that ``dealer print KIND`` writes for the event as played, not yet rendered,
    and the kinds ``all`` leaves out, each with its reason.

    ``all`` with ``--round N`` is the round's paperwork: its pairings and, for a boards event,
    every kind for the set(s) the round plays (the per-match kinds for its matches only); for a
    level race its pairings and level-race score sheets. Without ``--round`` it is the whole
    pack of every set, without pairings (printed one round at a time).

    Everything is checked before any page is rendered: the event against the committed plan,
    each set file against the manifest, the key against the commitment, the output folder by
    writing in it. With ``all``, a set no match plays gets no travellers or score sheets.
    """
    event = session.event
    if kind == "review":  # the hands of the round: released sets only, one document a set
        if options.round is not None:
            raise UserError("review.no_round", field="round")
        if not options.sets:
            raise UserError("review.needs_set", field="set")
        if event.levels:
            raise UserError("render.level_race_has_no_boards", field="event", event_id=event.id)
        source = Source(session, event, options)
        source.folder.check_kind(event)
        source.folder.require()
        documents = [review(source, n) for n in source.set_numbers()]
        check_writable_folder(source.output_dir(), field="out")
        return PrintPlan(documents)
    if kind == "schedule":  # every round, no board: needs neither a deal nor --round
        if options.round is not None:
            raise UserError("render.schedule_has_every_round", field="round")
        source = Source(session, event, options)
        source.folder.check_kind(event)
        document = schedule(source)
        check_writable_folder(source.output_dir(), field="out")
        return PrintPlan([document])
    if kind in PAPERWORK:  # one document of the event or of one round: no deal needed
        per_round, writer = PAPERWORK[kind]
        if per_round and options.round is None:
            raise UserError("render.paper_needs_round", field="round", kind=KIND_WORDS[kind])
        if not per_round and options.round is not None:
            raise UserError("render.paper_has_every_round", field="round", kind=KIND_WORDS[kind])
        if options.round is not None and event.round(options.round) is None:
            state = Phrase("render.state_paired") if event.format.paired else Phrase("round.state_in_event")
            raise UserError("render.round_not_paired", field="round",
                            hint="round_pair" if event.format.paired else None, round=options.round, state=state)
        source = Source(session, event, options)
        source.folder.check_kind(event)
        document = writer(source, options.round) if per_round else writer(source)
        check_writable_folder(source.output_dir(), field="out")
        return PrintPlan([document], notes=source.notes)
    if event.levels and kind not in ("all", *LEVEL_RACE_KINDS):
        raise UserError("render.level_race_has_no_boards", field="event", event_id=event.id)
    if event.levels and options.round is None:
        raise UserError("render.level_race_needs_round", field="round")
    if options.round is not None:
        # One round: its matches only (travellers and score sheets), on the set(s) it plays.
        chosen = event.round(options.round)
        if chosen is None:
            state = Phrase("render.state_paired") if event.format.paired else Phrase("round.state_in_event")
            raise UserError("render.round_not_paired", field="round",
                            hint="round_pair" if event.format.paired else None, round=options.round, state=state)
        event = dataclasses.replace(event, rounds=(chosen,))
        if options.sets is None and chosen.matches:
            options = dataclasses.replace(options, sets=tuple(sorted({m.set for m in chosen.matches})))
    elif kind == "pairings":
        raise UserError("render.pairings_need_round", field="round")
    source = Source(session, event, options)
    if kind != "alignment":
        source.folder.check_kind(event)  # the folder must hold this kind of event
    if event.levels:  # no deal to check: the pairings and the level-race score sheets
        assert options.round is not None
        kinds = list(LEVEL_RACE_KINDS) if kind == "all" else [kind]
        source.check_serve_url()
        check_writable_folder(source.output_dir(), field="out")
        writers = {"pairings": pairings, "score-sheets": level_sheets}
        once = [LeftOut(k, Phrase("render.why_once_per_event")) for k in ONCE_PER_EVENT if kind == "all"]
        papers, papers_left_out = round_paperwork(session, options, options.round) if kind == "all" else ([], [])
        return PrintPlan([writers[k](source, options.round) for k in kinds] + papers,
                         [LeftOut(k, Phrase("render.why_level_race"))
                          for k in KINDS if kind == "all" and k not in kinds] + once + papers_left_out, source.notes)
    if kind == "alignment":  # a test sheet: needs no deal and no key
        document = alignment(source)
        check_writable_folder(source.output_dir(), field="out")
        return PrintPlan([document])
    source.folder.require()
    # Labels, travellers and score sheets print the event's declarers and levels: the deal, and
    # the event's plan, must be the committed ones, whatever the kind.
    if session.deal is None:
        raise FileProblem("render.not_dealt", hint="deal", folder_path=source.folder.path, event_id=event.id)
    kinds = expand_kinds(kind, shared=event.copies is not None)
    if kinds == ["pairings"]:
        assert options.round is not None
        check_writable_folder(source.output_dir(), field="out")
        return PrintPlan([pairings(source, options.round)])
    sets = source.set_numbers()
    source.copies(sets[0])  # a bad --copies is refused even for kinds that print one per match
    if "labels" in kinds:
        source.key()  # fail early, before anything is rendered
    if "score-sheets" in kinds:
        source.check_serve_url()
    played = {m.set for m in event.matches()}
    documents = []
    left_out: list[LeftOut] = []
    if kind == "all":
        if options.round is None:
            left_out.append(LeftOut("pairings", Phrase("render.why_one_round")))
        elif options.boards is not None:
            left_out.append(LeftOut("pairings", Phrase("render.why_one_board")))
        else:
            documents.append(pairings(source, options.round))
    for k in kinds:
        if kind == "all" and k in WHOLE_SET_KINDS and options.boards is not None:
            left_out.append(LeftOut(k, Phrase("render.why_one_board")))
            continue  # one board's papers: a score sheet or table card holds every board
        unplayed = [s for s in sets if s not in played] if kind == "all" and k in MATCH_KINDS else []
        if unplayed:
            left_out.append(LeftOut(k, Phrase.of("render.why_sets_not_played",
                                                 sets=", ".join(map(str, unplayed)))))
        for s in sets:
            if s in unplayed:
                continue
            document = WRITERS[k](source, s)
            document.secret = k in SECRET_KINDS
            documents.append(document)
    check_writable_folder(source.output_dir(), field="out")  # last: nothing made for a refusal
    if kind == "all" and options.round is None and options.boards is None and options.sets is None:
        documents += [PAPERWORK[k][1](source) for k in ONCE_PER_EVENT]  # the whole pack: once an event
    elif kind == "all":
        left_out += [LeftOut(k, Phrase("render.why_once_per_event")) for k in ONCE_PER_EVENT]
        if options.round is not None and options.boards is None:
            papers, papers_left_out = round_paperwork(session, options, options.round)
            documents += papers
            left_out += papers_left_out
    return PrintPlan(documents, left_out, source.notes)
