"""The cascade player: the instances propose, one parallel full-knowledge search decides."""
