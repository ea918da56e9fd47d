"""Kendall tau-b and W (concord_stats.kendall) against scipy and published identities."""

from __future__ import annotations

import itertools
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from python_models import python_model
from scipy import stats

from concord_io.project import PROJECT_ROOT as ROOT
from concord_stats.bootstrap import bootstrap_indices, make_rng
from concord_stats.kendall import (
    kendall_w,
    normalised_pair_signs,
    orders_to_ranks,
    pairwise_mean_tau_b,
    pairwise_tau_b,
    pairwise_tau_b_interval,
    rank_array,
    tau_b,
)

SAMPLE = ROOT / "seeds" / "ranking" / "ranking_rankings.csv"


def scipy_tau(x, y) -> float:
    return stats.kendalltau(x, y, variant="b").statistic


def sample_ranks() -> tuple[np.ndarray, list[str]]:
    """The shipped sample as a (raters, scenarios, tasks) rank array, built here with pandas."""
    frame = pd.read_csv(SAMPLE, dtype=str)
    frame["position"] = frame["position"].astype(int)
    frame["task_code"] = frame.groupby("scenario_id")["task_id"].rank(method="dense") - 1
    raters = sorted(frame["rater_id"].unique())
    scenarios = sorted(frame["scenario_id"].unique())
    ranks = np.full((len(raters), len(scenarios), 5), np.nan)
    for row in frame.itertuples():
        ranks[raters.index(row.rater_id), scenarios.index(row.scenario_id), int(row.task_code)] = (
            row.position
        )
    return ranks, raters


# --- orders and ranks ------------------------------------------------------------------


def test_orders_to_ranks_document_example():
    # Document: R = (3, 2, 4, 1, 5) means task 3 first, task 2 second ... (1-based ids).
    assert orders_to_ranks(np.array([3, 2, 4, 1, 5]) - 1).tolist() == [4, 2, 1, 3, 5]


def test_orders_to_ranks_is_inverse_permutation():
    rng = np.random.default_rng(1)
    orders = np.array([rng.permutation(6) for _ in range(50)])
    ranks = orders_to_ranks(orders)
    assert (np.argsort(orders, axis=1) + 1 == ranks).all()
    assert (np.take_along_axis(ranks, orders, axis=1) == np.arange(1, 7)).all()


@pytest.mark.parametrize(
    "order", [[0, 1, 1, 3], [0, 1, 2, 4], [0, 1, 2, -1]], ids=["repeat", "gap", "negative"]
)
def test_orders_to_ranks_rejects_non_permutations(order):
    with pytest.raises(ValueError, match="not a permutation"):
        orders_to_ranks(np.array([[0, 1, 2, 3], order]))


def test_orders_to_ranks_rejects_non_integer():
    with pytest.raises(ValueError, match="integer"):
        orders_to_ranks(np.array([0.0, 1.0]))


def test_tau_on_orders_differs_from_tau_on_ranks():
    # Known pair: orders (3,2,4,1,5) and (2,3,1,5,4) (1-based task ids). On ranks tau-b is
    # +0.4 (7 concordant, 3 discordant task pairs); correlating the order vectors instead
    # gives -0.4: the sign flips.
    order_x = np.array([3, 2, 4, 1, 5]) - 1
    order_y = np.array([2, 3, 1, 5, 4]) - 1
    on_ranks = scipy_tau(orders_to_ranks(order_x), orders_to_ranks(order_y))
    on_orders = scipy_tau(order_x, order_y)
    assert on_ranks == pytest.approx(0.4)
    assert on_orders == pytest.approx(-0.4)
    assert tau_b(orders_to_ranks(order_x), orders_to_ranks(order_y)) == pytest.approx(0.4)


def test_rank_array_matches_orders_to_ranks_and_marks_missing():
    rng = np.random.default_rng(2)
    orders = np.array([[rng.permutation(4) for _ in range(3)] for _ in range(2)])
    rater, scenario, position = np.meshgrid(range(2), range(3), range(4), indexing="ij")
    keep = ~((rater == 1) & (scenario == 2))  # rater 1 did not rank scenario 2
    ranks = rank_array(
        rater[keep], scenario[keep], orders[keep], position[keep] + 1, shape=(2, 3, 4)
    )
    expected = orders_to_ranks(orders).astype(float)
    expected[1, 2] = np.nan
    np.testing.assert_array_equal(ranks, expected)


