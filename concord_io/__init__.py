"""Concord input/output: strict reading of input files with their row positions, running
the dbt project from Python, the quality checkpoint (and its offline data docs), publishing
the marts to the serving file, the reader connection, exports, the report, the build summary
and the `concord` command line."""
