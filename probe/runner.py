"""One probe run: design -> requests -> batched scores -> landed Parquet files."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import torch
import transformers
from tqdm import tqdm

from probe.landing import check_run_id, default_landing_dir, land_run, to_table
from probe.modeling import describe_tokenizer, dtype_name, load_model, resolve_device, resolve_dtype
from probe.scoring import NonFiniteScoreError, build_requests, score_batched, summarise
from probe.stimuli import DEFAULT_SEEDS_DIR, ProbeDesign, load_design


@dataclass(frozen=True)
class RunResult:
    run_id: str
    folder: Path
    n_stimuli: int
    n_candidates: int
    batch_size: int
    scoring_seconds: float


def config_hash(model: str, dtype: str, tokenizer: str, design: ProbeDesign) -> str:
    """What determines the scores: model, dtype, tokenizer and the design (not the device,
    which changes them only within floating-point noise, nor the batch size)."""
    payload = {
        "model": model,
        "dtype": dtype,
        "tokenizer": tokenizer,
        "design": design.fingerprint(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def default_run_id(model: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{hashlib.sha256(model.encode()).hexdigest()[:8]}"


def _rows(run_id: str, design: ProbeDesign, requests, token_lps):
    scores, indices = [], []
    for stimulus, request, lps in zip(design.stimuli, requests, token_lps, strict=True):
        try:
            summary = summarise(lps)
        except NonFiniteScoreError as error:
            raise NonFiniteScoreError(
                f"stimulus {stimulus.stimulus_id} (msg {stimulus.msg_id}, "
                f"{stimulus.sender_name}): {error}; nothing was landed"
            ) from error
        for candidate, tail, score in zip(
            design.candidates, request.candidate_ids, summary, strict=True
        ):
            scores.append(
                {
                    "run_id": run_id,
                    "stimulus_id": stimulus.stimulus_id,
                    "msg_id": stimulus.msg_id,
                    "group_name": stimulus.group_name,
                    "sender_name": stimulus.sender_name,
                    "stimulus": stimulus.text,
                    "candidate_id": candidate.candidate_id,
                    "candidate": candidate.text,
                    "candidate_group": candidate.group,
                    "logprob": score.logprob,
                    "n_tokens": score.n_tokens,
                    "ppl": score.ppl,
                    "prob_over_candidates": score.prob_over_candidates,
                    "token_logprobs": list(score.token_logprobs),
                    "token_ids": list(tail),
                }
            )
        rel = sum(
            s.prob_over_candidates
            for c, s in zip(design.candidates, summary, strict=True)
            if c.group == "reliable_like"
        )
        unrel = sum(
            s.prob_over_candidates
            for c, s in zip(design.candidates, summary, strict=True)
            if c.group == "unreliable_like"
        )
        # top choice: highest log-prob, ties to the lower candidate_id (first in the seed)
        top = max(range(len(summary)), key=lambda k: (summary[k].logprob, -k))
        indices.append(
            {
                "run_id": run_id,
                "stimulus_id": stimulus.stimulus_id,
                "msg_id": stimulus.msg_id,
                "group_name": stimulus.group_name,
                "sender_name": stimulus.sender_name,
                "stimulus": stimulus.text,
                "prompt": stimulus.prompt,
                "n_prompt_tokens": len(request.prompt_ids),
                "index_reliable_like": rel,
                "index_unreliable_like": unrel,
                "index_rel_minus_unrel": rel - unrel,
                "top_choice": design.candidates[top].text,
                "p_top": summary[top].prob_over_candidates,
            }
        )
    return scores, indices


def run_probe(
    model: str,
    *,
    device: str = "auto",
    dtype: str = "float32",
    batch_size: int | str = "auto",
    run_id: str | None = None,
    landing_dir: Path | str | None = None,
    seeds_dir: Path | str = DEFAULT_SEEDS_DIR,
    template_id: str = "reference",
    progress: bool = True,
) -> RunResult:
    """Score every stimulus of the seed design with ``model`` and land the run."""
    started = datetime.now(UTC)
    model_ref = str(Path(model).resolve()) if Path(model).is_dir() else model
    run_id = check_run_id(run_id or default_run_id(model_ref))
    landing_dir = Path(landing_dir) if landing_dir else default_landing_dir()
    design = load_design(seeds_dir, template_id)
    torch_device, torch_dtype = resolve_device(device), resolve_dtype(dtype)
    lm, tokenizer = load_model(model, torch_device, torch_dtype)
    requests = build_requests(
        tokenizer, [s.prompt for s in design.stimuli], [c.text for c in design.candidates]
    )
    bar = tqdm(total=len(requests), unit="stimuli", desc="scoring", disable=not progress)
    tick = time.perf_counter()
    token_lps, used_batch = score_batched(
        lm, requests, batch_size=batch_size, device=torch_device, progress=bar.update
    )
    seconds = time.perf_counter() - tick
    bar.close()
    scores, indices = _rows(run_id, design, requests, token_lps)
    tokenizer_name = describe_tokenizer(tokenizer)
    run = {
        "run_id": run_id,
        "model": model_ref,
        "config_hash": config_hash(model_ref, dtype_name(torch_dtype), tokenizer_name, design),
        "design_hash": design.fingerprint()[:16],
        "tokenizer": tokenizer_name,
        "dtype": dtype_name(torch_dtype),
        "device": str(torch_device),
        "batch_size": used_batch,
        "template_id": design.template_id,
        "prompt_template": design.template,
        "candidate_set": [c.text for c in design.candidates],
        "candidate_groups": [c.group for c in design.candidates],
        "n_stimuli": len(design.stimuli),
        "n_candidates": len(design.candidates),
        "started_at": started,
        "finished_at": datetime.now(UTC),
        "scoring_seconds": seconds,
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
    }
    folder = land_run(
        landing_dir,
        run_id,
        {
            "runs": to_table("runs", [run]),
            "scores": to_table("scores", scores),
            "stimulus_indices": to_table("stimulus_indices", indices),
        },
    )
    return RunResult(
        run_id, folder, len(design.stimuli), len(design.candidates), used_batch, seconds
    )
