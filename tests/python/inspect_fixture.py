"""Real Inspect AI logs, written by inspect-ai's own ``eval()`` with its offline ``mockllm``
provider: ``python inspect_fixture.py SPEC.json LOG_DIR`` runs one multiple-choice eval per
entry of the spec (a list) and writes each log's path into ``written.json`` beside LOG_DIR.

An entry: ``model`` (``mockllm/<name>``), ``task``, ``choices`` (each sample's number of
choices; sample ids 1, 2, ...), ``targets`` (each sample's gold letter), ``picks`` (one
string of letters per epoch: what the model answers to each sample; ``?`` an output
without an ``ANSWER:`` line, ``_`` an empty one), optional
``metadata`` (given to every sample), ``reducer``, ``format`` (``eval`` or ``json``) and
``fail`` (sample ids whose solver raises: errored samples, the eval run with
``fail_on_error=False``). Each output carries a ``usage``: without one inspect-ai fetches a
tokenizer to count tokens. Run in its own process (``XDG_DATA_HOME`` pointed into the
test's folder): inspect-ai keeps traces and state under the user's data folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inspect_ai import Epochs, Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice
from inspect_ai.solver import Generate, TaskState, multiple_choice, solver

CHOICE_TEXTS = [f"option {i}" for i in range(26)]


@solver
def fail_on(ids: list[int]):  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id in ids:
            raise RuntimeError("the sandbox stopped answering")
        return state

    return solve


#: a pick that is no letter: an output without an ``ANSWER:`` line, and an empty one
NO_ANSWER_LINE, EMPTY = "?", "_"


def output(model: str, letter: str) -> ModelOutput:
    content = {NO_ANSWER_LINE: "I would say the second one", EMPTY: ""}.get(
        letter, f"ANSWER: {letter}"
    )
    answer = ModelOutput.from_content(model=model, content=content)
    answer.usage = ModelUsage(input_tokens=12, output_tokens=3, total_tokens=15)
    return answer


def run(entry: dict, log_dir: Path) -> str:
    samples = [
        Sample(
            id=i,
            input=f"{entry['task']} question {i}?",
            choices=CHOICE_TEXTS[:n],
            target=target,
            metadata=entry.get("metadata") or {},
        )
        for i, (n, target) in enumerate(zip(entry["choices"], entry["targets"], strict=True), 1)
    ]
    fail = entry.get("fail") or []
    # the model is asked once per sample and epoch that does not fail, in order
    outputs = [
        output(entry["model"], letter)
        for picks in entry["picks"]
        for i, letter in enumerate(picks, 1)
        if i not in fail
    ]
    task = Task(
        dataset=MemoryDataset(samples),
        solver=[fail_on(fail), multiple_choice()],
        scorer=choice(),
        name=entry["task"],
    )
    reducer = entry.get("reducer")
    epochs = len(entry["picks"])
    (log,) = inspect_eval(
        task,
        model=get_model(entry["model"], custom_outputs=outputs),
        log_dir=str(log_dir),
        log_format=entry.get("format", "eval"),
        epochs=Epochs(epochs, reducer) if reducer else epochs,
        fail_on_error=False,
        display="none",
        max_samples=1,  # in order: the mock answers are consumed sample by sample
    )
    return log.location


def main(spec: Path, log_dir: Path) -> None:
    written = [run(entry, log_dir) for entry in json.loads(spec.read_text())]
    (log_dir.parent / "written.json").write_text(json.dumps(written))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
