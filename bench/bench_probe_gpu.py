"""Benchmark on a GPU: the whole probe job, its scorer, and lm-evaluation-harness side by side.

Model: a 1.14 B-parameter Llama with random weights (stored in bf16, as real checkpoints
are), built from a config; design: the reference's x100 (1 000 messages x 8 names = 8 000
stimuli x 10 candidates, each message numbered so it is distinct). Measured in one run:

- ``python -m probe run`` end to end in a fresh process (twice: the first pays the cold
  imports), its wall time against its scoring time, and the split the run prints
  (imports, load, tokenize beside the load, check, score, land);
- the scorer in process: stimuli/s and model FLOP utilisation (MFU = 2 x parameters x
  packed tokens / s over the GPU's dense bf16 peak; the attention's own FLOPs are left out,
  so MFU is a slight under-estimate), the attention kernels it runs (torch profiler), and
  the ceiling: a plain causal forward of the same model at the same rows x tokens, no mask;
- tokenization: the probe's (each prompt once, candidates at the boundary) against encoding
  every prompt + candidate in full (the method before, and lm-eval's);
- lm-evaluation-harness ``HFLM.loglikelihood`` on the same 80 000 requests (bf16, batch
  256, BOS as the tokenizer adds it), when lm_eval is importable: its time against the
  probe's tokenize + score, and the largest |difference| of the summed log-probs (bf16 on
  every request; fp32 on a sample, both loaded in float32);
- the naive method (one full pass per stimulus and candidate) on a sample.

    python bench/bench_probe_gpu.py [--size 1b] [--repeats 100] [--baseline-root DIR]

--baseline-root runs ``python -m probe run`` of another checkout (an earlier commit's
probe/) on the same model and design, for a before/after on the same GPU. Writes
<out-dir>/probe_gpu.json and probe_gpu.md; --size tiny --repeats 1 --device cpu checks the
code path on a CPU. bench_probe_mcq_gpu.py measures ``python -m probe mcq`` with the same
parts (``Bench``, ``probe_job``, ``side_by_side``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from bench_probe_scale import scaled_seeds  # noqa: E402

from probe.modeling import load_model  # noqa: E402
from probe.scoring import (  # noqa: E402
    auto_batch_size,
    build_requests,
    joint_requests,
    prefix_sharing_agrees,
    score_batched,
    score_reference,
)
from probe.stimuli import load_design  # noqa: E402
from probe.tiny import build_tiny_model  # noqa: E402

# Dense bf16 peak (TFLOP/s, no sparsity) by device name; --peak-tflops overrides.
BF16_PEAK_TFLOPS = {
    "H200": 989.0,
    "H100 SXM": 989.0,
    "H100 80GB HBM3": 989.0,
    "H100 PCIe": 756.0,
    "H100": 989.0,
    "A100": 312.0,
    "L40S": 362.0,
    "A10": 125.0,
}


def peak_tflops(name: str, override: float | None) -> float | None:
    if override:
        return override
    for key, value in BF16_PEAK_TFLOPS.items():
        if key in name:
            return value
    return None


def _sums(token_lps) -> np.ndarray:
    """The summed log-probs, flat in (request, candidate) order."""
    return np.array([float(lp.sum()) for row in token_lps for lp in row])


def _timed(sync, action):
    sync()
    tick = time.perf_counter()
    out = action()
    sync()
    return out, time.perf_counter() - tick


def probe_job(root: Path, argv: list[str], device: str, ranks: int = 1) -> dict:
    """``python -m probe <argv>`` (bf16) of the checkout at ``root`` in a fresh process (under
    ``torchrun --nproc_per_node ranks`` when ranks > 1): wall time, scoring time (the
    slowest rank's) and the wall-time split it prints."""
    launcher = [sys.executable]
    if ranks > 1:
        launcher += ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)]
        device = "auto"  # each rank its own GPU
    command = [
        *launcher, "-m", "probe", *argv, "--dtype", "bfloat16", "--device", device,
        "--no-progress",
    ]  # fmt: skip
    # the checkout under test first, then whatever the caller put on the path (carried wheels)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    tick = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=root, env=env, capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired:
        return {"error": "over 300 s"}
    wall = time.perf_counter() - tick
    if done.returncode:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-3:]}
    scored = re.search(r"scored in ([0-9.]+) s", done.stdout)
    split = re.search(r"wall time: (.*) \(process age ([0-9.]+) s\)", done.stdout)
    stages = {}
    if split:
        stages["process age at the last line"] = float(split.group(2))
        for part in split.group(1).split(", "):
            name, seconds, _ = part.rsplit(" ", 2)
            stages[name] = float(seconds)
    scoring = float(scored.group(1)) if scored else None
    return {
        "wall_seconds": wall,
        "scoring_seconds": scoring,
        "wall_over_scoring": wall / scoring if scoring else None,
        "stages": stages,
    }


