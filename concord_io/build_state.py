"""What a whole ``concord build`` was made from, recorded when it succeeds, so that the next
one with nothing new stops before it starts dbt (docs/serving.md, "Builds that do only what
changed").

A build's inputs are summed up in one digest, from content, never from clocks: the build's
context (:mod:`concord_io.build_context`: the code of ``models/`` and ``macros/``,
``dbt_project.yml``, the vars, the landed seeds), the fingerprint of every landed folder (each
run, task's items and seed: what it was made from), each landed probe run's record, the
quality suites, ``profiles.yml`` and the product's own code (its packages and templates: a
change to the report or to a check is a change). The record (``<warehouse>/build_state.json``)
holds that digest, the build database as the build left it and the version publish made of
it. A later build whose landing gives the same digest, over the same database (its size and
modification time: every dbt call that writes the file changes them; where they differ, the
build runs), whose version is still the one published, has nothing to do. When unsure, build.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path

from concord_io.build_context import build_context
from concord_io.landing.engine import fingerprint_of
from concord_io.serving.publish import CURRENT, CURRENT_DB, current_version

RECORD = "build_state.json"
#: The packages whose code makes what a build produces (the reader, the models' code, the
#: statistics, the checks, publish and the report).
PACKAGES = ("concord_io", "concord_models", "concord_stats", "concord_common")
#: Landing areas whose folders carry the reader's fingerprint in each table's metadata.
FINGERPRINTED = ("mcq", "items", "seeds")


def inputs_digest(project: Path, landing: Path) -> str:
    """The digest of everything a build of ``project`` over ``landing`` is made from."""
    digest = hashlib.sha256(build_context(project, landing, {}).encode())

    def add(label: str, data: bytes) -> None:
        digest.update(f"\0{label}\0{len(data)}\0".encode() + data)

    for folder in sorted(landing.glob("*/*=*")):
        if not folder.is_dir() or folder.name.endswith("=_empty"):
            continue
        relative = folder.relative_to(landing).as_posix()
        if folder.parent.name in FINGERPRINTED:
            for table in sorted(folder.glob("*.parquet")):
                add(f"{relative}/{table.name}", (fingerprint_of(folder, table.stem) or "").encode())
        else:  # a probe run, written once: its record names it, its model and its times
            runs = folder / "runs.parquet"
            add(relative, runs.read_bytes() if runs.is_file() else b"")
    profiles = project / "profiles.yml"
    add(profiles.as_posix(), profiles.read_bytes() if profiles.is_file() else b"")
    add("product", product_digest(project).encode())
    return digest.hexdigest()


def product_digest(project: Path) -> str:
    """The digest of the product's own code (its packages and templates) and the quality
    suites: what the stages after dbt (quality, publish, the report, the summary) are made
    from besides the build database."""
    digest = hashlib.sha256()
    files = sorted((project / "quality").rglob("*"))
    for package in PACKAGES:
        root = Path(str(importlib.import_module(package).__file__)).parent
        files += sorted(p for p in root.rglob("*") if p.suffix in (".py", ".j2", ".sql"))
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            digest.update(f"\0{path.as_posix()}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()


def _database(database: Path) -> dict[str, int] | None:
    if not database.is_file():
        return None
    stat = database.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def record(warehouse: Path, digest: str, database: Path, serving: Path, product: str) -> None:
    """Record a whole build that succeeded: its inputs' digest, the database it left, the
    version published from it and the product's code that published it
    (:func:`product_digest`; written whole: a killed write leaves the old record)."""
    state = {"inputs": digest, "database": _database(database),
             "version": current_version(serving), "product": product}  # fmt: skip
    path = warehouse / RECORD
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(state, sort_keys=True) + "\n", encoding="utf-8")
    partial.replace(path)


def nothing_new(warehouse: Path, digest: str, database: Path, serving: Path) -> str | None:
    """Why the build has nothing to do (one line), or None: the last whole build was made
    from the same inputs, its database is as it left it, and its version is the one
    published."""
    try:
        state = json.loads((warehouse / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = current_version(serving)
    same = (
        isinstance(state, dict)
        and state.get("inputs") == digest
        and state.get("database") == _database(database)
        and version is not None
        and state.get("version") == version
        and (serving / CURRENT / CURRENT_DB).is_file()
    )
    if not same:
        return None
    return (
        f"nothing new since the last build (published as version {version}): the inputs, "
        "code, vars and seeds are as it found them, so nothing was run (concord build --full "
        "builds everything again)"
    )


def published_with(warehouse: Path, product: str) -> bool:
    """Whether the version the last whole build left was published, reported and summed up
    by the same product code (:func:`product_digest`): where it was not, they run again."""
    try:
        state = json.loads((warehouse / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(state, dict) and state.get("product") == product
