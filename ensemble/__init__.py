"""Players made of players: the ensemble (instances on Dask workers and a selection criterion),
its criteria and distributions, the cascade, and the catalog that builds every kind of player."""
