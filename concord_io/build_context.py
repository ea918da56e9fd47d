"""The build's context: everything the incremental models' rows depend on besides the answer
files themselves, as one hash.

The incremental models of the cross-lingual chain (macros/mcq_incremental_groups.sql) keep a
group's rows while its answer files' versions are unchanged. A file's version is its run, its
content and when it landed, and the context below (``mcq_file_version``): so a change of
anything else a row is made from changes every version, and the next build computes every
group again, exactly as ``--full-refresh`` would. The context is, conservatively:

- the project's code: every file of ``models/`` and ``macros/`` and ``dbt_project.yml`` (a
  model's SQL, a macro it calls, a config), and the packages the Python models import
  (``concord_models``, ``concord_stats``: a model that keeps its rows by group computes
  every group again when they change);
- the vars the call was given (``--vars``; the declared defaults are in dbt_project.yml);
- every landed seed file (its fingerprint: a model alias, a rater's category) but the
  study's registries and domain translations;
- the reader's version (the landing's rows).

The registries, the item files, the domain translations, ``mcq_languages`` and
``mcq_options`` are already part of each run's landing: a run is written again when its own
registry line or anything it is matched against changes (docs/landing.md), so a new answer
file registered computes its own run alone. The dbt plugin computes the context when a
build starts and hands it to every DuckDB connection as the variable
``concord_build_context``; on Spark ``concord build --target spark`` hands it to the
models' macro (``CONCORD_BUILD_CONTEXT``, concord_io/dbt_sequence.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path

CODE = ("models", "macros")
#: The packages a Python model's code imports: a change to them changes what it computes.
PYTHON_PACKAGES = ("concord_models", "concord_stats")
CONTEXT_VARIABLE = "concord_build_context"


def build_context(project: Path, landing: Path, variables: Mapping) -> str:
    """The context hash of a build of ``project`` over ``landing`` with ``variables``."""
    digest = hashlib.sha256(seeds_context(landing).encode())

    def add(label: str, data: bytes) -> None:
        digest.update(f"\0{label}\0{len(data)}\0".encode() + data)

    files = [project / "dbt_project.yml"]
    files += sorted(p for folder in CODE for p in (project / folder).rglob("*") if p.is_file())
    for path in files:
        if "__pycache__" not in path.parts:
            add(path.relative_to(project).as_posix(), path.read_bytes())
    add("python packages", python_packages_digest().encode())
    add("--vars", json.dumps(dict(variables), sort_keys=True, default=str).encode())
    return digest.hexdigest()


def python_packages_digest() -> str:
    """The code of the packages the Python models import (:data:`PYTHON_PACKAGES`)."""
    digest = hashlib.sha256()
    for name in PYTHON_PACKAGES:
        # found, not imported: the dbt plugin computes the context for every dbt call
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"{name}: the Python models' package is not installed")
        root = Path(spec.origin).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def seeds_context(landing: Path) -> str:
    """The part of the context that is not code: the reader's version and every landed seed
    file but the study's registries and domain translations (in each run's own landing)."""
    # imported here: the dbt plugin imports this module for every dbt command
    from concord_io.landing.engine import fingerprint_of, reader_version
    from concord_io.landing.study import REGISTRIES, TRANSLATIONS

    digest = hashlib.sha256(reader_version().encode())
    for folder in sorted((landing / "seeds").glob("seed=*")):
        name = folder.name.removeprefix("seed=")
        if name not in (*REGISTRIES, TRANSLATIONS):
            found = (fingerprint_of(folder, name) or "").encode()
            digest.update(f"\0seed {name}\0{len(found)}\0".encode() + found)
    return digest.hexdigest()
