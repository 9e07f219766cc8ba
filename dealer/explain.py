"""Plain-text explanation of a rule profile (``dealer rules explain``)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from dealer.profiles import LevelBand, Profile, Side
from dealer.words import section


def _words(lang: str) -> dict[str, Any]:
    """The words of the explanation (``dealer/data/strings.toml``, ``[explain.<lang>]``)."""
    return section("explain", lang)


@dataclass(frozen=True)
class ConversionRow:
    """One row of the printed conversion table: defenders' points ``low``…``high`` (``None`` =
    open) give ``levels`` to ``side``; past an open end, one more level per ``per`` points."""

    low: int | None
    high: int | None
    side: Side
    levels: int
    per: int | None = None
    cap: int | None = None

    def range_text(self) -> str:
        return LevelBand("tai", 0, self.low, self.high).describe()

    def outcome_text(self, lang: str) -> str:
        t = _words(lang)
        if self.side == "declarer":
            text = t["row_declarer"].format(n=self.levels)
        elif self.side == "tai":
            text = t["row_tai_level"].format(n=self.levels) if self.levels else t["row_tai"]
        else:
            text = t["row_defenders"].format(n=self.levels)
        if self.per is not None:
            text += t["row_fewer" if self.low is None else "row_more"].format(per=self.per)
        if self.cap is not None:
            text += t["row_cap"].format(cap=self.cap)
        return str(text)


def conversion_rows(profile: Profile, decks: int) -> list[ConversionRow]:
    """The profile's conversion as a table a player can read: every multiple of 5 from one step
    (20 points a deck) below 0 to one step above the pack's points, grouped by result, with open
    ends that say how the result goes on. Computed with the profile's own conversion."""
    rules = profile.rules_for(decks)
    step = 20 * decks
    points = range(-step, rules.total_points + step + 1, 5)
    groups: list[tuple[Side, int, list[int]]] = []
    for value in points:
        result = profile.level_points(decks, value)
        levels = result.declarer_levels if result.outcome == "declarer" else result.defenders_levels
        if groups and groups[-1][:2] == (result.outcome, levels):
            groups[-1][2].append(value)
        else:
            groups.append((result.outcome, levels, [value]))
    rows = []
    for index, (side, levels, values) in enumerate(groups):
        first, last = index == 0, index == len(groups) - 1
        low, high = (None if first else values[0]), (None if last else values[-1])
        per = cap = None
        if first or last:
            band = next(b for b in rules.bands if b.contains(values[0] if first else values[-1]))
            cap = band.cap
            if band.per is not None and (cap is None or levels < cap):
                per = band.per
        rows.append(ConversionRow(low, high, side, levels, per, cap))
    return rows


def tie_break_name(key: str, lang: str) -> str:
    names: dict[str, str] = _words(lang)["tie_break"]
    return names.get(key, key)


def _examples(profile: Profile, decks: int, band: LevelBand) -> list[str]:
    """Sample conversions at the band's edge and one step further out."""
    assert band.per is not None
    edge = band.max if band.min is None else band.min
    assert edge is not None
    step = -band.per if band.min is None else band.per
    samples = []
    for points in (edge, edge + step, edge + 2 * step):
        result = profile.level_points(decks, points)
        levels = result.declarer_levels if band.side == "declarer" else result.defenders_levels
        samples.append(f"{points} → +{levels}")
    return samples


