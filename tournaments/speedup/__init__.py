"""The speedup experiment: the thesis's measurements of parallel search (`concilio speedup`)."""
