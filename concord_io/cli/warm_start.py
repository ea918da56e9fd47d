"""Start a stage's process before its turn: import what it is slow to import, wait for the
word, then run the stage's module as ``python -m`` would.

``concord build`` starts the quality stage this way when the dbt stage starts: Great
Expectations takes about 3 s of one core to import, which the dbt build (about one core
busy on the project's two) leaves free. The stage then runs exactly as it would have,
reading the build database only after the word comes (the dbt stage has ended by then).
When the build stops before the stage's turn (or has nothing more to do), it ends the
process, which has only imported; stdin closed without the word, it leaves on its own.

    python -m concord_io.cli.warm_start --import great_expectations -- concord_io.quality ...
"""

from __future__ import annotations

import importlib
import runpy
import sys

from concord_common import GO


def main(argv: list[str]) -> int:
    separator = argv.index("--")
    ahead, (module, *args) = argv[:separator], argv[separator + 1 :]
    for name in ahead[1::2]:  # --import NAME ...
        importlib.import_module(name)
    if sys.stdin.readline().strip() != GO:
        return 0
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