def explain_profile(profile: Profile, decks: int | None, lang: str, *, paper: bool = False,
                    skip: Collection[str] = ()) -> str:
    """``dealer rules explain``: the profile's rules and level tables in ``lang``. ``paper``: as a
    booklet prints them (issue 38): no identifier of the tool's own, every term in words, no note
    about the text it interprets (its provenance stays here, in ``rules explain``); ``skip``: rule
    keys the paper states elsewhere (its time limits, lateness)."""
    t = _words(lang)
    name = profile.name_zh if lang == "zh" else profile.name_en
    note = profile.note_zh if lang == "zh" else profile.note_en
    lines = [] if paper else [f"{t['title']} {profile.id} v{profile.version}: {name}",
                              f"{t['source']}: {profile.source}"]
    if profile.interpretation and not paper:
        lines.append(t["interpretation"])
    if note and not paper:
        lines.append(note)
    deck_counts = [decks] if decks is not None else list(profile.supported_decks)
    for count in deck_counts:
        rules = profile.rules_for(count)
        lines.append("")
        lines.append(
            f"{count} {t['decks']}: {t['hand']} {rules.hand}, {t['kitty']} {rules.kitty}, "
            f"{t['declarer_hand']} {rules.hand + rules.kitty}"
        )
        if rules.alternative_kitty:
            lines.append(f"  {t['alt_kitty']}: {', '.join(map(str, rules.alternative_kitty))}")
        lines.append(f"  {t['bands']}:")
        for band in rules.bands:
            bonus = 1 if profile.tai_counts_as_level and band.side != "declarer" else 0
            if band.side == "declarer":
                text = (t["declarer_more"].format(base=band.base, per=band.per, anchor=band.anchor)
                        if band.per else t["declarer"].format(n=band.base))
            elif band.side == "tai":
                text = t["tai_level"].format(n=band.base + bonus) if bonus else t["tai"]
            else:
                text = (t["defenders"].format(base=band.base + bonus, per=band.per, anchor=band.anchor)
                        if band.per else t["tai_level"].format(n=band.base + bonus))
            if band.per:
                text += " (" + ", ".join(_examples(profile, count, band)) + ")"
            if band.cap is not None:
                text += t["cap"].format(cap=band.cap)
            lines.append(f"    {band.describe():>12}  {text}")
        lines.append(f"  {t['table']}:")
        for row in conversion_rows(profile, count):
            lines.append(f"    {row.range_text():>12}  {row.outcome_text(lang)}")
        if rules.kitty_multipliers and paper:
            kinds = t["kitty_kind"]
            pairs = t["paper"]["separator"].join(
                kinds[k].format(v=v) if k in kinds else f"{k} ×{v}" for k, v in rules.kitty_multipliers.items())
            lines.append(f"  {t['paper']['kitty_mult']}: {pairs}")
        elif rules.kitty_multipliers:
            pairs = ", ".join(f"{k} ×{v}" for k, v in rules.kitty_multipliers.items())
            lines.append(f"  {t['kitty_mult']}: {pairs}")
    lines.append("")
    for key in _RULE_LINES:
        if key in skip:
            continue
        lines.extend(_paper_lines(profile, key, t, lang) if paper and key in _PAPER_LINES
                     else rule_lines(profile, key, lang))
    for key, value in profile.extras.items():
        if paper and (key in skip or key.endswith(("_assumed", "_decided"))):
            continue  # a note about the text the numbers interpret: rules explain's, not the players'
        if key in t and value is not False and _NOTE_ABOUT.get(key) not in profile.supplement:
            lines.extend(rule_lines(profile, key, lang))
    return "\n".join(lines[1:] if paper and lines and not lines[0] else lines)


#: The rules a paper words otherwise than ``rules explain`` (which names the profile's key).
_PAPER_LINES = ("tai_counts_as_level", "registration", "rulings")


def _paper_lines(profile: Profile, key: str, t: dict[str, Any], lang: str) -> list[str]:
    words = t["paper"]
    if key == "rulings":  # without the command line's --ruling NAME
        return _ruling_lines(profile, t, lang, paper=True)
    if key == "tai_counts_as_level":
        return [words["tai_option"].format(value=words["yes"] if profile.tai_counts_as_level else words["no"])]
    if not profile.registration_required:
        return []
    return [words["registration"].format(fields=words["separator"].join(
        words.get(f, f) for f in profile.registration_required))]


#: A profile's note about one of its rules: gone when the event's rules change that rule.
_NOTE_ABOUT = {"tie_breaks_decided": "tie_breaks", "draw_points_assumed": "match_points"}


def _lateness_lines(profile: Profile, t: dict[str, Any]) -> list[str]:
    lines = []
    for rule in profile.lateness:
        span = f"{rule.min_minutes}–{rule.max_minutes}" if rule.max_minutes is not None else f"≥ {rule.min_minutes}"
        lines.append(t["late_forfeit"].format(span=span) if rule.forfeit
                     else t["late_deduct"].format(span=span, n=f"{rule.net_level_points:+d}"))
    return lines


def _warning_lines(profile: Profile, t: dict[str, Any], lang: str) -> list[str]:
    """The escalation of warnings: each step's penalties in the words of their footnotes."""
    from dealer.words import words

    rule = profile.warnings
    counted = t["warnings_team"] if rule.counted == "team" else t["warnings_player"]
    if not rule.steps:
        return [t["warnings_logged"].format(counted=counted)]
    said = words(lang)
    steps = []
    for step in rule.steps:
        applied = [said.text(f"penalty.{kind}", {"amount": f"{amount:+d}", "where": ""}) for kind, amount in step.apply]
        steps.append(t["warning_step"].format(n=step.at, apply=", ".join(applied)))
    return [t["warnings"].format(counted=counted, steps="; ".join(steps))]


def _ruling_lines(profile: Profile, t: dict[str, Any], lang: str, paper: bool = False) -> list[str]:
    """The rulings the profile gives as one decision of several penalties (seed 002 七.1–2)."""
    from dealer.words import words

    if not profile.rulings:
        return []
    said = words(lang)
    lines = [t["rulings"]]
    for ruling in profile.rulings.values():
        applied = [said.text(f"penalty.{kind}", {"amount": f"{amount:+d}", "where": ""})
                   for kind, amount in ruling.apply]
        name = ruling.name_zh if lang == "zh" else ruling.name_en
        lines.append(t["paper"]["ruling"].format(name=name, clause=ruling.clause, apply=t["paper"]["separator"].join(
            applied)) if paper else t["ruling"].format(name=name, clause=ruling.clause, id=ruling.name,
                                                        apply=", ".join(applied)))
    return lines


