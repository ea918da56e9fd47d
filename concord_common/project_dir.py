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
        folder = Path(not_home_relative(given, label, error=error)).resolve()
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


def project_yaml(path: Path) -> dict:
    """A yml file of the dbt project as a mapping; refused in one line when unreadable."""
    import yaml  # the warehouse's dbt and the probe's transformers both install PyYAML

    try:
        # libyaml's parser where PyYAML has it (half the seed landing's time was the pure
        # Python parser, and the dbt plugin lands before every dbt call)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, yaml.YAMLError) as error:
        raise UserError(
            f"{path}: cannot be read ({error})", hint="the reader needs the dbt project's files"
        ) from None
    return loaded if isinstance(loaded, dict) else {}


def project_vars(root: Path, overrides: dict | None = None) -> dict:
    """The vars of the project at ``root``: ``dbt_project.yml``'s (none where it has no
    such file), and over them ``overrides``, the vars given to one dbt call (``--vars``)."""
    path = Path(root) / PROJECT_FILE
    declared = (project_yaml(path).get("vars") or {}) if path.is_file() else {}
    return {**declared, **(overrides or {})}


#: The vars that name the cross-lingual study's input folders.
STUDY_FOLDERS = ("mcq_answers_dir", "mcq_items_dir", "mcq_answer_sources_dir")


def input_folders(root: Path, variables: dict) -> list[Path]:
    """The folders of the project at ``root`` that hold its inputs and code: ``seeds/`` (every
    seed folder lies in it), the study's answer, item and answer-source folders (its
    ``variables``: :func:`project_vars`), ``models/`` and ``macros/``. No command writes
    into them but the ones that register inputs, and no output folder lies in or holds one."""
    folders = [root / "seeds", root / "models", root / "macros"]
    for name in STUDY_FOLDERS:
        if variables.get(name):
            path = Path(str(variables[name]))
            folders.append(path if path.is_absolute() else root / path)
    return folders


def not_home_relative(path: Path | str, label: str, *, error: type[UserError]) -> str:
    """``path`` as text, refused when it starts with ``~``: no shell expanded it, and a
    folder literally named ``~`` is never what was meant."""
    text = str(path).strip()
    if text.startswith("~"):
        raise error(
            f"{label}{text}: '~' is not expanded here",
            hint=f"give the full path (for example {Path(text).expanduser()})",
        )
    return text


def checked_landing_value(text: str, label: str, *, error: type[UserError]) -> str:
    """A landing folder as given (``CONCORD_LANDING_DIR``, the var ``landing_dir``), refused
    where the reader and dbt would take it for two folders: blanks around it (dbt keeps
    them) or a leading ``~`` (DuckDB expands it, Python does not)."""
    if text != text.strip():
        raise error(
            f"{label}{text!r}: blanks around the landing folder (dbt would read a folder of "
            "that name, the reader another)",
            hint="give the folder without surrounding blanks",
        )
    return not_home_relative(text, label, error=error)


def landing_dir(root: Path, *, error: type[UserError]) -> Path:
    """The landing folder (``CONCORD_LANDING_DIR``, checked: :func:`checked_landing_value`),
    the one resolution of it for the reader, the probe and the commands; a relative value is
    taken from ``root``, the project folder, as dbt reads it."""
    raw = os.environ.get("CONCORD_LANDING_DIR", "")  # as given: value() strips blanks
    if raw:
        checked_landing_value(raw, "CONCORD_LANDING_DIR=", error=error)
    path = Path(value("CONCORD_LANDING_DIR"))
    return path if path.is_absolute() else root / path
