"""Benchmark: the probe on a design 25x the reference, one process vs torchrun.

The design has 250 messages x the reference's 8 names = 2 000 stimuli x 10 candidates (the
messages are the reference's, numbered so that each is distinct); the model is the tiny
random GPT-2 of the tests. Each configuration runs the real command line in a fresh
process (``python -m probe run`` and ``torchrun --nproc_per_node 2 -m probe run``) and
reports stimuli/s of the scoring, the wall time of the whole command, and the peak resident
memory of the largest process. The naive method (one full forward pass per stimulus and
candidate) is timed on a sample of stimuli and scaled to the design: speed-up = naive time
per stimulus / probe time per stimulus (goal >= 15x).

    python bench/bench_probe_scale.py [--quick] [--out-dir bench/results]

Writes <out-dir>/probe_scale.json and probe_scale.md. Take the committed figures on an
idle machine (2 cores): the timings of a loaded machine say nothing.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyarrow.parquet as pq  # noqa: E402
import torch  # noqa: E402
from bench_probe import write_results  # noqa: E402

from probe.modeling import load_model  # noqa: E402
from probe.scoring import build_requests, score_reference  # noqa: E402
from probe.stimuli import default_seeds_dir, load_design  # noqa: E402
from probe.tiny import build_tiny_model  # noqa: E402

# Runs a command and prints the peak resident memory (KiB on Linux) of its largest process.
PEAK_RSS = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def scaled_seeds(folder: Path, repeats: int) -> Path:
    """The reference seeds with every message repeated ``repeats`` times, each copy
    numbered ("(1/25) ...") so that the stimuli stay distinct: messages x repeats."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("probe_names.csv", "probe_candidates.csv", "probe_prompt_templates.csv"):
        (folder / name).write_bytes((default_seeds_dir() / name).read_bytes())
    with (default_seeds_dir() / "probe_messages.csv").open(encoding="utf-8", newline="") as f:
        messages = [row["message"] for row in csv.DictReader(f)]
    with (folder / "probe_messages.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["msg_id", "message"])
        for copy in range(repeats):
            for i, message in enumerate(messages):
                prefix = f"({copy + 1}/{repeats}) " if repeats > 1 else ""
                writer.writerow([copy * len(messages) + i + 1, prefix + message])
    return folder


def _run(command: list[str], env: dict) -> tuple[float, int]:
    tick = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - tick, int(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2x the reference, naive on 8")
    parser.add_argument("--naive-sample", type=int, default=100, help="stimuli timed naively")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 25
    sample = 8 if args.quick else args.naive_sample
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CONCORD_DEBUG": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        seeds = scaled_seeds(tmp / "seeds", repeats)
        model_dir = build_tiny_model(tmp / "model", arch="gpt2", size="tiny")
        design = load_design(seeds)
        common = ["run", "--model", str(model_dir), "--device", "cpu", "--no-progress",
                  "--seeds-dir", str(seeds), "--landing-dir", str(tmp / "landing")]  # fmt: skip
        configs = {
            "1 process": [sys.executable, "-m", "probe", *common, "--run-id", "single"],
            "torchrun, 2 ranks": [
                sys.executable, "-m", "torch.distributed.run", "--standalone",
                "--nproc_per_node", "2", "-m", "probe", *common, "--run-id", "ranks2",
            ],
        }  # fmt: skip
        runs = []
        for label, command in configs.items():
            wall, peak_kib = _run(command, env)
            run_id = command[-1]
            meta = pq.read_table(tmp / "landing" / "probe" / f"run_id={run_id}" / "runs.parquet")
            meta = meta.to_pylist()[0]
            runs.append(
                {
                    "config": label,
                    "world_size": meta["world_size"],
                    "scoring_s": meta["scoring_seconds"],
                    "stimuli_per_s": len(design.stimuli) / meta["scoring_seconds"],
                    "wall_s": wall,
                    "peak_rss_mib": peak_kib / 1024,
                    "rank_requests": meta["rank_requests"],
                }
            )
        # the naive method on a sample, one thread like each probe rank
        torch.set_num_threads(1)
        model, tokenizer = load_model(str(model_dir), torch.device("cpu"), torch.float32)
        stimuli = design.stimuli[:sample]
        requests = build_requests(
            tokenizer, [s.prompt for s in stimuli], [c.text for c in design.candidates]
        )
        tick = time.perf_counter()
        score_reference(model, requests)
        naive_per_stimulus = (time.perf_counter() - tick) / sample
    for run in runs:
        run["speedup_vs_naive"] = naive_per_stimulus * run["stimuli_per_s"]
    result = {
        "benchmark": "probe_scale",
        "quick": args.quick,
        "n_stimuli": len(design.stimuli),
        "n_candidates": len(design.candidates),
        "model": "random GPT-2 (tiny: 2 layers, hidden 32), locally trained BPE",
        "naive_sample": sample,
        "naive_stimuli_per_s": 1 / naive_per_stimulus,
        "machine": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "torch": torch.__version__,
        },
        "runs": runs,
    }
    write_results(args.out_dir, "probe_scale", result, _markdown(result))
    return result


def _markdown(result: dict) -> str:
    lines = [
        f"### Probe at scale: {result['n_stimuli']} stimuli x {result['n_candidates']} "
        f"candidates on CPU{', quick' if result['quick'] else ''}",
        "",
        f"Model: {result['model']}. Naive (one pass per stimulus and candidate, timed on "
        f"{result['naive_sample']} stimuli): {result['naive_stimuli_per_s']:.1f} stimuli/s.",
        "",
        "| configuration | stimuli/s (scoring) | speed-up over naive | command wall s | "
        "peak RSS of a process (MiB) | stimuli per rank |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for run in result["runs"]:
        lines.append(
            f"| {run['config']} | {run['stimuli_per_s']:.1f} | {run['speedup_vs_naive']:.1f}x | "
            f"{run['wall_s']:.1f} | {run['peak_rss_mib']:.0f} | {run['rank_requests']} |"
        )
    m = result["machine"]
    lines += ["", f"Machine: {m['platform']}, {m['cpu_count']} CPUs, torch {m['torch']}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
