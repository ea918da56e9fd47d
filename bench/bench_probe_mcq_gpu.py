"""Benchmark on a GPU: ``python -m probe mcq`` on a synthetic cross-lingual MCQ study, its
scorer, and lm-evaluation-harness side by side.

Model: the 1.14 B-parameter Llama with random weights of bench_probe_gpu.py (bf16). Design:
40 languages x 250 items x 4 options = 10 000 prompts x 4 options, written as a Concord
project (item files and registries, probe.tiny.write_mcq_study), landed by the landing's
reader and scored from the landing as the command scores any study. Each question is 36-61
words drawn from the probe's own texts with a blank ("[ADJ and ADJ]") in the middle,
60-100 tokens with the default template; each option 1-6 words. Measured with
bench_probe_gpu.py's parts:

- ``python -m probe mcq`` end to end in a fresh process (twice: the first pays the cold
  imports; under torchrun too where the machine has several GPUs), its wall time against
  its scoring time and the split it prints (imports, items and tokenizer, load, tokenize
  beside the load, check, score, write the sample logs);
- the scorer in process on the same prompts and options: prompts/s, MFU and the
  plain-forward ceiling, a kernel profile (CUDA), tokenization against the full joint
  encoding, the naive method on a sample, lm-eval's ``HFLM.loglikelihood`` on the same
  40 000 requests when lm_eval is importable, bf16 against fp32 on a sample.

    python bench/bench_probe_mcq_gpu.py [--languages 40] [--items 250] [--options 4]

Writes <out-dir>/probe_mcq_gpu.json and probe_mcq_gpu.md. ``--size tiny --languages 2
--items 10 --device cpu`` checks the code path on a CPU (under a minute).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from bench_probe_gpu import Bench, common_options, probe_job, side_by_side  # noqa: E402
from generate_mcq import LANGUAGE_POOL  # noqa: E402

from concord_io.landing import land_mcq  # noqa: E402
from probe.mcq import DEFAULT_TEMPLATE, load_items, prompts_and_options  # noqa: E402
from probe.stimuli import load_design  # noqa: E402
from probe.tiny import FILLER, write_mcq_study  # noqa: E402

DOMAINS = ("Health", "Education", "Law", "Art", "Science", "Business")
BLANK = "[ADJ and ADJ]"


def synthetic_items(
    n_languages: int, n_items: int, n_options: int, seed: int = 0
) -> dict[str, list[list[str]]]:
    """language -> item rows (domain, question, options): words of the probe's messages and
    fillers (whole tokens of the benchmark's tokenizer, so the token counts are realistic),
    drawn anew for every language and item."""
    if not 1 <= n_languages <= len(LANGUAGE_POOL):
        raise SystemExit(f"--languages must be 1 to {len(LANGUAGE_POOL)}")
    texts = [s.text for s in load_design().stimuli] + FILLER
    words = sorted({w.lower() for text in texts for w in re.findall(r"[A-Za-z']+", text)})
    rng = np.random.default_rng(seed)
    items: dict[str, list[list[str]]] = {}
    for language in LANGUAGE_POOL[:n_languages]:
        rows = []
        for item in range(n_items):
            picked = list(rng.choice(words, rng.integers(36, 62)))
            picked.insert(len(picked) // 2, BLANK)
            question = " ".join(picked).capitalize() + "."
            options = [" ".join(rng.choice(words, rng.integers(1, 7))) for _ in range(n_options)]
            rows.append([DOMAINS[item % len(DOMAINS)], question, *options])
        items[language] = rows
    return items


def attention_variants(model_dir: Path, rows: int, width: int, device: torch.device) -> dict:
    """One layer's attention at the packed layout's shape (rows x width tokens, the model's
    heads), milliseconds a call and the kernel SDPA picks: causal with no mask (the
    plain forward's), the packed layout's additive mask after the key/value heads are
    repeated (what transformers does with a mask), and the same mask with grouped-query
    attention left to SDPA (no repeat)."""
    import torch.nn.functional as F  # noqa: N812
    from torch.profiler import ProfilerActivity, profile
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model_dir)
    heads, kv = config.num_attention_heads, config.num_key_value_heads
    dim = config.hidden_size // heads
    q = torch.randn(rows, heads, width, dim, device=device, dtype=torch.bfloat16)
    k = torch.randn(rows, kv, width, dim, device=device, dtype=torch.bfloat16)
    v = torch.randn_like(k)
    causal = torch.ones(width, width, dtype=torch.bool, device=device).tril()
    mask = torch.zeros(rows, 1, width, width, dtype=torch.bfloat16, device=device)
    mask.masked_fill_(~causal, torch.finfo(torch.bfloat16).min)

    def repeated(t):
        return (
            t[:, :, None].expand(rows, kv, heads // kv, width, dim).reshape(rows, heads, width, dim)
        )

    variants = {
        "causal, no mask, GQA in SDPA": lambda: F.scaled_dot_product_attention(
            q, k, v, is_causal=True, enable_gqa=True
        ),
        "additive mask, heads repeated": lambda: F.scaled_dot_product_attention(
            q, repeated(k), repeated(v), attn_mask=mask
        ),
        "additive mask, GQA in SDPA": lambda: F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, enable_gqa=True
        ),
    }
    out = {"rows": rows, "width": width, "heads": heads, "kv_heads": kv}
    for name, call in variants.items():
        try:
            call()
            torch.cuda.synchronize(device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(10):
                call()
            end.record()
            torch.cuda.synchronize(device)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                call()
                torch.cuda.synchronize(device)
            kernels = sorted({e.key[:70] for e in prof.key_averages() if e.device_time_total > 0})
            out[name] = {"ms": start.elapsed_time(end) / 10, "kernels": kernels}
        except RuntimeError as error:
            out[name] = {"error": str(error).splitlines()[0]}
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common_options(parser)
    parser.add_argument("--languages", type=int, default=40)
    parser.add_argument("--items", type=int, default=250, help="per language")
    parser.add_argument("--options", type=int, default=4, help="per item (2 to 8)")
    args = parser.parse_args(argv)
    if not 2 <= args.options <= 8:
        raise SystemExit("--options must be 2 to 8")
    bench = Bench(args, "probe_mcq_gpu")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        items = synthetic_items(args.languages, args.items, args.options)
        project = write_mcq_study(tmp / "project", items, options="ABCDEFGH"[: args.options])
        landing = tmp / "landing"
        land_mcq(project, landing)  # the probe scores the landed items, as concord probe mcq
        model_dir = bench.model(tmp / "model")
        bench.floor()

        def job(name: str, ranks: int = 1) -> dict:
            argv = ["mcq", "--model", str(model_dir), "--items", str(project),
                    "--landing-dir", str(landing), "--out", str(tmp / name)]  # fmt: skip
            return probe_job(ROOT, argv, args.device, ranks)

        for attempt in ("first", "second")[: args.jobs]:
            bench.save(f"job_{attempt}", job(attempt))
        gpus = torch.cuda.device_count() if bench.cuda else 0
        if gpus > 1:
            bench.save("job_torchrun", {"ranks": gpus, **job("ranks", gpus)})
        # the prompts and options the command scored, read the way it reads them
        study_items, _ = load_items(project, landing, None)
        prompts, options = prompts_and_options(study_items, DEFAULT_TEMPLATE)
        side_by_side(bench, model_dir, prompts, options, backends=False, layouts=True)
        if bench.cuda:
            scorer = bench.result["scorer"]
            bench.save(
                "attention_variants",
                attention_variants(
                    model_dir, scorer["plain_forward_rows"], scorer["plain_forward_tokens"],
                    bench.device,
                ),
            )  # fmt: skip
    t = bench.result["tokenize"]
    low, high = t["prompt_tokens_range"]
    design = (
        f"{args.languages} languages x {args.items} items = {t['prompts']} prompts x "
        f"{args.options} options ({low}-{high} prompt tokens)"
    )
    bench.write(design, "mcq", unit="prompts")
    return bench.result


if __name__ == "__main__":
    main()