def test_rank_array_rejects_repeated_task_and_gap():
    with pytest.raises(ValueError, match="twice"):
        rank_array([0, 0, 0], [0, 0, 0], [0, 1, 1], [1, 2, 3], shape=(1, 1, 3))
    with pytest.raises(ValueError, match="not 1..3"):
        rank_array([0, 0, 0], [0, 0, 0], [0, 1, 2], [1, 2, 4], shape=(1, 1, 3))
    with pytest.raises(ValueError, match="not 1..3"):
        rank_array([0, 0, 0], [0, 0, 0], [0, 1, 2], [1, 1, 2], shape=(1, 1, 3))


# --- tau-b ----------------------------------------------------------------------------


def test_tau_b_matches_scipy_on_every_pair_of_the_sample():
    ranks, _ = sample_ranks()
    taus = pairwise_tau_b(ranks)
    n_raters, n_scenarios = ranks.shape[:2]
    expected = np.empty_like(taus)
    for i, j in itertools.product(range(n_raters), repeat=2):
        for q in range(n_scenarios):
            expected[i, j, q] = scipy_tau(ranks[i, q], ranks[j, q])
    np.testing.assert_allclose(taus, expected, atol=1e-12)
    np.testing.assert_allclose(tau_b(ranks[:, None], ranks[None, :]), expected, atol=1e-12)
    mean, count = pairwise_mean_tau_b(ranks, chunk_scenarios=40)
    np.testing.assert_allclose(mean, expected.mean(axis=2), atol=1e-12)
    assert (count == n_scenarios).all()
    assert (np.diag(mean) == 1.0).all()  # exact, not 0.9999999999999999


def test_tau_b_matches_scipy_with_ties():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=(400, 6)).astype(float)
    y = rng.integers(0, 4, size=(400, 6)).astype(float)
    ours = tau_b(x, y)
    with np.errstate(all="ignore"):
        expected = np.array([scipy_tau(a, b) for a, b in zip(x, y, strict=True)])
    np.testing.assert_allclose(ours, expected, atol=1e-12, equal_nan=True)
    assert np.isnan(expected).any()  # some rows are all tied: both give NaN


def test_tau_b_all_tied_or_missing_is_nan():
    assert np.isnan(tau_b([2, 2, 2], [1, 2, 3]))
    assert np.isnan(tau_b([np.nan] * 3, [1, 2, 3]))
    assert np.isnan(tau_b([1.0], [1.0]))


def test_tau_b_ignores_absent_tasks():
    x = np.array([1, 2, np.nan, 3, 4])
    y = np.array([2, 1, 3, np.nan, 4])
    keep = [0, 1, 4]
    assert tau_b(x, y) == pytest.approx(scipy_tau(x[keep], y[keep]))


def test_normalised_signs_dot_product_is_tau_b():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, size=(100, 5)).astype(float)
    y = rng.integers(0, 4, size=(100, 5)).astype(float)
    (ux, dx), (uy, dy) = normalised_pair_signs(x), normalised_pair_signs(y)
    dot = np.where(dx & dy, (ux * uy).sum(axis=1), np.nan)
    np.testing.assert_allclose(dot, tau_b(x, y), atol=1e-12, equal_nan=True)


def test_pairwise_mean_matches_scipy_loop_with_missing_scenarios_and_chunks():
    rng = np.random.default_rng(5)
    orders = np.array([[rng.permutation(5) for _ in range(40)] for _ in range(4)])
    ranks = orders_to_ranks(orders).astype(float)
    ranks[0, :5] = np.nan  # rater 0 missed five scenarios
    ranks[2, 10] = 3.0  # rater 2 tied everything in scenario 10
    ranks[:, 20:, 4] = np.nan  # scenarios 20.. have four tasks only
    for chunk in (1, 7, 1000):
        mean, count = pairwise_mean_tau_b(ranks, chunk_scenarios=chunk)
        for i, j in itertools.product(range(4), repeat=2):
            values = []
            for q in range(40):
                x, y = ranks[i, q], ranks[j, q]
                if np.isnan(x).all() or np.isnan(y).all():
                    values.append(np.nan)  # a rater missed the scenario
                    continue
                with np.errstate(all="ignore"):
                    values.append(scipy_tau(x[~np.isnan(x)], y[~np.isnan(y)]))
            assert count[i, j] == np.count_nonzero(~np.isnan(values))
            assert mean[i, j] == pytest.approx(np.nanmean(values), abs=1e-12)
    assert count[0, 1] == 35 and count[2, 1] == 39 and count[2, 2] == 39


