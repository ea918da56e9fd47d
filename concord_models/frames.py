"""What `dbt.ref()` returns, as pandas, whatever runs the dbt Python model; and the body
that several models share.

dbt-duckdb hands a Python model a DuckDB relation; dbt on Spark (dbt-databricks, or a test
with a local SparkSession) hands it a Spark DataFrame; a unit test may pass pandas or Arrow.
The models read sufficient statistics (counts, per-scenario ranks), never raw answer rows,
so collecting them to the driver costs memory that does not grow with the answers.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator

import pandas as pd
import pyarrow as pa

from concord_common.settings import dbt_vars
from concord_common.sql import sql_literal
from concord_stats.bootstrap import derive_seed
from concord_stats.consistency import holm, paired_shares
from concord_stats.kendall import RankCube, rank_cube
from concord_stats.paired import paired_summary


def engine_threads(session) -> int:
    """The threads the engine of a Python model's session may use (DuckDB's ``threads``
    setting, the cores unless set), for numpy work the model spreads over threads; 1 for
    any other session."""
    if not hasattr(session, "execute"):  # a Spark session: its cores are Spark's
        return 1
    [(threads,)] = session.execute("select current_setting('threads')").fetchall()
    return max(1, int(threads))


def to_pandas(relation) -> pd.DataFrame:
    """A pandas DataFrame of a DuckDB relation, a Spark DataFrame, an Arrow table or pandas."""
    if isinstance(relation, pd.DataFrame):
        return relation
    if isinstance(relation, pa.Table):
        return relation.to_pandas()
    if hasattr(relation, "toPandas"):  # pyspark.sql.DataFrame, classic or Spark Connect
        return relation.toPandas()
    if hasattr(relation, "df"):  # duckdb.DuckDBPyRelation
        return relation.df()
    raise TypeError(
        f"cannot read a {type(relation).__module__}.{type(relation).__name__} as a table: "
        "expected a DuckDB relation, a Spark DataFrame, an Arrow table or pandas"
    )


def frames_by(relation, key: str, columns: list[str]) -> Iterator[tuple[object, pd.DataFrame]]:
    """``relation``'s ``columns`` one value of ``key`` at a time, in key order: a model that
    works per group (a rater dataset) holds one group in memory, not the table (at 40
    languages the derived rater datasets are 16 M ratings). DuckDB relations and Spark
    DataFrames are filtered where they live; anything else is read whole and grouped."""
    if hasattr(relation, "filter") and hasattr(relation, "project"):  # DuckDB
        keys = [k for (k,) in relation.project(key).distinct().order(key).fetchall()]
        selected = relation.project(", ".join(dict.fromkeys([key, *columns])))
        for value in keys:
            yield value, selected.filter(f"{key} = {sql_literal(value)}").df()
        return
    if hasattr(relation, "toPandas"):  # Spark
        keys = sorted(r[0] for r in relation.select(key).distinct().collect())
        for value in keys:
            yield value, relation.filter(relation[key] == value).select(key, *columns).toPandas()
        return
    frame = to_pandas(relation)
    yield from frame[list(dict.fromkeys([key, *columns]))].groupby(key, sort=True)


#: What a build's rows are made from besides the data a model reads (concord_io.build_context):
#: the DuckDB variable the project's dbt plugin sets on each connection; on Spark, the
#: environment variable `concord build --target spark` sets.
CONTEXT_VARIABLE = "concord_build_context"
CONTEXT_ENVIRONMENT = "CONCORD_BUILD_CONTEXT"


def build_context(session) -> str | None:
    """The build's context, or None where the call has none (then nothing is kept)."""
    if hasattr(session, "execute"):  # DuckDB
        [(context,)] = session.execute(f"select getvariable('{CONTEXT_VARIABLE}')").fetchall()
        return context or None
    return os.environ.get(CONTEXT_ENVIRONMENT) or None


