"""Great Expectations checkpoint over the built warehouse, run by `make build` after dbt.

The suites live in ``quality/suites/*.yml``: each names one relation of the warehouse and
lists Great Expectations expectations by their snake_case type with their arguments::

    name: mcq_answers
    relation: intermediate.int_mcq_answers_normalised
    expectations:
      - expect_column_values_to_be_in_set: {column: language, value_set: [en, it, fa]}

Each relation is read through a read-only DuckDB connection (the build file is never
written; GX's SQL path does not work with DuckDB) into a Parquet snapshot, which GX reads
with pandas. One checkpoint validates every suite and writes the data docs (HTML) under
``<out>/gx/uncommitted/data_docs/local_site/`` (made to work offline by
:mod:`concord_io.gx_offline`); a failed expectation makes the command exit non-zero, and the
data docs show which expectation failed, on what values.

A passing run records the identity of the build file it checked (size and SHA-256, taken
before the snapshot and again after the checkpoint: a build that changed the file meanwhile
records nothing) in ``<database>.quality.json``; ``publish`` refuses a build file without a
matching record (:func:`check_quality_record`). A failing run removes the record.

A passing checkpoint also records, beside its data docs, each suite's digest: its file, its
table's snapshot and the checks' own code. A later run whose every digest is the same (a
build that changed no table a suite reads) does not run the checkpoint again: its verdict
and data docs stand, and the new build file gets its record. Otherwise only the suites
whose digest changed are validated; the others' stored results are carried into the new
project, so the data docs still show every suite once.

    python -m concord_io.quality --database warehouse/concord.duckdb --out warehouse/quality
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import logging
import os
import shutil
import sys
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import yaml

from concord_common.sql import sql_identifier, sql_literal
from concord_io.connect import build_lock_error, open_duckdb
from concord_io.errors import ConcordError, disk_error, run_main
from concord_io.gx_offline import make_offline
from concord_io.paths import project_root

SUITES = Path("quality") / "suites"  # in the project folder
CHECKPOINT = "concord_warehouse"
DOCS_SITE = Path("gx") / "uncommitted" / "data_docs" / "local_site"
#: Great Expectations' store of validation results, a folder per suite.
VALIDATIONS = Path("gx") / "uncommitted" / "validations"


class QualityConfigError(ConcordError, ValueError):
    """A suite file that cannot be used: the message names the file and the entry."""


class QualityGateError(ConcordError):
    """The build file has no passing quality record: publishing it is refused."""


RECORD_SUFFIX = ".quality.json"


def quality_record_path(database: Path | str) -> Path:
    """Where the passing checkpoint of ``database`` is recorded: beside it."""
    database = Path(database)
    return database.with_name(database.name + RECORD_SUFFIX)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_identity(database: Path | str) -> dict[str, object]:
    """What identifies one build exactly: the size and SHA-256 of the file's bytes, and of
    the write-ahead log beside it. DuckDB replays ``<file>.wal`` on every open, so a change
    held only in the log is part of what the next reader sees (``wal_sha256`` is null
    without one)."""
    database = Path(database)
    wal = database.with_name(database.name + ".wal")
    has_wal = wal.is_file() and wal.stat().st_size > 0
    return {
        "size": database.stat().st_size,
        "sha256": _sha256(database),
        "wal_sha256": _sha256(wal) if has_wal else None,
    }


def write_quality_record(
    database: Path | str, identity: dict[str, object], n_expectations: int
) -> Path:
    """Record that the checkpoint passed on the build file of ``identity`` (atomically)."""
    database = Path(database)
    record = quality_record_path(database)
    body = {
        "database": str(database.resolve()),
        **identity,
        "passed_at": datetime.now(UTC).isoformat(),
        "n_expectations": n_expectations,
    }
    temp = record.with_name(record.name + ".tmp")
    temp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    os.replace(temp, record)
    return record


def check_quality_record(database: Path | str, identity: dict[str, object] | None = None) -> str:
    """Return "passed" when the checkpoint passed on this exact build file, else refuse;
    ``identity``: the file's :func:`build_identity`, where the caller has taken it already."""
    database = Path(database)
    path = quality_record_path(database)
    hint = (
        "run the quality checkpoint on this build first (python -m concord_io.quality "
        f"--database {database}, or make build); to publish anyway, pass --skip-quality-gate"
    )
    if not path.is_file():
        raise QualityGateError(f"{database}: no passing quality record ({path})", hint=hint)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        recorded = {key: record[key] for key in ("size", "sha256", "wal_sha256")}
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise QualityGateError(f"{path}: unreadable quality record", hint=hint) from None
    if recorded != (identity or build_identity(database)):
        raise QualityGateError(
            f"{database}: the quality record {path.name} is for another build of this file "
            "(it changed after the checkpoint passed)",
            hint=hint,
        )
    return "passed"