def test_pairwise_rejects_different_task_sets():
    ranks = np.array([[[1.0, 2.0, 3.0]], [[1.0, 2.0, np.nan]]])
    with pytest.raises(ValueError, match="different task set"):
        pairwise_mean_tau_b(ranks)


def reference_interval(taus, n_resamples, confidence, seed):
    """Straight loop: resample scenario indices, each pair's mean over its defined taus."""
    n_raters, _, n_scenarios = taus.shape
    draws = bootstrap_indices(make_rng(seed), n_scenarios, n_resamples)
    alpha = (1 - confidence) / 2
    low = np.full((n_raters, n_raters), np.nan)
    high = np.full((n_raters, n_raters), np.nan)
    for i, j in itertools.product(range(n_raters), repeat=2):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.array([np.nanmean(taus[i, j][row]) for row in draws])
        if np.isnan(means).all():
            continue
        low[i, j], high[i, j] = np.nanquantile(means, [alpha, 1 - alpha])
    return low, high


def test_pairwise_interval_equals_a_plain_resampling_loop():
    ranks, _ = sample_ranks()
    ranks = ranks[:, :60].copy()
    ranks[0, :10] = np.nan  # rater 0 missed ten scenarios
    ranks[5, 40:] = np.nan  # rater 5 ranked only the first forty
    ranks[0, 10:40] = np.nan  # raters 0 and 5 share no scenario
    taus = pairwise_tau_b(ranks)
    interval = pairwise_tau_b_interval(taus, 400, 0.9, seed=11)
    low, high = interval.ci_low, interval.ci_high
    expected_low, expected_high = reference_interval(taus, 400, 0.9, seed=11)
    np.testing.assert_allclose(low, expected_low, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(high, expected_high, atol=1e-12, equal_nan=True)
    assert np.isnan(low[0, 5]) and np.isnan(high[5, 0])
    np.testing.assert_array_equal(low, low.T)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(taus, axis=2)
    ok = ~np.isnan(mean)
    assert (low[ok] <= mean[ok] + 1e-12).all() and (mean[ok] <= high[ok] + 1e-12).all()
    assert low[3, 3] == 1.0 and high[3, 3] == 1.0
    # Blocks of replicates draw the same stream: block size changes nothing but rounding.
    small_blocks = pairwise_tau_b_interval(taus, 400, 0.9, seed=11, max_cells=600)
    np.testing.assert_allclose(small_blocks.ci_low, low, atol=1e-12, equal_nan=True)


# --- Kendall's W --------------------------------------------------------------------------


def friedman_w(block: np.ndarray) -> float:
    m, n = block.shape
    return stats.friedmanchisquare(*block.T).statistic / (m * (n - 1))


def test_w_equals_friedman_without_and_with_ties():
    rng = np.random.default_rng(6)
    strict = orders_to_ranks(np.array([[rng.permutation(5) for _ in range(6)] for _ in range(30)]))
    tied = rng.integers(1, 4, size=(30, 6, 5)).astype(float)
    for blocks in (strict, tied):
        expected = [friedman_w(block) for block in blocks]
        np.testing.assert_allclose(kendall_w(blocks), expected, atol=1e-12)


def test_w_equals_mean_spearman_identity():
    rng = np.random.default_rng(7)
    for m in (2, 3, 6):
        block = orders_to_ranks(np.array([rng.permutation(5) for _ in range(m)])).astype(float)
        rhos = [stats.spearmanr(a, b).statistic for a, b in itertools.combinations(block, 2)]
        w = kendall_w(block)
        assert np.mean(rhos) == pytest.approx((m * w - 1) / (m - 1), abs=1e-12)


def test_w_perfect_agreement_and_missing_raters():
    block = np.tile([3.0, 1.0, 2.0, 4.0], (4, 1))
    assert kendall_w(block) == pytest.approx(1.0)
    rng = np.random.default_rng(8)
    block = orders_to_ranks(np.array([rng.permutation(5) for _ in range(5)])).astype(float)
    with_missing = np.vstack([block, np.full((2, 5), np.nan)])
    assert kendall_w(with_missing) == pytest.approx(friedman_w(block))


def test_w_degenerate_cases():
    assert np.isnan(kendall_w(np.array([[1.0, 2.0, 3.0]])))  # one rater
    assert np.isnan(kendall_w(np.array([[1.0], [1.0]])))  # one object
    assert np.isnan(kendall_w(np.full((3, 4), 2.0)))  # everything tied
    with pytest.raises(ValueError, match="some objects but not all"):
        kendall_w(np.array([[1.0, 2.0, np.nan], [1.0, 2.0, 3.0]]))


# --- properties -----------------------------------------------------------------------

rankings = st.integers(min_value=2, max_value=7).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.permutations(list(range(n))),
    )
)