def _forfeit_line(profile: Profile, t: dict[str, Any]) -> str:
    forfeiter = profile.forfeit.forfeiter_match_points
    return str(t["forfeit"].format(n=profile.forfeit.winner_levels_per_table,
                                   mp=profile.match_points["loss"] if forfeiter is None else forfeiter))


#: The explanation of each of a profile's rules, by its key in the profile file, in the order
#: they are printed; a key not here (a profile's extra) is printed with its word, or as it is.
_RULE_LINES: dict[str, Callable[[Profile, dict[str, Any], str], list[str]]] = {
    "match_points": lambda p, t, _lang: [t["match_points"].format(**p.match_points)],
    "tie_breaks": lambda p, t, lang: [f"{t['tie_breaks']}: "
                                      + (" → ".join(tie_break_name(k, lang) for k in p.tie_breaks) or "–")],
    "tai_counts_as_level": lambda p, t, _lang: [f"{t['tai_option']}: {t['on'] if p.tai_counts_as_level else t['off']}"],
    "bye": lambda p, t, _lang: [t["bye"].format(mp=p.bye.match_points, lp=p.bye.level_points)],
    "forfeit": lambda p, t, _lang: [_forfeit_line(p, t)],
    "lateness": lambda p, t, _lang: _lateness_lines(p, t),
    "withdrawal": lambda p, t, _lang: [t["withdrawal"].format(
        rule=t["withdrawn_excluded"] if p.withdrawn_opponent == "excluded" else t["withdrawn_as_played"])],
    "registration": lambda p, t, _lang: [t["registration"].format(fields=", ".join(p.registration_required))]
    if p.registration_required else [],
    "timing": lambda p, t, _lang: [] if p.round_minutes is None else [
        t["timing"].format(round=p.round_minutes, warning=p.warning_minutes) if p.warning_minutes
        else t["timing_unwarned"].format(round=p.round_minutes)],
    "knockout_tie_breaks": lambda p, t, _lang: [
        f"{t['knockout_ties']}: " + " → ".join(t["knockout_tie"][k] for k in p.knockout_tie_breaks)],
    "level_race": lambda p, t, _lang: [t["level_race"].format(start=p.level_race.start,
                                                               rule=t[p.level_race.match_winner])] + (
        [t["best_of"].format(n=p.level_race.best_of, k=p.level_race.games_to_win)] if p.level_race.best_of > 1
        else []),
    "must_play_levels": lambda p, t, _lang: [t["must_play_levels"].format(value=", ".join(p.level_race.must_play))]
    if p.level_race.must_play else [],
    "rulings": lambda p, t, lang: _ruling_lines(p, t, lang),
    "warnings": _warning_lines,
    "final_place_points": lambda p, t, _lang: [
        t["final_place_points"].format(value=", ".join(map(str, p.place_points)))] if p.place_points else [],
}


def rule_lines(profile: Profile, key: str, lang: str) -> list[str]:
    """The lines that explain the rule ``key`` of ``profile`` (a key of its profile file)."""
    t = _words(lang)
    if key in _RULE_LINES:
        return _RULE_LINES[key](profile, t, lang)
    value = profile.data.get(key, profile.extras.get(key))
    shown = ", ".join(map(str, value)) if isinstance(value, list) else value
    if key in t and isinstance(t[key], str):
        return [t[key].format(value=shown)]
    return [f"{key} = {shown}"]


def supplement_lines(profile: Profile, lang: str, *, paper: bool = False) -> list[str]:
    """What an event's rules (补充规定) changed, one line or more per changed key (a rule the
    event removed, as an empty lateness list, says so); ``paper``: worded as the booklet words
    the rules (:func:`explain_profile`)."""
    t = _words(lang)
    lines = []
    for key in profile.supplement:
        said = _paper_lines(profile, key, t, lang) if paper and key in _PAPER_LINES else rule_lines(profile, key, lang)
        lines.extend(said or [t["rule_none"].format(key=key)])
    return lines


def supplement_text(profile: Profile, lang: str) -> str:
    """The 补充规定 on one line (report headers, the site's footer): ``""`` without any."""
    return "; ".join(supplement_lines(profile, lang))


def explain_event(name: str, event_id: str, profile: Profile, decks: int | None, lang: str) -> str:
    """``dealer rules explain EVENT.toml``: the event's rules, its profile's with its own
    (补充规定) listed first."""
    t = _words(lang)
    head = [t["event_rules"].format(name=name, event=event_id)]
    if profile.supplement:
        head.append(f"{t['supplement']}:")
        head.extend(f"  {line}" for line in supplement_lines(profile, lang))
    else:
        head.append(t["no_supplement"])
    return "\n".join([*head, "", explain_profile(profile, decks, lang)])
