"""The experiments (one sub-package each: match, suite, autotune, training, speedup) over the
parts they share (games, openings, records, statistics).  Experiments import players and
ensembles; nothing below imports an experiment."""