@settings(max_examples=200, deadline=None)
@given(rankings)
def test_tau_b_properties(case):
    x, y, relabel = (np.array(v, dtype=float) for v in case)
    relabel = relabel.astype(int)
    forward, backward = tau_b(x, y), tau_b(y, x)
    assert np.array_equal(forward, backward, equal_nan=True)  # symmetry
    if not np.isnan(forward):
        assert -1.0 <= forward <= 1.0
        with np.errstate(all="ignore"):
            assert forward == pytest.approx(scipy_tau(x, y), abs=1e-12)
    # Relabelling tasks (the same permutation of both vectors) changes nothing.
    assert np.array_equal(tau_b(x[relabel], y[relabel]), forward, equal_nan=True)
    if len(np.unique(x)) > 1:
        assert tau_b(x, x) == 1.0
        assert tau_b(x, -x) == -1.0
    else:
        assert np.isnan(tau_b(x, x))


# --- the dbt Python models use ranks ----------------------------------------------------


class FakeDbt:
    """Just enough of dbt's Python-model API: ref(name).df() and config.get(key)."""

    def __init__(self, refs: dict[str, pd.DataFrame], config: dict[str, object]):
        self.refs = refs
        self.config = SimpleNamespace(get=config.get)

    def ref(self, name: str):
        return SimpleNamespace(df=self.refs[name].copy)


def run_model(name: str, refs: dict[str, pd.DataFrame], **config) -> pd.DataFrame:
    return python_model(name).model(FakeDbt(refs, config), session=None)


