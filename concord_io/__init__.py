"""Concord input/output helpers: strict reading of input files with their row positions."""
