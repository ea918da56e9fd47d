"""What a node's fingerprint is made from and which nodes a build runs
(concord_io.node_state), on a two-node graph that stands in for dbt's parsed manifest: no
dbt; a DuckDB file stands in for the build database."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from concord_io import node_state


@dataclass
class Column:
    """A column as a model's yml declares it (dbt's ColumnInfo, the fields that matter)."""

    name: str
    data_type: str = "integer"
    description: str = ""
    constraints: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def model(name: str, parents: list[str], columns: list[Column]) -> SimpleNamespace:
    config = {"materialized": "table", "alias": None}
    return SimpleNamespace(
        resource_type="model",
        name=name,
        alias=name,
        schema="intermediate",
        raw_code=f"select 1 as {columns[0].name}",
        checksum=SimpleNamespace(checksum=f"file of {name}"),
        config=SimpleNamespace(materialized="table", to_dict=lambda: dict(config)),
        depends_on=SimpleNamespace(macros=[], nodes=parents),
        language="sql",
        description=f"the model {name}",
        columns={c.name: c for c in columns},
        constraints=[],
        version=None,
    )


def graph(column: Column) -> SimpleNamespace:
    """A model ``a`` with one declared column, and ``b`` that reads it."""
    nodes = {
        "model.concord.a": model("a", [], [column]),
        "model.concord.b": model("b", ["model.concord.a"], [Column("x")]),
    }
    return SimpleNamespace(nodes=nodes, sources={}, macros={})


def fingerprints(manifest, landing: Path) -> dict[str, str]:
    return node_state.fingerprints(manifest, landing, {}, "engine")[0]


def test_a_declared_column_change_reaches_the_model_and_its_children(tmp_path):
    """A column's contract type, constraints or description live in the model's yml, not in
    its SQL file (whose checksum dbt gives): each changes the model's fingerprint and, through
    the graph, its child's; the same declaration gives the same fingerprints."""
    base = fingerprints(graph(Column("x")), tmp_path)
    assert fingerprints(graph(Column("x")), tmp_path) == base
    for changed in (
        Column("x", data_type="bigint"),
        Column("x", constraints=[{"type": "not_null"}]),
        Column("x", description="the count of x"),
    ):
        found = fingerprints(graph(changed), tmp_path)
        assert found["model.concord.a"] != base["model.concord.a"], changed
        assert found["model.concord.b"] != base["model.concord.b"], changed


def test_a_python_model_that_keeps_rows_by_group_carries_the_context(tmp_path):
    """A Python model that keeps its rows by group (concord_models.frames.kept_or_computed)
    stamps each group with the context the incremental models carry: a change to its code
    changes that context, so every group is computed again; a Python model that keeps
    nothing leaves the context as it was."""

    def context_with(code: str) -> str:
        manifest = graph(Column("x"))
        python = manifest.nodes["model.concord.b"]
        python.language, python.raw_code = "python", code
        return node_state.fingerprints(manifest, tmp_path, {}, "engine")[1]

    keeps = "def model(dbt, session):\n    return kept_or_computed(groups, ...)\n"
    assert context_with(keeps) != context_with(keeps + "# a note\n")
    plain = "def model(dbt, session):\n    return frame\n"
    assert context_with(plain) == context_with(plain + "# a note\n")


