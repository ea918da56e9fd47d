"""The Concord project a command works on: the folder it runs in, never the package's own.

A command takes the project as dbt does: ``--project-dir`` where the command has it, else
``DBT_PROJECT_DIR`` (dbt's own variable, so ``dbt`` and ``concord`` agree), else the folder it
runs in or the nearest folder above it holding a ``dbt_project.yml`` (as git finds its
repository). The install location plays no part: two copies of the project sharing one
environment each write only into their own folder, and a non-editable install (the package
in ``site-packages``) works on the project it stands in.

The folder found is checked to be Concord's (its ``dbt_project.yml`` names the project
``concord``): another dbt project's folder is refused in one line, never written into.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from concord_common import UserError
from concord_common.settings import value

PROJECT_FILE = "dbt_project.yml"
PROJECT_NAME = "concord"
# the top-level `name:` of dbt_project.yml, read without a YAML parser (the probe's machines
# need nothing beyond the standard library for this)
_NAME_LINE = re.compile(r"""^name:\s*(['"]?)([^'"#\s]+)\1\s*(?:#.*)?$""", re.MULTILINE)


def _named(folder: Path) -> str | None:
    """The project name that ``folder``'s dbt_project.yml gives, or None without one; a
    dbt_project.yml that is not a regular file (a folder, a FIFO) is no project file."""
    path = folder / PROJECT_FILE
    if not path.is_file():
        return None
    try:
        match = _NAME_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return match.group(2) if match else ""


def project_root(explicit: Path | str | None = None, *, error: type[UserError]) -> Path:
    """The project folder, resolved (see the module's docstring); ``error`` is raised (with
    a ``hint``) when there is none or it is not Concord's."""
    given = str(explicit).strip() if explicit is not None else ""
    label = "--project-dir " if given else "DBT_PROJECT_DIR="
    given = given or value("DBT_PROJECT_DIR")
    if given:
        if given.startswith("~"):
            raise error(
                f"{label}{given}: '~' is not expanded here",
                hint=f"give the full path (for example {Path(given).expanduser()})",
            )
        folder = Path(given).resolve()
        candidates = [folder]
    else:
        label, folder = "", Path(os.getcwd()).resolve()
        candidates = [folder, *folder.parents]
    for candidate in candidates:
        name = _named(candidate)
        if name is None:
            continue
        if name != PROJECT_NAME:
            raise error(
                f"{label}{candidate}: {candidate / PROJECT_FILE} is the dbt project "
                f"{name or '(unnamed)'!r}, not Concord's",
                hint="run the command in the Concord project folder, or give it with "
                "--project-dir or DBT_PROJECT_DIR",
            )
        return candidate
    where = (
        f"{label}{folder}: has no {PROJECT_FILE}"
        if label
        else (f"no Concord project here: {folder} and the folders above it have no {PROJECT_FILE}")
    )
    raise error(
        where,
        hint="run the command in the Concord project folder, or give it with --project-dir "
        "or DBT_PROJECT_DIR",
    )
