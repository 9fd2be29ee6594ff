"""One game between two players, with its rules and adjudication."""
