"""``python -m concord_io.dbt_sequence ARGS [--then ARGS ...]``: dbt commands one after
another in one process, as ``dbt ARGS`` would run them, stopping at the first that fails;
the exit status is dbt's (0 success, 1 a node or check failed, 2 dbt itself failed).

Why one process: each ``dbt`` process spends about 3 s importing dbt and its adapters before
it reads the project (``dbt --version``, bench/results/start.md). ``concord build`` writes
dbt docs right after its dbt build, in the same process (concord_io/cli.py)."""

from __future__ import annotations

import contextlib
import sys

THEN = "--then"


def split(argv: list[str]) -> list[list[str]]:
    """The dbt commands in ``argv``, separated by ``--then``."""
    commands: list[list[str]] = [[]]
    for arg in argv:
        if arg == THEN:
            commands.append([])
        else:
            commands[-1].append(arg)
    if any(not command for command in commands):
        raise SystemExit(f"usage: python -m concord_io.dbt_sequence ARGS [{THEN} ARGS ...]")
    return commands


def close_duckdb() -> None:
    """dbt-duckdb keeps the database open in a class attribute after a run: close it, so the
    caller (or the next call, with other settings) can open the file."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # a target without dbt-duckdb
        return
    environment = DuckDBConnectionManager._ENV
    DuckDBConnectionManager._ENV = None
    if environment is not None:
        with contextlib.suppress(Exception):
            environment.close()


def run(commands: list[list[str]]) -> int:
    from dbt.cli.main import dbtRunner

    for argv in commands:
        try:
            ran = dbtRunner().invoke(argv)
        finally:
            close_duckdb()  # the next command (or the caller) opens the file again
        if not ran.success:
            return 2 if ran.exception is not None else 1
    return 0


if __name__ == "__main__":
    sys.exit(run(split(sys.argv[1:])))
