"""The map a game is played on: its title, side and seed, the same for everyone at the table.

A game in the box has one map, chosen when the game starts: a fresh seed drawn from the
box's entropy, or the map of the last sheet the box printed. Every sheet the menu prints
for that game is of that map, the status screen's header names it (:attr:`TableMap.tag`),
and ``pitable sheet GAME --seed N --side S`` draws the same one at home.

>>> from pitable.rules import default_title
>>> TableMap(default_title(), Side.A, 1234).tag
'A·1234'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pitable.errors import EntropyError, PitableError
from pitable.rules import Title, find_title
from pitable.rules.sheets import MAP_FORMAT, MAP_FORMATS, MAX_SEED, Side, generate, parse_seed

if TYPE_CHECKING:
    from pitable.hw.entropy import EntropySource
    from pitable.rules.sheets import Sheet

log = logging.getLogger("pitable.box")

#: A seed is drawn from this many bits of entropy; values above :data:`MAX_SEED` are drawn
#: again (2^20 = 1,048,576: 4.6% of the draws), so every seed is as likely as every other.
SEED_BITS = 20
SEED_BYTES = (SEED_BITS + 7) // 8


@dataclass(frozen=True)
class TableMap:
    """One map of one title: what a table plays on and every sheet printed for it shows."""

    title: Title
    side: Side
    seed: int
    #: The map format it is drawn by: an older one's maps are drawn again as they were.
    version: int = MAP_FORMAT

    @property
    def tag(self) -> str:
        """The short name on the status screen's header: ``A·1234`` (side and seed)."""
        return f"{self.side.value.upper()}·{self.seed}"

    @property
    def label(self) -> str:
        """The map in a few words for the screen and the log: ``Toys A·1234``."""
        return f"{self.title.short_name} {self.tag}"

    def sheet(self) -> Sheet:
        """The adventure sheet of this map."""
        return generate(self.title, self.seed, self.side, self.version)

    def to_text(self) -> str:
        """``toy a 1234 v3``: how the store keeps it among its settings, with the map
        generator's format (another format draws another map from the same seed)."""
        return f"{self.title.key} {self.side.value} {self.seed} v{self.version}"

    @classmethod
    def from_text(cls, text: str) -> TableMap:
        """The map :meth:`to_text` wrote; raises a :class:`PitableError` for anything else."""
        parts = text.split()
        if len(parts) != 4:
            raise ValueError(f"a map is 'title side seed vFORMAT', not {text!r}")
        key, side, seed, version = parts
        drawn = {f"v{v}": v for v in MAP_FORMATS}
        if version not in drawn:
            raise ValueError(f"drawn by map {version}; this version draws maps"
                             f" {', '.join(drawn)}")
        return cls(find_title(key), Side.from_str(side), parse_seed(seed), drawn[version])

    def to_json(self) -> dict[str, object]:
        return {"title": self.title.key, "side": self.side.value, "seed": self.seed}


def seed_from(entropy: EntropySource) -> int:
    """A uniform seed from 0 to :data:`MAX_SEED`, drawn from ``entropy`` by rejection."""
    while True:
        chunk = entropy.read(SEED_BYTES)
        if len(chunk) != SEED_BYTES:
            raise EntropyError("the entropy source returned too few bytes for a map's seed")
        value = int.from_bytes(chunk, "big") & ((1 << SEED_BITS) - 1)
        if value <= MAX_SEED:
            return value


def fresh_seed(entropy: EntropySource) -> int:
    """A seed for a new map from the box's ``entropy``; from the operating system's
    generator when that fails. A map is not a roll: a table must not go without one
    because the hardware generator refuses to give a byte."""
    try:
        return seed_from(entropy)
    except (EntropyError, EOFError, OSError) as exc:
        import secrets

        log.warning("map seed from the OS generator: %s", exc)
        return secrets.randbelow(MAX_SEED + 1)


def stored_map(text: str | None) -> TableMap | None:
    """The map kept as ``text`` (:meth:`TableMap.to_text`), or None when there is none or
    it no longer names a map (a title since removed)."""
    if not text:
        return None
    try:
        return TableMap.from_text(text)
    except (PitableError, ValueError) as exc:
        log.warning("stored map %r ignored: %s", text, exc)
        return None
