"""Generate the synthetic ordered-task sample: seeds/ranking/ranking_rankings.csv.

Six LLM raters (llm_a .. llm_f) order the five tasks of each of 150 scenarios. Every
scenario has a hidden reference order; each rater's order is a draw from a Mallows model
around it, P(order) proportional to phi ** d(order, reference) with d the Kendall distance
(Mallows 1957), sampled by the repeated insertion model (Doignon, Pekec & Regenwetter 2004).
The dispersion phi is rater-specific (small phi: close to the reference, phi = 1: uniform
noise), and every tenth scenario (scn_010, scn_020, ...) is *contested*: there each rater's
phi is raised to phi ** (1 / 4), closer to 1. The expected pattern is therefore known:

* pairs of low-phi raters agree most (llm_a with llm_b highest), llm_f agrees with nobody
  (mean tau-b ~ 0); the rater summary ranks llm_a first and llm_f last;
* contested scenarios have the lowest mean tau-b against the consensus and the lowest W.

``--expected`` prints the exact expected tau-b of each rater pair in an ordinary scenario,
computed by enumerating all 5! orders. The output is fully determined by SEED.

Usage: python scripts/generate_ranking_sample.py [--out PATH] [--expected]
"""

from __future__ import annotations

import argparse
import csv
import itertools
from pathlib import Path

import numpy as np

SEED = 20250505
RATER_DISPERSION = {
    "llm_a": 0.15,
    "llm_b": 0.25,
    "llm_c": 0.40,
    "llm_d": 0.55,
    "llm_e": 0.75,
    "llm_f": 1.00,
}
N_SCENARIOS = 150
N_TASKS = 5
CONTESTED_EVERY = 10  # scenarios scn_010, scn_020, ... are contested
CONTESTED_POWER = 0.25  # phi -> phi ** 0.25 there
OUT = Path(__file__).resolve().parents[1] / "seeds" / "ranking" / "ranking_rankings.csv"


def sample_mallows(rng: np.random.Generator, reference: list[str], phi: float) -> list[str]:
    """One Mallows(reference, phi) draw by repeated insertion.

    The i-th reference item (0-based) is inserted at slot j in 0..i of the order built so
    far with probability proportional to phi ** (i - j): inserting it before k of the
    earlier items adds k discordant pairs.
    """
    order: list[str] = []
    for i, item in enumerate(reference):
        weights = phi ** (i - np.arange(i + 1))
        slot = rng.choice(i + 1, p=weights / weights.sum())
        order.insert(int(slot), item)
    return order


def scenario_dispersion(phi: float, scenario_number: int) -> float:
    contested = scenario_number % CONTESTED_EVERY == 0
    return phi**CONTESTED_POWER if contested else phi


def generate(seed: int = SEED) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    # Arbitrary task ids, distinct across scenarios: nothing assumes tasks are 1..5.
    codes = rng.choice(10_000, size=N_SCENARIOS * N_TASKS, replace=False)
    rows = []
    scenarios = []
    for q in range(N_SCENARIOS):
        tasks = [f"t{code:04d}" for code in codes[q * N_TASKS : (q + 1) * N_TASKS]]
        reference = list(rng.permutation(tasks))
        scenarios.append((q + 1, f"scn_{q + 1:03d}", reference))
    for rater_id, phi in RATER_DISPERSION.items():
        for number, scenario_id, reference in scenarios:
            order = sample_mallows(rng, reference, scenario_dispersion(phi, number))
            for position, task_id in enumerate(order, start=1):
                rows.append(
                    {
                        "rater_id": rater_id,
                        "scenario_id": scenario_id,
                        "position": position,
                        "task_id": task_id,
                    }
                )
    return rows


def expected_pair_tau(phi_x: float, phi_y: float, n: int = N_TASKS) -> float:
    """E[tau_b] between independent Mallows draws around the same reference (exact)."""
    perms = np.array(list(itertools.permutations(range(n))))
    ranks = np.argsort(perms, axis=1)
    a, b = np.triu_indices(n, k=1)
    signs = np.sign(ranks[:, b] - ranks[:, a])
    distance = (signs < 0).sum(axis=1)  # discordant pairs with the identity
    taus = signs @ signs.T / len(a)

    def probabilities(phi: float) -> np.ndarray:
        weights = phi ** distance.astype(float)
        return weights / weights.sum()

    return float(probabilities(phi_x) @ taus @ probabilities(phi_y))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--expected", action="store_true", help="print expected pair taus")
    args = parser.parse_args()
    if args.expected:
        names = list(RATER_DISPERSION)
        print("expected tau-b, ordinary scenario:", "  ".join(names))
        for x in names:
            # A rater with itself is one draw, not two: tau-b is 1 on the diagonal.
            row = [
                1.0 if x == y else expected_pair_tau(RATER_DISPERSION[x], RATER_DISPERSION[y])
                for y in names
            ]
            print(x, " ".join(f"{v:6.3f}" for v in row))
        return
    rows = generate()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(
            handle, fieldnames=["rater_id", "scenario_id", "position", "task_id"]
        )
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
