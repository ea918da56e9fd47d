"""A probe run's landing tables without a model: random finite scores over a design, built
by the runner's own row code so that they have exactly the landing schema."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pyarrow as pa


def fake_run_tables(design, run_id: str, seed: int = 0) -> dict[str, pa.Table]:
    """The tables of a probe run over ``design`` with random (finite) token log-probs, built
    by the runner's own row code, so that they have exactly the landing schema."""
    from probe.landing import to_table
    from probe.runner import build_tables

    rng = np.random.default_rng(seed)
    n_candidates = len(design.candidates)
    token_lps = [
        [-rng.uniform(0.5, 6.0, size=2) for _ in range(n_candidates)] for _ in design.stimuli
    ]
    requests = [
        SimpleNamespace(candidate_ids=[[7, 8] for _ in range(n_candidates)], prompt_ids=[1, 2, 3])
        for _ in design.stimuli
    ]
    tables = build_tables(run_id, design, requests, token_lps)
    now = pa.scalar(0, pa.timestamp("us", tz="UTC")).as_py()
    run = {
        "run_id": run_id,
        "model": "fake",
        "config_hash": "0" * 16,
        "design_hash": design.fingerprint()[:16],
        "tokenizer": "fake",
        "dtype": "float32",
        "device": "cpu",
        "device_map": None,
        "revision": None,
        "attention": "packed",
        "batch_size": 1,
        "world_size": 1,
        "rank_requests": [len(design.stimuli)],
        "rank_tokens": [0],
        "template_id": design.template_id,
        "prompt_template": design.template,
        "candidate_set": [c.text for c in design.candidates],
        "candidate_groups": [c.group for c in design.candidates],
        "n_stimuli": len(design.stimuli),
        "n_candidates": n_candidates,
        "started_at": now,
        "finished_at": now,
        "scoring_seconds": 0.0,
        "torch_version": "n/a",
        "transformers_version": "n/a",
    }
    return {"runs": to_table("runs", [run]), **tables}
