"""What a table game needs beyond one sheet: the hazard dealt among the players' sheets, the
turn's pace, and the ranking at the end.

The rulebooks' table hazard is passed by hand: "Put your sheet in the middle of the play
area, take another sheet at random, then draw a snake on this sheet ... Then, return the
sheet to its owner". With the sheets on phones the box deals them: a random derangement of
the digital players (no one draws on their own sheet), from the box's own entropy, as the
dice are. With one digital player there is no one else's sheet to take, so that player draws
on their own.

At the end the stars are counted and compared, "then" each title's tie-break (the Valley's
most stars from structures, the Island's single most valuable treasure, the Temple's longest
sequence), and what is still equal is shared.

Pure rules: nothing here knows the store, the phones or the hardware.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TypeVar

from pitable.rules.base import ENGLISH, Translator
from pitable.rules.dice import ByteSource

K = TypeVar("K", bound=Hashable)


def below(n: int, source: ByteSource) -> int:
    """A uniform integer in ``0 .. n-1`` from ``source``'s bytes, by rejection: as few
    whole bytes as hold ``n - 1``, drawn again while they fall in the top part that ``n``
    does not divide evenly, so no value is likelier than another (no modulo bias).

    Written here rather than taken from :mod:`random` or :mod:`secrets`: those draw from
    the operating system, and a table's deal is drawn, like the dice, from the box's own
    entropy source (the Pi's hardware generator, its health tests passed), which a test can
    replace by a seeded one."""
    if n < 1:
        raise ValueError(f"below({n}): n must be at least 1")
    if n == 1:
        return 0
    width = (max(n - 1, 1).bit_length() + 7) // 8
    span = 256 ** width
    limit = span - span % n
    while True:
        chunk = source.read(width)
        if len(chunk) != width:
            raise EOFError("the entropy source returned too few bytes")
        value = int.from_bytes(chunk, "big")
        if value < limit:
            return value % n


def derangement(n: int, source: ByteSource) -> list[int]:
    """A permutation of ``range(n)`` that moves every item (``p[i] != i``), uniform over
    all such permutations (``n`` at least 2).

    A uniform shuffle (Fisher-Yates, each swap drawn by :func:`below`) is kept only when it
    is a derangement and drawn again otherwise: every derangement is then exactly as likely
    as any other, and about 1 shuffle in e (2.718...) is kept whatever ``n``, so 100 players
    take about 270 draws."""
    if n < 2:
        raise ValueError(f"a derangement of {n} item(s): there must be at least 2")
    while True:
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = below(i + 1, source)
            order[i], order[j] = order[j], order[i]
        if all(order[i] != i for i in range(n)):
            return order


def deal(players: Sequence[K], source: ByteSource) -> dict[K, K]:
    """The hazard dealt among ``players`` (each once): for each, whose sheet they draw on.

    Never their own when there are two or more; a lone player draws on their own sheet.
    Raises :class:`ValueError` when a player is listed twice."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice in the deal")
    if not players:
        return {}
    if len(players) == 1:
        return {players[0]: players[0]}
    order = derangement(len(players), source)
    return {placer: players[order[i]] for i, placer in enumerate(players)}


@dataclass(frozen=True)
class Pace:
    """How the table stands in the turn: ``done`` of ``players`` digital players done with
    round ``round``, the initials of those still ``writing``; ``last_round`` once a sheet
    has ended the game (the round in progress is finished, then the game ends); ``ended``
    once it has."""

    round: int
    players: int
    done: int
    writing: tuple[str, ...]
    last_round: bool
    ended: bool = False

    def to_json(self) -> dict[str, object]:
        return {"round": self.round, "players": self.players, "done": self.done,
                "writing": list(self.writing), "last_round": self.last_round,
                "ended": self.ended}


#: The initials of those still writing named on the status screen's line, by default; the
#: others are counted.
NAMED = 4


def pace_line(pace: Pace, tr: Translator = ENGLISH, named: int = NAMED) -> str:
    """The pace in one line of the status screen and the TV, in ``tr``'s language:
    ``5 of 7 done; writing: AB CD``, ``Last round: 7 of 7 done``; ``named`` initials of
    those still writing at most, the others counted."""
    line = tr.gettext("{done} of {players} done").format(done=pace.done,
                                                         players=pace.players)
    if pace.writing:
        names = " ".join(pace.writing[:named])
        more = len(pace.writing) - named
        if more > 0:
            names += " " + tr.gettext("+{more}").format(more=more)
        line += "; " + tr.gettext("writing: {initials}").format(initials=names)
    if pace.last_round:
        line = tr.gettext("Last round: {pace}").format(pace=line)
    return line


@dataclass(frozen=True)
class Entry:
    """One player's result: their stars and the title's tie-break (None where it is not
    known: a paper player who gave their total only, or a title without one)."""

    initials: str
    total: int
    tie: int | None
    bot: bool = False
    paper: bool = False


@dataclass(frozen=True)
class Standing:
    """One line of the ranking: ``place`` from 1, ``shared`` with another entry."""

    place: int
    entry: Entry
    shared: bool


def rank(entries: Iterable[Entry]) -> list[Standing]:
    """The ranking: the most stars first; of equal stars, the larger tie-break first; what
    is still equal shares a place ("1, 2, 2, 4"). When a tie-break is not known for one of
    several equal totals, those totals cannot be told apart and all share."""
    ordered = sorted(entries, key=lambda e: (-e.total, e.initials))
    out: list[Standing] = []
    place = 1
    for _total, same in groupby(ordered, key=lambda e: e.total):
        group = list(same)
        if len(group) > 1 and any(e.tie is None for e in group):
            out += [Standing(place, e, True) for e in group]
            place += len(group)
            continue
        group.sort(key=lambda e: (-(e.tie or 0), e.initials))
        for _tie, tied in groupby(group, key=lambda e: e.tie):
            alike = list(tied)
            out += [Standing(place, e, len(alike) > 1) for e in alike]
            place += len(alike)
    return out
