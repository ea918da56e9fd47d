"""What every Concord command line shares, and nothing else: one-line failures and writers
that stay inside their folder.

The warehouse (``concord_io``) and the probe job (``probe``) never import each other: the
probe runs on GPU machines that have only its own dependencies. (One exception: ``python -m
probe mcq`` reads the study's item files and lands its logs through ``concord_io``'s reader,
imported by that command alone.) Both import this package, which needs nothing beyond the
standard library.

An expected failure (bad input, a refused flag, a locked file) raises :class:`UserError`
with a message that names the file, row, column, variable or flag at fault, and optionally a
hint that says what to do. :func:`run_main` turns it into one line on stderr and exit status
2. Anything else is a bug: one line too, unless ``--debug`` is on the command line or
``CONCORD_DEBUG=1`` is set, which shows the traceback.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from concord_common.settings import value

#: The word ``concord build`` writes on the stdin of a stage's process started ahead of its
#: turn, when the turn comes (concord_io.cli.warm_start, publish ``--when-told``).
GO = "go"
EXIT_USER_ERROR = 2
EXIT_BUG = 1
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class UserError(Exception):
    """A failure the user can fix; ``hint`` says how."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def printable(text: object) -> str:
    """``text`` with control characters (escape sequences, carriage returns) removed.

    Names that come from data or file systems are printed through this, so a crafted name
    cannot move the cursor or rewrite a terminal line.
    """
    return _CONTROL.sub("", str(text))


def debug_requested(argv: Sequence[str] | None = None) -> bool:
    argv = sys.argv[1:] if argv is None else argv
    return "--debug" in argv or value("CONCORD_DEBUG") not in ("", "0")


def run_main(
    main: Callable[[list[str] | None], int | None],
    argv: list[str] | None = None,
    *,
    teardown: bool = True,
):
    """Call ``main(argv)`` and exit with its status; failures become one line on stderr.

    ``teardown=False``: once ``main`` has returned (its files written and closed) and the
    output is flushed, the process ends at once, without the interpreter's teardown of what
    it imported (for a command whose imports take long to tear down)."""
    if not teardown:
        try:
            run_main(main, argv)
        except SystemExit as done:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(done.code if isinstance(done.code, int) else 0)
    args = sys.argv[1:] if argv is None else argv
    debug = debug_requested(args)
    try:
        status = main([a for a in args if a != "--debug"])
    except UserError as error:
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


def inside_without_links(
    folder: Path | str,
    name: Path | str,
    *,
    what: str = "path",
    hint: str = "remove the link",
    error: type = UserError,
) -> Path:
    """:func:`inside`, and refused when any part of ``name`` below ``folder`` is a symbolic
    link: a writer never writes through one, even to a place inside the folder."""
    current = Path(folder)
    for part in Path(name).parts:
        current = current / part
        if current.is_symlink():
            raise error(
                f"{printable(current)} is a symbolic link; nothing is written through a link",
                hint=hint,
            )
    return inside(folder, name, what=what, error=error)


def inside(
    folder: Path | str, name: Path | str, *, what: str = "path", error: type = UserError
) -> Path:
    """``folder / name`` resolved, refused (``error``) unless it stays inside ``folder``.

    Every writer builds its target through this: a name taken from data (a run id, a mart
    name) must never reach a path outside the folder it belongs to (``../x``, an absolute
    path, a symbolic link that points out).
    """
    base = Path(folder).resolve()
    resolved = (base / name).resolve()
    if resolved != base and base not in resolved.parents:
        raise error(
            f"{what} {printable(name)!r} resolves to {resolved}, outside {base}; "
            "nothing was written",
            hint="use a plain name without '/', '..' or links that leave the folder",
        )
    return resolved
