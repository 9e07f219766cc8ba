"""Plain-text explanation of a rule profile (``dealer rules explain``)."""

from __future__ import annotations

from dataclasses import dataclass

from dealer.profiles import LevelBand, Profile, Side

_TEXT = {
    "zh": {
        "title": "规则配置",
        "interpretation": "注意：以下数字是对抓取规则文本的解释，并非官方原表。",
        "decks": "副牌",
        "hand": "每家",
        "kitty": "底牌",
        "declarer_hand": "计副制庄家手牌（含底牌）",
        "alt_kitty": "可选底牌张数",
        "bands": "防守方得分 → 级分",
        "declarer": "庄家方 +{n}",
        "declarer_more": "庄家方 +({base} + ⌈({anchor} − 得分) / {per}⌉)",
        "tai": "上台（防守方上台，不升级）",
        "tai_level": "上台，防守方 +{n}",
        "defenders": "防守方上台 +({base} + ⌊(得分 − {anchor}) / {per}⌋)",
        "cap": "，最多 {cap} 级",
        "kitty_mult": "扣底倍数",
        "match_points": "比赛分：胜 {win}，平 {draw}，负 {loss}",
        "tie_breaks": "名次相同依次比较",
        "tai_option": "上台计一级（tai_counts_as_level）",
        "on": "开",
        "off": "关",
        "source": "来源",
        "draw_points_assumed": "原文未规定平局得分：此处为假定值。",
        "kitty_size_assumed": "原文未给底牌张数：此处为假定值。",
        "tie_breaks_decided": "原文缺名次相同的处理：此顺序为本软件的决定。",
        "must_play_levels": "必打级：{value}",
        "final_place_points": "决赛名次分：{value}",
        "bye": "轮空：比赛分 {mp}，级分 {lp}",
        "forfeit": "弃权：对方胜，每桌胜方净胜 {n} 级；弃权方比赛分 {mp}",
        "late_deduct": "迟到 {span} 分钟：该队小分 {n}",
        "late_forfeit": "迟到 {span} 分钟：本轮按弃权处理",
        "knockout_ties": "淘汰赛平局依次比较",
        "level_race": "升级赛（计时制）：从 {start} 打起，过A 记为 A 之后一级；胜负按{rule}",
        "net_levels": "各桌净胜级数之和（相等为平）",
        "tables": "胜桌数",
        "table": "级分换算表（记分条和记分表上印的就是这张表）",
        "row_declarer": "庄家方 +{n}",
        "row_tai": "上台 0",
        "row_tai_level": "上台，防守方 +{n}",
        "row_defenders": "防守方 +{n}",
        "row_fewer": "，每再少 {per} 分再 +1",
        "row_more": "，每再多 {per} 分再 +1",
        "row_cap": "（最多 {cap} 级）",
    },
    "en": {
        "title": "Rule profile",
        "interpretation": "Note: these numbers interpret a scraped rules text; they are not an official table.",
        "decks": "decks",
        "hand": "hand",
        "kitty": "kitty",
        "declarer_hand": "declarer's hand in duplicate (kitty mixed in)",
        "alt_kitty": "alternative kitty sizes",
        "bands": "defenders' points → level points",
        "declarer": "declarer side +{n}",
        "declarer_more": "declarer side +({base} + ceil(({anchor} − P) / {per}))",
        "tai": "上台: defenders take over, no levels",
        "tai_level": "上台, defenders +{n}",
        "defenders": "上台, defenders +({base} + floor((P − {anchor}) / {per}))",
        "cap": ", at most {cap}",
        "kitty_mult": "kitty multipliers",
        "match_points": "match points: win {win}, draw {draw}, loss {loss}",
        "tie_breaks": "tie-breaks, in order",
        "tai_option": "上台 counts as a level (tai_counts_as_level)",
        "on": "on",
        "off": "off",
        "source": "source",
        "draw_points_assumed": "The text gives no points for a draw: the value above is assumed.",
        "kitty_size_assumed": "The text gives no kitty size: the value above is assumed.",
        "tie_breaks_decided": "The text breaks off before its tie-breaks: this chain is our decision.",
        "bye": "bye: {mp} match points, {lp} level points",
        "forfeit": "forfeit: the other team wins, netting {n} levels a table; the forfeiter gets {mp} match points",
        "late_deduct": "{span} minutes late: the team's net level points {n}",
        "late_forfeit": "{span} minutes late: the round is forfeited",
        "knockout_ties": "a drawn knockout match, in order",
        "must_play_levels": "levels that must be played: {value}",
        "final_place_points": "final place points: {value}",
        "level_race": ("level race (计时制): every side starts at {start}, 过A is one level past A; "
                       "the match winner by {rule}"),
        "net_levels": "the net levels over its tables (equal: a draw)",
        "tables": "tables won",
        "table": "conversion table (as printed on travellers and score sheets)",
        "row_declarer": "declarer side +{n}",
        "row_tai": "上台: 0",
        "row_tai_level": "上台, defenders +{n}",
        "row_defenders": "defenders +{n}",
        "row_fewer": ", +1 per {per} fewer",
        "row_more": ", +1 per {per} more",
        "row_cap": " (at most {cap})",
    },
}

TIE_BREAK_NAMES = {
    "net_level_points": ("小分（净级分）", "net level points"),
    "level_points_for": ("总级分", "level points won"),
    "head_to_head": ("胜负关系（相互间比赛）", "head-to-head"),
    "opponents_match_points": ("对手分", "opponents' match points"),
    "mixed_club": ("跨分会组队靠前", "teams formed across clubs first"),
    "lots": ("抽签", "lots"),
    "game_ratio": ("得失局率（级分比）", "game ratio (level points for / against)"),
}


KNOCKOUT_TIE_NAMES = {
    "boards_won": ("赢牌副数多者胜", "more boards won"),
    "countback": ("从末副牌倒数，先赢者胜", "countback from the last board"),
    "higher_seed": ("种子序号靠前者胜", "the better seed"),
}
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
        t = _TEXT[lang]
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
        return text


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
    zh, en = TIE_BREAK_NAMES.get(key, (key, key))
    return zh if lang == "zh" else en


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
    t = _TEXT[lang]
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
    ties = " → ".join(KNOCKOUT_TIE_NAMES[k][0 if lang == "zh" else 1] for k in profile.knockout_tie_breaks)
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
