"""python -m probe run|demo: the reliability probe as a job beside the warehouse."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _batch_size(value: str) -> int | str:
    if value == "auto":
        return value
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError("batch size must be a positive integer or 'auto'")
    return int(value)


def _scoring_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="auto", help="auto (cuda if present), cuda, cpu")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument(
        "--batch-size",
        type=_batch_size,
        default="auto",
        help="stimuli per forward pass; auto starts large and halves on out-of-memory",
    )
    parser.add_argument("--run-id", default=None, help="default: UTC time + model hash")
    parser.add_argument(
        "--landing-dir",
        type=Path,
        default=None,
        help="default: $CONCORD_LANDING_DIR, else warehouse/landing",
    )
    parser.add_argument("--seeds-dir", type=Path, default=None, help="default: seeds/probe")
    parser.add_argument("--template-id", default="reference")
    parser.add_argument("--no-progress", action="store_true")


def _run(args: argparse.Namespace, model: str) -> None:
    from probe.runner import run_probe
    from probe.stimuli import DEFAULT_SEEDS_DIR

    result = run_probe(
        model,
        device=args.device,
        dtype=args.dtype,
        batch_size=args.batch_size,
        run_id=args.run_id,
        landing_dir=args.landing_dir,
        seeds_dir=args.seeds_dir or DEFAULT_SEEDS_DIR,
        template_id=args.template_id,
        progress=not args.no_progress,
    )
    rate = result.n_stimuli / result.scoring_seconds if result.scoring_seconds else float("inf")
    print(
        f"run {result.run_id}: {result.n_stimuli} stimuli x {result.n_candidates} candidates "
        f"scored in {result.scoring_seconds:.2f} s ({rate:.1f} stimuli/s, batch size "
        f"{result.batch_size}); landed in {result.folder}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m probe", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="score the seed stimuli with a model and land the run")
    run.add_argument("--model", required=True, help="local folder, or a hub id already cached")
    _scoring_options(run)

    demo = commands.add_parser("demo", help="build a tiny random model and run the probe on it")
    demo.add_argument("--arch", default="gpt2", choices=["gpt2", "llama"])
    demo.add_argument("--bos", action="store_true", help="the demo tokenizer adds a BOS token")
    demo.add_argument(
        "--model-dir", type=Path, default=None, help="default: demo_model beside the landing dir"
    )
    _scoring_options(demo)
    demo.set_defaults(run_id="demo")

    args = parser.parse_args(argv)
    if args.command == "run":
        _run(args, args.model)
    elif args.command == "demo":
        from probe.landing import default_landing_dir
        from probe.stimuli import DEFAULT_SEEDS_DIR
        from probe.tiny import build_tiny_model

        landing = args.landing_dir or default_landing_dir()
        model_dir = args.model_dir or Path(landing).parent / "demo_model"
        build_tiny_model(
            model_dir,
            arch=args.arch,
            add_bos=args.bos,
            seeds_dir=args.seeds_dir or DEFAULT_SEEDS_DIR,
        )
        print(f"demo model ({args.arch}, random weights) saved to {model_dir}")
        _run(args, str(model_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
