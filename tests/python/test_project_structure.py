"""The project's own structure, checked over dbt's manifest the way dbt_project_evaluator
does (that package needs dbt's package hub, which this project does not use):

- every model has a description and a primary key: a primary_key constraint of its
  enforced contract (on a column or over columns), or a test (unique + not_null on one
  column, or unique_combination_of_columns), or a grain checked where its rows arrive
  unchanged, or by the reader (a seed source's primary_key);
- every mart enforces its contract and documents every column with a data type;
- no intermediate model or mart reads a source directly, and no staging model
  reads another staging model;
- names follow docs/conventions.md: stg_<source>__<entity>, int_<entity>_<verb>, marts
  fct_/dim_ or a plain entity noun, one _<dir>__models.yml per folder;
- dbt loads no seeds; every source and source table is described in its folder's
  _<dir>__sources.yml, and every column of a seed file's table has a description and the
  data_type it lands as.

Each rule lists every offender, so one run shows all that is wrong.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from concord_io.project import PROJECT_ROOT, run_dbt

pytestmark = pytest.mark.warehouse  # the checks read the manifest of a dbt parse

LAYERS = ("staging", "intermediate", "marts")
STAGING_NAME = re.compile(r"^stg_[a-z0-9]+(_[a-z0-9]+)*__[a-z0-9]+(_[a-z0-9]+)*$")
# int_<entity>_<verb>: the verb as a past participle (unpivoted, normalised, built)
INTERMEDIATE_NAME = re.compile(
    r"^int_[a-z0-9]+(_[a-z0-9]+)*_([a-z]+ed|built|run|split|set|kept|drawn|chosen|taken)$"
)
MART_NAME = re.compile(r"^(fct_|dim_)?[a-z][a-z0-9]*(_[a-z0-9]+)*$")


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> dict:
    database = tmp_path_factory.mktemp("structure") / "parse.duckdb"
    run_dbt(["parse"], PROJECT_ROOT, database, artifacts=True)
    return json.loads((database.parent / "target" / "manifest.json").read_text())


def project_nodes(manifest: dict, resource_type: str) -> dict[str, dict]:
    return {
        uid: node
        for uid, node in manifest["nodes"].items()
        if node["resource_type"] == resource_type and node["package_name"] == "concord"
    }


def layer(node: dict) -> str:
    """staging, intermediate or marts: the folder under models/."""
    parts = Path(node["original_file_path"]).parts
    return parts[1] if len(parts) > 2 else ""


def test_every_model_lives_in_a_layer(manifest):
    odd = [n["original_file_path"] for n in project_nodes(manifest, "model").values()]
    odd = [p for p in odd if Path(p).parts[1] not in LAYERS]
    assert not odd, f"models outside staging/intermediate/marts: {odd}"


def test_every_model_has_a_description(manifest):
    missing = [
        n["name"] for n in project_nodes(manifest, "model").values() if not n["description"].strip()
    ]
    assert not missing, f"models without a description: {missing}"


def primary_keys(manifest: dict) -> dict[str, set[str]]:
    """model unique_id -> the kinds of primary key it has: a constraint, a test, or a grain
    checked downstream (:func:`grain_checked_downstream`)."""
    tests_by_model: dict[str, list[dict]] = defaultdict(list)
    for test in project_nodes(manifest, "test").values():
        meta = test.get("test_metadata") or {}
        if not meta or test["config"].get("severity", "error").lower() != "error":
            continue
        attached = test.get("attached_node")
        if attached:
            tests_by_model[attached].append(meta)
    keys: dict[str, set[str]] = defaultdict(set)
    for model, metas in tests_by_model.items():
        unique = {m["kwargs"].get("column_name") for m in metas if m["name"] == "unique"}
        not_null = {m["kwargs"].get("column_name") for m in metas if m["name"] == "not_null"}
        if unique & not_null:
            keys[model].add("unique+not_null")
        if any(m["name"] == "unique_combination_of_columns" for m in metas):
            keys[model].add("unique_combination_of_columns")
    for uid, model in project_nodes(manifest, "model").items():
        if not model["config"].get("contract", {}).get("enforced"):
            continue  # a constraint is only enforced under a contract
        declared = list(model.get("constraints", [])) + [
            c for column in model["columns"].values() for c in column.get("constraints", [])
        ]
        if any(c["type"] == "primary_key" for c in declared):
            keys[uid].add("primary_key constraint")
    for uid in grain_checked_downstream(manifest, key_columns(manifest)):
        keys[uid].add("grain checked downstream")
    return keys


def key_columns(manifest: dict) -> dict[str, list[set[str]]]:
    """model name -> the column sets its primary keys cover (a primary_key constraint, a
    unique_combination_of_columns test, unique + not_null on one column), any version."""
    keys: dict[str, list[set[str]]] = defaultdict(list)
    models = project_nodes(manifest, "model")
    for model in models.values():
        for constraint in model.get("constraints", []):
            if constraint["type"] == "primary_key":
                keys[model["name"]].append(set(constraint["columns"]))
        for name, column in model["columns"].items():
            if any(c["type"] == "primary_key" for c in column.get("constraints", [])):
                keys[model["name"]].append({name})
    for test in project_nodes(manifest, "test").values():
        meta, attached = test.get("test_metadata") or {}, test.get("attached_node")
        if not meta or attached not in models:
            continue
        if meta["name"] == "unique_combination_of_columns":
            keys[models[attached]["name"]].append(set(meta["kwargs"]["combination_of_columns"]))
        elif meta["name"] == "unique":
            keys[models[attached]["name"]].append({meta["kwargs"]["column_name"]})
    return keys


def grain_checked_downstream(manifest: dict, keys: dict[str, list[set[str]]]) -> list[str]:
    """The models whose grain is checked where every row of theirs arrives unchanged: their
    yml says ``meta: {grain: [...], grain_checked_in: <model>}``, and that model descends
    from them, or (a view of it row for row: the facts) they from it, and has a primary key
    on exactly those columns (the rule is stated once, there; docs/checks.md shows each
    fault planted and caught). ``grain_checked_in: reader``: a seed's staging model whose
    one source table declares that ``primary_key``, which the reader checks as the file
    lands (concord_io.landing.seeds)."""
    models = project_nodes(manifest, "model")
    children = manifest["child_map"]

    def reader_key(model: dict) -> set[str] | None:
        read = [u for u in model["depends_on"]["nodes"] if u.startswith("source.")]
        if len(read) != 1:
            return None
        return set((manifest["sources"][read[0]].get("meta") or {}).get("primary_key") or [])

    def descends(start: str, name: str) -> bool:
        seen, todo = set(), list(children.get(start, []))
        while todo:
            uid = todo.pop()
            if uid in seen:
                continue
            seen.add(uid)
            if uid in models and models[uid]["name"] == name:
                return True
            todo.extend(children.get(uid, []))
        return False

    checked, wrong = [], []
    for uid, model in models.items():
        meta = model["config"].get("meta") or {}
        if "grain" not in meta:
            continue
        where, grain = meta.get("grain_checked_in"), set(meta["grain"])
        if where == "reader":
            if reader_key(model) == grain:
                checked.append(uid)
            else:
                wrong.append(f"{model['name']}: grain {sorted(grain)} not its source's primary_key")
            continue
        ancestor = next((u for u, m in models.items() if m["name"] == where), None)
        related = descends(uid, where) or (
            ancestor is not None and descends(ancestor, model["name"])
        )
        if related and grain in keys.get(where, []):
            checked.append(uid)
        else:
            wrong.append(
                f"{model['name']}: grain {sorted(grain)} not a key of a descendant {where}"
            )
    assert not wrong, wrong
    return checked


def test_every_model_has_a_primary_key(manifest):
    keys = primary_keys(manifest)
    missing = [n["name"] for uid, n in project_nodes(manifest, "model").items() if not keys[uid]]
    assert not missing, (
        f"models without a primary key (a primary_key constraint, or a test of error "
        f"severity): {missing}"
    )


def test_every_mart_enforces_its_contract_and_documents_every_column(manifest):
    problems = []
    for node in project_nodes(manifest, "model").values():
        if layer(node) != "marts":
            continue
        if not node["config"].get("contract", {}).get("enforced"):
            problems.append(f"{node['name']}: contract not enforced")
        if not node["columns"]:
            problems.append(f"{node['name']}: no columns documented")
        for column, spec in node["columns"].items():
            if not (spec.get("description") or "").strip():
                problems.append(f"{node['name']}.{column}: no description")
            if not spec.get("data_type"):
                problems.append(f"{node['name']}.{column}: no data_type")
    assert not problems, "\n".join(problems)


def test_layers_read_only_what_they_should(manifest):
    nodes = manifest["nodes"]
    problems = []
    for node in project_nodes(manifest, "model").values():
        parents = node["depends_on"]["nodes"]
        where = layer(node)
        if where in ("intermediate", "marts"):
            direct = [p for p in parents if p.split(".")[0] == "source"]
            if direct:
                problems.append(f"{node['name']} ({where}) reads {direct} directly")
        if where == "staging":
            staged = [p for p in parents if p.startswith("model.") and layer(nodes[p]) == "staging"]
            if staged:
                problems.append(f"{node['name']} (staging) reads staging model(s) {staged}")
    assert not problems, "\n".join(problems)


def test_names_follow_the_style_guide(manifest):
    rules = {"staging": STAGING_NAME, "intermediate": INTERMEDIATE_NAME, "marts": MART_NAME}
    wrong = []
    for node in project_nodes(manifest, "model").values():
        where = layer(node)
        if where in rules and not rules[where].match(node["name"]):
            wrong.append(f"{node['name']} ({where})")
        if where == "marts" and node["name"].startswith(("stg_", "int_")):
            wrong.append(f"{node['name']} (a mart named like another layer)")
    assert not wrong, f"names that break docs/conventions.md: {wrong}"


def test_one_models_yml_per_folder_named_after_it(manifest):
    wrong = []
    for node in project_nodes(manifest, "model").values():
        patch = node.get("patch_path")
        if not patch:
            wrong.append(f"{node['name']}: not described in any yml")
            continue
        yml = Path(patch.split("://", 1)[-1])
        folder = Path(node["original_file_path"]).parent
        if yml.parent != folder or yml.name != f"_{folder.name}__models.yml":
            wrong.append(
                f"{node['name']}: described in {yml}, expected {folder}/_{folder.name}__models.yml"
            )
    assert not wrong, "\n".join(wrong)


def test_dbt_loads_no_seed(manifest):
    """The seed files are inputs the reader lands (docs/landing.md): none is a dbt seed."""
    assert not [uid for uid, n in manifest["nodes"].items() if n["resource_type"] == "seed"]


def test_every_source_table_is_documented(manifest):
    problems = []
    for source in manifest["sources"].values():
        if source["package_name"] != "concord":
            continue
        where = f"{source['source_name']}.{source['name']}"
        path = Path(source["original_file_path"])
        if path.name != f"_{path.parent.name}__sources.yml":
            problems.append(f"{where}: declared in {path}, not _{path.parent.name}__sources.yml")
        if not source["source_description"].strip() or not source["description"].strip():
            problems.append(f"{where}: no description")
        if not (source["config"].get("meta") or {}).get("seed_folder"):
            continue
        if not source["columns"]:
            problems.append(f"{where}: a seed file's table without columns")
        for name, column in source["columns"].items():
            if not (column.get("description") or "").strip() or not column.get("data_type"):
                problems.append(f"{where}.{name}: no description or no data_type")
    assert not problems, "\n".join(problems)


def test_every_quarantine_model_is_unioned_into_dq_quarantine(manifest):
    """Nothing set aside is hidden: each int_<study>_<entity>_quarantined feeds the one
    table users look at, marts.dq_quarantine, with the standard columns."""
    models = project_nodes(manifest, "model")
    (dq,) = [n for n in models.values() if n["name"] == "dq_quarantine"]
    parents = set(dq["depends_on"]["nodes"])
    standard = {"source", "source_row", "record_key", "column_name", "value", "reason"}
    problems = []
    for uid, node in models.items():
        if not re.match(r"^int_.+_quarantined$", node["name"]):
            continue
        if uid not in parents:
            problems.append(f"{node['name']} is not unioned into dq_quarantine")
        missing = standard - set(node["columns"])
        if missing:
            problems.append(f"{node['name']} does not document {sorted(missing)}")
    assert not problems, "\n".join(problems)


def test_project_yaml_repeats_no_key():
    """A key written twice in a dbt yml file loads as its last copy: the first is silently
    dropped (two merged `on-run-start` hooks once lost one this way)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader, node, deep=False):
        keys = [loader.construct_object(key, deep=deep) for key, _ in node.value]
        repeated = sorted({str(key) for key in keys if keys.count(key) > 1})
        assert not repeated, f"{node.start_mark.name} line {node.start_mark.line + 1}: {repeated}"
        return yaml.SafeLoader.construct_mapping(loader, node, deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    files = [PROJECT_ROOT / "dbt_project.yml", PROJECT_ROOT / "profiles.yml"]
    files += sorted((PROJECT_ROOT / "models").rglob("*.yml"))
    for path in files:
        yaml.load(path.read_text(), StrictLoader)


# A check constraint's bound (`x between 0 and 100`; a computed figure's `x between 0 - 1e-9
# and 1 + 1e-9` or `x >= 0 - 1e-9`, the floating point's margin) or value set (`x in ('a')`)
TOLERANCE = r"(?: [-+] 1e-9)?"
NUMBER = r"(-?[\d.]+)" + TOLERANCE


def check_rule(rule: dict, column: str, expression: str) -> None:
    """Adds what a column's check constraint states to ``rule``."""
    if bounds := re.fullmatch(rf"{column} between {NUMBER} and {NUMBER}", expression):
        rule["between"][column] = (float(bounds[1]), float(bounds[2]))
    elif bound := re.fullmatch(rf"{column} >= {NUMBER}", expression):
        rule["between"][column] = (float(bound[1]), math.inf)
    elif in_set := re.fullmatch(rf"{column} in \((.*)\)", expression):
        rule["in_set"][column] = set(re.findall(r"'([^']*)'", in_set[1]))


def dbt_rules(manifest: dict) -> dict[str, dict]:
    """relation ("schema.name") -> the column rules its dbt tests and contract constraints
    state: not-null columns, unique column sets, accepted values and bounds per column."""
    declared_vars = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"]

    def values(raw) -> set:
        match = re.fullmatch(r"\{\{\s*var\('(\w+)'\)\s*\}\}", raw) if isinstance(raw, str) else None
        return set(declared_vars[match.group(1)] if match else raw)

    rules: dict[str, dict] = {}
    nodes = project_nodes(manifest, "model")
    for uid, node in nodes.items():
        rule = rules.setdefault(
            f"{node['schema']}.{node.get('alias') or node['name']}",
            {"not_null": set(), "unique": [], "in_set": {}, "between": {}},
        )
        enforced = node["config"].get("contract", {}).get("enforced")
        for name, column in node["columns"].items() if enforced else ():
            for constraint in column.get("constraints", []):
                if constraint["type"] in ("not_null", "primary_key"):
                    rule["not_null"].add(name)
                if constraint["type"] in ("unique", "primary_key"):
                    rule["unique"].append({name})
                if constraint["type"] == "check":
                    check_rule(rule, name, constraint.get("expression") or "")
        for constraint in node.get("constraints", []) if enforced else ():
            if constraint["type"] == "primary_key":
                rule["not_null"] |= set(constraint["columns"])
            if constraint["type"] in ("unique", "primary_key"):
                rule["unique"].append(set(constraint["columns"]))
        nodes[uid] = rule
    for test in project_nodes(manifest, "test").values():
        meta, attached = test.get("test_metadata") or {}, test.get("attached_node")
        if attached not in nodes:
            continue
        rule, kwargs, column = nodes[attached], meta.get("kwargs", {}), test.get("column_name")
        if meta.get("name") == "not_null":
            rule["not_null"].add(column)
        elif meta.get("name") == "unique":
            rule["unique"].append({column})
        elif meta.get("name") == "unique_combination_of_columns":
            rule["unique"].append(set(kwargs["combination_of_columns"]))
        elif meta.get("name") == "accepted_values":
            rule["in_set"][column] = values(kwargs["values"])
        elif meta.get("name") == "value_between":
            rule["between"][column] = (kwargs["min_value"], kwargs["max_value"])
    return rules


def restates(rule: dict, kind: str, kwargs: dict) -> bool:
    """Whether a Great Expectations expectation says no more than the dbt rules."""
    if set(kwargs) & {"row_condition", "mostly", "strict_min", "strict_max"}:
        return False  # a condition, a share or a strict bound says more
    column = kwargs.get("column")
    if kind == "expect_column_values_to_not_be_null":
        return column in rule["not_null"]
    if kind == "expect_column_values_to_be_unique":
        return any(key <= {column} for key in rule["unique"])
    if kind == "expect_compound_columns_to_be_unique":
        return any(key <= set(kwargs["column_list"]) for key in rule["unique"])
    if kind == "expect_column_values_to_be_in_set":
        return column in rule["in_set"] and rule["in_set"][column] <= set(kwargs["value_set"])
    if kind == "expect_column_values_to_be_between" and column in rule["between"]:
        low, high = rule["between"][column]
        wanted_low, wanted_high = kwargs.get("min_value"), kwargs.get("max_value")
        return (wanted_low is None or low >= wanted_low) and (
            wanted_high is None or high <= wanted_high
        )
    return False


def test_great_expectations_states_only_what_dbt_cannot(manifest):
    """A rule is checked in one place: an expectation that a dbt test or contract constraint
    of the same relation already states (a null, a key, a value set, a bound) is not kept."""
    from concord_io.quality import load_suites

    rules = dbt_rules(manifest)
    summary = rules["marts.mcq_agreement_summary_v2"]  # the rules are read, and recognised
    assert restates(
        summary, "expect_compound_columns_to_be_unique", {"column_list": ["task", "run_id"]}
    )
    assert restates(summary, "expect_column_values_to_not_be_null", {"column": "model"})
    planted = {"column": "full_agreement_pct", "min_value": 0, "max_value": 100}
    assert restates(summary, "expect_column_values_to_be_between", planted)
    assert not restates(summary, "expect_column_values_to_be_between", {**planted, "max_value": 50})
    assert restates(summary, "expect_column_values_to_be_between", {**planted, "min_value": -5})
    answers = rules["intermediate.int_mcq_answers_normalised"]
    assert restates(
        answers,
        "expect_column_values_to_be_in_set",
        {"column": "invalid_reason", "value_set": [*answers["in_set"]["invalid_reason"], "x"]},
    )
    repeated = [
        f"{suite.path.name}: {kind}({kwargs.get('column') or kwargs.get('column_list')})"
        for suite in load_suites()
        for kind, kwargs in suite.expectations
        if suite.relation in rules and restates(rules[suite.relation], kind, kwargs)
    ]
    assert not repeated, "expectations that restate a dbt test or constraint:\n" + "\n".join(
        repeated
    )


def test_the_reader_is_a_small_engine_of_few_modules(monkeypatch):
    """The reader (concord_io.landing) in at most 13 modules with at most 40 imports among
    them (scripts/reader_shape.py prints both, and the lines); which module may import which
    is import-linter's contract (make lint)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "reader_shape", PROJECT_ROOT / "scripts" / "reader_shape.py"
    )
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "reader_shape", script)  # its dataclass looks itself up
    spec.loader.exec_module(script)
    shape = script.reader_shape()
    assert "concord_io.landing.engine" in shape.lines and "concord_io.landing.mcq" in shape.lines
    assert len(shape.lines) <= 13, sorted(shape.lines)
    assert len(shape.edges) <= 40, shape.edges
