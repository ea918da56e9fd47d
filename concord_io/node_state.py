"""Which nodes a ``concord build`` runs: each node of dbt's graph runs when what it is made
from changed since its last successful build in this warehouse, or when its relation is
missing; every other node is kept as it is (docs/serving.md, "Builds that do only what
changed").

What a node is made from, summed up from content, never from clocks, in its fingerprint:
its own code (its file's checksum, its code, its config, a generic test's arguments, what
its yml declares: its columns' types, constraints and descriptions), the macros it calls
(their code, through the macros they call), the values of the vars and
environment variables its code and those macros read, for a Python model the code of the
packages it imports (``concord_models``, ``concord_stats``), the engine's (dbt's and the
adapter's versions, ``profiles.yml``), the data of the sources it reads (the landed
folders' fingerprints: :func:`source_digests`) and the fingerprints of its parents. A
node's fingerprint therefore changes when anything upstream of it changes, through the
graph, as make and Bazel decide from content hashes.

Why not dbt's own ``state:modified``: it compares the files' checksums only, not the
upstream data (the landed runs), nor the values of the vars a node reads (dbt's docs,
"Caveats to state comparison"), nor the Python code a Python model imports. dbt does the
rest: its parsed manifest gives each node's code, config, macros and parents, and the build
runs with ``--select`` on the nodes decided here (their data tests with them).

The record (``<warehouse>/node_state.json``) holds each node's fingerprint as of its last
successful build, why it last ran or was kept, and the build database as the last
build's dbt stage left it (its size and modification time, sealed when its calls end): a
database another command wrote since (a plain ``dbt build``), or a dbt stage that failed, is
not what the record describes, so every node runs. When unsure, build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

RECORD = "node_state.json"
#: The resource types a build runs (the others are kept in the graph but never run).
RUN_TYPES = ("model", "test", "seed", "snapshot")
#: A var or environment variable a node's code or macro reads by name.
NAMED = re.compile(r"""\b(var|env_var)\(\s*['"]([^'"]+)['"]""")
#: A var or environment variable read by a name that is not written out: any may matter.
UNNAMED = re.compile(r"""\b(?:var|env_var)\(\s*[^'"\s)]""")
#: The schema publish copies into the serving file.
PUBLISHED_SCHEMA = "marts"
#: dbt's statuses of a node that built or passed.
SUCCEEDED = ("success", "pass", "warn")


def _hash(*parts: object) -> str:
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _parquet_fingerprint(path: Path) -> str:
    """A landed table's fingerprint (its metadata), or the file's bytes where it has none (a
    probe run's record, written once)."""
    from concord_io.landing.engine import fingerprint_of

    found = fingerprint_of(path.parent, path.stem)
    if found is not None:
        return found
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def landed_files(landing: Path, source: str, table: str, seed: bool) -> list[Path]:
    """The landed files that stand for a dbt source table's data (macros/landing.sql): its
    own files, or for a probe run's tables the run's record (written once with them)."""
    if seed:
        return [landing / "seeds" / f"seed={table}" / f"{table}.parquet"]
    area = "items" if (source, table) == ("mcq_landing", "items") else source.split("_")[0]
    files = sorted(landing.glob(f"{area}/*=*/{table}.parquet"))
    return [f.with_name("runs.parquet") for f in files] if area == "probe" else files


def is_seed(source) -> bool:
    """Whether a dbt source reads a landed seed file (its ``seed_folder`` meta)."""
    return bool((source.source_meta or {}).get("seed_folder")) or bool(
        (getattr(source.config, "meta", None) or {}).get("seed_folder")
    )


def source_digests(manifest, landing: Path) -> dict[str, str]:
    """Each source's data, summed up from the landed files it reads: source id -> digest."""
    digests = {}
    for uid, source in manifest.sources.items():
        files = landed_files(landing, source.source_name, source.name, is_seed(source))
        digests[uid] = _hash([(f.relative_to(landing).as_posix(), _parquet_fingerprint(f))
                              for f in files])  # fmt: skip
    return digests


def _macros(manifest, roots: Iterable[str]) -> list[str]:
    """``roots`` and every macro they call, in a fixed order."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        uid = stack.pop()
        if uid in seen or uid not in manifest.macros:
            continue
        seen.add(uid)
        stack += manifest.macros[uid].depends_on.macros
    return sorted(seen)


def _reads(texts: Iterable[str], variables: Mapping[str, object]) -> dict[str, object]:
    """The vars and environment variables ``texts`` read, with their values (every var and
    the whole environment's Concord settings where one is read by a name not written out)."""
    found: dict[str, object] = {}
    for text in texts:
        if UNNAMED.search(text):
            found["*vars"] = dict(variables)
            found["*env"] = {
                k: v for k, v in os.environ.items() if k.startswith(("CONCORD_", "DBT_"))
            }
        for kind, name in NAMED.findall(text):
            value = variables.get(name) if kind == "var" else os.environ.get(name)
            found[f"{kind}:{name}"] = value
    return found


@dataclass
class Decision:
    """Whether a node runs, and why (one phrase)."""

    runs: bool
    why: str


@dataclass
class Plan:
    """The nodes of the graph, their fingerprints, and what the build does with each."""

    fingerprints: dict[str, str]
    decisions: dict[str, Decision] = field(default_factory=dict)
    #: the nodes publish copies (schema ``marts``)
    published: set[str] = field(default_factory=set)

    @property
    def to_run(self) -> list[str]:
        return [uid for uid, d in self.decisions.items() if d.runs]

    def summary(self) -> str:
        """One line: how many nodes run, of how many, and why."""
        reasons: dict[str, int] = {}
        for decision in self.decisions.values():
            if decision.runs:
                key = decision.why.split(":")[0]
                reasons[key] = reasons.get(key, 0) + 1
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
        return f"ran {len(self.to_run)} of {len(self.decisions)} nodes" + (
            f" ({why})" if why else ": nothing they are made from changed"
        )

    def lines(self) -> list[str]:
        """One line per node: run or kept, and why."""
        return [
            f"{'run ' if d.runs else 'kept'}  {uid}: {d.why}"
            for uid, d in sorted(self.decisions.items())
        ]


def _declared(node) -> list[object]:
    """What a node's yml declares that its file's checksum does not cover: its description,
    its columns (their contract types, constraints and descriptions), its model-level
    constraints and its version. The relation's DDL and the docs publish copies are made
    from them (dbt's state:modified.contract and .persisted_descriptions look at them too)."""
    columns = getattr(node, "columns", None) or {}
    return [
        getattr(node, "description", None),
        {name: column.to_dict() for name, column in sorted(columns.items())},
        [c.to_dict() for c in getattr(node, "constraints", None) or []],
        getattr(node, "version", None),
    ]


#: What a Python model calls to keep its last build's rows by group while each group's
#: version (made with the build's context) holds: it carries the context as the incremental
#: models do, so a change to its code (or the packages it imports) computes every group again.
KEEPS_ROWS = "kept_or_computed("


def _is_incremental(node) -> bool:
    if node.resource_type != "model":
        return False
    python_keeps = getattr(node, "language", "sql") == "python" and KEEPS_ROWS in node.raw_code
    return node.config.materialized == "incremental" or python_keeps


def fingerprints(
    manifest, landing: Path, variables: Mapping[str, object], engine: str
) -> tuple[dict[str, str], str]:
    """Each node's fingerprint (see the module's doc), and the context the incremental
    models' rows carry (:func:`incremental_context`); ``engine``: what every node is built
    with (dbt's and the adapter's versions, the profile)."""
    data = source_digests(manifest, landing)
    from concord_io.build_context import python_packages_digest

    python = python_packages_digest()
    nodes = {uid: n for uid, n in manifest.nodes.items() if n.resource_type in RUN_TYPES}
    code: dict[str, str] = {}
    for uid, node in nodes.items():
        macros = _macros(manifest, node.depends_on.macros)
        texts = [node.raw_code or "", *(manifest.macros[m].macro_sql for m in macros)]
        metadata = getattr(node, "test_metadata", None)
        code[uid] = _hash(
            engine,
            node.resource_type,
            node.checksum.checksum,
            node.raw_code,
            node.config.to_dict(),
            metadata.to_dict() if metadata is not None else None,
            _declared(node),
            [(m, manifest.macros[m].macro_sql) for m in macros],
            _reads(texts, variables),
            python if getattr(node, "language", "sql") == "python" else None,
        )
    context = incremental_context(landing, [code[u] for u, n in nodes.items()
                                            if _is_incremental(n)])  # fmt: skip
    full: dict[str, str] = {}

    def of(uid: str) -> str:
        if uid not in full:
            node = nodes[uid]
            sources = sorted(data.get(p, "") for p in node.depends_on.nodes if p in data)
            parents = sorted(of(p) for p in node.depends_on.nodes if p in nodes)
            mine = context if _is_incremental(node) else None
            full[uid] = _hash(code[uid], sources, parents, mine)
        return full[uid]

    for uid in nodes:
        of(uid)
    return full, context


def incremental_context(landing: Path, codes: Iterable[str]) -> str:
    """What the incremental models' rows are made from besides their answer files: the
    seeds' part of the build's context (:func:`concord_io.build_context.seeds_context`) and
    the code of every incremental model (its fingerprint's code part). The dbt plugin hands
    it to the models (``CONCORD_BUILD_CONTEXT``) in place of the whole project's context:
    a changed mart that is not incremental leaves every answer file's version, and so every
    incremental model, as it was; a changed incremental model changes them all, and every
    incremental model (each reads the versions) runs, computing every group again."""
    from concord_io.build_context import seeds_context

    return _hash(seeds_context(landing), sorted(codes))


@dataclass(frozen=True)
class Database:
    """The build database and what it was when a call began (its size and modification
    time: every write changes them)."""

    path: Path
    stat: dict[str, int] | None

    @classmethod
    def of(cls, path: Path) -> Database:
        return cls(path, _database(path))


def _database(database: Path) -> dict[str, int] | None:
    if not database.is_file():
        return None
    stat = database.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _relations(database: Path) -> set[tuple[str, str]] | None:
    """The (schema, name) of every table and view of the build database, or None."""
    import duckdb

    from concord_io.connect import open_duckdb

    if not database.is_file():
        return None
    try:
        with open_duckdb(database, read_only=True) as con:
            found = con.execute(
                "select schema_name, table_name from duckdb_tables() "
                "union all select schema_name, view_name from duckdb_views() where not internal"
            ).fetchall()
    except duckdb.Error:
        return None
    return {(str(s).lower(), str(n).lower()) for s, n in found}


def read_record(warehouse: Path) -> dict:
    try:
        record = json.loads((warehouse / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def plan(manifest, found: dict[str, str], warehouse: Path, database: Database, full: bool) -> Plan:
    """What the build runs: every node when ``full``, the database (as the call found it) is
    not the one the record describes, or there is no record; else each node whose
    fingerprint (``found``) differs from its last successful build's, or whose relation is
    missing."""
    result = Plan(found)
    record = read_record(warehouse)
    known = record.get("nodes") or {}
    same_database = database.stat is not None and record.get("database") == database.stat
    relations = _relations(database.path) if same_database else None
    for uid, fingerprint in found.items():
        node = manifest.nodes[uid]
        if node.resource_type == "model" and str(node.schema).lower() == PUBLISHED_SCHEMA:
            result.published.add(uid)
        before = known.get(uid) or {}
        if full:
            decision = Decision(True, "full: concord build --full")
        elif not same_database:
            decision = Decision(True, "unknown: the build database is not the one last built")
        elif not before:
            decision = Decision(True, "new: no successful build of it yet")
        elif before.get("fingerprint") != fingerprint:
            decision = Decision(True, "changed: its code, a macro, a var or its data upstream")
        elif (
            node.resource_type == "model"
            and node.config.materialized != "ephemeral"
            and relations is not None
            and (str(node.schema).lower(), str(node.alias or node.name).lower()) not in relations
        ):
            decision = Decision(True, "missing: its relation is not in the build database")
        else:
            decision = Decision(False, f"unchanged since {before.get('built', 'its last build')}")
        result.decisions[uid] = decision
    return result


def record(warehouse: Path, result: Plan, outcomes: Mapping[str, str]) -> None:
    """The nodes that succeeded recorded with their fingerprints (written whole); a node that
    failed is forgotten, so it runs again. The record describes no database until the whole
    build succeeds (:func:`seal`)."""
    old = read_record(warehouse).get("nodes") or {}
    now = datetime.now(UTC).isoformat(timespec="seconds")
    nodes = {}
    for uid, fingerprint in result.fingerprints.items():
        decision = result.decisions[uid]
        if not decision.runs:
            if uid in old:
                nodes[uid] = {**old[uid], "why": decision.why, "ran": False}
        elif outcomes.get(uid) in SUCCEEDED:
            nodes[uid] = {"fingerprint": fingerprint, "built": now, "why": decision.why,
                          "ran": True, "published": uid in result.published}  # fmt: skip
    _write(warehouse, {"database": None, "nodes": nodes})  # sealed when the calls end


def seal(warehouse: Path, database: Path) -> None:
    """The dbt stage's calls succeeded: the record describes the build database as they left
    it (a later call, dbt docs, may touch the file; the stages after it only read it)."""
    state = read_record(warehouse)
    if state:
        _write(warehouse, {**state, "database": _database(database)})


def _write(warehouse: Path, state: dict) -> None:
    path = warehouse / RECORD
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(state, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    partial.replace(path)


def selectors(manifest, uids: Iterable[str]) -> list[str]:
    """``--select`` arguments naming exactly the nodes ``uids`` among the nodes a build runs:
    the dotted path (fqn) of each, or of the folder above it when every node of that folder
    runs (dbt's ``fqn:`` matches a path's prefix); none when every node runs.

    Why folders: dbt matches each selector against every node of the graph, three times a
    build; the demo's 331 paths cost it about 1.5 s of a first build (0.56 s a selection,
    measured with ``dbt ls``), a handful of folders almost nothing."""
    chosen = set(uids)
    paths = {
        uid: tuple(node.fqn)
        for uid, node in manifest.nodes.items()
        if node.resource_type in RUN_TYPES
    }
    # every prefix of a node's path, and whether each node under it runs
    whole: dict[tuple[str, ...], bool] = {}
    for uid, path in paths.items():
        for depth in range(1, len(path) + 1):
            whole[path[:depth]] = whole.get(path[:depth], True) and uid in chosen
    if all(whole[path[:1]] for path in paths.values()):
        return []
    # from the package's folders down (a one-part path would also match a node's name); a
    # path that is also the start of another node's is named whole, as dbt matches it
    picked = {
        next((path[:depth] for depth in range(2, len(path)) if whole[path[:depth]]), path)
        for path in (paths[uid] for uid in chosen)
    }
    return sorted("fqn:" + ".".join(path) for path in picked)


def published_unchanged(warehouse: Path) -> bool:
    """Whether the last dbt stage kept every published table (none of them ran)."""
    nodes = read_record(warehouse).get("nodes") or {}
    return bool(nodes) and not any(n.get("ran") and n.get("published") for n in nodes.values())
