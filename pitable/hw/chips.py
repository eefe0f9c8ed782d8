"""What the parts' chips are, as facts the drivers, the config and the wiring all read.

Standard library only and nothing to import with it: the config, which every command
imports, checks its tables against these, so that a chip is described in one place.
"""

from __future__ import annotations

#: Paper width in mm -> printable dots of a thermal printer's 203 dpi head.
PAPER_DOTS: dict[int, int] = {58: 384, 80: 576}
