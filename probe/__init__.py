"""The reliability probe: log-probability scoring of candidate continuations."""
