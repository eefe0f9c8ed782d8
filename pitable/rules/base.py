"""The base of every title: what a roll allows, and the hooks a title fills in.

A title is a subclass of :class:`Title` with class-level facts (its names, its hazard, what
the green special face does, how many spaces a turn may fill, its solo rules) and hook
methods (its words, its sheet generator and the sheet's invariants), registered in
:mod:`pitable.rules.titles` and found there by name with ``find_title``, in the way
python-chess finds its variants. :meth:`Title.options` answers what a roll allows;
:meth:`Title.reading` puts that in the title's own words for the status screen.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import gettext
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from pitable.errors import BadDangerCount, BadSheet
from pitable.rules.dice import SPECIAL, Die, Roll
from pitable.rules.sheets import MAP_FORMAT

if TYPE_CHECKING:
    from pitable.rules.bot.model import TitleBot
    from pitable.rules.scoring import FinishedSheet, Score, Token
    from pitable.rules.sheet_key import KeyEntry
    from pitable.rules.sheets import Kind, Shape, Sheet, Side
    from pitable.rules.validate import ReplayRules

#: The least and the largest number Penny Papers (the purple special face) gives.
PENNY_LOW, PENNY_HIGH = 1, 15
#: Penny Papers' number of choice, as it appears in a play.
PENNY = f"{PENNY_LOW}-{PENNY_HIGH}"
PENNY_RANGE = tuple(range(PENNY_LOW, PENNY_HIGH + 1))


class Translator(Protocol):
    """What the words need of a language: :class:`gettext.NullTranslations` and its kin.

    The rules stay standard library only: the catalogues are found and loaded by
    :mod:`pitable.i18n`, which hands a translator to :meth:`Title.reading`.
    """

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


#: The words as written in the source: English.
ENGLISH: Translator = gettext.NullTranslations()


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is declared; it is translated where shown."""
    return message


#: Penny Papers' range in words, as the rulebooks write it: "del 1 al 15" in Spanish.
PENNY_RANGE_WORDS = N_("from {low} to {high}")


def penny_range(tr: Translator = ENGLISH) -> str:
    """Penny Papers' range in the language of ``tr``, for a message's ``{range}``."""
    return tr.gettext(PENNY_RANGE_WORDS).format(low=PENNY_LOW, high=PENNY_HIGH)

Number = int | str  # a number written, or PENNY
Play = tuple[Number, ...]


@dataclass(frozen=True)
class GreenEffect:
    """What Dakota Smith's face (the green special face) lets a player do in one title.

    Each title's package defines its own and names it as its :attr:`Title.green_effect`;
    the screens, the dice faces and the page ask the effect what to show, never which one
    it is. Each is one value, compared with ``is``, as titles are.
    """

    #: Its name in a roll's JSON and in the page's words: ``"boat"``.
    key: str
    #: The picture the green die's special face draws, by name (the drawings are keyed by
    #: it): ``"boat"``. A name with no drawing gets a generic warning sign.
    picture: str
    #: What it allows, in a word or two for a one-line summary (marked with :func:`N_`,
    #: translated where shown): "boat".
    allows: str
    #: The same in one short word in capitals, for the status screen's lit chip: "BOAT".
    chip: str

    def __post_init__(self) -> None:
        if _EFFECTS.setdefault(self.key, self) != self:
            raise ValueError(f"green effect {self.key!r}: the key is taken")

    def __reduce__(self) -> tuple[Callable[[str], GreenEffect], tuple[str]]:
        # A copied or unpickled effect is the title's own, which ``is`` compares.
        return (_effect, (self.key,))


#: Every green effect by its key.
_EFFECTS: dict[str, GreenEffect] = {}


def _effect(key: str) -> GreenEffect:
    """The green effect of ``key``: what a copied or unpickled one is."""
    return _EFFECTS[key]