def probe_command(
    root: Path, model: Path, seeds: Path, landing: Path, run_id: str, device, ranks: int = 1
):
    """``python -m probe run`` on the design of ``seeds``, landed as ``run_id``."""
    argv = ["run", "--model", str(model), "--seeds-dir", str(seeds), "--landing-dir",
            str(landing), "--run-id", run_id]  # fmt: skip
    return probe_job(root, argv, device, ranks)


def kernel_profile(model, requests, device, batch_size: int) -> dict:
    """``requests`` scored at ``batch_size`` under the torch profiler (a window of a few
    batches, so the host's work for one overlaps the GPU's for the one before, as in a run):
    the attention kernels by name, the kernels that take the most GPU time, and GPU busy
    time against the window's wall time."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize(device)
    tick = time.perf_counter()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        score_batched(model, requests, batch_size=batch_size, device=device)
        torch.cuda.synchronize(device)
    wall = time.perf_counter() - tick
    events = [e for e in prof.key_averages() if e.device_time_total > 0]
    busy = sum(e.self_device_time_total for e in events) / 1e6
    pattern = re.compile(r"flash|fmha|attention|attn|sdpa", re.I)
    top = sorted(events, key=lambda e: -e.self_device_time_total)[:10]
    return {
        "attention_kernels": sorted({e.key[:100] for e in events if pattern.search(e.key)}),
        "top_kernels_ms": {e.key[:80]: round(e.self_device_time_total / 1e3, 1) for e in top},
        "gpu_busy_seconds": busy,
        "wall_seconds": wall,
        "batches": -(-len(requests) // batch_size),
    }


def plain_forward_tflops(model, rows: int, length: int, vocab: int, sync) -> float:
    """TFLOP/s of a plain causal forward (no mask, no cache, last hidden state only) over
    rows x length tokens: the ceiling of a scorer on this GPU in eager PyTorch."""
    device = model.get_input_embeddings().weight.device
    ids = torch.randint(0, vocab, (rows, length), device=device)
    with torch.no_grad():
        model.base_model(input_ids=ids, use_cache=False)  # warm-up
        _, seconds = _timed(sync, lambda: model.base_model(input_ids=ids, use_cache=False))
    return 2 * model.num_parameters() * rows * length / seconds / 1e12


def lm_eval_loglikelihood(model, tokenizer, pairs, batch_size):
    """lm-evaluation-harness HFLM.loglikelihood on (context, continuation) pairs: summed
    log-probs, and the seconds of the call (its own tokenization included)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    add_bos = tokenizer("x")["input_ids"][0] == tokenizer.bos_token_id
    lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size, add_bos_token=add_bos)
    instances = [
        Instance("loglikelihood", {}, (context, continuation), i)
        for i, (context, continuation) in enumerate(pairs)
    ]
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
    results, seconds = _timed(sync, lambda: lm.loglikelihood(instances, disable_tqdm=True))
    return np.array([logprob for logprob, _ in results]), seconds


