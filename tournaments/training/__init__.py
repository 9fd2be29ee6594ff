"""Training data and the evaluation fit: self-play labels, their openings, and `concilio fit`."""
