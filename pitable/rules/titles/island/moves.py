"""Skull Island's own moves, beside writing a number and drawing or overcoming a danger: the
bot plays them (:mod:`.bot`) and the replay checks them (:mod:`.replay`)."""

from __future__ import annotations

from pitable.rules.bot.model import Act

#: A boat drawn in a sea space, on Navigation (Dakota Smith's face).
BOAT = Act("boat", fills=True)
#: The treasure of a value found at a space.
TREASURE = Act("treasure")
