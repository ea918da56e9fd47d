"""Benchmark: the probe's batched scorer against the reference method and lm-evaluation-harness.

Reference: one full forward pass per stimulus and candidate with a full-vocabulary
log-softmax (what the reference README describes). lm-evaluation-harness: the method of its
``HFLM.loglikelihood`` (one row per (prompt, candidate) request, rows sorted by length
descending and right-padded into batches, the model run on context + continuation minus its
last token, a full-vocabulary log-softmax, the continuation's tokens gathered), re-implemented
here in ``score_hflm_style`` because lm-eval 0.4.13 cannot be installed beside the pinned
dependencies (pip's resolver does not settle on its dependency tree under
requirements.lock). Same model, same requests, same numbers to 1e-4; goal >= 7x.
Batched (the probe): each prompt computed once (its shared opening once per batch), the
candidates over its cached keys and values, batched across stimuli, log-softmax only where needed.
Both score the same 80 stimuli x 10 candidates with the same random GPT-2, at two model sizes
(the tiny test model, whose small tokenizer splits candidates into several tokens, and one of
~30M parameters) and three batch sizes (8, 32 and auto: stimuli per batch for the probe, rows
per batch for the lm-eval method, whose auto is its 64); --quick: the tiny model, 8 stimuli
and batch 8, for the test that keeps this file from rotting.

    python bench/bench_probe.py [--quick] [--threads N] [--out-dir bench/results]

Writes <out-dir>/probe.json and probe.md. The GPU part runs only when a CUDA device is
present; otherwise the results say that no accelerator was lent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np  # noqa: E402
import torch  # noqa: E402

from concord_io.project import PROJECT_ROOT as ROOT
from probe.modeling import dtype_name, load_model  # noqa: E402
from probe.scoring import build_requests, score_batched, score_reference  # noqa: E402
from probe.stimuli import load_design  # noqa: E402
from probe.tiny import build_tiny_model  # noqa: E402


@torch.no_grad()
def score_hflm_style(model, requests, batch_rows: int = 64) -> list[list[np.ndarray]]:
    """lm-evaluation-harness HFLM._loglikelihood_tokens, for a decoder-only model: every
    (prompt, candidate) pair is its own row ``(prompt + candidate)[:-1]``, rows sorted by
    length (longest first) and right-padded in batches of ``batch_rows``; log-softmax over
    the whole vocabulary at every position; the candidate's tokens gathered at the end."""
    device = model.get_input_embeddings().weight.device
    rows = [
        (r.index, k, r.prompt_ids + tail, len(tail))
        for r in requests
        for k, tail in enumerate(r.candidate_ids)
    ]
    rows.sort(key=lambda row: -len(row[2]))
    out = {(r.index, k): None for r in requests for k in range(len(r.candidate_ids))}
    for start in range(0, len(rows), batch_rows):
        batch = rows[start : start + batch_rows]
        length = max(len(row[2]) - 1 for row in batch)
        ids = torch.zeros((len(batch), length), dtype=torch.long)
        for i, (_, _, tokens, _) in enumerate(batch):
            ids[i, : len(tokens) - 1] = torch.tensor(tokens[:-1])
        log_probs = torch.log_softmax(model(input_ids=ids.to(device)).logits.double(), dim=-1)
        for i, (index, k, tokens, n) in enumerate(batch):
            end = len(tokens) - 1
            picked = log_probs[i, end - n : end].gather(
                -1, torch.tensor(tokens[-n:], device=device)[:, None]
            )
            out[(index, k)] = picked[:, 0].cpu().numpy()
    return [
        [out[(r.index, k)] for k in range(len(r.candidate_ids))]
        for r in sorted(requests, key=lambda r: r.index)
    ]


def _max_diff(a, b) -> float:
    return max(
        abs(float(x.sum()) - float(y.sum()))
        for row_a, row_b in zip(a, b, strict=True)
        for x, y in zip(row_a, row_b, strict=True)
    )


def _time(fn, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        tick = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - tick)
    return best, result


