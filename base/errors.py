"""The one base of every error Concilio raises about its input or its surroundings.

Each error keeps its built-in kind as well (a bad FEN is still a ``ValueError``), so
callers that catch those go on working; the ``concilio`` command catches this base
once and turns it into one message and exit code 2.
"""


class ConcilioError(Exception):
    """Bad input (a config, FEN, mask, limit, criterion) or an unusable environment
    (no engine binary, no cluster): the message names what and where."""
