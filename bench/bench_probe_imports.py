"""Benchmark: what a `python -m probe run` imports, against a baseline commit and the floor.

Issue "The probe at GPU speed for the models people use" asks that the imports a probe run
makes take at most half of those at BASELINE, on the CPU machine, in the same run, best of
three. Measured here, on a tiny Llama (random weights, a local tokenizer) on the CPU:

- **what a run imports**: ``python -m probe run`` of this checkout, and of BASELINE's (its
  tree extracted with ``git archive``), each in a fresh process; the modules it holds when it
  exits, in the order they were first imported;
- **their import time**: a fresh process imports that list in order (the same modules, the
  same order, nothing else done), best of three, the two checkouts alternated;
- **the floors** no run can go under, timed the same way: ``import torch``; torch and
  ``torch._dynamo``; and what any run through ``from_pretrained`` imports (a script that
  loads the same model and its fast tokenizer with transformers' Auto classes and does
  nothing else);
- **who brings the heavy packages in**: the first import of each of HEAVY in a probe run,
  with the file and line that asked for it and the chain above it.

Results: bench/results/probe_imports.json and .md. Time it on an idle machine.

    python bench/bench_probe_imports.py [--baseline 0253017] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BASELINE = "0253017"
#: packages a probe run does not use itself, whose first import is traced
HEAVY = (
    "torch._dynamo",
    "torch.distributed.tensor",
    "sympy",
    "pandas",
    "scipy",
    "sklearn",
    "accelerate",
    "jinja2",
    "huggingface_hub",
)

# Run in the child: the module is executed with runpy as `python -m` would, with a finder at
# the head of sys.meta_path that notes the stack of each traced package's first import (it
# finds nothing itself), and sys.modules written out at exit.
RECORD = """
import json, runpy, sys, traceback
out, traced, module, argv = sys.argv[1], set(sys.argv[2].split(",")), sys.argv[3], sys.argv[4:]
chains = {}
class Tracer:
    def find_spec(self, name, path=None, target=None):
        stack = traceback.extract_stack()[:-1]
        # an import (the import system's own search), not a look-up such as
        # importlib.util.find_spec (is the package installed?)
        loading = len(stack) > 1 and stack[-2].name == "_find_and_load_unlocked"
        if name in traced and name not in chains and loading:
            chains[name] = [
                f"{frame.filename}:{frame.lineno}" for frame in stack
                if not frame.filename.startswith("<")
            ][::-1]
        return None
sys.meta_path.insert(0, Tracer())
sys.argv = [module, *argv]
code = 0
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
except SystemExit as stop:
    code = stop.code or 0
finally:
    modules = [name for name in sys.modules if name != "__main__"]
    json.dump({"modules": modules, "chains": chains, "exit": code}, open(out, "w"))
"""

# Run in the child: import a recorded list in order; print the seconds it took and how many
# modules the process then holds.
REPLAY = """
import importlib, json, sys, time
names = json.load(open(sys.argv[1]))
start = time.perf_counter()
for name in names:
    if name not in sys.modules:
        importlib.import_module(name)