def test_a_test_added_runs_alone_and_a_missing_relation_runs_again(tmp_path):
    """After a successful build of ``a`` and ``b``, a data test added on ``a`` is the one
    node that runs (new); its models are kept, unchanged since their build. A model whose
    relation is gone from the build database runs again, however unchanged."""
    database = tmp_path / "concord.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("create schema intermediate")
        con.execute("create table intermediate.a (x integer)")
        con.execute("create table intermediate.b (x integer)")
    manifest = graph(Column("x"))
    first = node_state.plan(
        manifest,
        fingerprints(manifest, tmp_path),
        tmp_path,
        node_state.Database.of(database),
        False,
    )
    assert first.to_run == ["model.concord.a", "model.concord.b"]  # no record: every node
    node_state.record(tmp_path, first, dict.fromkeys(first.to_run, "success"))
    node_state.seal(tmp_path, database)

    test = "test.concord.not_null_a_x"
    manifest.nodes[test] = SimpleNamespace(
        **{**vars(model("not_null_a_x", ["model.concord.a"], [Column("x")])),
           "resource_type": "test",
           "test_metadata": SimpleNamespace(to_dict=lambda: {"name": "not_null"})}
    )  # fmt: skip
    found = fingerprints(manifest, tmp_path)
    second = node_state.plan(manifest, found, tmp_path, node_state.Database.of(database), False)
    assert second.to_run == [test]
    assert second.decisions[test].why.startswith("new:")
    assert second.decisions["model.concord.b"].why.startswith("unchanged since 20")
    assert second.summary() == "ran 1 of 3 nodes (1 new)"

    with duckdb.connect(str(database)) as con:
        con.execute("drop table intermediate.b")
    node_state.seal(tmp_path, database)  # as a build that succeeded would leave it
    third = node_state.plan(manifest, found, tmp_path, node_state.Database.of(database), False)
    assert set(third.to_run) == {test, "model.concord.b"}
    assert third.decisions["model.concord.b"].why.startswith("missing:")


@pytest.mark.warehouse
def test_every_source_of_the_graph_reads_landed_files_the_fingerprints_see(warehouse):
    """Each source of the built demo's graph is matched to the landed files it reads, each
    of them there: a source whose files node_state did not see would never make its
    readers run again when its data changed (issue 71: when unsure, build)."""
    manifest = json.loads((warehouse.parent / "target" / "manifest.json").read_text())
    landing = warehouse.parent / "landing"
    unseen = {}
    for uid, source in manifest["sources"].items():
        found = SimpleNamespace(
            source_meta=source.get("source_meta"),
            config=SimpleNamespace(meta=(source.get("config") or {}).get("meta")),
        )
        files = node_state.landed_files(
            landing, source["source_name"], source["name"], node_state.is_seed(found)
        )
        if not files or not all(f.is_file() for f in files):
            unseen[uid] = files
    assert len(manifest["sources"]) > 10
    assert unseen == {}


@pytest.mark.warehouse
def test_the_build_selects_exactly_the_nodes_to_run_as_dbt_matches_paths(warehouse):
    """The ``--select`` of a build names exactly the nodes it runs, each by its path or by
    a folder whose every node runs, as dbt's own path matching reads them: for each folder
    of the demo's graph, a folder less one node, and seeded random sets; a whole folder is
    one selector, and every node none at all (dbt then selects every node itself)."""
    from dbt.graph.selector_methods import QualifiedNameSelectorMethod

    manifest_json = json.loads((warehouse.parent / "target" / "manifest.json").read_text())
    nodes = {
        uid: SimpleNamespace(
            resource_type=n["resource_type"], fqn=n["fqn"], version=n.get("version")
        )
        for uid, n in manifest_json["nodes"].items()
    }
    manifest = SimpleNamespace(nodes=nodes)
    runnable = sorted(uid for uid, n in nodes.items() if n.resource_type in node_state.RUN_TYPES)

    def selected(selectors: list[str]) -> set[str]:
        # dbt's fqn method (node_is_match reads no state of its method object)
        match = QualifiedNameSelectorMethod.node_is_match
        return {
            uid
            for uid in runnable
            for path in (s.removeprefix("fqn:") for s in selectors)
            if match(None, path, nodes[uid].fqn, nodes[uid].version is not None)
        }

    folders: dict[tuple[str, ...], list[str]] = {}
    for uid in runnable:
        folders.setdefault(tuple(nodes[uid].fqn[:3]), []).append(uid)
    mcq_marts = folders[("concord", "marts", "mcq")]
    assert node_state.selectors(manifest, mcq_marts) == ["fqn:concord.marts.mcq"]
    assert node_state.selectors(manifest, runnable) == []
    rng = random.Random(71)
    cases = [*folders.values(), mcq_marts[1:], *(rng.sample(runnable, k) for k in (1, 40, 200))]
    for chosen in cases:
        narrowed = node_state.selectors(manifest, chosen)
        assert narrowed
        assert selected(narrowed) == set(chosen), narrowed
