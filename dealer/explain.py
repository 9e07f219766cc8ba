"""Plain-text explanation of a rule profile (``dealer rules explain``)."""

from __future__ import annotations

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


def explain_profile(profile: Profile, decks: int | None, lang: str) -> str:
    t = _words(lang)
    name = profile.name_zh if lang == "zh" else profile.name_en
    note = profile.note_zh if lang == "zh" else profile.note_en
    lines = [f"{t['title']} {profile.id} v{profile.version}: {name}", f"{t['source']}: {profile.source}"]
    if profile.interpretation:
        lines.append(t["interpretation"])
    if note:
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
        if rules.kitty_multipliers:
            pairs = ", ".join(f"{k} ×{v}" for k, v in rules.kitty_multipliers.items())
            lines.append(f"  {t['kitty_mult']}: {pairs}")
    lines.append("")
    lines.append(t["match_points"].format(**profile.match_points))
    chain = " → ".join(tie_break_name(k, lang) for k in profile.tie_breaks)
    lines.append(f"{t['tie_breaks']}: {chain}")
    lines.append(f"{t['tai_option']}: {t['on'] if profile.tai_counts_as_level else t['off']}")
    lines.append(t["bye"].format(mp=profile.bye.match_points, lp=profile.bye.level_points))
    forfeiter = profile.forfeit.forfeiter_match_points
    lines.append(t["forfeit"].format(n=profile.forfeit.winner_levels_per_table,
                                     mp=profile.match_points["loss"] if forfeiter is None else forfeiter))
    for rule in profile.lateness:
        span = f"{rule.min_minutes}–{rule.max_minutes}" if rule.max_minutes is not None else f"≥ {rule.min_minutes}"
        lines.append(t["late_forfeit"].format(span=span) if rule.forfeit
                     else t["late_deduct"].format(span=span, n=f"{rule.net_level_points:+d}"))
    ties = " → ".join(t["knockout_tie"][k] for k in profile.knockout_tie_breaks)
    lines.append(f"{t['knockout_ties']}: {ties}")
    race = profile.level_race
    lines.append(t["level_race"].format(start=race.start, rule=t[race.match_winner]))
    if profile.place_points:
        lines.append(t["final_place_points"].format(value=", ".join(map(str, profile.place_points))))
    for key, value in profile.extras.items():
        if key in t and value is not False:
            shown = ", ".join(map(str, value)) if isinstance(value, list) else value
            lines.append(t[key].format(value=shown))
    return "\n".join(lines)