def common_options(parser: argparse.ArgumentParser) -> None:
    """The options every probe GPU benchmark takes (this one and bench_probe_mcq_gpu)."""
    parser.add_argument("--size", default="1b", choices=["tiny", "bench", "1b", "8b"])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--naive-sample", type=int, default=50, help="stimuli")
    parser.add_argument("--fp32-sample", type=int, default=400, help="stimuli")
    parser.add_argument("--lm-eval-batch", type=int, default=256)
    parser.add_argument(
        "--lm-eval-sample",
        type=int,
        default=0,
        help="stimuli lm-eval scores (the first ones; default all), the probe timed on the same",
    )
    parser.add_argument("--no-lm-eval", action="store_true", help="leave lm-eval out")
    parser.add_argument(
        "--jobs", type=int, default=2, help="runs of the whole job (the first pays cold imports)"
    )
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")


@dataclass
class Bench:
    """One benchmark's device and results, saved to ``<out-dir>/<name>.json`` part by part
    (a run cut off keeps what it measured)."""

    args: argparse.Namespace
    name: str  # of the results files
    device: torch.device = field(init=False)
    result: dict = field(init=False)

    def __post_init__(self) -> None:
        self.device = torch.device(self.args.device)
        self.result = {
            "benchmark": self.name,
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "device": torch.cuda.get_device_name(self.device) if self.cuda else "cpu",
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "transformers": transformers.__version__,
            "size": self.args.size,
        }
        self.args.out_dir.mkdir(parents=True, exist_ok=True)

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def save(self, part: str, value) -> None:
        self.result[part] = value
        path = self.args.out_dir / f"{self.name}.json"
        path.write_text(json.dumps(self.result, indent=2) + "\n")
        print(f"{part}: {json.dumps(value)[:400]}", flush=True)

    def model(self, folder: Path) -> Path:
        """The benchmark's Llama (random weights, stored in bf16) and its BPE tokenizer."""
        return build_tiny_model(
            folder, arch="llama", add_bos=True, size=self.args.size, dtype=torch.bfloat16,
            device=self.device,
        )  # fmt: skip

    def floor(self) -> None:
        """A process that imports a Llama and its fast tokenizer, starts the device, exits."""
        floor = (
            "import torch; from transformers import LlamaForCausalLM, PreTrainedTokenizerFast; "
            f"torch.empty(0, device={self.args.device!r})"
        )
        _, floor_s = _timed(lambda: None, lambda: subprocess.run([sys.executable, "-c", floor]))
        self.save("floor", {"import_torch_transformers_start_device_exit_seconds": floor_s})

    def write(self, design: str, command: str, unit: str = "stimuli") -> str:
        """``<out-dir>/<name>.md``: the results as the README quotes them."""
        text = _markdown(self.result, design, command, unit)
        (self.args.out_dir / f"{self.name}.md").write_text(text)
        print(text)
        return text


