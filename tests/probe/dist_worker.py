"""python -m probe under torchrun, with rank 1 made to fail while scoring (for the tests).

PROBE_TEST_FAIL=raise: rank 1's scorer raises (the rank reports its failure);
PROBE_TEST_FAIL=die: rank 1's process exits at once (no report; torchrun sees it).
"""

import os

from probe import runner
from probe.__main__ import main
from probe.errors import run_main

if os.environ.get("RANK") == "1":
    mode = os.environ["PROBE_TEST_FAIL"]

    def failing(*args, **kwargs):
        if mode == "die":
            os._exit(3)
        raise RuntimeError("simulated failure while scoring")

    runner.score_batched = failing

run_main(main)
