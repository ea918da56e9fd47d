"""Concord statistics: pure functions over arrays, no I/O.

Each function gives its formula and source in its docstring, is vectorised over a
leading axis where that makes sense, and has an explicit policy for degenerate input.
"""