def group_version(context: str, group: object, rows: pd.DataFrame, *given: object) -> str:
    """A group's version: the build's context, the group's key, its rows (in the order given:
    sort them first) and whatever else the group's result is made from (``given``)."""
    digest = hashlib.sha256(json.dumps([context, group, *given], default=str).encode())
    digest.update(pd.util.hash_pandas_object(rows, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def last_build(dbt, session, columns: dict[str, str]) -> pd.DataFrame:
    """The model's own table as its last build left it (``columns``, typed), or no row: on
    DuckDB a table model's table stands until its new one replaces it; on Spark (Parquet)
    dbt-spark drops it before the model runs, so each group is computed again there."""
    empty = pd.DataFrame(columns=list(columns)).astype(columns)
    if not hasattr(session, "execute"):
        return empty
    this = dbt.this
    [(found,)] = session.execute(
        "select count(*) from duckdb_columns() where database_name = ? and schema_name = ? "
        "and table_name = ? and column_name in (select unnest(?))",
        [this.database, this.schema, this.identifier, list(columns)],
    ).fetchall()
    if found != len(columns):  # none yet, or one with other columns: nothing to keep
        return empty
    names = ", ".join(f'"{name}"' for name in columns)
    return session.execute(f"select {names} from {this!r}").df().astype(columns)


def kept_or_computed(
    groups: Iterator[tuple[object, pd.DataFrame]],
    key: str,
    last: pd.DataFrame,
    context: str | None,
    version_of: Callable[[str, object, pd.DataFrame], str],
    compute: Callable[[object, pd.DataFrame], pd.DataFrame],
) -> pd.DataFrame:
    """Per group of ``groups`` (its key, its rows): the rows of ``last`` (the model's last
    build, with a ``group_version`` column) where the group's version is the one it has now,
    else ``compute``'s rows for it, stamped with its version. Groups that are gone leave with
    ``last``. With no context (a call that cannot say what changed), every group is computed.
    A Python model incremental by group: the same rows a full build computes, each group's
    result made from its own rows and seed only."""
    parts = []
    for group, rows in groups:
        version = version_of(context or "", group, rows)
        kept = last[(last[key] == group) & (last["group_version"] == version)]
        if context is None or kept.empty:
            kept = compute(group, rows).assign(group_version=version)
        parts.append(kept)
    if not parts:
        return last.iloc[:0]
    return pd.concat(parts, ignore_index=True)


def per_cell(
    frame: pd.DataFrame,
    keys: list[str],
    figures: Callable[[pd.DataFrame], dict],
    columns: dict[str, str],
) -> pd.DataFrame:
    """Per cell of ``keys``, in key order: the cell's keys, then ``figures`` of its rows (a
    dict of the other columns); typed as ``columns`` (name: dtype, in order) even with no
    row."""
    rows = [
        {**dict(zip(keys, cell_key, strict=True)), **figures(cell)}
        for cell_key, cell in frame.groupby(keys, sort=True)
    ]
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


# The fields of concord_stats.paired.paired_summary, and the seed of the draws, as a probe
# mart row carries them after the row's keys.
PAIRED_FIELDS = [
    ("n_messages", pa.int64()),
    ("ci_low", pa.float64()),
    ("ci_high", pa.float64()),
    ("confidence", pa.float64()),
    ("n_resamples", pa.int64()),
    ("p_value", pa.float64()),
    ("n_permutations", pa.int64()),
    ("permutation_exact", pa.bool_()),
    ("seed", pa.int64()),
]


#: The pandas dtype of each Arrow type a result declares: typed even with no row.
PANDAS_DTYPES = {pa.string(): "string", pa.float64(): "float64", pa.int64(): "int64",
                 pa.bool_(): "bool"}  # fmt: skip


def paired_summaries(frame: pd.DataFrame, keys: list[str], differences: str, passed_vars):
    """Per cell of ``keys``: the bootstrap interval of the mean of ``differences`` (one per
    message, in msg_id order) and its sign-flip p-value (concord_stats.paired), each cell
    with its own seed derived from the cell's keys. The table is typed even with no row,
    in pandas' own dtypes."""
    n_resamples, confidence, seed, n_permutations = dbt_vars(
        passed_vars,
        "bootstrap_resamples",
        "bootstrap_confidence",
        "bootstrap_seed",
        "probe_permutations",
    )
    schema = pa.schema([(k, pa.string()) for k in keys] + PAIRED_FIELDS)
    rows = []
    for cell_key, cell in frame.groupby(keys, sort=True):
        d = cell.sort_values("msg_id")[differences].to_numpy(dtype=float)
        summary = paired_summary(
            d,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, *cell_key),
            n_permutations=n_permutations,
        )
        rows.append({**dict(zip(keys, cell_key, strict=True)), **summary, "seed": seed})
    # pandas' own dtypes, not Arrow's: pandas-on-Spark, through which dbt-spark writes a
    # Python model's result, knows no ArrowDtype
    dtypes = {field.name: PANDAS_DTYPES[field.type] for field in schema}
    return pd.DataFrame(rows, columns=schema.names).astype(dtypes)


def ranking_cube(orders: pd.DataFrame) -> RankCube:
    """The rank cube R[rater, scenario, task] = position of the validated orders
    (``int_ranking_orders_validated``), as every ranking model reads them."""
    return rank_cube(
        orders["rater_id"],
        orders["scenario_id"],
        orders["task_index"],
        orders["position"],
        orders["n_tasks"],
    )


def model_pair_comparisons(
    counted: pd.DataFrame,
    keys: list[str],
    *,
    share: str,
    family: list[str],
    stream: str,
    passed_vars,
    carried: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Per row of ``counted``, two runs' 2 × 2 table on the same items (``keys``, then
    ``n_items``, ``n_both``, ``n_only_a``, ``n_only_b``; ``carried``: counts published as
    they are, after the keys): each run's share in % (columns
    ``<share>_a``, ``<share>_b``), their difference with a paired bootstrap interval and the
    exact McNemar p-value (concord_stats.consistency.paired_shares), each row with its own
    stream derived from the var bootstrap_seed, ``stream`` and its keys; ``p_value_holm``
    adjusts the p-values within each ``family`` (some of ``keys``). Typed, in the order of
    the marts that publish it, even with no row."""
    n_resamples, confidence, seed = dbt_vars(
        passed_vars, "bootstrap_resamples", "bootstrap_confidence", "bootstrap_seed"
    )
    columns = {
        **{key: "string" for key in keys},
        **{count: "int64" for count in carried},
        "n_items": "int64",
        f"{share}_a": "float64",
        f"{share}_b": "float64",
        "difference_pp": "float64",
        "ci_low": "float64",
        "ci_high": "float64",
        "n_only_a": "int64",
        "n_only_b": "int64",
        "p_value": "float64",
        "p_value_holm": "float64",
        "bootstrap_confidence": "float64",
        "bootstrap_resamples": "int64",
    }
    rows = []
    for pair in counted.sort_values(keys).itertuples(index=False):
        cell = [getattr(pair, k) for k in keys]
        compared = paired_shares(
            int(pair.n_items),
            int(pair.n_both),
            int(pair.n_only_a),
            int(pair.n_only_b),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=derive_seed(seed, stream, *cell),
        )
        rows.append(
            {
                **dict(zip(keys, cell, strict=True)),
                **{count: int(getattr(pair, count)) for count in carried},
                "n_items": int(pair.n_items),
                f"{share}_a": compared.pct_a,
                f"{share}_b": compared.pct_b,
                "difference_pp": compared.difference_pp,
                "ci_low": compared.ci_low,
                "ci_high": compared.ci_high,
                "n_only_a": int(pair.n_only_a),
                "n_only_b": int(pair.n_only_b),
                "p_value": compared.p_value,
                "bootstrap_confidence": confidence,
                "bootstrap_resamples": n_resamples,
            }
        )
    frame = pd.DataFrame(rows, columns=list(columns))
    for _, index in frame.groupby(family).groups.items():
        frame.loc[index, "p_value_holm"] = holm(frame.loc[index, "p_value"].to_numpy(float))
    return frame.astype(columns)
