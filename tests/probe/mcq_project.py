"""The MCQ probe's throw-away study (its own module, not conftest: test modules import it)."""

from __future__ import annotations

from pathlib import Path

from probe.tiny import write_mcq_study

#: language -> item rows: item 1 has two options (its C and D cells are blank), item 2 four.
MCQ_ITEMS = {
    "en": [
        ["Health", "A nurse who is [ADJ] can help.", "Kind", "Calm", "", ""],
        ["Art", "A painter who is [ADJ] can paint.", "Red and bold", "Blue", "Green", "Gray"],
    ],
    "it": [
        ["Health", "Un infermiere che è [AGG] può aiutare.", "Gentile", "Calmo", "", ""],
        ["Art", "Un pittore che è [AGG] può dipingere.", "Rosso e audace", "Blu", "Verde",
         "Grigio"],
    ],
}  # fmt: skip


def make_mcq_project(root: Path, items: dict[str, list[list[str]]] | None = None) -> Path:
    return write_mcq_study(root, items or MCQ_ITEMS)