def validated_orders(orders: dict[tuple[str, str], list[str]]) -> pd.DataFrame:
    """int_ranking_orders_validated rows for {(rater, scenario): [task in position 1, ...]}."""
    rows = []
    for (rater, scenario), order in orders.items():
        tasks = sorted(order)
        for position, task in enumerate(order, start=1):
            rows.append((rater, scenario, position, task, tasks.index(task), len(order)))
    columns = ["rater_id", "scenario_id", "position", "task_id", "task_index", "n_tasks"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["source_row"] = range(1, len(frame) + 1)
    return frame


def test_python_models_correlate_ranks_not_orders():
    # Task ids whose sorted order differs from 1..5: ids are labels, never ranks.
    ids = {1: "kappa", 2: "delta", 3: "omega", 4: "alpha", 5: "sigma"}
    x = [ids[t] for t in (3, 2, 4, 1, 5)]
    y = [ids[t] for t in (2, 3, 1, 5, 4)]
    z = [ids[t] for t in (1, 2, 3, 4, 5)]
    orders = validated_orders({("x", "s1"): x, ("y", "s1"): y, ("z", "s1"): z})
    pairs = run_model(
        "int_ranking_pair_taus_averaged",
        {"int_ranking_orders_validated": orders},
        vars={"bootstrap_resamples": 200, "bootstrap_confidence": 0.95, "bootstrap_seed": 1},
    ).set_index(["rater_id", "other_rater_id"])
    # tau-b on ranks is +0.4 (see test_tau_on_orders_differs_from_tau_on_ranks); on the
    # orders it would be -0.4.
    assert pairs.loc[("x", "y"), "mean_tau_b"] == pytest.approx(0.4)
    assert pairs.loc[("y", "x"), "mean_tau_b"] == pytest.approx(0.4)
    assert pairs.loc[("x", "x"), "mean_tau_b"] == 1.0
    assert (pairs["n_scenarios"] == 1).all()

    ranks = {
        name: orders_to_ranks(np.array([[3, 2, 4, 1, 5], [2, 3, 1, 5, 4], [1, 2, 3, 4, 5]]) - 1)[k]
        for k, name in enumerate("xyz")
    }
    # Re-index ranks from document task numbers to the models' task_index (sorted ids).
    by_index = sorted(ids, key=ids.get)
    block = np.array([[ranks[r][t - 1] for t in by_index] for r in "xyz"], dtype=float)
    concordance = run_model(
        "int_ranking_scenario_concordance_computed", {"int_ranking_orders_validated": orders}
    )
    assert concordance["kendall_w"].iloc[0] == pytest.approx(friedman_w(block))

    consensus = run_model("int_ranking_consensus_built", {"int_ranking_orders_validated": orders})
    taus = run_model(
        "int_ranking_consensus_taus_computed",
        {"int_ranking_orders_validated": orders, "int_ranking_consensus_built": consensus},
    ).set_index(["rater_id", "method"])["tau_b"]
    for method, group in consensus.groupby("method"):
        order = group.sort_values("position")["task_id"].tolist()
        consensus_ranks = [order.index(ids[t]) + 1 for t in range(1, 6)]
        for rater in "xyz":
            assert taus[(rater, method)] == pytest.approx(scipy_tau(ranks[rater], consensus_ranks))


def test_consensus_model_flags_heuristic_kemeny_beyond_exact_size():
    rng = np.random.default_rng(9)
    tasks9 = [f"t{k}" for k in range(9)]
    tasks4 = ["b", "a", "d", "c"]
    orders = validated_orders(
        {
            **{(r, "big"): list(rng.permutation(tasks9)) for r in "xyz"},
            **{(r, "small"): list(rng.permutation(tasks4)) for r in "xyz"},
        }
    )
    consensus = run_model("int_ranking_consensus_built", {"int_ranking_orders_validated": orders})
    flags = consensus.groupby(["scenario_id", "method"]).is_exact.all()
    assert not flags[("big", "kemeny")]
    assert flags[("big", "borda")] and flags[("small", "kemeny")]
    for (scenario, _), group in consensus.groupby(["scenario_id", "method"]):
        expected = tasks9 if scenario == "big" else tasks4
        assert sorted(group.task_id) == sorted(expected)
        assert sorted(group.position) == list(range(1, len(expected) + 1))


def test_rank_cube_labels_rows_and_refuses_no_rows():
    from concord_stats.kendall import NO_VALID_RANKING, rank_cube

    # rater "b" ranks scenario "q2" (tasks 0, 1) and "a" ranks it reversed; "a" also "q1"
    cube = rank_cube(
        ["b", "b", "a", "a", "a", "a"],
        ["q2", "q2", "q2", "q2", "q1", "q1"],
        [0, 1, 0, 1, 1, 0],
        [1, 2, 2, 1, 1, 2],
        [2, 2, 2, 2, 2, 2],
    )
    assert list(cube.raters) == ["a", "b"] and list(cube.scenarios) == ["q1", "q2"]
    np.testing.assert_array_equal(cube.rater_index, [1, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(cube.ranks[0, 1], [2, 1])  # a on q2: task 0 second
    np.testing.assert_array_equal(cube.ranks[1, 1], [1, 2])
    assert np.isnan(cube.ranks[1, 0]).all()  # b did not rank q1
    with pytest.raises(ValueError, match=NO_VALID_RANKING[:20]):
        rank_cube([], [], [], [], [])