@dataclass
class Suite:
    name: str
    relation: str
    description: str
    expectations: list[tuple[str, dict]]
    path: Path


@dataclass
class QualityResult:
    success: bool
    docs_index: Path
    failed: list[str] = field(default_factory=list)  # "suite: expectation(column)"
    n_expectations: int = 0
    #: when the checkpoint whose verdict stands passed, where nothing it checked changed
    unchanged_since: str | None = None
    #: the suites not validated again (their table and expectations as that checkpoint's)
    suites_kept: int = 0
    n_suites: int = 0


#: The suites' digests when the checkpoint last passed, beside its data docs.
CHECKPOINT_STATE = "checkpoint_state.json"


def _suite_digest(suite: Suite, table: Path) -> str:
    """What a suite's verdict depends on: its file, its table's snapshot (the same rows
    give the same bytes: DuckDB writes them in insertion order), and the checks' own code
    (Great Expectations' version, this module and the data docs' offline pages)."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for part in (suite.path, table, here / "quality.py", here / "gx_offline.py"):
        digest.update(_sha256(part).encode())
    digest.update(importlib.metadata.version("great-expectations").encode())
    return digest.hexdigest()


def _passed_checkpoint(out_dir: Path) -> dict | None:
    """The state of the checkpoint that last passed in ``out_dir``, where its data docs are
    still there; None otherwise (or unreadable: the checkpoint runs)."""
    try:
        state = json.loads((out_dir / CHECKPOINT_STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (out_dir / DOCS_SITE / "index.html").is_file() or not isinstance(state, dict):
        return None
    return state if {"suites", "n_expectations", "passed_at"} <= set(state) else None


def load_suites(suites_dir: Path | str | None = None) -> list[Suite]:
    """Every ``*.yml`` suite in ``suites_dir`` (default: the project's quality/suites),
    checked for shape (not yet against GX)."""
    folder = Path(suites_dir or project_root() / SUITES)
    suites = []
    for path in sorted(folder.glob("*.yml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for key in ("name", "relation", "expectations"):
            if key not in spec:
                raise QualityConfigError(f"{path.name}: missing key {key!r}")
        entries = []
        for i, entry in enumerate(spec["expectations"], start=1):
            if not isinstance(entry, dict) or len(entry) != 1:
                raise QualityConfigError(
                    f"{path.name}: expectation {i} must be one mapping type -> arguments"
                )
            ((kind, kwargs),) = entry.items()
            entries.append((kind, dict(kwargs or {})))
        suites.append(
            Suite(spec["name"], spec["relation"], spec.get("description", ""), entries, path)
        )
    names = [s.name for s in suites]
    if len(names) != len(set(names)):
        raise QualityConfigError(f"{folder}: suite names repeat: {names}")
    if not suites:
        raise QualityConfigError(f"{folder}: no suite (*.yml)")
    return suites


def _expectation(gxe, suite: Suite, kind: str, kwargs: dict):
    class_name = "".join(part.capitalize() for part in kind.split("_"))
    cls = getattr(gxe, class_name, None)
    if cls is None:
        raise QualityConfigError(f"{suite.path.name}: unknown expectation {kind!r}")
    try:
        return cls(**kwargs)
    except Exception as exc:  # pydantic validation: name the entry
        raise QualityConfigError(f"{suite.path.name}: {kind} {kwargs}: {exc}") from exc


def snapshot(database: Path, suites: list[Suite], folder: Path) -> dict[str, Path]:
    """Each suite's relation as ``<folder>/<suite>.parquet``, read through a read-only
    connection; a relation that does not exist is an error naming the suite."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    try:
        con = open_duckdb(database, read_only=True)
    except duckdb.IOException as error:
        lock = build_lock_error(database, error)
        if lock is None:
            raise
        raise lock from error
    with con:
        for suite in suites:
            schema, _, table = suite.relation.partition(".")
            found = con.execute(
                "select count(*) from information_schema.tables "
                "where table_schema = ? and table_name = ?",
                [schema, table],
            ).fetchone()[0]
            if not found:
                raise QualityConfigError(
                    f"{suite.path.name}: relation {suite.relation} is not in {database}"
                )
            path = folder / f"{suite.name}.parquet"
            # GX reads the snapshot with pandas; DuckDB writes it without a pandas round trip
            relation = f"{sql_identifier(schema)}.{sql_identifier(table)}"
            con.execute(f"copy (select * from {relation}) to {sql_literal(path)} (format parquet)")
            out[suite.name] = path
    return out


def _checkpoint(out_dir: Path, suites: list[Suite], files: dict[str, Path], kept: dict[str, Path]):
    """One Great Expectations checkpoint over the suites' snapshots, and the data docs (made
    to work offline); the checkpoint's result and the number of expectations. ``kept``: the
    suites the checkpoint that passed checked as they are now, each with its stored result,
    which the data docs show again instead of a new run of the suite."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import great_expectations as gx
        import great_expectations.expectations as gxe
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context = gx.get_context(mode="file", project_root_dir=str(out_dir))
        context.variables.progress_bars = ProgressBarsConfig(globally=False)
        source = context.data_sources.add_pandas_filesystem(
            "concord_snapshot", base_directory=out_dir / "snapshot"
        )
        definitions = []
        n_expectations = 0
        for suite in suites:
            gx_suite = gx.ExpectationSuite(
                name=suite.name,
                meta={"relation": suite.relation},
                notes=suite.description,  # shown on the suite's page of the data docs
            )
            for kind, kwargs in suite.expectations:
                gx_suite.add_expectation(_expectation(gxe, suite, kind, kwargs))
                n_expectations += 1
            gx_suite = context.suites.add(gx_suite)
            asset = source.add_parquet_asset(name=suite.relation)
            batch = asset.add_batch_definition_path(name="build", path=files[suite.name].name)
            definitions.append(
                context.validation_definitions.add(
                    gx.ValidationDefinition(name=suite.name, data=batch, suite=gx_suite)
                )
            )
        checkpoint = context.checkpoints.add(
            gx.Checkpoint(
                name=CHECKPOINT,
                validation_definitions=[d for d in definitions if d.name not in kept],
                result_format={"result_format": "COMPLETE"},
            )
        )
        result = checkpoint.run()
        for name, stored in kept.items():
            shutil.copytree(stored, out_dir / VALIDATIONS / name)
        # the data docs once for the whole run: GX's UpdateDataDocsAction builds the whole
        # site again after each validation, compiling every page template each time (6 s of
        # the stage's 11 s with 14 suites)
        context.build_data_docs()
    # GX's pages load their styles and scripts from CDNs: point them at bundled copies
    make_offline(out_dir / DOCS_SITE)
    return result, n_expectations


def _failures(result) -> list[str]:
    """Each failed expectation: "suite: expectation(column)"."""
    failed = []
    for validation in result.run_results.values():
        suite_name = validation.suite_name
        for item in validation.results:
            if not item.success:
                config = item.expectation_config
                column = config.kwargs.get("column") or config.kwargs.get("column_list") or ""
                failed.append(f"{suite_name}: {config.type}({column})")
    return failed


def run_quality(
    database: Path | str, out_dir: Path | str, suites_dir: Path | str | None = None
) -> QualityResult:
    """Validate every suite against ``database`` in one checkpoint; write the data docs."""
    database, out_dir = Path(database), Path(out_dir)
    if not database.is_file():
        raise ConcordError(f"{database}: no warehouse database", hint="run dbt build first")
    record = quality_record_path(database)
    record.unlink(missing_ok=True)  # until this run passes, this build has no record
    identity = build_identity(database)
    suites = load_suites(suites_dir)
    shutil.rmtree(out_dir / "snapshot.next", ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = snapshot(database, suites, out_dir / "snapshot.next")
    digests = {suite.name: _suite_digest(suite, files[suite.name]) for suite in suites}
    passed = _passed_checkpoint(out_dir)
    if passed is not None and passed["suites"] == digests:
        # every suite's expectations and table as the checkpoint that passed checked them:
        # its verdict and data docs stand for this build
        shutil.rmtree(out_dir / "snapshot.next")
        if build_identity(database) == identity:
            write_quality_record(database, identity, passed["n_expectations"])
        return QualityResult(
            success=True,
            docs_index=out_dir / DOCS_SITE / "index.html",
            n_expectations=passed["n_expectations"],
            unchanged_since=passed["passed_at"],
        )
    (out_dir / CHECKPOINT_STATE).unlink(missing_ok=True)
    # a fresh GX project each run: the suites in the repo are the only source of truth; a
    # suite whose table and expectations are as the checkpoint that passed checked them
    # keeps that result (carried over from the last project), the others run
    previous = out_dir / "gx.previous"
    shutil.rmtree(previous, ignore_errors=True)
    kept: dict[str, Path] = {}
    if passed is not None and (out_dir / "gx").is_dir():
        (out_dir / "gx").rename(previous)
        for suite in suites:
            stored = previous / VALIDATIONS.relative_to("gx") / suite.name
            if passed["suites"].get(suite.name) == digests[suite.name] and stored.is_dir():
                kept[suite.name] = stored
    shutil.rmtree(out_dir / "gx", ignore_errors=True)
    shutil.rmtree(out_dir / "snapshot", ignore_errors=True)
    (out_dir / "snapshot.next").rename(out_dir / "snapshot")
    files = {name: out_dir / "snapshot" / path.name for name, path in files.items()}

    try:
        result, n_expectations = _checkpoint(out_dir, suites, files, kept)
    finally:
        shutil.rmtree(previous, ignore_errors=True)
    failed = _failures(result)
    if result.success and build_identity(database) == identity:
        write_quality_record(database, identity, n_expectations)
    if result.success:
        state = {"suites": digests, "n_expectations": n_expectations,
                 "passed_at": datetime.now(UTC).isoformat(timespec="seconds")}  # fmt: skip
        (out_dir / CHECKPOINT_STATE).write_text(json.dumps(state, indent=2), encoding="utf-8")
    return QualityResult(
        success=bool(result.success),
        docs_index=out_dir / DOCS_SITE / "index.html",
        failed=failed,
        n_expectations=n_expectations,
        suites_kept=len(kept),
        n_suites=len(suites),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="the build database (read only)")
    parser.add_argument("--out", default=None, help="default: quality/ beside the database")
    parser.add_argument(
        "--suites", default=None, help=f"folder of *.yml suites (default: the project's {SUITES})"
    )
    args = parser.parse_args(argv)
    database = Path(args.database)
    out = Path(args.out) if args.out else database.parent / "quality"
    try:
        result = run_quality(database, out, args.suites)
    except (OSError, duckdb.IOException) as error:
        disk = disk_error(error, out, hint="free space or choose a writable --out")
        if disk is None:
            raise
        raise disk from error
    if result.unchanged_since:
        print(
            f"quality: all {result.n_expectations} expectations passed: every suite's table "
            f"and expectations are as the checkpoint of {result.unchanged_since} checked them "
            f"(not run again; data docs: {result.docs_index})"
        )
        return 0
    if result.success:
        kept = ""
        if result.suites_kept:
            kept = (
                f"{result.n_suites - result.suites_kept} of {result.n_suites} suites "
                "validated, the others' tables as the checkpoint before checked them; "
            )
        print(
            f"quality: all {result.n_expectations} expectations passed "
            f"({kept}data docs: {result.docs_index})"
        )
        return 0
    print(
        f"quality: {len(result.failed)} of {result.n_expectations} expectations FAILED "
        f"(data docs: {result.docs_index}):",
        file=sys.stderr,
    )
    for line in result.failed:
        print(f"  - {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    # Great Expectations' modules take 0.85 s to tear down at exit, after a check of 0.2 s
    # when no suite changed: the build's next stage need not wait for it
    run_main(main, teardown=False)
