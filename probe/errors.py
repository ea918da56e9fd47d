"""Expected failures of the probe's command line: one line (and a hint), exit status 2.

The same contract as the warehouse's command lines (concord_io.errors), kept as the probe's
own few lines because the probe job never imports the warehouse packages (it runs on GPU
machines that have only the probe's dependencies). An expected failure raises
:class:`ProbeError`; anything else is a bug and prints one line too, unless ``--debug`` is on
the command line or ``CONCORD_DEBUG=1`` is set, which shows the traceback.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

EXIT_USER_ERROR = 2
EXIT_BUG = 1
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class ProbeError(Exception):
    """A failure the user can fix; ``hint`` says how."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def printable(text: object) -> str:
    """``text`` without control characters, so a crafted name cannot rewrite the terminal."""
    return _CONTROL.sub("", str(text))


def debug_requested(argv: Sequence[str] | None = None) -> bool:
    argv = sys.argv[1:] if argv is None else argv
    return "--debug" in argv or os.environ.get("CONCORD_DEBUG", "") not in ("", "0")


def run_main(main: Callable[[list[str] | None], int | None], argv: list[str] | None = None):
    """Call ``main(argv)`` and exit with its status; failures become one line on stderr."""
    args = sys.argv[1:] if argv is None else argv
    debug = debug_requested(args)
    try:
        status = main([a for a in args if a != "--debug"])
    except ProbeError as error:
        if debug:
            traceback.print_exc()
        print(f"error: {printable(error.message)}", file=sys.stderr)
        if error.hint:
            print(f"  {printable(error.hint)}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as error:  # noqa: BLE001 - the last line of defence of a command line
        if debug:
            traceback.print_exc()
        else:
            print(
                f"unexpected error: {type(error).__name__}: {printable(error)}\n"
                "  run again with --debug (or CONCORD_DEBUG=1) for the traceback",
                file=sys.stderr,
            )
        raise SystemExit(EXIT_BUG) from None
    raise SystemExit(status or 0)


def inside(folder: Path | str, name: str) -> Path:
    """``folder / name``, refused when it resolves outside ``folder`` (``..``, absolute
    names, symbolic links): every probe writer builds its target through this."""
    base = Path(folder).resolve()
    target = (base / name).resolve()
    if target != base and base not in target.parents:
        raise ProbeError(
            f"{printable(name)!r} resolves to {target}, outside {base}; nothing was written",
            hint="use a plain name without '..', '/' or links that leave the folder",
        )
    return target
