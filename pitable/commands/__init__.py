"""The subcommands of ``pitable``, one module per group."""