@dataclass(frozen=True)
class Options:
    """Everything one roll allows in one title."""

    title: Title
    roll: Roll
    #: The red special face came up and cancels the other two dice.
    hazard: bool
    #: The red special face came up but the title ignores it (a title's, past its hazard limit).
    hazard_ignored: bool
    #: Every number one space may receive this turn, sorted; empty on a hazard.
    numbers: tuple[int, ...]
    #: Titles that fill several spaces a turn: every way to use all the usable dice at once.
    plays: tuple[Play, ...]
    #: Penny Papers (the purple special face) gives one number of choice, PENNY_LOW to
    #: PENNY_HIGH.
    penny: bool
    #: Dakota Smith's face was rolled and may be used.
    green: GreenEffect | None
    #: Hazards marked on the sheet before this roll (a title's danger bubbles).
    hazards_marked: int = 0

    @property
    def hazard_rolled(self) -> bool:
        return self.roll.red is SPECIAL

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "title": self.title.key,
            "roll": self.roll.to_json(),
            "hazard": self.hazard,
            "hazard_ignored": self.hazard_ignored,
            "numbers": list(self.numbers),
            "penny": self.penny,
            "green": self.green.key if self.green else None,
        }
        if self.title.several_spaces:
            data["plays"] = [list(p) for p in self.plays]
        return data


@dataclass(frozen=True)
class Reading:
    """The words the status screen shows for a roll."""

    headline: str
    lines: tuple[str, ...]
    #: A hazard: shown so that nobody misses it (inverted, blinking).
    alarm: bool
    #: The same instructions in a few words a line, for a small screen.
    brief: tuple[str, ...] = ()


def format_play(play: Play) -> str:
    return "+".join(f"({n})" if n == PENNY else str(n) for n in play)


def format_numbers(numbers: Sequence[int]) -> str:
    """``1 2 3`` as is; a run of all fifteen (Penny Papers) as ``1-15``."""
    if tuple(numbers) == PENNY_RANGE:
        return PENNY
    return " ".join(str(n) for n in numbers)


