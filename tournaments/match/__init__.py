"""The match experiment: a player against a baseline over a book (`concilio match`)."""
