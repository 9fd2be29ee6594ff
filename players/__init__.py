"""Players: the numba search core (``players.core``) and every kind of player built on it."""