def set_partitions(items: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every way to split ``items`` (indices) into non-empty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for i, group in enumerate(partition):
            yield [*partition[:i], [first, *group], *partition[i + 1 :]]


def group_plays(values: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to group the dice ``values`` into numbers, each die used exactly once.

    Listed from the most numbers to the fewest; within a play the sums of several dice come
    first, then the single dice in die order, so 2, 3, 5 reads 2+3+5, 5+5, 7+3, 8+2, 10.
    Plays that write the same numbers are listed once.
    """
    def normalised(partition: list[list[int]]) -> list[list[int]]:
        merged = sorted(sorted(g) for g in partition if len(g) > 1)
        singles = sorted(sorted(g) for g in partition if len(g) == 1)
        return merged + singles

    partitions = [normalised(p) for p in set_partitions(list(range(len(values))))]
    partitions.sort(key=lambda p: (-len(p), [g for g in p if len(g) > 1]))
    plays: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for partition in partitions:
        play = tuple(sum(values[i] for i in group) for group in partition)
        key = tuple(sorted(play))
        if key not in seen:
            seen.add(key)
            plays.append(play)
    return plays


def subset_sums(values: Sequence[int]) -> set[int]:
    """One die, or the sum of any two, or of all three."""
    sums: set[int] = set()
    for mask in range(1, 1 << len(values)):
        sums.add(sum(v for i, v in enumerate(values) if mask >> i & 1))
    return sums


class Title(abc.ABC):
    """One title of the series: subclasses set the class-level facts and fill in the hooks.

    Registered titles are single instances (``find_title`` gives the same object every
    time), so a title is compared with ``is`` and may key a cache.
    """

    # --- names ---------------------------------------------------------------

    #: The name the box stores and the command line prints, lower case: ``toy``.
    key: ClassVar[str]
    #: The rulebook's name: "The Toy Cupboard".
    name: ClassVar[str]
    #: One word for small screens and menus: "Toys".
    short_name: ClassVar[str]
    #: Other names ``find_title`` accepts, lower case: ``cupboard``.
    aliases: ClassVar[tuple[str, ...]] = ()

    # --- what a roll allows --------------------------------------------------

    #: The red special face: "snake", "danger", "mummy".
    hazard_name: ClassVar[str]
    #: What is drawn for it on a sheet: a snake, a skull, a mummy.
    hazard_symbol: ClassVar[str]
    #: The green special face, when it is usable.
    green_effect: ClassVar[GreenEffect]
    #: True when the dice may be grouped into up to three numbers a turn.
    several_spaces: ClassVar[bool] = False
    #: The most hazards a sheet holds; later ones are ignored. None: no limit.
    hazard_limit: ClassVar[int | None] = None

    # --- solo play -----------------------------------------------------------

    #: Solo rounds before the game ends; None where the rulebook sets no limit (the game
    #: ends on an event of the sheet, which the box cannot see: the player ends it).
    solo_rounds: ClassVar[int | None] = None
    #: The least score of Pathfinder, Voyager and Explorer, before any hazard adjustment.
    level_thresholds: ClassVar[tuple[int, int, int]]
    #: Stars every threshold drops per hazard placed.
    discount_per_hazard: ClassVar[int] = 0
    #: The most hazards one solo game can place, escaped ones included; None: no bound.
    max_hazards: ClassVar[int | None] = None
    #: Where the solo player draws a hazard just rolled, in the rulebook's words.
    solo_placement: ClassVar[str]

    def options(self, roll: Roll, hazards_marked: int = 0) -> Options:
        """What ``roll`` allows, given how many hazards were marked before it.

        Worked out once per title and roll (and again at a title's hazard limit), and
        kept: a roll is asked about twice (by the screens, and by the store checking what
        it records), and a title has 216 rolls.
        """
        # The count changes what a roll allows only once it reaches the title's limit (a
        # hazard past it is ignored); below it, only the count recorded. Kept by
        # the count, the rolls of a long game would each be new to the cache, and push out
        # the ones that come back.
        self.check_hazards_marked(hazards_marked)
        limit = self.hazard_limit
        kept_at = limit if limit is not None and hazards_marked >= limit else 0
        kept = _options(self, roll, kept_at)
        if hazards_marked == kept_at and type(hazards_marked) is int:
            return kept
        return dataclasses.replace(kept, hazards_marked=hazards_marked)

    def _options(self, roll: Roll, hazards_marked: int) -> Options:
        self.check_hazards_marked(hazards_marked)
        hazard_rolled = roll.red is SPECIAL
        ignored = (
            hazard_rolled
            and self.hazard_limit is not None
            and hazards_marked >= self.hazard_limit
        )
        if hazard_rolled and not ignored:
            return Options(self, roll, True, False, (), (), False, None, hazards_marked)
        usable = [Die.GREEN, Die.PURPLE] if ignored else list(Die)
        values = [v for d in usable if isinstance(v := roll[d], int)]
        penny = roll.purple is SPECIAL
        green = self.green_effect if roll.green is SPECIAL else None
        numbers = subset_sums(values)
        if penny:
            numbers.update(PENNY_RANGE)
        plays: tuple[Play, ...] = ()
        if self.several_spaces:
            tail: Play = (PENNY,) if penny else ()
            plays = tuple(p + tail for p in group_plays(values) if p + tail)
        return Options(self, roll, False, ignored, tuple(sorted(numbers)), plays, penny, green,
                       hazards_marked)

    def check_hazards_marked(self, hazards_marked: int) -> None:
        limit = self.hazard_limit
        if hazards_marked < 0 or (limit is not None and hazards_marked > limit):
            bound = f"0 to {limit}" if limit is not None else "0 or more"
            raise BadDangerCount(
                f"{self.hazard_count(hazards_marked)} marked: expected {bound}"
            )

    def thresholds(self, hazards: int) -> tuple[int, int, int]:
        """The least score of Pathfinder, Voyager and Explorer after ``hazards`` were placed
        (already checked): :attr:`level_thresholds` less :attr:`discount_per_hazard` each."""
        off = self.discount_per_hazard * hazards
        low, mid, high = (t - off for t in self.level_thresholds)
        return (low, mid, high)

    # --- words --------------------------------------------------------------

    def reading(self, options: Options, *, solo: bool = False,
                tr: Translator = ENGLISH) -> Reading:
        """The status screen's words for ``options``, for table play or for solo play, in
        the language of ``tr`` (English by default).

        Every line is a whole sentence: a screen too small for all of them shows them over
        several pages, never cut.
        """
        if options.hazard:
            return Reading(self.hazard_headline(tr), self.hazard_lines(options, solo, tr=tr),
                           alarm=True, brief=self.hazard_brief(solo, tr))
        return Reading(self.play_headline(options, tr=tr), self.play_lines(options, tr=tr),
                       alarm=False)

    def hazard_brief(self, solo: bool, tr: Translator = ENGLISH) -> tuple[str, ...]:
        """What to do about the hazard, in two short lines for under the hazard's word: solo
        play draws it on your own sheet next to last turn's space; table play swaps sheets."""
        _ = tr.gettext
        return (_("Ignore the other dice"), _(self.brief_solo if solo else self.brief_table))

    #: :meth:`hazard_brief`'s second line at a table, and in solo play: a few words.
    brief_table: ClassVar[str] = N_("On another's sheet")
    brief_solo: ClassVar[str] = N_("By last turn's space")

    def hazard_headline(self, tr: Translator = ENGLISH) -> str:
        """The hazard's word, big on the screen: "SNAKE!"."""
        return tr.gettext("{hazard}!").format(hazard=tr.gettext(self.hazard_name).upper())

    def display_name(self, tr: Translator = ENGLISH) -> str:
        """The rulebook's name in the language of ``tr``."""
        return tr.gettext(self.name)

    def display_short_name(self, tr: Translator = ENGLISH) -> str:
        """One word for small screens and menus, in the language of ``tr``."""
        return tr.gettext(self.short_name)

    def hazards_text(self, count: int, tr: Translator = ENGLISH) -> str:
        """The hazards marked so far, for the screen's header: "2 snakes", "danger 3/5"."""
        if self.hazard_limit is not None:
            return tr.gettext("{hazard} {count}/{limit}").format(
                hazard=tr.gettext(self.hazard_name), count=count, limit=self.hazard_limit)
        return self.hazard_count(count, tr)

    def hazard_count(self, count: int, tr: Translator = ENGLISH) -> str:
        """``count`` hazards in words, singular or plural as the language of ``tr`` has it
        for ``count``: "1 snake", "2 mummies", "0 serpent" in French. Each title names its
        own hazard (``ngettext`` needs both words written out); this default says
        "hazards"."""
        return tr.ngettext("{count} hazard", "{count} hazards", count).format(count=count)

    def placement(self, solo: bool, tr: Translator = ENGLISH) -> str:
        """Where a hazard just rolled is drawn: in solo play the rulebook's rule and its
        fallback (:attr:`solo_placement`); at a table, on another player's sheet."""
        if solo:
            return tr.gettext(self.solo_placement)
        return tr.gettext(self.table_placement)

    #: Where a table draws a hazard just rolled, in the rulebook's words.
    table_placement: ClassVar[str] = N_(
        "Swap sheets: draw it in an empty space of your choice on another player's sheet,"
        " then give the sheet back."
    )

    @abc.abstractmethod
    def hazard_lines(self, options: Options, solo: bool, *,
                     tr: Translator = ENGLISH) -> tuple[str, ...]:
        """What to do about a hazard rolled, for solo play or for a table: where it goes,
        what it costs and how a 9 beats it."""

    @abc.abstractmethod
    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        """What a roll without a hazard lets a player fill, in a few words."""

    @abc.abstractmethod
    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        """The numbers and what the special faces give, a sentence a line."""

    def numbers_line(self, options: Options, tr: Translator = ENGLISH) -> str:
        if not options.numbers:
            return ""
        return tr.gettext("Numbers: {numbers}").format(numbers=format_numbers(options.numbers))

    def plays_line(self, options: Options, tr: Translator = ENGLISH) -> str:
        """A title's plays in one line: "Plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10"."""
        if not options.plays:
            return ""
        plays = " | ".join(format_play(p) for p in options.plays)
        return tr.gettext("Plays: {plays}").format(plays=plays)

    def summary(self, options: Options, tr: Translator = ENGLISH) -> str:
        """One line for the terminal, e.g. ``2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | ...``, in
        the language of ``tr``."""
        _ = tr.gettext
        faces = " ".join(str(f) for f in options.roll.faces)
        hazard = _(self.hazard_name)
        if options.hazard:
            return f"{faces} -> " + _("{hazard}: the other dice are ignored").format(
                hazard=hazard)
        parts = [format_numbers(options.numbers) if options.numbers else _("no number")]
        if options.hazard_ignored:
            parts.append(_("{hazard} ignored ({limit} already marked)").format(
                hazard=hazard, limit=self.hazard_limit))
        if options.green is not None:
            parts.append(_(options.green.allows))
        if self.several_spaces and options.plays:
            parts.append(_("plays: {plays}").format(
                plays=" | ".join(format_play(p) for p in options.plays)))
        return f"{faces} -> " + "; ".join(parts)

    # --- sheets ---------------------------------------------------------------

    @abc.abstractmethod
    def generate_sheet(self, side: Side, seed: int, version: int = MAP_FORMAT) -> Sheet:
        """The map of ``seed`` on ``side`` by map format ``version``, drawn from
        :meth:`Pcg32.for_sheet` streams only.

        Called through :func:`pitable.rules.sheets.generate`, which checks the seed before
        and the sheet after.
        """

    @abc.abstractmethod
    def check_sheet(self, sheet: Sheet) -> str | None:
        """What in ``sheet`` breaks this title's own invariants, in a few words; None if
        nothing does. The invariants of every sheet are checked before this is called."""

    def shape_problem(self, shape: Shape, side: Side | None = None,
                      version: int | None = None) -> str | None:
        """What in ``shape`` (a map's grid alone: its size, its outline, where each kind of
        position is) no map of this title has on ``side`` (None: on either side)
        by map format ``version`` (None: by any format drawn), in a few words; None when a
        map of this title could have it.

        A finished sheet typed as text shows its map's shape and nothing more (not where
        the first number went), so ``pitable score`` refuses a sheet whose shape is none of
        this title's. The title's :meth:`check_sheet` asks the same of every map it makes. A
        title that does not say takes any shape.
        """
        return None

    # --- what a sheet holds -----------------------------------------------------

    #: The kinds of map position this title's maps hold beyond a space and no space (which
    #: every map has): each with its letter in a text map and its drawing's name.
    kinds: ClassVar[tuple[Kind, ...]] = ()
    #: The tokens of a finished sheet typed as text that this title adds to those every
    #: title knows and those of its :attr:`kinds`: a picture drawn in a space, say.
    tokens: ClassVar[tuple[Token, ...]] = ()
    #: The letters of the marks typed after a token and a ``/`` on this title's finished
    #: sheets, each followed by a number (``7/j1``).
    marks: ClassVar[str] = ""
    #: Those of :attr:`marks` that may stand alone in a position (``/T7``): each shows a
    #: value found at its one position, where the others name a group of positions.
    lone_marks: ClassVar[str] = ""

    # --- the sheet's key --------------------------------------------------------

    def sheet_key(self) -> tuple[KeyEntry, ...]:
        """How each thing on this title's sheet scores, in the rulebook's order, for the key
        printed on every sheet (:mod:`pitable.rules.sheet_key`); none by default."""
        return ()

    # --- the bot and the replay -------------------------------------------------

    def bot(self) -> TitleBot | None:
        """How the bot (:mod:`pitable.rules.bot`) plays this title: its players and what
        each planning strength means in it; None, the default, for a title the bot does not
        play. A title imports its bot inside this hook, so that the rules load without it."""
        return None

    def replay_rules(self) -> ReplayRules | None:
        """The placement rules the replay validator (:mod:`pitable.rules.validate`) checks
        each turn of a solo game of this title against; None, the default, for a title
        whose rules it does not know. Imported inside the hook, like :meth:`bot`."""
        return None

    # --- scoring ---------------------------------------------------------------

    def score(self, sheet: FinishedSheet) -> Score:
        """What the finished ``sheet`` is worth, each component and the total, by the
        rulebook's "counting your stars".

        Raises :class:`BadSheet` naming the cell of the first mark the rules do not allow. A
        title that does not say how its sheets score refuses every sheet.
        """
        raise BadSheet(f"{self.name}: pitable does not know how this title's sheets score")

    #: What the rulebook's tie-break counts, in a word or two for the table's results
    #: (marked with :func:`N_`, translated where shown): "Structures". None, the default,
    #: for a title whose rulebook breaks no tie.
    tie_break_name: ClassVar[str | None] = None

    def tie_break(self, sheet: FinishedSheet) -> int | None:
        """What the finished ``sheet`` has of what breaks a tie between equal totals, by the
        rulebook: the tied player with more of it wins, and players still tied share the
        victory. None, the default, for a title whose rulebook breaks no tie.

        Raises :class:`BadSheet` as :meth:`score` does: it reads the sheet as :meth:`score`
        does, so that the two never disagree.
        """
        return None

    # --- identity ---------------------------------------------------------------

    def __repr__(self) -> str:
        return f"find_title({self.key!r})"

    def __reduce__(self) -> tuple[Callable[[str], Title], tuple[str]]:
        # A copied or unpickled title is the registered one, not a second instance that
        # ``is`` would tell apart.
        from pitable.rules.titles import find_title

        return (find_title, (self.key,))


#: What rolls allow, kept: the 216 rolls of each title, and again at a hazard limit (864
#: for four titles), under a kilobyte each.
OPTIONS_KEPT = 1024


@functools.lru_cache(maxsize=OPTIONS_KEPT)
def _options(title: Title, roll: Roll, hazards_marked: int) -> Options:
    return title._options(roll, hazards_marked)
