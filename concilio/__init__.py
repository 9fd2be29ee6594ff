"""Concilio: knowledge-distribution chess players (the ``concilio`` command lives in ``concilio.cli``)."""
__version__ = "0.1.0"
