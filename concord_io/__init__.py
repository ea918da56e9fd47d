"""Concord input/output: strict reading of input files with their row positions, running
the dbt project from Python, the quality checkpoint, publishing the marts to the serving
file, the reader connection, the report and the build summary."""
