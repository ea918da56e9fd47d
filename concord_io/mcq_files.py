"""Read the cross-lingual study's files: the registered merged answer files and item files.

A merged answer file has, per language L (upper-case in the file): Domain_L, Prompt_L,
A_L … D_L (option texts, in presented order) and <PREFIX>_L (the model's answer). The
registry says which files exist and what they are; a file and its registry line must come
together, so a registered file that is missing, or a file nobody registered, stops the build.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from concord_io.csv_files import (
    SOURCE_ROW,
    InputFileError,
    check_header,
    iter_csv_batches,
    read_csv_table,
)

OPTION_LETTERS = ("A", "B", "C", "D")
ANSWER_REGISTRY_COLUMNS = ("file", "model", "prefix", "run", "presented_option_order")
ITEM_REGISTRY_COLUMNS = ("file", "language", "variant")


def _check_registry(
    registry: pd.DataFrame, columns: tuple[str, ...], directory: Path, name: str
) -> None:
    """Registry lines and CSV files must match one to one."""
    missing_columns = [c for c in columns if c not in registry.columns]
    if missing_columns:
        raise InputFileError(f"{name}: missing column(s) {', '.join(missing_columns)}")
    blank = registry[list(columns)].isna() | (registry[list(columns)].astype(str) == "")
    if blank.to_numpy().any():
        row, col = next(zip(*blank.to_numpy().nonzero(), strict=True))
        raise InputFileError(
            f"{name}: line for {registry.iloc[row]['file']!r} has no {columns[col]}"
        )
    files = registry["file"].astype(str).tolist()
    repeated = sorted({f for f in files if files.count(f) > 1})
    if repeated:
        raise InputFileError(f"{name}: file(s) registered more than once: {', '.join(repeated)}")
    if not directory.is_dir():
        raise InputFileError(f"{directory}: folder not found (it should hold the files of {name})")
    present = {p.name for p in directory.glob("*.csv")}
    not_found = sorted(set(files) - present)
    if not_found:
        raise InputFileError(
            f"{name}: registered file(s) not found in {directory}: {', '.join(not_found)}"
        )
    unregistered = sorted(present - set(files))
    if unregistered:
        raise InputFileError(
            f"{directory}: file(s) with no line in {name}: {', '.join(unregistered)} "
            f"(add a line to {name}.csv, or remove the file)"
        )


def _constant(value: str, n: int) -> pa.Array:
    return pa.nulls(n, pa.string()).fill_null(value)


def _keyed(batch: pa.RecordBatch | pa.Table, source_file: str) -> list[pa.Array]:
    """The leading key columns of a staged row: source_file, source_row, item_id."""
    rows = batch.column(SOURCE_ROW)
    return [_constant(source_file, batch.num_rows), rows, rows]


def answer_file_columns(prefix: str, languages: list[str]) -> dict[str, str]:
    """The columns read from a merged answer file, file name -> generic name."""
    columns = {}
    for lang in languages:
        up = lang.upper()
        columns[f"Domain_{up}"] = f"domain_{lang}"
        for letter in OPTION_LETTERS:
            columns[f"{letter}_{up}"] = f"option_{letter.lower()}_{lang}"
        columns[f"{prefix}_{up}"] = f"answer_{lang}"
    return columns


def read_answer_files(
    registry: pd.DataFrame, directory: str | Path, languages: list[str]
) -> pa.RecordBatchReader:
    """One row per registered file and data row, with language-generic column names.

    Columns: source_file, source_row, item_id (= source_row), per language l: domain_l,
    option_a_l … option_d_l, answer_l, then model, prefix, run, presented_option_order.
    Every cell stays text, exactly as written. The prompts are not carried: they come with
    the items (stg_mcq__item_files). The registry and every file's header are checked
    before any row is read; rows then reach the caller as a stream of Arrow batches.
    """
    directory = Path(directory)
    _check_registry(registry, ANSWER_REGISTRY_COLUMNS, directory, "mcq_answer_registry")
    lines = registry.to_dict("records")
    for line in lines:
        order = str(line["presented_option_order"])
        if sorted(order) != list(OPTION_LETTERS):
            raise InputFileError(
                f"mcq_answer_registry: {line['file']}: presented_option_order {order!r} is not "
                f"a permutation of {''.join(OPTION_LETTERS)}"
            )
        if line["run"] not in ("base", "shuffled"):
            raise InputFileError(
                f"mcq_answer_registry: {line['file']}: run {line['run']!r} is not base or shuffled"
            )
        # fail on a missing column before streaming anything
        check_header(directory / line["file"], list(answer_file_columns(line["prefix"], languages)))
    registry_keys = ("model", "prefix", "run", "presented_option_order")
    names = [
        "source_file",
        SOURCE_ROW,
        "item_id",
        *answer_file_columns("PREFIX", languages).values(),
        *registry_keys,
    ]
    schema = pa.schema(
        [(n, pa.int64() if n in (SOURCE_ROW, "item_id") else pa.string()) for n in names]
    )

    def batches():
        for line in lines:
            columns = answer_file_columns(str(line["prefix"]), languages)
            for batch in iter_csv_batches(directory / line["file"], columns):
                n = batch.num_rows
                constants = [_constant(str(line[key]), n) for key in registry_keys]
                data = [batch.column(name) for name in columns.values()]
                yield pa.RecordBatch.from_arrays(
                    [*_keyed(batch, line["file"]), *data, *constants], schema=schema
                )

    return pa.RecordBatchReader.from_batches(schema, batches())


def read_item_files(registry: pd.DataFrame, directory: str | Path) -> pa.Table:
    """One row per item file and data row: language, variant, item_id, domain, prompt and
    the option texts under their original letters (the order-control files store the
    columns as D, C, B, A; reading by header name puts each text under its own letter)."""
    directory = Path(directory)
    _check_registry(registry, ITEM_REGISTRY_COLUMNS, directory, "mcq_item_files")
    frames = []
    for line in registry.to_dict("records"):
        columns = {"Domain": "domain", "Prompt": "prompt"}
        columns.update({letter: f"option_{letter.lower()}" for letter in OPTION_LETTERS})
        raw = read_csv_table(directory / line["file"], columns)
        n = raw.num_rows
        keys = ["source_file", SOURCE_ROW, "item_id", "language", "variant"]
        arrays = [
            *_keyed(raw, line["file"]),
            _constant(str(line["language"]), n),
            _constant(str(line["variant"]), n),
        ]
        frames.append(
            pa.Table.from_arrays(
                [*arrays, *(raw.column(name) for name in columns.values())],
                names=[*keys, *columns.values()],
            )
        )
    return pa.concat_tables(frames)
