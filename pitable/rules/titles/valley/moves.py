"""The Valley of Wiraqocha's own moves, beside writing a number and drawing or crossing out
a snake: the bot plays them (:mod:`.bot`) and the replay checks them (:mod:`.replay`)."""

from __future__ import annotations

from pitable.rules.bot.model import Act

#: A structure drawn on Dakota Smith's face: a hut (H), a statue (S) or a mine (M).
STRUCTURE = Act("structure", fills=True)
#: A discovery revealed: a jungle (j), a town (t), a mountain range (r) or a pyramid (p),
#: naming all its spaces.
DISCOVER = Act("discover")
