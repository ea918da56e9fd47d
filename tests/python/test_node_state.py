"""What a node's fingerprint is made from (concord_io.node_state), on a two-node graph that
stands in for dbt's parsed manifest: no dbt, no warehouse."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace

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
