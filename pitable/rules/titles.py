"""The three titles of the series, as far as a roll goes, in each rulebook's own words."""

from __future__ import annotations

from pitable.rules.base import (
    PENNY,
    GreenEffect,
    Options,
    Title,
    format_play,
    register,
)

SOLO_FALLBACK = "(anywhere you like if none is free)"


@register
class Valley(Title):
    """The Valley of Wiraqocha: up to three spaces a turn, structures, snakes."""

    key = "valley"
    name = "The Valley of Wiraqocha"
    aliases = ("wiraqocha", "valley-of-wiraqocha")
    hazard_name = "snake"
    hazard_symbol = "snake"
    green_effect = GreenEffect.STRUCTURE
    several_spaces = True

    def hazard_lines(self, solo: bool) -> tuple[str, ...]:
        if solo:
            return (
                "Ignore the other dice.",
                "Draw a snake in an empty space next to a space you filled last turn "
                + SOLO_FALLBACK + ".",
            )
        return (
            "Ignore the other dice.",
            "Swap sheets: draw a snake in any empty space of another player's sheet.",
        )

    def play_headline(self, options: Options) -> str:
        return "Fill 1 to 3 spaces"

    def play_lines(self, options: Options) -> tuple[str, ...]:
        lines = [self.numbers_line(options)]
        lines.append("Plays: " + " | ".join(format_play(p) for p in options.plays))
        if options.penny:
            lines.append(f"Penny Papers: one number of your choice, {PENNY}.")
        if options.green is GreenEffect.STRUCTURE:
            lines.append("Dakota Smith: you may draw a hut, a statue or a mine (each once).")
        if 9 in options.numbers:
            lines.append("A 9 may cross out a snake instead of being written.")
        return tuple(lines)


@register
class Island(Title):
    """Skull Island: one island space a turn, boats, at most five dangers."""

    key = "island"
    name = "Skull Island"
    aliases = ("skull-island", "skull", "skullisland")
    hazard_name = "danger"
    hazard_symbol = "skull"
    green_effect = GreenEffect.BOAT
    hazard_limit = 5

    def hazard_lines(self, solo: bool) -> tuple[str, ...]:
        if solo:
            return (
                "Ignore the other dice.",
                "Draw a skull on an empty island space next to the space you filled last turn "
                + SOLO_FALLBACK + ", and mark a danger bubble.",
            )
        return (
            "Ignore the other dice.",
            "Swap sheets: draw a skull in an empty island space of another player's sheet,"
            " and mark a danger bubble on it.",
        )

    def play_headline(self, options: Options) -> str:
        if options.green is GreenEffect.BOAT:
            return "1 island space, or a boat"
        return "Fill 1 island space"

    def play_lines(self, options: Options) -> tuple[str, ...]:
        lines = []
        if options.hazard_ignored:
            lines.append("Danger ignored: all 5 danger bubbles are marked.")
        lines.append(self.numbers_line(options))
        if options.penny and options.green is GreenEffect.BOAT:
            lines.append(f"Choose: Penny Papers (any number {PENNY}) or Navigation (a boat).")
        elif options.penny:
            lines.append(f"Penny Papers: any number {PENNY}.")
        if options.green is GreenEffect.BOAT:
            lines.append("Navigation: you may draw a boat in an empty sea space instead.")
        return tuple(lines)


@register
class Temple(Title):
    """The Temple of Apikhabou: one space a turn, Door spaces, mummies."""

    key = "temple"
    name = "The Temple of Apikhabou"
    aliases = ("apikhabou", "temple-of-apikhabou")
    hazard_name = "mummy"
    hazard_symbol = "mummy"
    green_effect = GreenEffect.DOOR

    def hazard_lines(self, solo: bool) -> tuple[str, ...]:
        if solo:
            return (
                "Ignore the other dice.",
                "Draw a mummy in an empty doorless space next to the space you filled"
                " last turn " + SOLO_FALLBACK + ".",
            )
        return (
            "Ignore the other dice.",
            "Swap sheets: draw a mummy in an empty doorless space of another player's sheet.",
        )

    def play_headline(self, options: Options) -> str:
        if options.green is GreenEffect.DOOR:
            return "Lockpick: fill 1 Door space"
        return "Fill 1 doorless space"

    def play_lines(self, options: Options) -> tuple[str, ...]:
        lines = [self.numbers_line(options)]
        if options.penny:
            lines.append(f"Penny Papers: any number {PENNY}.")
        if options.green is GreenEffect.DOOR:
            lines.append("The number goes in a Door space; if every Door is filled,"
                         " ignore the Lockpick.")
        return tuple(lines)