def side_by_side(
    bench: Bench, model_dir: Path, prompts, candidates, backends: bool, layouts: bool = False
) -> None:
    """The scorer in process on (prompts, candidates: one list for every prompt, or one per
    prompt): tokenization against the full joint encoding, the shared-prefix check, stimuli/s,
    MFU and peak memory with the plain-forward ceiling and (CUDA) a kernel profile, with
    ``backends`` the SDPA kernel sets, with ``layouts`` each of the scorer's layouts forced,
    the naive method on a sample, lm-eval's HFLM.loglikelihood on the same requests (or the
    first --lm-eval-sample stimuli's, the probe timed on those too), and bf16 against fp32
    on a sample."""
    args, device, sync = bench.args, bench.device, bench.sync
    model, tokenizer = load_model(str(model_dir), device, torch.bfloat16)
    n_params = model.num_parameters()
    requests, tokenize_s = _timed(
        lambda: None, lambda: build_requests(tokenizer, prompts, candidates)
    )
    joint, joint_s = _timed(lambda: None, lambda: joint_requests(tokenizer, prompts, candidates))
    assert joint == requests
    packed_tokens = sum(r.packed_length for r in requests)
    counts = [len(r.candidate_ids) for r in requests]
    bench.save(
        "tokenize",
        {
            "prompts": len(prompts),
            "candidates": sum(counts),
            "candidates_per_prompt": [min(counts), max(counts)],
            "prompt_tokens": sum(len(r.prompt_ids) for r in requests),
            "prompt_tokens_range": [
                min(len(r.prompt_ids) for r in requests),
                max(len(r.prompt_ids) for r in requests),
            ],
            "candidate_tokens": packed_tokens - sum(len(r.prompt_ids) for r in requests),
            "packed_tokens": packed_tokens,
            "probe_seconds": tokenize_s,
            "joint_seconds": joint_s,
            "same_tokens": True,
        },
    )
    gap = prefix_sharing_agrees(model, requests[0], device)  # and the warm-up
    bench.save("check", {"max_abs_diff_shared_prefix_vs_one_pass_nats": gap})
    if gap > 0.25:
        raise SystemExit(f"the shared-prefix scorer disagrees with one pass by {gap} nats")
    if bench.cuda:
        torch.cuda.reset_peak_memory_stats(device)
        free_before, _ = torch.cuda.mem_get_info(device)
    (bf16_lps, used), seconds = _timed(
        sync, lambda m=model: score_batched(m, requests, device=device)
    )
    memory = (
        {
            "free_before_gib": free_before / 2**30,
            "peak_allocated_gib": torch.cuda.max_memory_allocated(device) / 2**30,
        }
        if bench.cuda
        else {}
    )
    peak = peak_tflops(bench.result["device"], args.peak_tflops)
    achieved = 2 * n_params * packed_tokens / seconds / 1e12
    rows = auto_batch_size(model, device, requests)
    mean_length = round(packed_tokens / len(requests))
    ceiling = plain_forward_tflops(model, rows, mean_length, len(tokenizer), sync)
    bench.save(
        "scorer",
        {
            "n_parameters": n_params,
            "stimuli_per_s": len(requests) / seconds,
            "tokens_per_s": packed_tokens / seconds,
            "seconds": seconds,
            "batch_size": used,
            "memory": memory,
            "achieved_tflops": achieved,
            "peak_bf16_tflops": peak,
            "mfu": achieved / peak if peak else None,
            "plain_forward_rows": rows,
            "plain_forward_tokens": mean_length,
            "plain_forward_tflops": ceiling,
            "plain_forward_mfu": ceiling / peak if peak else None,
            "sdpa_backends": {
                "flash": torch.backends.cuda.flash_sdp_enabled(),
                "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
                "cudnn": torch.backends.cuda.cudnn_sdp_enabled(),
            },
            "profile": kernel_profile(model, requests[: 3 * used], device, used)
            if bench.cuda
            else {},
        },
    )
    if bench.cuda and backends:  # the scorer under each set of kernels SDPA may choose from
        from torch.nn.attention import SDPBackend, sdpa_kernel

        timings = {}
        for label, kernels in (
            ("flash + mem-efficient (no cuDNN)", [SDPBackend.FLASH_ATTENTION,
                                                  SDPBackend.EFFICIENT_ATTENTION]),
            ("mem-efficient only", [SDPBackend.EFFICIENT_ATTENTION]),
            ("default again", None),
        ):  # fmt: skip
            try:  # flash and mem-efficient need as many key heads as query heads
                with sdpa_kernel(kernels) if kernels else contextlib.nullcontext():
                    score_batched(model, requests[:used], device=device)  # warm-up
                    _, timings[label] = _timed(
                        sync, lambda m=model: score_batched(m, requests, device=device)
                    )
            except RuntimeError as error:
                timings[label] = str(error).splitlines()[0]
        bench.save("attention_backends_seconds", timings)
    if layouts:  # each layout on every batch, against the default's choice per batch
        forced = {}
        for label, share in (("shared", True), ("packed", False)):
            score_batched(model, requests[:used], device=device, share=share)  # warm-up
            _, took = _timed(
                sync, lambda m=model, s=share: score_batched(m, requests, device=device, share=s)
            )
            forced[label] = {
                "seconds": took,
                "mfu": 2 * n_params * packed_tokens / took / 1e12 / peak if peak else None,
            }
        bench.save("layouts", forced)
    sample = requests[: args.naive_sample]
    _, naive_s = _timed(sync, lambda m=model: score_reference(m, sample))
    bench.save(
        "naive",
        {
            "stimuli_per_s": len(sample) / naive_s,
            "speedup": naive_s / len(sample) * len(requests) / seconds,
        },
    )
    ours = _sums(bf16_lps)
    per_prompt = [candidates] * len(prompts) if isinstance(candidates[0], str) else candidates
    pairs = [(p, c) for p, row in zip(prompts, per_prompt, strict=True) for c in row]
    subset = requests[: args.lm_eval_sample] if args.lm_eval_sample else requests
    pairs = pairs[: sum(len(r.candidate_ids) for r in subset)]
    ours_subset_s = seconds
    if len(subset) < len(requests):  # the probe on the same requests as lm-eval
        _, ours_subset_s = _timed(sync, lambda m=model: score_batched(m, subset, device=device))
    try:
        if args.no_lm_eval:
            raise ImportError("--no-lm-eval")
        theirs, lm_eval_s = lm_eval_loglikelihood(model, tokenizer, pairs, args.lm_eval_batch)
    except ImportError as error:
        bench.save("lm_eval", {"skipped": f"lm_eval not importable: {error}"})
        theirs = None
    if theirs is not None:
        import lm_eval

        bench.save(
            "lm_eval",
            {
                "version": lm_eval.__version__,
                "batch_size": args.lm_eval_batch,
                "seconds": lm_eval_s,
                "probe_seconds": ours_subset_s,
                "speedup_over_score": lm_eval_s / ours_subset_s,
                "speedup_over_tokenize_and_score": lm_eval_s
                / (ours_subset_s + tokenize_s * len(subset) / len(requests)),
                "max_abs_diff_bf16": float(np.abs(ours[: theirs.size] - theirs).max()),
                "requests": len(pairs),
                "of_requests": len(ours),
            },
        )
    del model
    if bench.cuda:
        torch.cuda.empty_cache()
    fp32, _ = load_model(str(model_dir), device, torch.float32)
    check = requests[: min(args.fp32_sample, len(subset))]  # inside lm-eval's requests
    fp32_lps, _ = score_batched(fp32, check, device=device)
    fp32_sums = _sums(fp32_lps)  # the first candidates of ``ours``, in request order
    fp32_part = {
        "stimuli": len(check),
        "max_abs_diff_bf16_vs_fp32": float(np.abs(ours[: fp32_sums.size] - fp32_sums).max()),
    }
    if theirs is not None:
        lm_fp32, _ = lm_eval_loglikelihood(
            fp32, tokenizer, pairs[: fp32_sums.size], args.lm_eval_batch
        )
        fp32_part["max_abs_diff_vs_lm_eval_fp32"] = float(np.abs(fp32_sums - lm_fp32).max())
        own = np.abs(theirs[: lm_fp32.size] - lm_fp32).max()
        fp32_part["lm_eval_max_abs_diff_bf16_vs_fp32"] = float(own)
    bench.save("fp32", fp32_part)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common_options(parser)
    parser.add_argument("--repeats", type=int, default=100, help="x the reference design")
    parser.add_argument("--baseline-root", type=Path, default=None)
    parser.add_argument(
        "--scale-repeats", type=int, default=0, help="also run the job on this x design"
    )
    parser.add_argument(
        "--skip-backends", action="store_true", help="leave out the SDPA kernel sets' runs"
    )
    args = parser.parse_args(argv)
    # the 1.14 B model's results keep their file; another size's have their own
    bench = Bench(args, "probe_gpu" if args.size == "1b" else f"probe_gpu_{args.size}")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        seeds = scaled_seeds(tmp / "seeds", args.repeats)
        design = load_design(seeds)
        model_dir = bench.model(tmp / "model")
        bench.floor()
        # the whole job, in fresh processes: this checkout (twice), then the baseline's
        for attempt in ("first", "second")[: args.jobs]:
            run = probe_command(ROOT, model_dir, seeds, tmp / "landing", attempt, args.device)
            bench.save(f"job_{attempt}", run)
        gpus = torch.cuda.device_count() if bench.cuda else 0
        if gpus > 1:
            run = probe_command(ROOT, model_dir, seeds, tmp / "landing", "ranks", "auto", gpus)
            bench.save("job_torchrun", {"ranks": gpus, **run})
        if args.scale_repeats:
            big = scaled_seeds(tmp / "big", args.scale_repeats)
            run = probe_command(ROOT, model_dir, big, tmp / "landing", "scale", args.device)
            bench.save("job_scale", {"repeats": args.scale_repeats, **run})
        if args.baseline_root:
            run = probe_command(
                args.baseline_root, model_dir, seeds, tmp / "landing", "baseline", args.device
            )
            bench.save("job_baseline", run)
        prompts = [s.prompt for s in design.stimuli]
        candidates = [c.text for c in design.candidates]
        side_by_side(bench, model_dir, prompts, candidates, backends=not args.skip_backends)
    t = bench.result["tokenize"]
    bench.write(f"{t['prompts']} stimuli x {t['candidates'] // t['prompts']} candidates", "run")
    return bench.result


