"""The exceptions pitable raises, one base per subsystem under :class:`PitableError`."""

from __future__ import annotations


class PitableError(Exception):
    """Base class of every error pitable raises on purpose."""


# --- rules -----------------------------------------------------------------


class RulesError(PitableError):
    """A rule of a title was asked something it cannot answer."""


class UnknownTitle(RulesError, LookupError):
    """No title is registered under that name."""


class BadFace(RulesError, ValueError):
    """A face that the die cannot show."""


class BadRoll(RulesError, ValueError):
    """A roll that is not three faces, green, purple and red."""


class BadDangerCount(RulesError, ValueError):
    """A danger count outside what the sheet can hold."""


# --- hardware --------------------------------------------------------------


class HardwareError(PitableError):
    """A part of the box failed or is missing."""


class EntropyError(HardwareError):
    """The entropy source cannot be used."""


class HealthTestFailure(EntropyError):
    """Raw entropy failed an SP 800-90B continuous health test."""


class MissingDependency(PitableError, ImportError):
    """An optional library is needed for this command; the message says what to install."""


# --- config ----------------------------------------------------------------


class ConfigError(PitableError, ValueError):
    """The configuration file is missing, unreadable or wrong; the message names the key."""


class UsageError(PitableError, ValueError):
    """A command-line argument is wrong; the message names it."""
