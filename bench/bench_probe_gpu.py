"""Benchmark on a GPU: a 1B-parameter Llama (random weights, built from a config) in bf16.

The design is the reference's x100 (1 000 messages x 8 names = 8 000 stimuli x 10
candidates; messages numbered so each is distinct). Reports stimuli/s and tokens/s of the
probe's packed scorer, model FLOP utilisation (MFU = 2 x parameters x packed tokens / s over
the GPU's dense bf16 peak; the attention's own FLOPs are left out, so MFU is a slight
under-estimate), the speed-up over the naive method (one full pass per stimulus and
candidate, timed on a sample), and the agreement of bf16 with fp32 scores on a sample
(max |difference| of the summed log-probs and of the rel-minus-unrel index). With more than
one visible GPU it also runs ``torchrun --nproc_per_node <GPUs>`` on the same design.

    python bench/bench_probe_gpu.py [--size 1b] [--repeats 100] [--out-dir bench/results]

Writes <out-dir>/probe_gpu.json and probe_gpu.md; --size tiny --repeats 1 --device cpu
checks the code path on a CPU.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import torch  # noqa: E402
from bench_probe_scale import scaled_seeds  # noqa: E402

from probe.modeling import load_model  # noqa: E402
from probe.scoring import build_requests, score_batched, score_reference  # noqa: E402
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


def _index(token_lps, groups) -> np.ndarray:
    """index_rel_minus_unrel per stimulus from per-token log-probs (softmax over candidates)."""
    sums = np.array([[float(lp.sum()) for lp in row] for row in token_lps])
    p = np.exp(sums - sums.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    sign = np.where(np.array(groups) == "reliable_like", 1.0, -1.0)
    return p @ sign


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1b", choices=["tiny", "bench", "1b"])
    parser.add_argument("--repeats", type=int, default=100, help="x the reference design")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--batch-size", default="auto")
    parser.add_argument("--naive-sample", type=int, default=50)
    parser.add_argument("--fp32-sample", type=int, default=400)
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    batch_size = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seeds = scaled_seeds(tmp / "seeds", args.repeats)
        design = load_design(seeds)
        model_dir = build_tiny_model(tmp / "model", arch="llama", add_bos=True, size=args.size)
        model, tokenizer = load_model(str(model_dir), device, torch.bfloat16)
        n_params = model.num_parameters()
        candidates = [c.text for c in design.candidates]
        requests = build_requests(tokenizer, [s.prompt for s in design.stimuli], candidates)
        packed_tokens = sum(r.packed_length for r in requests)
        score_batched(model, requests[:8], batch_size=batch_size, device=device)  # warm-up
        sync()
        tick = time.perf_counter()
        bf16_lps, used = score_batched(model, requests, batch_size=batch_size, device=device)
        sync()
        seconds = time.perf_counter() - tick
        sample = requests[: args.naive_sample]
        tick = time.perf_counter()
        score_reference(model, sample)
        sync()
        naive_per_stimulus = (time.perf_counter() - tick) / len(sample)
        del model
        if device.type == "cuda":
            torch.cuda.empty_cache()
        fp32, _ = load_model(str(model_dir), device, torch.float32)
        check = requests[: args.fp32_sample]
        fp32_lps, _ = score_batched(fp32, check, batch_size=batch_size, device=device)
        del fp32
        groups = [c.group for c in design.candidates]
        lp_diff = max(
            abs(float(a.sum()) - float(b.sum()))
            for ra, rb in zip(bf16_lps[: len(check)], fp32_lps, strict=True)
            for a, b in zip(ra, rb, strict=True)
        )
        index_diff = float(
            np.abs(_index(bf16_lps[: len(check)], groups) - _index(fp32_lps, groups)).max()
        )
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
        peak = peak_tflops(name, args.peak_tflops)
        achieved = 2 * n_params * packed_tokens / seconds / 1e12
        runs = [
            {
                "config": "1 process",
                "stimuli_per_s": len(requests) / seconds,
                "tokens_per_s": packed_tokens / seconds,
                "seconds": seconds,
                "batch_size": used,
            }
        ]
        n_gpus = torch.cuda.device_count() if device.type == "cuda" else 0
        if n_gpus > 1:
            landing = tmp / "landing"
            subprocess.run(
                [sys.executable, "-m", "torch.distributed.run", "--standalone",
                 "--nproc_per_node", str(n_gpus), "-m", "probe", "run", "--model",
                 str(model_dir), "--dtype", "bfloat16", "--seeds-dir", str(seeds),
                 "--landing-dir", str(landing), "--run-id", "ranks", "--no-progress"],
                cwd=ROOT, check=True,
            )  # fmt: skip
            meta = pq.read_table(landing / "probe" / "run_id=ranks" / "runs.parquet")
            meta = meta.to_pylist()[0]
            runs.append(
                {
                    "config": f"torchrun, {n_gpus} ranks",
                    "stimuli_per_s": len(requests) / meta["scoring_seconds"],
                    "tokens_per_s": packed_tokens / meta["scoring_seconds"],
                    "seconds": meta["scoring_seconds"],
                    "batch_size": meta["batch_size"],
                }
            )
    result = {
        "benchmark": "probe_gpu",
        "device": name,
        "n_parameters": n_params,
        "size": args.size,
        "n_stimuli": len(requests),
        "n_candidates": len(candidates),
        "packed_tokens": packed_tokens,
        "achieved_tflops": achieved,
        "peak_bf16_tflops": peak,
        "mfu": achieved / peak if peak else None,
        "naive_stimuli_per_s": 1 / naive_per_stimulus,
        "speedup_vs_naive": naive_per_stimulus * len(requests) / seconds,
        "fp32_sample": len(check),
        "max_abs_logprob_diff_bf16_vs_fp32": lp_diff,
        "max_abs_index_diff_bf16_vs_fp32": index_diff,
        "torch": torch.__version__,
        "runs": runs,
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "probe_gpu.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out_dir / "probe_gpu.md").write_text(_markdown(result))
    print(_markdown(result))
    return result


def _markdown(r: dict) -> str:
    mfu = f"{r['mfu']:.1%}" if r["mfu"] is not None else "n/a (unknown peak: --peak-tflops)"
    lines = [
        f"### Probe on {r['device']}: {r['n_parameters'] / 1e9:.2f} B-parameter Llama "
        f"(random weights), bf16, {r['n_stimuli']} stimuli x {r['n_candidates']} candidates",
        "",
        "| configuration | stimuli/s | tokens/s | seconds | batch size |",
        "|---|---:|---:|---:|---:|",
    ]
    for run in r["runs"]:
        lines.append(
            f"| {run['config']} | {run['stimuli_per_s']:.1f} | {run['tokens_per_s']:.0f} | "
            f"{run['seconds']:.2f} | {run['batch_size']} |"
        )
    lines += [
        "",
        f"- model FLOP utilisation (1 process): {mfu} ({r['achieved_tflops']:.1f} TFLOP/s "
        f"of {r['peak_bf16_tflops']} dense bf16 peak; 2 x parameters x packed tokens)",
        f"- speed-up over naive (one pass per stimulus and candidate, "
        f"{r['naive_stimuli_per_s']:.1f} stimuli/s): {r['speedup_vs_naive']:.1f}x",
        f"- bf16 vs fp32 on {r['fp32_sample']} stimuli: max |log-prob difference| "
        f"{r['max_abs_logprob_diff_bf16_vs_fp32']:.3g} nats, max |index difference| "
        f"{r['max_abs_index_diff_bf16_vs_fp32']:.3g}",
        f"- torch {r['torch']}",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