def _markdown(r: dict, design: str, command: str, unit: str = "stimuli") -> str:
    s, t = r["scorer"], r["tokenize"]
    mfu = f"{s['mfu']:.1%}" if s["mfu"] is not None else "n/a (unknown peak: --peak-tflops)"
    lines = [
        f"### Probe on {r['device']} ({r['date']}): {s['n_parameters'] / 1e9:.2f} B-parameter "
        f"Llama (random weights), bf16, {design}",
        "",
        f"torch {r['torch']} (CUDA {r['cuda']}), transformers {r['transformers']}.",
    ]
    if any("wall_seconds" in r.get(key, {}) for key in r if key.startswith("job_")):
        lines += [
            "",
            f"| `python -m probe {command}` | wall s | scoring s | wall / scoring |",
            "|---|---:|---:|---:|",
        ]
    for key, label in (
        ("job_first", "this commit, first run"),
        ("job_second", "this commit, second run"),
        ("job_baseline", "baseline checkout"),
        ("job_scale", f"this commit, design x{r.get('job_scale', {}).get('repeats')}"),
        ("job_torchrun", f"torchrun, {r.get('job_torchrun', {}).get('ranks')} GPUs"),
    ):
        job = r.get(key)
        if job and "wall_seconds" in job:
            lines.append(
                f"| {label} | {job['wall_seconds']:.1f} | {job['scoring_seconds']:.2f} | "
                f"{job['wall_over_scoring']:.1f}x |"
            )
    which = "second" if "stages" in r.get("job_second", {}) else "first"
    split = r.get(f"job_{which}", {}).get("stages")
    if split:
        lines += [
            "",
            f"Wall-time split of the {which} run (seconds; 'beside' runs in a thread):",
            "",
        ]
        lines.append(", ".join(f"{k} {v:.2f}" for k, v in split.items()))
    floor = r.get("floor", {}).get("import_torch_transformers_start_device_exit_seconds")
    if floor:
        lines += [
            "",
            f"A process that only imports torch, transformers' Llama and fast tokenizer, starts "
            f"the device and exits takes {floor:.1f} s on this machine.",
        ]
    prof = s.get("profile") or {}
    lines += [
        "",
        f"- scorer: {s['stimuli_per_s']:.0f} {unit}/s, {s['tokens_per_s']:.0f} tokens/s, "
        f"batch {s['batch_size']}; MFU {mfu} ({s['achieved_tflops']:.0f} TFLOP/s); a plain "
        f"causal forward at {s['plain_forward_rows']} rows x {s['plain_forward_tokens']} "
        f"tokens: {s['plain_forward_tflops']:.0f} TFLOP/s "
        f"(the scorer at {s['achieved_tflops'] / s['plain_forward_tflops']:.0%} of it)",
        f"- attention kernels: {', '.join(prof.get('attention_kernels', [])) or 'n/a'}",
    ]
    if s.get("memory"):
        lines.append(
            f"- memory: {s['memory']['free_before_gib']:.1f} GiB free before scoring, peak "
            f"{s['memory']['peak_allocated_gib']:.1f} GiB allocated (weights included) at "
            f"batch {s['batch_size']}"
        )
    if r.get("layouts"):
        lines.append(
            "- each layout forced on every batch: "
            + "; ".join(
                f"{name} {v['seconds']:.2f} s"
                + (f" (MFU {v['mfu']:.1%})" if v["mfu"] is not None else "")
                for name, v in r["layouts"].items()
            )
        )
    if prof:
        lines.append(
            f"- {prof.get('batches', 1)} batch(es) profiled: GPU busy "
            f"{prof['gpu_busy_seconds']:.3f} s of {prof['wall_seconds']:.3f} s "
            f"({prof['gpu_busy_seconds'] / prof['wall_seconds']:.0%}); top kernels (ms): "
            + "; ".join(f"{k} {v}" for k, v in prof["top_kernels_ms"].items())
        )
    variants = r.get("attention_variants")
    if variants:
        lines.append(
            f"- one layer's attention at {variants['rows']} rows x {variants['width']} tokens "
            f"({variants['heads']} heads, {variants['kv_heads']} key/value heads): "
            + "; ".join(
                f"{name} {v['ms']:.2f} ms ({', '.join(k[:40] for k in v['kernels'])})"
                if "ms" in v
                else f"{name}: {v['error']}"
                for name, v in variants.items()
                if isinstance(v, dict)
            )
        )
    lines += [
        f"- tokenize: {t['probe_seconds']:.2f} s (each prompt once) against "
        f"{t['joint_seconds']:.2f} s (every prompt + candidate in full), same tokens",
        f"- naive method: {r['naive']['stimuli_per_s']:.1f} {unit}/s; speed-up "
        f"{r['naive']['speedup']:.0f}x",
    ]
    lm = r.get("lm_eval", {})
    if "seconds" in lm:
        lines.append(
            f"- lm-evaluation-harness {lm['version']} HFLM.loglikelihood, batch "
            f"{lm['batch_size']}, {lm['requests']} requests"
            + (
                f" (the first of the {lm['of_requests']}; the probe on the same: "
                f"{lm['probe_seconds']:.2f} s)"
                if lm.get("of_requests", lm["requests"]) > lm["requests"]
                else ""
            )
            + f": {lm['seconds']:.1f} s; the probe "
            f"{lm['speedup_over_score']:.1f}x faster (scoring), "
            f"{lm['speedup_over_tokenize_and_score']:.1f}x (tokenize + score); max |summed "
            f"log-prob difference| {lm['max_abs_diff_bf16']:.3g} nats in bf16"
        )
    elif lm:
        lines.append(f"- lm-evaluation-harness: {lm['skipped']}")
    f = r["fp32"]
    line = (
        f"- fp32 on {f['stimuli']} {unit}: bf16 vs fp32 max |difference| "
        f"{f['max_abs_diff_bf16_vs_fp32']:.3g} nats"
    )
    if "max_abs_diff_vs_lm_eval_fp32" in f:
        line += (
            f" (lm-eval's own: {f['lm_eval_max_abs_diff_bf16_vs_fp32']:.3g}); probe vs lm-eval "
            f"in fp32 {f['max_abs_diff_vs_lm_eval_fp32']:.2g} nats"
        )
    lines += [line, ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
