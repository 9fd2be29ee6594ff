"""The ``concilio`` subcommands, one module each: ``add_parser(subparsers)`` adds the command
(and its steps) with its options, help and example; ``run(args) -> int`` does it.  A module's
top imports stay light, its machinery imported inside ``run``: every command, ``concilio uci``
first, builds the whole parser before it starts.

``parsing`` holds how every parser looks, ``inputs`` the input several commands share
(position, mask, limit, progress bar) and ``UsageError``; ``concilio.cli`` lists the
commands in their help's order and turns errors and interrupts into exit codes.
"""
