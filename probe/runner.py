"""One probe run: design -> requests -> batched scores (sharded over torchrun ranks) -> one
landed run; sweeps of several models over one design; and a multiple-choice task's items
scored the same way into lm-evaluation-harness sample logs (``run_mcq``, probe.mcq)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import torch
import transformers
from tqdm import tqdm

from probe import distributed, mcq
from probe.errors import ProbeError, printable
from probe.landing import (
    check_run_id,
    columns_to_table,
    default_landing_dir,
    land_run,
    landed_run_ids,
    run_dir,
    run_exists,
    to_table,
)
from probe.modeling import (
    describe_tokenizer,
    dtype_name,
    input_device,
    load_tokenizer,
    load_weights,
    resolve_device,
    resolve_dtype,
)
from probe.scoring import (
    NonFiniteScoreError,
    Request,
    build_requests,
    prefix_sharing_agrees,
    score_batched,
    score_reference,
    shard,
)
from probe.stimuli import ProbeDesign, load_design

# Largest |shared prefix - one pass per candidate| (nats, summed over a candidate's tokens) that
# still counts as agreement: fp32 differs in the last bits only (about 1e-6); 16-bit
# floats round every activation, so they get a wider band. A wrong mask or position id
# shifts scores by whole nats.
PACKING_TOLERANCE = {torch.float32: 1e-3, torch.bfloat16: 0.25, torch.float16: 0.1}


@dataclass(frozen=True)
class RunResult:
    run_id: str
    folder: Path
    n_stimuli: int
    n_candidates: int
    batch_size: int
    scoring_seconds: float
    world_size: int = 1
    is_main: bool = True
    stage_seconds: dict[str, float] = field(default_factory=dict)  # this rank's wall time


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
    """UTC time, model hash and a random suffix: two runs started in the same second (or on
    two machines sharing a landing folder) never collide."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{hashlib.sha256(model.encode()).hexdigest()[:8]}-{uuid.uuid4().hex[:6]}"


