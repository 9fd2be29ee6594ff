"""Statistics of game and suite results: score intervals, Elo, pentanomial SPRT."""
