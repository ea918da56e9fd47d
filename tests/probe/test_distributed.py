"""torchrun: two CPU ranks (gloo) land exactly what one process lands, once; the MCQ items
split over two ranks score as in one process; a rank that fails or dies leaves nothing
landed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch
from mcq_project import MCQ_ITEMS

from probe import runner

HERE = Path(__file__).resolve().parent


def _torchrun(
    args: list[str], tmp_path: Path, script: list[str], **env
) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        *script,
        *args,
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=HERE.parent.parent,
        env={**os.environ, "OMP_NUM_THREADS": "1", **env},
    )


def _common(model: Path, landing: Path) -> list[str]:
    return ["run", "--model", str(model), "--device", "cpu", "--landing-dir", str(landing),
            "--no-progress"]  # fmt: skip


def test_two_ranks_land_what_one_process_lands(tmp_path, tiny_model_dirs):
    model = tiny_model_dirs["llama_bos"]
    done = _torchrun([*_common(model, tmp_path), "--run-id", "two"], tmp_path, ["-m", "probe"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("run two:") == 1  # only rank 0 reports
    one = runner.run_probe(
        str(model), device="cpu", run_id="one", landing_dir=tmp_path, progress=False
    )
    two = tmp_path / "probe" / "run_id=two"
    assert sorted(p.name for p in (tmp_path / "probe").iterdir()) == ["run_id=one", "run_id=two"]
    got = pq.read_table(two / "scores.parquet").to_pandas()
    want = pq.read_table(one.folder / "scores.parquet").to_pandas()
    assert (
        got[["stimulus_id", "candidate_id"]].values == want[["stimulus_id", "candidate_id"]].values
    ).all()
    # each rank batches other stimuli, so a batch shares another prefix length: the same
    # numbers up to float32 rounding of the forward pass (~1e-6 nats)
    np.testing.assert_allclose(got.logprob, want.logprob, rtol=0, atol=1e-5)
    np.testing.assert_allclose(
        np.concatenate(got.token_logprobs), np.concatenate(want.token_logprobs), rtol=0, atol=1e-5
    )
    assert (got.token_ids.map(list) == want.token_ids.map(list)).all()
    run = pq.read_table(two / "runs.parquet").to_pylist()[0]
    assert run["world_size"] == 2 and sum(run["rank_requests"]) == 80
    tokens = run["rank_tokens"]
    assert abs(tokens[0] - tokens[1]) <= max(tokens) * 0.02  # balanced by token count
    stimuli = pq.read_table(two / "stimuli.parquet").to_pandas()
    assert stimuli.stimulus_id.tolist() == list(range(1, 81))


def _samples(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("samples_*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def test_mcq_requests_shared_over_two_ranks_score_as_in_one_process(tiny_model_dirs):
    """The multiple-choice items go through the name probe's shares (runner.score_inputs,
    under torchrun in the test above): items of two and four options, split over two ranks
    by token count, score what one process scores."""
    from probe.modeling import load_model
    from probe.scoring import build_requests, score_batched, shard

    model, tokenizer = load_model(str(tiny_model_dirs["llama"]), torch.device("cpu"), torch.float32)
    rows = [row for rows in MCQ_ITEMS.values() for row in rows]
    prompts = [f"{row[1]}\nAnswer:" for row in rows]
    candidates = [[" " + text for text in row[2:] if text] for row in rows]
    requests = build_requests(tokenizer, prompts, candidates)
    shares = shard(requests, 2)
    assert sorted(len(s) for s in shares) == [2, 2]
    by_rank = {
        r.index: scores
        for share in shares
        for r, scores in zip(
            sorted(share, key=lambda r: r.index), score_batched(model, share)[0], strict=True
        )
    }
    whole, _ = score_batched(model, requests)
    for request, scores in zip(requests, whole, strict=True):
        assert [len(c) for c in by_rank[request.index]] == [len(c) for c in scores]
        for got, want in zip(by_rank[request.index], scores, strict=True):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("mode", ["raise", "die"])
def test_a_failed_rank_leaves_nothing_landed(tmp_path, tiny_model_dirs, mode):
    model = tiny_model_dirs["gpt2"]
    done = _torchrun(
        [*_common(model, tmp_path), "--run-id", "broken"],
        tmp_path,
        [str(HERE / "dist_worker.py")],
        PROBE_TEST_FAIL=mode,
    )
    assert done.returncode != 0
    if mode == "raise":  # the failing rank's reason reaches rank 0's one-line message
        # (torchrun then prints its own summary of the failed workers)
        assert "error: rank 1: simulated failure while scoring; nothing was landed" in done.stderr
    landed = list((tmp_path / "probe").glob("run_id=*")) if (tmp_path / "probe").exists() else []
    assert landed == []
    assert not list(tmp_path.rglob("*.parquet"))
