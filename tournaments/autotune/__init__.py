"""The auto-tuning experiment: choosing a distribution on training positions (`concilio autotune`)."""