def model_slug(model_ref: str) -> str:
    """A run-id-safe short name of a model: its folder name and a hash of the full reference."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(model_ref).name).strip("-.") or "model"
    return f"{name[:48]}-{hashlib.sha256(model_ref.encode()).hexdigest()[:6]}"


def model_reference(model: str) -> str:
    path = Path(model).expanduser()
    return str(path.resolve()) if path.is_dir() else model


#: What a model with random weights is called in every mart (probe.tiny marks its folders).
RANDOM_WEIGHTS = "random weights"


def model_display_name(model: str, name: str | None = None) -> str:
    """What a run records as its model, and the marts show: ``name``, else a local folder's
    own name (never its path), else the hub id. A model probe.tiny built says so (its
    config's ``concord_random_weights``), whatever it is called."""
    reference = model_reference(model)
    folder = Path(reference)
    chosen = name or (folder.name if folder.is_dir() else reference)
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    if isinstance(config, dict) and config.get("concord_random_weights"):
        if RANDOM_WEIGHTS not in chosen:
            chosen += f" ({RANDOM_WEIGHTS})"
    return chosen


def build_tables(run_id: str, design: ProbeDesign, requests, token_lps) -> dict:
    """The raw tables of a run: per stimulus and candidate the summed log-prob, the token
    count and the token log-probs; per stimulus its prompt and prompt length. Built
    column-wise, so large designs need no Python dict per row."""
    n_candidates = len(design.candidates)
    stimuli = design.stimuli
    # one flat array of every token log-prob and one of their offsets: the list columns are
    # made from them without a Python object per candidate
    flat_lps = [lp for lps in token_lps for lp in lps]
    counts = np.fromiter((len(lp) for lp in flat_lps), np.int64, len(flat_lps))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    values = np.concatenate(flat_lps).astype(float) if flat_lps else np.zeros(0)
    finite = np.isfinite(values)
    if not finite.all():
        candidate = int(np.searchsorted(offsets, np.argmin(finite), side="right")) - 1
        stimulus = stimuli[candidate // n_candidates]
        raise NonFiniteScoreError(
            f"stimulus {stimulus.stimulus_id} (msg {stimulus.msg_id}, "
            f"{printable(stimulus.sender_name)}): a candidate token log-probability is NaN "
            "or infinite; nothing was landed",
            hint="check the model's weights and --dtype (float16 overflows easily)",
        )
    token_ids = np.fromiter(
        (t for r in requests for tail in r.candidate_ids for t in tail), np.int64, len(values)
    )
    list_offsets = pa.array(offsets, pa.int32())

    def per_stimulus(values):  # one value per stimulus, repeated for each candidate
        return [v for v in values for _ in range(n_candidates)]

    scores = {
        "run_id": [run_id] * (len(stimuli) * n_candidates),
        "stimulus_id": per_stimulus(s.stimulus_id for s in stimuli),
        "msg_id": per_stimulus(s.msg_id for s in stimuli),
        "group_name": per_stimulus(s.group_name for s in stimuli),
        "sender_name": per_stimulus(s.sender_name for s in stimuli),
        "stimulus": per_stimulus(s.text for s in stimuli),
        "candidate_id": [c.candidate_id for _ in stimuli for c in design.candidates],
        "candidate": [c.text for _ in stimuli for c in design.candidates],
        "candidate_group": [c.group for _ in stimuli for c in design.candidates],
        "logprob": np.add.reduceat(values, offsets[:-1]) if len(values) else values,
        "n_tokens": counts,
        "token_logprobs": pa.ListArray.from_arrays(list_offsets, pa.array(values)),
        "token_ids": pa.ListArray.from_arrays(list_offsets, pa.array(token_ids)),
    }
    stimulus_rows = {
        "run_id": [run_id] * len(stimuli),
        "stimulus_id": [s.stimulus_id for s in stimuli],
        "msg_id": [s.msg_id for s in stimuli],
        "group_name": [s.group_name for s in stimuli],
        "sender_name": [s.sender_name for s in stimuli],
        "stimulus": [s.text for s in stimuli],
        "prompt": [s.prompt for s in stimuli],
        "n_prompt_tokens": [len(r.prompt_ids) for r in requests],
    }
    return {
        "scores": columns_to_table("scores", scores),
        "stimuli": columns_to_table("stimuli", stimulus_rows),
    }


def _on_main(ranks, action):
    """Run ``action`` on rank 0 and give every rank its result, or raise its ProbeError on
    every rank (so no rank waits in a collective for a rank that already gave up)."""
    outcome, caught = None, None
    if ranks.is_main:
        try:
            outcome = ("ok", action())
        except ProbeError as error:
            outcome, caught = ("error", error.message, error.hint), error
    outcome = distributed.broadcast_from_main(ranks, outcome)
    if caught is not None:
        raise caught
    if outcome[0] == "error":
        raise ProbeError(outcome[1], hint=outcome[2])
    return outcome[1]


def _score_share(lm, share, *, batch_size, device, shared: bool, progress: bool):
    bar = tqdm(total=len(share), unit="stimuli", desc="scoring", disable=not progress)
    try:
        if shared:
            token_lps, used = score_batched(
                lm, share, batch_size=batch_size, device=device, progress=bar.update
            )
        else:
            token_lps, used = score_reference(lm, share), 1
            bar.update(len(share))
    finally:
        bar.close()
    order = sorted(share, key=lambda r: r.index)
    return {r.index: lps for r, lps in zip(order, token_lps, strict=True)}, used


@dataclass
class Scored:
    """Inputs scored on every rank: what ``load_inputs`` gave (the design, the items), the
    requests in input order, the tokenizer, the shares, and (on rank 0) every rank's
    outcome; ``collect`` turns these into the scores or the first rank's failure."""

    inputs: Any
    requests: list[Request]
    tokenizer: Any
    shares: list[list[Request]]
    attention: str  # "shared prefix", or "one pass per candidate" where that check failed
    gathered: list[tuple] | None

    def how_scored(self, devices: list[str], batch_size: int, device_map) -> dict:
        """What a run records of how it was scored (devices, batch, ranks and shares)."""
        return {
            "device": ",".join(devices),
            "device_map": device_map,
            "attention": self.attention,
            "batch_size": batch_size,
            "world_size": len(self.shares),
            "rank_requests": [len(s) for s in self.shares],
            "rank_tokens": [sum(r.packed_length for r in s) for s in self.shares],
        }

    def collect(
        self, nothing: str = "nothing was landed"
    ) -> tuple[list[list[np.ndarray]], int, list[str], float]:
        """On rank 0: the token log-probs in request order, the largest batch size, the
        devices and the slowest rank's scoring seconds; or a ProbeError naming the first
        rank that failed, ending in ``nothing`` (nothing is written then)."""
        assert self.gathered is not None, "collect runs on rank 0"
        failed = [p for p in self.gathered if p[0] == "error"]
        if failed:
            raise ProbeError(
                f"{failed[0][1]}; {nothing}"
                + (f" ({len(failed)} ranks failed)" if len(failed) > 1 else ""),
                hint=failed[0][2],
            )
        by_index = {}
        for _, part, *_ in self.gathered:
            by_index.update(part)
        return (
            [by_index[r.index] for r in self.requests],
            max(p[2] for p in self.gathered),
            sorted({p[3] for p in self.gathered}),
            max(p[4] for p in self.gathered),
        )


def score_inputs(
    ranks, model, torch_device, torch_dtype, *, load_inputs, requests_of, inputs_label: str,
    batch_size, progress: bool, device_map, revision, trust_remote_code: bool,
    stages: dict[str, float],
) -> Scored:  # fmt: skip
    """Load the inputs and the tokenizer, tokenize beside the weights' load, shard the
    requests over the ranks, check the shared-prefix passes on request 1, score this rank's
    share and gather every share on rank 0; ``stages`` gets this rank's wall-time split.
    Every command that scores (the name probe, the MCQ items) goes through here."""

    def timed(action, *args):
        start = time.perf_counter()
        return action(*args), time.perf_counter() - start

    def start_device():  # the CUDA context, made while the tokenizer loads
        if torch_device.type == "cuda":
            torch.empty(0, device=torch_device)

    with ThreadPoolExecutor(2, thread_name_prefix="probe") as pool:
        device_ready = pool.submit(timed, start_device)
        tick = time.perf_counter()
        inputs = load_inputs()
        options = {"revision": revision, "trust_remote_code": trust_remote_code}
        tokenizer = load_tokenizer(model, **options)
        stages[f"{inputs_label} and tokenizer"] = time.perf_counter() - tick
        # the tokenizer (Rust, several threads, without the GIL) works while the weights load
        pending = pool.submit(timed, requests_of, tokenizer, inputs)
        tick = time.perf_counter()
        _, stages["start the device (beside)"] = device_ready.result()
        lm = load_weights(model, torch_device, torch_dtype, device_map=device_map, **options)
        stages["load weights"] = time.perf_counter() - tick
        tick = time.perf_counter()
        requests, stages["tokenize (beside)"] = pending.result()
        stages["wait for the tokenizer"] = time.perf_counter() - tick
    device = input_device(lm)
    shares = shard(requests, ranks.world_size)
    share = shares[ranks.rank]
    # the shared-prefix passes, checked on one request against one pass per candidate
    tick = time.perf_counter()
    gap = prefix_sharing_agrees(lm, requests[0], device)
    stages["check"] = time.perf_counter() - tick
    shared = gap <= PACKING_TOLERANCE[torch_dtype]
    if not shared and ranks.is_main:
        print(
            f"warning: shared-prefix scoring differs from one pass per candidate by {gap:.3g} "
            "nats on stimulus 1 (this model or its attention ignores the cache, the 4-D mask "
            "or the position ids); scoring one pass per candidate instead (slower, same "
            "numbers)",
            file=sys.stderr,
        )
    tick = time.perf_counter()
    try:
        mine, used_batch = _score_share(
            lm, share, batch_size=batch_size, device=device, shared=shared, progress=progress
        )
        payload: tuple = ("ok", mine, used_batch, str(device), time.perf_counter() - tick)
    except ProbeError as error:
        payload = ("error", f"rank {ranks.rank}: {error.message}", error.hint)
    except RuntimeError as error:  # out of memory at batch size 1, a CUDA fault
        payload = ("error", f"rank {ranks.rank}: {str(error).splitlines()[0]}", None)
    del lm
    stages["score"] = time.perf_counter() - tick
    tick = time.perf_counter()
    gathered = distributed.gather_to_main(ranks, payload)
    if ranks.world_size > 1:  # rank 0 waits here for the slowest rank
        stages["gather"] = time.perf_counter() - tick
    attention = "shared prefix" if shared else "one pass per candidate"
    return Scored(inputs, requests, tokenizer, shares, attention, gathered)


def _start(device: str, dtype: str, device_map: str | None):
    """This process's ranks, device and dtype, with the torchrun process group joined (once
    per process: a sweep reuses it; the command line leaves it at exit)."""
    ranks = distributed.ranks_from_env()
    if device_map is not None and ranks.world_size > 1:
        raise ProbeError(
            "--device-map places one model across the GPUs of one process; with torchrun "
            "every rank holds a whole model",
            hint="use one of the two: torchrun for throughput, --device-map for models "
            "larger than one GPU",
        )
    torch_device, torch_dtype = resolve_device(device, ranks.local_rank), resolve_dtype(dtype)
    distributed.start(ranks, torch_device)
    return ranks, torch_device, torch_dtype


def run_probe(
    model: str,
    *,
    device: str = "auto",
    dtype: str = "float32",
    batch_size: int | str = "auto",
    run_id: str | None = None,
    landing_dir: Path | str | None = None,
    seeds_dir: Path | str | None = None,
    template_id: str = "reference",
    progress: bool = True,
    device_map: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    replace: bool = False,
    model_name: str | None = None,
) -> RunResult:
    """Score every stimulus of the seed design with ``model`` and land the run, once.
    ``model_name`` is what the run records as its model (default: :func:`model_display_name`).

    Under torchrun each rank scores a share balanced by token count on its own device; rank
    0 gathers the shares and lands them as one run, or nothing lands if any rank failed.
    """
    started = datetime.now(UTC)
    ranks, torch_device, torch_dtype = _start(device, dtype, device_map)
    model_ref = model_display_name(model, model_name)
    landing_dir = Path(landing_dir) if landing_dir else default_landing_dir()
    return _run(
        ranks, model, model_ref, started, torch_device, torch_dtype, batch_size, run_id,
        landing_dir, seeds_dir, template_id, progress and ranks.is_main, device_map,
        revision, trust_remote_code, replace,
    )  # fmt: skip


def _run(
    ranks, model, model_ref, started, torch_device, torch_dtype, batch_size, run_id,
    landing_dir, seeds_dir, template_id, progress, device_map, revision, trust_remote_code,
    replace,
) -> RunResult:  # fmt: skip
    def claim_run_id():
        chosen = check_run_id(run_id or default_run_id(model_ref))
        folder = run_dir(landing_dir, chosen)
        if folder.exists() and not replace:
            raise run_exists(chosen, folder)
        return chosen

    run_id = _on_main(ranks, claim_run_id)
    stages = {"set-up": (datetime.now(UTC) - started).total_seconds()}

    def requests_of(tokenizer, design: ProbeDesign):
        prompts = [s.prompt for s in design.stimuli]
        return build_requests(tokenizer, prompts, [c.text for c in design.candidates])

    scored = score_inputs(
        ranks, model, torch_device, torch_dtype,
        load_inputs=lambda: load_design(seeds_dir, template_id), requests_of=requests_of,
        inputs_label="design", batch_size=batch_size, progress=progress,
        device_map=device_map, revision=revision, trust_remote_code=trust_remote_code,
        stages=stages,
    )  # fmt: skip
    design, requests, tokenizer = scored.inputs, scored.requests, scored.tokenizer
    tick = time.perf_counter()

    def land():
        token_lps, batch_used, devices, scoring_seconds = scored.collect()
        tables = build_tables(run_id, design, requests, token_lps)
        tokenizer_name = describe_tokenizer(tokenizer)
        run = {
            "run_id": run_id,
            "model": model_ref,
            "config_hash": config_hash(model_ref, dtype_name(torch_dtype), tokenizer_name, design),
            "design_hash": design.fingerprint()[:16],
            "tokenizer": tokenizer_name,
            "dtype": dtype_name(torch_dtype),
            "revision": revision,
            **scored.how_scored(devices, batch_used, device_map),
            "template_id": design.template_id,
            "prompt_template": design.template,
            "candidate_set": [c.text for c in design.candidates],
            "candidate_groups": [c.group for c in design.candidates],
            "n_stimuli": len(design.stimuli),
            "n_candidates": len(design.candidates),
            "started_at": started,
            "finished_at": datetime.now(UTC),
            "scoring_seconds": scoring_seconds,
            "torch_version": torch.__version__,
            "transformers_version": transformers.__version__,
        }
        tables["runs"] = to_table("runs", [run])
        folder = land_run(landing_dir, run_id, tables, replace=replace)
        return str(folder), run["batch_size"], run["scoring_seconds"]

    folder, used_batch, seconds = _on_main(ranks, land)
    stages["land"] = time.perf_counter() - tick
    return RunResult(
        run_id,
        Path(folder),
        len(design.stimuli),
        len(design.candidates),
        used_batch,
        seconds,
        ranks.world_size,
        ranks.is_main,
        stages,
    )


def read_models_file(path: Path) -> list[str]:
    """One model per line; blank lines and lines starting with # are skipped."""
    if not path.is_file():
        raise ProbeError(f"--models-file {str(path)!r}: no such file")
    models = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            models.append(line)
    if not models:
        raise ProbeError(f"--models-file {str(path)!r}: no model in it")
    return models


def sweep_run_ids(models: list[str], sweep_id: str) -> list[str]:
    """One run id per model: ``<sweep>--<model slug>``, the same on every call, so a sweep
    that is started again with --resume finds its finished runs."""
    ids = [check_run_id(f"{sweep_id}--{model_slug(model_reference(m))}") for m in models]
    if len(set(ids)) != len(ids):
        raise ProbeError("the same model is listed twice in the sweep")
    return ids


def run_sweep(
    models: list[str],
    *,
    run_id: str | None = None,
    resume: bool = False,
    landing_dir: Path | str | None = None,
    report=print,
    **options,
) -> list[RunResult]:
    """One run per model over one design. With one model, ``run_id`` is the run's id; with
    several it names the sweep and each run is ``<run_id>--<model slug>``. ``resume`` skips
    the runs of the sweep already landed (a finished run is never redone)."""
    landing_dir = Path(landing_dir) if landing_dir else default_landing_dir()
    if resume and not run_id:
        raise ProbeError(
            "--resume needs the sweep's --run-id", hint="the first run of the sweep printed it"
        )
    ranks = distributed.ranks_from_env()
    if len(models) == 1:
        run_ids: Sequence[str | None] = [run_id]  # None: a fresh default id
    else:
        sweep_id = check_run_id(run_id or datetime.now(UTC).strftime("sweep-%Y%m%dT%H%M%SZ"))
        run_ids = sweep_run_ids(models, sweep_id)
        if ranks.is_main:
            report(
                f"sweep {sweep_id}: {len(models)} models; resume with --run-id {sweep_id} --resume"
            )
    landed = landed_run_ids(landing_dir)
    results = []
    for model, model_run_id in zip(models, run_ids, strict=True):
        if resume and model_run_id in landed:
            if ranks.is_main:
                report(f"run {model_run_id}: already landed, skipped")
            continue
        results.append(run_probe(model, run_id=model_run_id, landing_dir=landing_dir, **options))
    return results


@dataclass(frozen=True)
class McqResult:
    folder: Path
    task: str
    n_prompts: int  # items x languages (an item may lack a language)
    n_items: int
    n_languages: int
    option_counts: tuple[int, int]  # fewest and most options of an item
    batch_size: int
    scoring_seconds: float
    world_size: int
    is_main: bool
    stage_seconds: dict[str, float]


def run_mcq(
    model: str,
    *,
    project: Path | str,
    out: Path | str,
    task: str | None = None,
    template: str = mcq.DEFAULT_TEMPLATE,
    device: str = "auto",
    dtype: str = "float32",
    batch_size: int | str = "auto",
    device_map: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    replace: bool = False,
    progress: bool = True,
    landing_dir: Path | str | None = None,
    model_name: str | None = None,
) -> McqResult:
    """Score every item of ``task`` in every language with ``model`` (probe.mcq) and write
    lm-evaluation-harness sample logs under ``out`` (the items: those landed in
    ``landing_dir``, the study's of ``project``). Under torchrun each rank scores a share
    balanced by token count; rank 0 writes, or nothing is written if any rank failed."""
    started = datetime.now(UTC)
    mcq.check_template(template)
    project, out = Path(project), Path(out)
    landing = Path(landing_dir) if landing_dir else default_landing_dir()
    ranks, torch_device, torch_dtype = _start(device, dtype, device_map)
    model_ref = model_reference(model)
    name = model_display_name(model, model_name)
    slug = model_slug(model_ref)
    # refused before the model loads, not after it has scored
    _on_main(ranks, lambda: str(mcq.output_folder(out, slug, replace, project)))
    stages = {"set-up": (datetime.now(UTC) - started).total_seconds()}

    def requests_of(tokenizer, loaded):
        items = loaded[0]
        prompts, options = mcq.prompts_and_options(items, template)
        return build_requests(tokenizer, prompts, options, name=lambda i: items[i].name)

    scored = score_inputs(
        ranks, model, torch_device, torch_dtype,
        load_inputs=lambda: mcq.load_items(project, landing, task), requests_of=requests_of,
        inputs_label="items", batch_size=batch_size, progress=progress and ranks.is_main,
        device_map=device_map, revision=revision, trust_remote_code=trust_remote_code,
        stages=stages,
    )  # fmt: skip
    items, options = scored.inputs
    tick = time.perf_counter()

    def write():
        token_lps, batch_used, devices, seconds = scored.collect("nothing was written")
        logliks = [[float(lp.sum()) for lp in row] for row in token_lps]
        for item, scores in zip(items, logliks, strict=True):
            if not np.isfinite(scores).all():
                raise NonFiniteScoreError(
                    f"{item.name}: an option's log-likelihood is NaN or infinite; nothing "
                    "was written",
                    hint="check the model's weights and --dtype (float16 overflows easily)",
                )
        run = {
            "model": name,
            "pretrained": model_ref,
            "slug": slug,
            "revision": revision,
            "dtype": dtype_name(torch_dtype),
            "tokenizer": describe_tokenizer(scored.tokenizer),
            **scored.how_scored(devices, batch_used, device_map),
            "scoring_seconds": seconds,
            "items_project": str(project.resolve()),
            "torch_version": torch.__version__,
            "transformers_version": transformers.__version__,
            "started_at": started,
        }
        files = mcq.harness_files(items, template, options, logliks, run)
        folder = mcq.write_folder(out, slug, files, replace, project)
        return str(folder), batch_used, seconds

    folder, used_batch, seconds = _on_main(ranks, write)
    stages["write"] = time.perf_counter() - tick
    counts = [len(item.option_keys) for item in items]
    return McqResult(
        Path(folder), items[0].task, len(items), len({i.item_id for i in items}),
        len({i.language for i in items}), (min(counts), max(counts)), used_batch, seconds,
        ranks.world_size, ranks.is_main, stages,
    )  # fmt: skip
