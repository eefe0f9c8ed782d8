"""How a key of the configuration is declared: its default, its doc and what it may hold.

Every table of the file (:mod:`pitable.config`'s, and those of the parts registered in
:mod:`pitable.wiring`) is a frozen dataclass whose fields :func:`setting` makes; the parser,
the validator, the writer and the wiring read the :class:`Spec` of each. Standard library
only, like the config.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import Any

from pitable.pins import USABLE_GPIOS

#: The GPIOs a key may name, in words.
USABLE_RANGE = f"GPIO {USABLE_GPIOS[0]} to {USABLE_GPIOS[-1]}"
GPIO_RULE = f"a header {USABLE_RANGE} (BCM numbering)"


@dataclass(frozen=True)
class Spec:
    """What a key of the file may hold, and the words that explain it.

    ``low``/``high`` bound a number (``low_open``: strictly above ``low``); ``what`` names
    the kind of value in the message ("an I2C address"); ``choices`` lists the values
    allowed, each with an optional label shown beside it (``8 (TCA9548A)``), and
    ``choices_if``, given the whole table, says where they bind (elsewhere only the range
    does); ``gpio`` makes the value (or each item of a list) a header GPIO; ``check`` is a
    key's own test, called as ``check(key, value)``; ``hex`` writes and reports it as
    ``0x3c``; ``signal`` names a GPIO's wire on the part in the wiring (``{n}`` stands for
    the place in a list, from 1; default: the key); ``fold_case`` reads it in lower case;
    ``in_file = False`` keeps it out of the file (the loader fills it in); ``legacy_unset``
    is the value that files written by earlier versions hold for "not set", read as not
    set so that they keep working.

    Written by hand on dataclasses' field metadata rather than with a schema library:
    every command imports the config, and start-up on a Pi Zero costs more than the
    hundred lines this takes.
    """

    doc: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    unit: str = ""
    what: str = ""
    choices: Mapping[object, str] | None = None
    choices_if: Callable[[Any], bool] | None = None
    gpio: bool = False
    signal: str = ""
    check: Callable[[str, Any], None] | None = None
    hex: bool = False
    fold_case: bool = False
    in_file: bool = True
    legacy_unset: int | None = None

    def rule(self) -> str:
        """What the key may hold, in words, or "" when any value of its type will do."""
        if self.choices is not None:
            return or_words(self.choices)
        if self.gpio:
            return GPIO_RULE
        return self.range_rule()

    def range_rule(self) -> str:
        """The range, in words: ``0.3 s to 5 s``, ``0 or more``; "" without one."""
        if self.low is not None and self.high is not None:
            low, high = self._num(self.low), self._num(self.high)
            if self.low_open:
                return f"above {low}{self.unit} and at most {high}{self.unit}"
            return f"{low}{self.unit} to {high}{self.unit}"
        if self.low is not None:
            return f"{self._num(self.low)}{self.unit} or more"
        return ""

    def _num(self, value: float) -> str:
        if self.hex:
            return hex_value(int(value))
        return str(int(value)) if float(value).is_integer() else str(value)


def setting(default: Any, doc: str = "", **spec: Any) -> Any:
    """A config field: its default and its :class:`Spec` (``doc``, range, choices, ...)."""
    choices = spec.pop("choices", None)
    if choices is not None and not isinstance(choices, Mapping):
        choices = dict.fromkeys(choices, "")
    return field(default=default, metadata={"spec": Spec(doc, choices=choices, **spec)})


def table_doc(doc: str) -> dict[str, Spec]:
    """The metadata of a table of the file: its doc."""
    return {"spec": Spec(doc)}


def spec_of(f: Field[Any]) -> Spec:
    """The declaration of a config field (an empty one for a field declared without)."""
    spec = f.metadata.get("spec")
    return spec if isinstance(spec, Spec) else Spec()


def table_fields(cls: type) -> tuple[Field[Any], ...]:
    """The fields of a config table that a file may set, in declaration order."""
    return tuple(f for f in fields(cls) if spec_of(f).in_file)


def show_value(value: object) -> str:
    """A value as it would be written in TOML, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return str(value)


def or_words(choices: Iterable[object] | Mapping[object, str]) -> str:
    """``"table" or "solo"``; ``8 (TCA9548A) or 4 (PCA9546)``."""
    labels = choices if isinstance(choices, Mapping) else dict.fromkeys(choices, "")
    shown = [show_value(c) + (f" ({label})" if label else "") for c, label in labels.items()]
    return ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]


def hex_value(value: int) -> str:
    """``0x3c``: an address or a byte as the file writes it."""
    return f"0x{value:02x}" if value >= 0 else str(value)