print(time.perf_counter() - start, len(sys.modules))
"""


def _environment(root: Path) -> dict[str, str]:
    """The checkout at ``root`` first on the path (its probe/ and concord_common/)."""
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1"}


def record(
    root: Path, module: str, argv: list[str], out: Path, traced: tuple[str, ...] = HEAVY
) -> dict:
    """``python -m module *argv`` in ``root``: the modules it imported and who imported each
    of ``traced`` first (file:line, innermost first)."""
    done = subprocess.run(
        [sys.executable, "-c", RECORD, str(out), ",".join(traced), module, *argv],
        cwd=root, env=_environment(root), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode or not out.exists():
        raise SystemExit(f"{module} {' '.join(argv)} in {root} failed:\n{done.stderr[-3000:]}")
    recorded = json.loads(out.read_text())
    if recorded["exit"]:
        raise SystemExit(f"{module} {' '.join(argv)} exited {recorded['exit']}:\n{done.stderr}")
    return recorded


def replay(root: Path, modules: list[str], folder: Path) -> tuple[float, int]:
    """Seconds a fresh process in ``root`` takes to import ``modules`` in order, and the
    modules it then holds (those and everything they import)."""
    listing = folder / f"modules-{len(modules)}-{abs(hash(tuple(modules)))}.json"
    listing.write_text(json.dumps(modules))
    done = subprocess.run(
        [sys.executable, "-c", REPLAY, str(listing)],
        cwd=root, env=_environment(root), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"importing {len(modules)} modules failed:\n{done.stderr[-3000:]}")
    seconds, held = done.stdout.split()[-2:]
    return float(seconds), int(held)


def _chain(stack: list[str], roots: tuple[Path, ...]) -> list[str]:
    """A traced stack, innermost first, its paths shortened to the package's own path."""
    shortened = []
    for place in stack:
        for root in roots:
            place = place.replace(f"{root}{os.sep}", "")
        shortened.append(place.split(f"site-packages{os.sep}")[-1])
    return [p for p in shortened if "importlib" not in p and not p.startswith("runpy")]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    parser.add_argument("--repeats", type=int, default=3, help="timings of each list")
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)

    import torch
    import transformers

    from probe.tiny import build_tiny_model

    result: dict = {
        "benchmark": "probe_imports",
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "baseline": args.baseline,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": sys.version.split()[0],
        "load_before": Path("/proc/loadavg").read_text().split()[0],
    }
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        model = build_tiny_model(tmp / "model", arch="llama")
        baseline_root = tmp / "baseline"
        baseline_root.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(baseline_root)], input=archive, check=True)

        def probe_run(root: Path, name: str) -> dict:
            argv = ["run", "--model", str(model), "--landing-dir", str(tmp / f"landing-{name}"),
                    "--device", "cpu", "--no-progress"]  # fmt: skip
            return record(root, "probe", argv, tmp / f"{name}.json")

        runs = {
            "this tree": probe_run(ROOT, "head"),
            args.baseline: probe_run(baseline_root, "base"),
        }
        # any run through from_pretrained: the model and its fast tokenizer, nothing else
        loader = tmp / "load_only.py"
        loader.write_text(
            "import sys\nfrom transformers import AutoModelForCausalLM, AutoTokenizer\n"
            "AutoTokenizer.from_pretrained(sys.argv[1])\n"
            "AutoModelForCausalLM.from_pretrained(sys.argv[1])\n"
        )
        load_only = record(tmp, "load_only", [str(model)], tmp / "load_only.json")
        lists = {
            "this tree's run": (ROOT, runs["this tree"]["modules"]),
            f"{args.baseline}'s run": (baseline_root, runs[args.baseline]["modules"]),
            "from_pretrained only (model and tokenizer)": (tmp, load_only["modules"]),
            "import torch": (tmp, ["torch"]),
            "import torch, torch._dynamo": (tmp, ["torch", "torch._dynamo"]),
        }
        seconds: dict[str, list[float]] = {name: [] for name in lists}
        held: dict[str, int] = {}
        for attempt in range(args.repeats):  # alternated, so a slow minute hits every list
            for name, (root, modules) in lists.items():
                took, held[name] = replay(root, modules, tmp)
                seconds[name].append(took)
                print(f"{attempt + 1}/{args.repeats} {name}: {seconds[name][-1]:.2f} s", flush=True)
        roots = (ROOT, baseline_root, tmp)
        result["imports"] = {
            name: {"best_seconds": min(took), "seconds": took, "modules": held[name]}
            for name, took in seconds.items()
        }
        chains = runs["this tree"]["chains"]
        result["first_import"] = {name: _chain(stack, roots)[:8] for name, stack in chains.items()}
        top = {}
        for name in runs["this tree"]["modules"]:
            package = name.split(".")[0]
            top[package] = top.get(package, 0) + 1
        result["modules_by_package"] = dict(sorted(top.items(), key=lambda kv: -kv[1])[:15])
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "probe_imports.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    (args.out_dir / "probe_imports.md").write_text(text)
    print(text)
    return result


def markdown(r: dict) -> str:
    imports = r["imports"]
    base = imports[f"{r['baseline']}'s run"]["best_seconds"]
    lines = [
        f"### What `python -m probe run` imports (tiny Llama, CPU, {r['date']})",
        "",
        f"torch {r['torch']}, transformers {r['transformers']}, Python {r['python']}; "
        f"1-minute load {r['load_before']} before the run. Each list imported in order by a "
        "fresh process, best of the runs, the lists alternated.",
        "",
        f"| what is imported | modules | best s | of {r['baseline']}'s run | runs (s) |",
        "|---|---:|---:|---:|---|",
    ]
    for name, m in imports.items():
        runs = ", ".join(f"{s:.2f}" for s in m["seconds"])
        lines.append(
            f"| {name} | {m['modules']} | {m['best_seconds']:.2f} | "
            f"{m['best_seconds'] / base:.0%} | {runs} |"
        )
    goal = base / 2
    head = imports["this tree's run"]["best_seconds"]
    floor = imports["from_pretrained only (model and tokenizer)"]["best_seconds"]
    lines += [
        "",
        f"The goal (half of {r['baseline']}'s run): {goal:.2f} s; this tree's run "
        f"{head:.2f} s; any run through `from_pretrained` imports {floor:.2f} s "
        f"({floor / base:.0%} of the baseline's), torch and `torch._dynamo` alone "
        f"{imports['import torch, torch._dynamo']['best_seconds']:.2f} s.",
        "",
        "Who first imports each package a run does not use itself (innermost first):",
        "",
    ]
    for name, chain in r["first_import"].items():
        lines.append(f"- `{name}`: " + " ← ".join(f"`{place}`" for place in chain[:5]))
    lines += [
        "",
        "Modules by package: " + ", ".join(f"{k} {v}" for k, v in r["modules_by_package"].items()),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
