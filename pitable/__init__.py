"""pitable: a Raspberry Pi dice box for the Penny Papers Adventures games."""

__version__ = "0.1.0"