def bench_device(
    model_dir: Path,
    device: torch.device,
    dtype: torch.dtype,
    requests,
    repeats: int,
    batch_sizes: tuple = ("auto",),
) -> list[dict]:
    """One row per batch size: the probe at that batch size against the lm-eval method at
    the same number of rows per batch ("auto": ours chooses, lm-eval's default 64), and
    the reference method (no batching; timed once, the same for every row)."""
    model, _ = load_model(str(model_dir), device, dtype)
    score_batched(model, requests[:2], device=device)  # warm-up (allocator, kernels)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    score_reference(model, requests[:1])  # warm-up
    reference_s, reference_scores = _time(lambda: score_reference(model, requests), 1)
    rows = []
    for requested in batch_sizes:

        def batched(requested=requested):
            out = score_batched(model, requests, device=device, batch_size=requested)
            sync()
            return out

        batched_s, (batched_scores, batch_size) = _time(batched, repeats)
        hflm_rows = 64 if requested == "auto" else int(requested)
        score_hflm_style(model, requests[:1], batch_rows=hflm_rows)  # warm-up
        hflm_s, hflm_scores = _time(
            lambda rows_per_batch=hflm_rows: score_hflm_style(model, requests, rows_per_batch), 1
        )
        rows.append({
            "device": str(device),
            "dtype": dtype_name(dtype),
            "batch_size_requested": requested,
            "batch_size": batch_size,
            "hflm_batch_rows": hflm_rows,
            "batched_s": batched_s,
            "batched_stimuli_per_s": len(requests) / batched_s,
            "hflm_s": hflm_s,
            "speedup_vs_hflm": hflm_s / batched_s,
            "max_abs_diff_vs_hflm": _max_diff(batched_scores, hflm_scores),
            "reference_s": reference_s,
            "reference_stimuli_per_s": len(requests) / reference_s,
            "speedup": reference_s / batched_s,
            "max_abs_logprob_diff": _max_diff(batched_scores, reference_scores),
        })  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny model, 8 stimuli")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (1: stable timings on a shared machine)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="batched timing: best of N")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    design = load_design()
    stimuli = design.stimuli[:8] if args.quick else design.stimuli
    # every model size and batch size keeps the >= 7x over lm-eval (issue 12): the tiny
    # test model (multi-token candidates) and the ~30M one, at 8, 32 and auto
    sizes = ["tiny"] if args.quick else ["tiny", "bench"]
    batch_sizes = (8,) if args.quick else (8, 32, "auto")
    runs, models = [], {}
    accelerator = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            model_dir = build_tiny_model(Path(tmp) / "model", arch="gpt2", size=size)
            model, tokenizer = load_model(str(model_dir), torch.device("cpu"), torch.float32)
            n_params = model.num_parameters()
            del model
            requests = build_requests(
                tokenizer, [s.prompt for s in stimuli], [c.text for c in design.candidates]
            )
            n_tokens = [len(t) for r in requests for t in r.candidate_ids]
            models[size] = {
                "model": f"random GPT-2, {n_params / 1e6:.2f}M parameters, locally trained BPE",
                "n_parameters": n_params,
                "prompt_tokens_mean": float(np.mean([len(r.prompt_ids) for r in requests])),
                "candidate_tokens_mean": float(np.mean(n_tokens)),
            }
            targets = [(torch.device("cpu"), torch.float32)]
            if accelerator:
                targets += [(torch.device("cuda"), torch.float32),
                            (torch.device("cuda"), torch.bfloat16)]  # fmt: skip
            for device, dtype in targets:
                for row in bench_device(
                    model_dir, device, dtype, requests, args.repeats, batch_sizes
                ):
                    runs.append({"size": size, **row})
    result = {
        "benchmark": "probe",
        "quick": args.quick,
        "models": models,
        "n_stimuli": len(stimuli),
        "n_candidates": len(design.candidates),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "torch_threads": args.threads,
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
        "accelerator": accelerator or "none: no accelerator was lent to this run; GPU part skipped",
        "min_speedup_vs_hflm": min(r["speedup_vs_hflm"] for r in runs),
        "runs": runs,
    }
    write_results(args.out_dir, "probe", result, _markdown(result))
    return result


def write_results(out_dir: Path, name: str, result: dict, markdown: str) -> None:
    """``<out_dir>/<name>.json`` (the result) and ``<name>.md`` (its table), which is also
    printed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / f"{name}.md").write_text(markdown)
    print(markdown)


def _markdown(result: dict) -> str:
    lines = [
        f"### Probe scoring: batched vs the lm-eval method and the reference "
        f"({result['n_stimuli']} stimuli x {result['n_candidates']} candidates"
        f"{', quick' if result['quick'] else ''})",
        "",
    ]
    for size, m in result["models"].items():
        lines.append(
            f"- `{size}`: {m['model']}; prompt {m['prompt_tokens_mean']:.0f} tokens, "
            f"candidates {m['candidate_tokens_mean']:.1f} tokens on average."
        )
    lines += [
        "",
        "| model | device | dtype | batch (ours / lm-eval rows) | reference s | "
        "lm-eval (HFLM method) s | batched s | stimuli/s (batched) | speed-up vs reference | "
        "speed-up vs lm-eval | max abs diff (nats) |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in result["runs"]:
        diff = f"{max(run['max_abs_logprob_diff'], run['max_abs_diff_vs_hflm']):.1e}"
        lines.append(
            f"| {run['size']} | {run['device']} | {run['dtype']} | "
            f"{run['batch_size_requested']} ({run['batch_size']}) / {run['hflm_batch_rows']} | "
            f"{run['reference_s']:.2f} | {run['hflm_s']:.2f} | {run['batched_s']:.3f} | "
            f"{run['batched_stimuli_per_s']:.1f} | {run['speedup']:.1f}x | "
            f"{run['speedup_vs_hflm']:.1f}x | {diff} |"
        )
    m = result["machine"]
    lines += [
        "",
        f"Lowest speed-up over the lm-eval method: {result['min_speedup_vs_hflm']:.1f}x "
        "(goal >= 7x at every model size and batch size).",
        "",
        f"Machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs "
        f"({m['torch_threads']} torch threads), torch {m['torch']}. "
        f"Accelerator: {result['accelerator']}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
