"""The run command: what lands, and what is refused before anything lands."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from probe import runner
from probe.scoring import NonFiniteScoreError


def test_run_lands_a_complete_run(tmp_path, tiny_model_dirs):
    result = runner.run_probe(
        str(tiny_model_dirs["gpt2"]),
        device="cpu",
        run_id="r1",
        landing_dir=tmp_path,
        progress=False,
    )
    runs = pq.read_table(result.folder / "runs.parquet").to_pylist()
    scores = pq.read_table(result.folder / "scores.parquet").to_pandas()
    indices = pq.read_table(result.folder / "stimulus_indices.parquet").to_pandas()
    assert len(runs) == 1 and runs[0]["n_stimuli"] == 80 and runs[0]["dtype"] == "float32"
    assert runs[0]["candidate_set"][0] == " reliable"
    assert runs[0]["device"] == "cpu" and runs[0]["model"] == str(tiny_model_dirs["gpt2"])
    assert len(scores) == 800 and len(indices) == 80
    sums = scores.groupby("stimulus_id").prob_over_candidates.sum()
    np.testing.assert_allclose(sums, 1.0, atol=1e-12)
    assert (scores.token_logprobs.map(len) == scores.n_tokens).all()
    np.testing.assert_allclose(scores.token_logprobs.map(sum), scores.logprob, atol=1e-12)
    # same design, model and dtype: same config hash on a second run id
    again = runner.run_probe(
        str(tiny_model_dirs["gpt2"]),
        device="cpu",
        run_id="r2",
        landing_dir=tmp_path,
        progress=False,
        batch_size=3,
    )
    assert pq.read_table(again.folder / "runs.parquet")["config_hash"].to_pylist() == [
        runs[0]["config_hash"]
    ]


def test_nan_scores_are_refused_before_anything_lands(tmp_path, tiny_model_dirs, monkeypatch):
    real = runner.score_batched

    def poisoned(*args, **kwargs):
        scores, size = real(*args, **kwargs)
        scores[4][2] = np.array([np.nan, -1.0])
        return scores, size

    monkeypatch.setattr(runner, "score_batched", poisoned)
    with pytest.raises(NonFiniteScoreError, match="stimulus 5 .*nothing was landed"):
        runner.run_probe(
            str(tiny_model_dirs["gpt2"]),
            device="cpu",
            run_id="bad",
            landing_dir=tmp_path,
            progress=False,
        )
    assert not (tmp_path / "probe").exists()


def test_missing_model_is_a_clear_error(tmp_path):
    from probe.modeling import ModelLoadError

    with pytest.raises(ModelLoadError, match="never downloads"):
        runner.run_probe(
            "nobody/not-a-cached-model", device="cpu", landing_dir=tmp_path, progress=False
        )
