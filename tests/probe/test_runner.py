"""The run command: what lands, and what is refused before anything lands."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from probe import runner
from probe.scoring import NonFiniteScoreError


def run_tiny(tmp_path, tiny_model_dirs, run_id: str, **options) -> runner.RunResult:
    """The tiny GPT-2 on CPU, landed under ``tmp_path``, with no progress bar."""
    return runner.run_probe(
        str(tiny_model_dirs["gpt2"]),
        device="cpu",
        run_id=run_id,
        landing_dir=tmp_path,
        progress=False,
        **options,
    )


def test_run_lands_a_complete_run(tmp_path, tiny_model_dirs):
    result = run_tiny(tmp_path, tiny_model_dirs, "r1")
    runs = pq.read_table(result.folder / "runs.parquet").to_pylist()
    scores = pq.read_table(result.folder / "scores.parquet").to_pandas()
    stimuli = pq.read_table(result.folder / "stimuli.parquet").to_pandas()
    assert len(runs) == 1 and runs[0]["n_stimuli"] == 80 and runs[0]["dtype"] == "float32"
    assert runs[0]["candidate_set"][0] == " reliable"
    assert runs[0]["device"] == "cpu" and runs[0]["model"] == "gpt2 (random weights)"
    assert runs[0]["world_size"] == 1 and runs[0]["rank_requests"] == [80]
    assert runs[0]["attention"] == "shared prefix"
    assert len(scores) == 800 and len(stimuli) == 80
    # raw scores only: the softmax, indices and top choice are derived in dbt
    assert not {"ppl", "prob_over_candidates"} & set(scores.columns)
    assert (scores.token_logprobs.map(len) == scores.n_tokens).all()
    np.testing.assert_allclose(scores.token_logprobs.map(sum), scores.logprob, atol=1e-12)
    # same design, model and dtype: same config hash on a second run id
    again = run_tiny(tmp_path, tiny_model_dirs, "r2", batch_size=3)
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
        run_tiny(tmp_path, tiny_model_dirs, "bad")
    assert not (tmp_path / "probe").exists()


def test_missing_model_is_a_clear_error(tmp_path):
    from probe.modeling import ModelLoadError

    with pytest.raises(ModelLoadError, match="nor a hub id in the local") as error:
        runner.run_probe(
            "nobody/not-a-cached-model", device="cpu", landing_dir=tmp_path, progress=False
        )
    assert "never downloads" in error.value.hint
    with pytest.raises(ModelLoadError, match="no such folder"):
        runner.run_probe(str(tmp_path / "absent"), device="cpu", landing_dir=tmp_path)


def test_a_landed_run_id_is_refused_before_scoring(tmp_path, tiny_model_dirs, monkeypatch):
    from probe.landing import LandingError

    folder = tmp_path / "probe" / "run_id=taken"
    folder.mkdir(parents=True)
    for loader in ("load_tokenizer", "load_weights"):
        monkeypatch.setattr(runner, loader, lambda *a, **k: pytest.fail("model loaded"))
    with pytest.raises(LandingError, match="'taken' is already landed"):
        runner.run_probe(str(tiny_model_dirs["gpt2"]), run_id="taken", landing_dir=tmp_path)


def test_default_run_ids_never_collide():
    assert len({runner.default_run_id("m") for _ in range(50)}) == 50


def test_sweep_lands_one_run_per_model_and_resumes(tmp_path, tiny_model_dirs, monkeypatch):
    models = [str(tiny_model_dirs["gpt2"]), str(tiny_model_dirs["llama"])]
    options = {"device": "cpu", "landing_dir": tmp_path, "progress": False}
    first = runner.run_sweep(models[:1] + models[1:], run_id="s1", report=lambda _: None, **options)
    ids = [r.run_id for r in first]
    assert ids == runner.sweep_run_ids(models, "s1") and ids[0].startswith("s1--gpt2-")
    # an interrupted sweep: the second run is missing; resume scores only that one
    from probe.landing import remove_run

    remove_run(tmp_path, ids[1])
    scored = []
    real = runner.run_probe
    monkeypatch.setattr(
        runner, "run_probe", lambda model, **k: scored.append(model) or real(model, **k)
    )
    said = []
    again = runner.run_sweep(models, run_id="s1", resume=True, report=said.append, **options)
    assert scored == [models[1]] and [r.run_id for r in again] == [ids[1]]
    assert f"run {ids[0]}: already landed, skipped" in said
    # without --resume the same sweep is refused before anything is scored
    from probe.landing import LandingError

    with pytest.raises(LandingError, match="already landed"):
        runner.run_sweep(models, run_id="s1", report=said.append, **options)


def test_device_map_auto_scores_as_one_device(tmp_path, tiny_model_dirs):
    """--device-map auto (accelerate) on a CPU-only machine: the scorer still shares the
    prefix and lands the same numbers as a plain CPU load."""
    model = str(tiny_model_dirs["llama_bos"])
    mapped = runner.run_probe(
        model, device_map="auto", run_id="mapped", landing_dir=tmp_path, progress=False
    )
    plain = runner.run_probe(
        model, device="cpu", run_id="plain", landing_dir=tmp_path, progress=False
    )
    meta = pq.read_table(mapped.folder / "runs.parquet").to_pylist()[0]
    assert meta["device_map"] == "auto" and meta["attention"] == "shared prefix"
    got = pq.read_table(mapped.folder / "scores.parquet")["logprob"].to_numpy()
    want = pq.read_table(plain.folder / "scores.parquet")["logprob"].to_numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


def test_a_model_that_ignores_the_candidate_mask_falls_back(
    tmp_path, tiny_model_dirs, monkeypatch, capsys
):
    """Simulate attention that ignores the 4-D mask (candidates then see each other and the
    prompt's padding): the check on stimulus 1 catches it, says so, and scores one pass per
    candidate."""
    from probe import scoring

    real_mask = scoring._candidate_mask

    def unmasked(on, dtype):
        return torch.zeros_like(real_mask(on, dtype))

    model = str(tiny_model_dirs["gpt2"])
    plain = runner.run_probe(model, device="cpu", run_id="a", landing_dir=tmp_path, progress=False)
    monkeypatch.setattr(scoring, "_candidate_mask", unmasked)
    fallback = runner.run_probe(
        model, device="cpu", run_id="b", landing_dir=tmp_path, progress=False
    )
    assert "scoring one pass per candidate instead" in capsys.readouterr().err
    meta = pq.read_table(fallback.folder / "runs.parquet").to_pylist()[0]
    assert meta["attention"] == "one pass per candidate"
    got = pq.read_table(fallback.folder / "scores.parquet")["logprob"].to_numpy()
    want = pq.read_table(plain.folder / "scores.parquet")["logprob"].to_numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_runs_record_their_dtype(tmp_path, tiny_model_dirs, dtype):
    result = run_tiny(tmp_path, tiny_model_dirs, dtype, dtype=dtype)
    meta = pq.read_table(result.folder / "runs.parquet").to_pylist()[0]
    assert meta["dtype"] == dtype
    scores = pq.read_table(result.folder / "scores.parquet")["logprob"].to_numpy()
    assert np.isfinite(scores).all() and (scores < 0).all()


def test_out_of_memory_names_dtype_and_memory(tiny_model_dirs):
    from probe.modeling import count_parameters, load_model, out_of_memory

    folder = tiny_model_dirs["gpt2"]
    n_params = count_parameters(folder)  # from the safetensors header, no weight loaded
    model, _ = load_model(str(folder), torch.device("cpu"), torch.float32)
    assert n_params == model.num_parameters()
    error = out_of_memory(str(folder), torch.bfloat16, "cuda:0", RuntimeError("CUDA out of memory"))
    assert f"need {n_params * 2 / 2**30:.1f} GiB in bfloat16" in error.message
    assert "--device-map auto" in error.hint
