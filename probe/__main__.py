"""python -m probe run|demo|runs|mcq: the reliability probe as a job beside the warehouse,
and a cross-lingual multiple-choice task's items scored into lm-evaluation-harness logs.

Expected failures print one line (and a hint) and exit with status 2; --debug (or
CONCORD_DEBUG=1) shows the traceback. Under torchrun only rank 0 prints.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from probe.errors import ProbeError, printable, run_main
from probe.mcq import DEFAULT_TEMPLATE


def process_seconds() -> float | None:
    """Seconds since this process started (Linux /proc), interpreter start-up included."""
    try:
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


STARTED_AFTER = process_seconds()  # interpreter start-up and this module's imports


def _batch_size(value: str) -> int | str:
    if value == "auto":
        return value
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError("batch size must be a positive integer or 'auto'")
    return int(value)


def _landing_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--landing-dir",
        type=Path,
        default=None,
        help="default: $CONCORD_LANDING_DIR, else warehouse/landing",
    )


def _model_options(parser: argparse.ArgumentParser) -> None:
    """How a model is loaded and run: every command that scores takes these."""
    parser.add_argument(
        "--device", default="auto", help="auto (the rank's GPU if present), cuda[:n], cpu"
    )
    parser.add_argument(
        "--device-map",
        default=None,
        choices=["auto", "balanced", "sequential"],
        help="place one model across the visible GPUs (and CPU) with accelerate",
    )
    parser.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "fp32", "bfloat16", "bf16", "float16", "fp16"],
    )
    parser.add_argument(
        "--batch-size",
        type=_batch_size,
        default="auto",
        help="stimuli per forward pass; auto starts large and halves on out-of-memory",
    )
    parser.add_argument("--revision", default=None, help="model revision (branch, tag, commit)")
    parser.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="run the model folder's own modelling code (only for folders you trust)",
    )
    parser.add_argument("--no-progress", action="store_true")


def _name_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name",
        dest="model_name",
        default=None,
        help="what the marts call the model (default: its folder's name, or the hub id; a "
        "model with random weights says so)",
    )


def _scoring_options(parser: argparse.ArgumentParser) -> None:
    """The name probe's: the model's options, the run and its landing."""
    _model_options(parser)
    parser.add_argument(
        "--run-id",
        default=None,
        help="default: UTC time + model hash + random suffix; with several models, the "
        "sweep's name (runs are <run-id>--<model>)",
    )
    parser.add_argument("--replace", action="store_true", help="overwrite a landed run id")
    _landing_option(parser)
    parser.add_argument("--seeds-dir", type=Path, default=None, help="default: seeds/probe")
    parser.add_argument("--template-id", default="reference")


def _scored_with(args: argparse.Namespace) -> dict[str, Any]:
    """The options ``run`` and ``mcq`` share: where and how the model scores, and where the
    results land."""
    return {
        "device": args.device,
        "device_map": args.device_map,
        "dtype": args.dtype,
        "batch_size": args.batch_size,
        "revision": args.revision,
        "trust_remote_code": args.trust_remote_code,
        "replace": args.replace,
        "progress": not args.no_progress,
        "landing_dir": args.landing_dir,
    }


def _run(args: argparse.Namespace, models: list[str], started: float) -> None:
    from probe.runner import run_sweep

    imports = time.perf_counter() - started  # torch, transformers and the probe's modules

    results = run_sweep(
        models,
        run_id=args.run_id,
        resume=getattr(args, "resume", False),
        seeds_dir=args.seeds_dir,
        template_id=args.template_id,
        model_name=getattr(args, "model_name", None),
        **_scored_with(args),
    )
    for result in results:
        if not result.is_main:
            continue
        rate = result.n_stimuli / result.scoring_seconds if result.scoring_seconds else 0.0
        print(
            f"run {result.run_id}: {result.n_stimuli} stimuli x {result.n_candidates} "
            f"candidates scored in {result.scoring_seconds:.2f} s on {result.world_size} "
            f"rank(s) ({rate:.1f} stimuli/s, batch size {result.batch_size}); landed in "
            f"{result.folder}"
        )
        _print_wall_time(imports, result.stage_seconds)
        imports = 0.0  # paid once per sweep


def _mcq(args: argparse.Namespace, started: float) -> None:
    from probe.mcq import next_steps
    from probe.runner import run_mcq
    from probe.stimuli import project_root

    imports = time.perf_counter() - started
    result = run_mcq(
        args.model,
        project=args.items or project_root(),
        out=args.out,
        task=args.task,
        template=args.template,
        model_name=args.model_name,
        **_scored_with(args),
    )
    if not result.is_main:
        return
    low, high = result.option_counts
    counts = str(low) if low == high else f"{low}-{high}"
    rate = result.n_prompts / result.scoring_seconds if result.scoring_seconds else 0.0
    print(
        f"mcq {result.task}: {result.n_items} items x {result.n_languages} language(s), "
        f"{counts} options each, scored in {result.scoring_seconds:.2f} s on "
        f"{result.world_size} rank(s) ({rate:.1f} prompts/s, batch size {result.batch_size}); "
        f"sample logs in {printable(result.folder)}"
    )
    _print_wall_time(imports, result.stage_seconds)
    if args.result_json is not None:  # for the program that ran it: concord probe mcq --land
        args.result_json.write_text(
            json.dumps({"folder": str(result.folder), "task": result.task}), encoding="utf-8"
        )
    else:
        print(printable(next_steps(result.folder, result.task)))


def _print_wall_time(imports: float, stage_seconds: dict[str, float]) -> None:
    split = {"start-up": STARTED_AFTER or 0.0, "imports": imports, **stage_seconds}
    total = process_seconds()
    print(
        "wall time: "
        + ", ".join(f"{stage} {s:.2f} s" for stage, s in split.items())
        + (f" (process age {total:.2f} s)" if total is not None else "")
    )


def _runs(args: argparse.Namespace) -> None:
    from probe.landing import default_landing_dir, list_runs, remove_run, timestamp

    landing = args.landing_dir or default_landing_dir()
    if args.runs_command == "remove":
        folder = remove_run(landing, args.run_id)
        print(f"removed run {args.run_id} ({folder})")
        return
    rows = list_runs(landing)
    if not rows:
        print(f"no probe run landed in {landing}")
        return
    print("run_id\tmodel\tdesign\tdtype\tranks\tfinished\tMiB")
    for row in rows:
        if "problem" in row:
            print(f"{printable(row['run_id'])}\t{row['problem']}")
            continue
        print(
            f"{printable(row['run_id'])}\t{printable(row['model'])}\t{row['design_hash']}\t"
            f"{row['dtype']}\t{row['world_size'] or 1}\t{timestamp(row['finished_at'])}\t"
            f"{row['bytes'] / 2**20:.2f}"
        )


DEMO_MODEL_NAME = "demo {arch} (random weights — a pipeline check, not a finding)"


def _scoring_modules():
    """The modules that score (torch, transformers), or one line saying how to install
    them: `make build` installs the warehouse only, by design."""
    try:
        import transformers  # noqa: F401

        from probe import distributed
    except ImportError as error:
        raise ProbeError(
            f"scoring needs the probe's extra (torch, transformers): {error.name or error} "
            "is not installed",
            hint="install it with `make probe-install` (seconds with uv: torch's CPU wheel and "
            "transformers), then run the command again (the demo takes about 10 s)",
        ) from None
    return distributed


#: The commands and their one-line help (`concord probe --help` lists the same lines).
COMMANDS = {
    "run": "score the seed stimuli with models and land runs",
    "demo": "build a tiny random model and run the probe on it",
    "runs": "list the landed runs, or remove one",
    "mcq": "score a multiple-choice task's items into lm-eval sample logs",
}


def _command(commands, name: str, more: str = "") -> argparse.ArgumentParser:
    # the help line in the list of commands, and the first line of the command's own --help
    description = f"{COMMANDS[name]}.{' ' + more if more else ''}"
    return commands.add_parser(name, help=COMMANDS[name], description=description)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m probe", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True)

    run = _command(commands, "run")
    run.add_argument(
        "--model",
        action="append",
        default=[],
        help="local folder, or a hub id already cached; repeat for a sweep (one run each)",
    )
    run.add_argument("--models-file", type=Path, default=None, help="one model per line")
    run.add_argument(
        "--resume", action="store_true", help="skip the sweep's runs that already landed"
    )
    _name_option(run)
    _scoring_options(run)

    demo = _command(commands, "demo")
    demo.add_argument("--arch", default="gpt2", choices=["gpt2", "llama"])
    demo.add_argument("--bos", action="store_true", help="the demo tokenizer adds a BOS token")
    demo.add_argument(
        "--model-dir", type=Path, default=None, help="default: demo_model beside the landing dir"
    )
    _scoring_options(demo)
    demo.set_defaults(run_id="demo")

    runs = _command(commands, "runs")
    _landing_option(runs)
    runs_commands = runs.add_subparsers(dest="runs_command")
    remove = runs_commands.add_parser(
        "remove",
        help="move a run out of the landing, then delete",
        description="move a run out of the landing, then delete it.",
    )
    remove.add_argument("run_id")
    _landing_option(remove)

    mcq = _command(
        commands,
        "mcq",
        "Each item's prompt is the template with its question; each option is scored as the "
        "sum of the token log-probabilities of ' ' + its text after the prompt, as "
        "lm-evaluation-harness scores multiple choice. Writes OUT/<model>/samples_<task>_"
        "<language>_<date>.jsonl and results_<date>.json, which `concord add lmeval` imports "
        "(`concord probe mcq --land` does it after scoring) and the landing reads as any "
        "harness run (docs/probe.md).",
    )
    mcq.add_argument("--model", required=True, help="local folder, or a hub id already cached")
    _name_option(mcq)
    mcq.add_argument(
        "--items",
        type=Path,
        default=None,
        help="the Concord project whose items are scored: those `concord land` landed "
        "(--landing-dir), in its study's option order (default: the project this runs in)",
    )
    mcq.add_argument(
        "--task", default=None, help="the items' task (default: the one task they hold)"
    )
    mcq.add_argument(
        "--template",
        default=DEFAULT_TEMPLATE,
        help="the prompt; {question} is the item's question (default: %(default)r: the "
        "study's items are statements with a marked blank, so the harness's MCQ template "
        "without its 'Question: ' label)",
    )
    mcq.add_argument("--out", type=Path, required=True, help="the harness's --output_path")
    mcq.add_argument(
        "--replace", action="store_true", help="replace this model's logs already in --out"
    )
    mcq.add_argument(
        "--result-json",
        type=Path,
        default=None,
        help="write the logs' folder and task to this file as JSON (for a program that runs "
        "this command: `concord probe mcq --land` imports and lands them)",
    )
    _landing_option(mcq)
    _model_options(mcq)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.perf_counter()
    if args.command == "runs":  # reads the landing only: no torch needed
        _runs(args)
        return 0
    distributed = _scoring_modules()
    try:
        if args.command == "run":
            models = list(args.model)
            if args.models_file is not None:
                from probe.runner import read_models_file

                models += read_models_file(args.models_file)
            if not models:
                raise ProbeError("run needs --model (repeatable) or --models-file")
            if args.model_name is not None and len(models) > 1:
                raise ProbeError(
                    f"--name names one model; this sweep has {len(models)}",
                    hint="run each model with its own --name (or name them in "
                    "seeds/models/model_aliases.csv)",
                )
            _run(args, models, started)
        elif args.command == "mcq":
            _mcq(args, started)
        elif args.command == "demo":
            from probe.landing import default_landing_dir
            from probe.tiny import build_tiny_model

            landing = args.landing_dir or default_landing_dir()
            model_dir = args.model_dir or Path(landing).parent / "demo_model"
            if distributed.ranks_from_env().world_size > 1:
                raise ProbeError("demo runs in one process", hint="under torchrun use run")
            build_tiny_model(
                model_dir,
                arch=args.arch,
                add_bos=args.bos,
                seeds_dir=args.seeds_dir,
            )
            print(f"demo model ({args.arch}, random weights) saved to {model_dir}")
            args.replace = True  # the demo run id is fixed: a new demo replaces the old one
            # what the marts and the report call it: not a path, and plainly not a real model
            args.model_name = DEMO_MODEL_NAME.format(arch=args.arch)
            _run(args, [str(model_dir)], time.perf_counter())
    finally:
        distributed.stop()
    return 0


if __name__ == "__main__":
    run_main(main)
