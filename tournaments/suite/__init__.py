"""The suite experiment: instances and ensembles scored on test positions (`concilio suite`)."""
