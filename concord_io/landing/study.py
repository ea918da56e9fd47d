"""What the reader needs to know about the cross-lingual study, read from where the project
declares it once: the folders, languages and option keys from ``dbt_project.yml`` (``vars:``,
overridden by the vars a dbt call was given, ``--vars``, which the dbt plugin hands on), and
the registries' columns from their source tables (:mod:`concord_io.landing.schemas`).

The study's registries: which files exist and what they are. A file and its registry line
come together: a blank cell, a path where a name belongs, a repeated line, a registered file
that is missing or a file nobody registered is refused with one line naming it.

Registered names are never glob patterns: ``x[1].csv`` is that file. Only the answer
sources registry (``mcq_answer_sources``) matches, and only ``*`` is a wildcard there
(any characters but ``/``: the harness stamps its file names with the date)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pyarrow as pa

from concord_common.project_dir import project_vars
from concord_common.settings import DBT_VARS
from concord_io.errors import ConcordError, printable
from concord_io.landing.names import (
    canonical_language,
    check_model_name,
    check_name,
    check_option_order,
    check_task_pattern,
    check_variant,
)
from concord_io.landing.schemas import SEEDS, Line, Study, declared_seeds
from concord_io.landing.sources import SourceFile, load, read_csv, read_regular

REGISTRIES = ("mcq_answer_registry", "mcq_item_files", "mcq_answer_sources")
TRANSLATIONS = "mcq_domain_translations"
LISTS = ("mcq_languages", "mcq_options")


def checked_task(variables: dict) -> str:
    """The var ``mcq_default_task``, checked as a name: it names a landing folder
    (``items/task=<task>``), so it is checked before anything is read, written or removed
    (a var of ``../../..`` would name the landing folder itself)."""
    task = variables.get("mcq_default_task", DBT_VARS["mcq_default_task"].default)
    where = "var mcq_default_task (dbt_project.yml vars or --vars)"
    return check_name("" if task is None else str(task), where, "task")


def load_study(root: Path, overrides: dict | None = None) -> Study:
    """The study of the project at ``root``; ``overrides`` are vars given to one dbt call
    (``--vars``), which win over ``dbt_project.yml``'s."""
    return study_of(Path(root), project_vars(Path(root), overrides))


def study_of(root: Path, variables: dict) -> Study:
    """The study of the project at ``root`` with its vars ``variables`` (:func:`project_vars`)."""
    seeds = declared_seeds(root)
    columns = {seed.name: list(seed.columns) for seed in seeds}
    missing = [name for name in (*REGISTRIES, TRANSLATIONS) if not columns.get(name)]
    needed = ("mcq_answers_dir", "mcq_items_dir", "mcq_answer_sources_dir")
    # mcq_languages: [] is declared: no language is outside the study
    undeclared = [
        name
        for name in (*needed, *LISTS)
        if not variables.get(name) and (name, variables.get(name)) != ("mcq_languages", [])
    ]
    if missing or undeclared:
        raise ConcordError(
            f"{root}: the cross-lingual study's vars or registry columns are not declared "
            f"(dbt_project.yml vars {', '.join(needed)}, mcq_languages, mcq_options; "
            f"columns of {', '.join(missing) or 'every registry'}: the source tables of "
            f"{SEEDS})",
            hint="run the reader on the Concord project folder",
        )

    for name in LISTS:
        if not isinstance(variables[name], list):
            raise ConcordError(
                f"var {name} = {variables[name]!r}: not a list",
                hint=f"give {name} as a list, e.g. --vars '{{{name}: [...]}}'",
            )
    options = [str(option) for option in variables["mcq_options"]]
    if any(len(option) != 1 for option in options) or len(set(options)) != len(options):
        # a presented order is a string of keys (DCBA): one character each
        raise ConcordError(
            f"dbt_project.yml: mcq_options {options} are not distinct single characters",
            hint="name the options A, B, C, D (or other single characters)",
        )

    def folder(name: str) -> Path:
        path = Path(str(variables[name]))
        return path if path.is_absolute() else root / path

    task = checked_task(variables)

    return Study(
        root=root,
        answers_dir=folder("mcq_answers_dir"),
        items_dir=folder("mcq_items_dir"),
        sources_dir=folder("mcq_answer_sources_dir"),
        languages=[str(lang) for lang in variables["mcq_languages"]],
        compared=[
            canonical_language(str(lang), "dbt_project.yml: vars", column="mcq_languages")
            for lang in variables["mcq_languages"]
        ],
        options=options,
        task=task,
        columns=columns,
        optional={seed.name: seed.optional for seed in seeds},
        variables=variables,
    )


#: The formats of an answer sources line.
FORMATS = ("long", "lm_eval", "inspect")
ANSWER_SUFFIXES = (".csv", ".parquet", ".jsonl", ".json", ".eval")
#: A JSON field of an lm-eval sample: names joined by dots (``doc.id``).
RESULTS = re.compile(r"^results_.*\.json$")
FIELD_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


def read_registry(study: Study, name: str) -> list[Line]:
    path = study.registry(name)
    if not path.is_file():
        raise ConcordError(
            f"{name}: registry not found ({path})",
            hint="every study registry is a CSV file in seeds/mcq/ (a header alone is enough)",
        )
    label = f"{name} ({study.relative(path)})"
    checked = read_csv(
        read_regular(path, label),
        label,
        declared=study.columns[name],
        one_line_ending=False,
        allow_no_rows=True,
        optional=study.optional.get(name, ()),
    )
    # a loop per registry line, not per data row
    return [
        Line(name, {column.lower(): value.strip() for column, value in row.items()})
        for row in checked.table.to_pylist()
    ]


def _require(line: Line, columns: list[str]) -> None:
    for column in columns:
        if not line[column]:
            raise ConcordError(
                f"{line.registry}: line for {printable(line.file)} has no {column}",
                hint="Fill it in.",
            )


def _refuse_repeated(registry: str, names: list[str], what: str) -> None:
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConcordError(
            f"{registry}: file(s) {what}: {printable(', '.join(repeated))}",
            hint="keep one line per file",
        )


def _refuse_unregistered(registry: str, directory: Path, listed: list[str], claimed) -> None:
    unregistered = [name for name in listed if name not in claimed]
    if unregistered:
        raise ConcordError(
            f"{directory}: file(s) with no line in {registry}: "
            f"{printable(', '.join(unregistered))} (add a line to {registry}.csv, or remove "
            "the file)",
            hint="a file and its registry line come together",
        )


def _listed(directory: Path, *, recursive: bool, suffixes: tuple[str, ...]) -> list[str]:
    """The answer or item files in ``directory``: bare names, or (recursive) paths relative
    to it; other files (a README) are not the registry's."""
    if not directory.is_dir():
        return []
    found = directory.rglob("*") if recursive else directory.iterdir()
    # every entry but a folder: a FIFO or a device named like an answer file is listed, and
    # refused as what it is when it is opened (sources.open_regular), never taken as missing
    return sorted(
        path.relative_to(directory).as_posix()
        for path in found
        if not path.is_dir() and path.suffix.lower() in suffixes
    )


def registered_files(study: Study, name: str, directory: Path, required: list[str]) -> list[Line]:
    """The lines of a registry of bare file names (``mcq_answer_registry``,
    ``mcq_item_files``), each checked against the CSV files of ``directory``."""
    lines = read_registry(study, name)
    for line in lines:
        _require(line, required)
        file = line.file
        if "/" in file or "\\" in file or file in (".", "..") or ":" in file[:2]:
            raise ConcordError(
                f"{name}: file {printable(file)} is a path; registry files are bare file names "
                f"inside {directory} (no folder, no absolute path)",
                hint="Put the file in that folder and register its name.",
            )
        line.paths = [file]
    files = [line.file for line in lines]
    _refuse_repeated(name, files, "registered more than once")
    listed = _listed(directory, recursive=False, suffixes=(".csv",))
    not_found = sorted(file for file in files if not (directory / file).exists())
    if not_found:
        raise ConcordError(
            f"{name}: registered file(s) not found in {directory}: "
            f"{printable(', '.join(not_found))}",
            hint="put the file there, or remove its registry line",
        )
    _refuse_unregistered(name, directory, listed, set(files))
    return lines


def read_translations(study: Study) -> pa.Table:
    """``language`` (canonical), ``domain_label`` and ``domain_en``, one row per label."""
    rows: dict[tuple[str, str], str] = {}
    for line in read_registry(study, TRANSLATIONS):  # a loop per registry line
        where = f"{TRANSLATIONS}: {printable(line['domain'])}"
        if not (line["language"] and line["domain"] and line["domain_en"]):
            raise ConcordError(
                f"{where}: a line has a blank language, domain or domain_en", hint="Fill it in."
            )
        key = (canonical_language(line["language"], where), line["domain"])
        if rows.setdefault(key, line["domain_en"]) != line["domain_en"]:
            raise ConcordError(
                f"{where} ({key[0]}) has two English names: {printable(rows[key])} and "
                f"{printable(line['domain_en'])}",
                hint="keep one line per language and domain label",
            )
    return pa.table(
        {
            "language": [language for language, _ in rows],
            "domain_label": [label for _, label in rows],
            "domain_en": list(rows.values()),
        },
        schema=pa.schema(
            [("language", pa.string()), ("domain_label", pa.string()), ("domain_en", pa.string())]
        ),
    )


def answer_registry(study: Study) -> list[Line]:
    """``mcq_answer_registry``: one wide merged answer file per line."""
    name = "mcq_answer_registry"
    lines = registered_files(study, name, study.answers_dir, study.columns[name])
    for line in lines:
        where = f"{name}: {printable(line.file)}"
        check_option_order(line["presented_option_order"], study.options, where)
        check_variant(line["run"], where)
    return lines


def item_registry(study: Study) -> list[Line]:
    """``mcq_item_files``: one item file per line (language and variant, and the column of
    its gold where it has one)."""
    name = "mcq_item_files"
    lines = registered_files(study, name, study.items_dir, ["file", "language", "variant"])
    seen: dict[tuple[str, str], str] = {}
    for line in lines:
        check_variant(line["variant"], f"{name}: {printable(line.file)}", column="variant")
        first = seen.setdefault((line["language"], line["variant"]), line.file)
        if first != line.file:
            raise ConcordError(
                f"{name}: {printable(first)} and {printable(line.file)} are both language "
                f"{printable(line['language'])}, variant {line['variant']}",
                hint="register one item file per language and variant",
            )
    return lines


def file_pattern(file: str) -> re.Pattern[str]:
    """What a line's ``file`` matches: only ``*`` is a wildcard (any characters but ``/``);
    everything else, brackets included, is literal."""
    return re.compile("^" + re.escape(file).replace(r"\*", "[^/]*") + "$")


def _check_lm_eval_line(line: Line, where: str) -> None:
    """An lm_eval line: a model and run (the logs do not say them), a language or a task
    pattern, and its JSON fields (``item_key``, ``domain_field``) as dotted names."""
    for column in ("model", "run"):
        if not line[column]:
            raise ConcordError(
                f"{where}: an lm_eval line needs a {column} (the sample logs do not say it)",
                hint="Fill it in.",
            )
    if bool(line["language"]) == bool(line["task_pattern"]):
        raise ConcordError(
            f"{where}: an lm_eval line needs a language or a task_pattern, not "
            f"{'both' if line['language'] else 'neither'}",
            hint="language: the logs' one language; task_pattern: auto, or where the "
            "language stands in the task names (xcopa_{lang})",
        )
    if line["task_pattern"]:
        check_task_pattern(line["task_pattern"], where)
    if line["item_key"] and not FIELD_PATH.match(line["item_key"]):
        raise ConcordError(
            f"{where}: item_key {printable(line['item_key'])} is not a JSON field "
            "name (names joined by dots, e.g. doc.id)",
            hint="leave it blank for doc_id",
        )
    if line["domain_field"] and not FIELD_PATH.match(line["domain_field"]):
        raise ConcordError(
            f"{where}: domain_field {printable(line['domain_field'])} is not a field of "
            "the document (names joined by dots, e.g. subject or meta.subject)",
            hint="leave it blank for the document's domain",
        )


def _check_inspect_line(line: Line, where: str) -> None:
    """An Inspect AI log's line: a run (the log names its model, not the prompt variant);
    its sample fields (``item_key``: ``id`` or a metadata field; ``domain_field``: a
    metadata field) as names."""
    if not line["run"]:
        raise ConcordError(
            f"{where}: an inspect line needs a run (the log does not say the prompt variant)",
            hint="Fill it in (base for the study's own prompts).",
        )
    if line["task_pattern"]:
        check_task_pattern(line["task_pattern"], where)
    for column, meaning in (("item_key", "the sample id"), ("domain_field", "domain")):
        if line[column] and not FIELD_PATH.match(line[column]):
            raise ConcordError(
                f"{where}: {column} {printable(line[column])} is not a metadata field name",
                hint=f"leave it blank for {meaning}",
            )


def _check_long_line(line: Line, where: str) -> None:
    """A long file's line: no lm_eval column (its records name their language, and its
    items take their domain from the item files)."""
    if line["task_pattern"]:
        raise ConcordError(
            f"{where}: task_pattern is for lm_eval lines; a long file has a language column",
            hint="leave task_pattern blank",
        )
    if line["domain_field"]:
        raise ConcordError(
            f"{where}: domain_field is for lm_eval lines; a long file's items take their "
            "domain from the item files",
            hint="leave domain_field blank",
        )
    if line["task"]:
        raise ConcordError(
            f"{where}: task is for lm_eval lines; a long file names its records' task in a "
            "task column (or lands as the study's task)",
            hint="leave task blank, or give the file a task column",
        )


def check_answer_source(study: Study, line: Line) -> None:
    """One ``mcq_answer_sources`` line on its own: its file a relative path, its format,
    and what a format needs (an lm_eval line: model, run, and language or task_pattern)."""
    name = line.registry
    directory = study.sources_dir
    _require(line, ["file", "format"])
    file = line.file
    where = f"{name}: {printable(file)}"
    parts = file.replace("\\", "/").split("/")
    if file.startswith(("/", "\\")) or ":" in file[:2] or ".." in parts:
        raise ConcordError(
            f"{name}: file {printable(file)} is not inside {directory}; registry files are "
            "paths relative to that folder (no absolute path, no ..)",
            hint="Put the file in that folder and register its relative path.",
        )
    if line["format"] not in FORMATS:
        raise ConcordError(
            f"{where}: format {printable(line['format'])} is not long, lm_eval or inspect",
            hint="long: Parquet, JSONL or CSV of model, run, item_id, language, answer; "
            "lm_eval: the harness's samples_<task>_<date>.jsonl; inspect: Inspect AI's "
            ".eval or .json logs",
        )
    {"lm_eval": _check_lm_eval_line, "inspect": _check_inspect_line}.get(
        line["format"], _check_long_line
    )(line, where)
    if line["model"]:  # the marts show it; a line break would split every row it is on
        check_model_name(
            line["model"], f"{where}: model", hint="write the model's name on one line"
        )
    if line["run"]:
        check_name(line["run"], where, column="run")
    if line["presented_option_order"]:
        check_option_order(line["presented_option_order"], study.options, where)
    if bool(line["folder"]) != bool(line["fingerprint"]):
        raise ConcordError(
            f"{where}: a line registered in place has a folder and its fingerprint; a line of "
            "the answer sources folder neither",
            hint="register a folder in place with concord add PATH --in-place",
        )


def _refuse_linked_folder(name: str, directory: Path, file: str) -> None:
    """A line's folder that is a symbolic link: its files are not the folder's (the reader
    lists the answer sources folder without following links), so say that, not "not
    found"."""
    folder = directory
    for part in file.split("/")[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise ConcordError(
                f"{name}: {printable(file)} lies in {printable(folder)}, a symbolic link to "
                f"{printable(folder.readlink())}: the reader does not follow linked folders",
                hint="copy the folder's files into the answer sources folder in place of the "
                "link (concord add lmeval copies a harness folder)",
            )


def fingerprint_in_place(folder: Path, line_format: str, files: list[SourceFile]) -> str:
    """What a line registered in place was registered with: the sha256 of its files' names
    under ``folder`` and content hashes, with an lm_eval line's results files beside them
    (read with them: their provenance), in name order."""
    named = [(file.path.relative_to(folder).as_posix(), file.content_hash) for file in files]
    if line_format == "lm_eval":
        for parent in sorted({file.path.parent for file in files}):
            for path in sorted(parent.iterdir()):
                if RESULTS.match(path.name):
                    relative = path.relative_to(folder).as_posix()
                    named.append((relative, load(parent, path.name).content_hash))
    digest = hashlib.sha256()
    for name, content_hash in sorted(named):
        digest.update(f"{name}\0{content_hash}\0".encode())
    return digest.hexdigest()


def match_in_place(study: Study, line: Line, listed_here: list[str]) -> None:
    """A line registered in place (``folder``): its folder there, a folder of its own (not
    the answer sources folder or inside it), and its files matched in it; refused by name
    where it moved (the fingerprint is checked as the files are read:
    :func:`concord_io.landing.mcq`'s ``_in_place_files``)."""
    where = f"{line.registry}: {printable(line.file)} in {printable(line['folder'])}"
    folder = study.root / line["folder"]  # an absolute folder stays what it is
    if not folder.is_dir():
        raise ConcordError(
            f"{where}: the folder registered in place is not there (moved or deleted)",
            hint="register it where it is now (concord add PATH --in-place --replace), or "
            "remove its run (concord remove RUN_ID)",
        )
    inside = folder.resolve()
    sources = study.sources_dir.resolve()
    if inside == sources or sources in inside.parents or inside in sources.parents:
        raise ConcordError(
            f"{where}: the folder lies in the answer sources folder {study.relative(sources)}, "
            "or holds it",
            hint="register a file of that folder by its path there, with folder blank",
        )
    pattern = file_pattern(line.file)
    prefix = line["folder"].rstrip("/")
    line.base = study.root
    line.paths = [
        f"{prefix}/{name}"
        for name in _listed(folder, recursive=True, suffixes=ANSWER_SUFFIXES)
        if pattern.match(name)
    ]
    if not line.paths:
        raise ConcordError(
            f"{where}: no file of the folder registered in place matches (moved or deleted)",
            hint="register the folder as it is now (concord add PATH --in-place --replace), "
            "or remove its run (concord remove RUN_ID)",
        )
    listed_here.extend(line.paths)


def answer_sources(study: Study) -> list[Line]:
    """``mcq_answer_sources``: long-format files and lm-evaluation-harness sample logs, each
    line with the files it matches (paths relative to the sources folder, sorted)."""
    name = "mcq_answer_sources"
    directory = study.sources_dir
    lines = read_registry(study, name)
    listed = _listed(directory, recursive=True, suffixes=ANSWER_SUFFIXES)
    claimed: list[str] = []
    in_place: list[str] = []
    for line in lines:
        check_answer_source(study, line)
        if line["folder"]:
            match_in_place(study, line, in_place)
            continue
        line.base = directory
        file = line.file
        pattern = file_pattern(file)
        line.paths = [path for path in listed if pattern.match(path)]
        if not line.paths:
            unread = [
                p.relative_to(directory).as_posix()
                for p in (directory.rglob("*") if directory.is_dir() else [])
                if not p.is_dir() and pattern.match(p.relative_to(directory).as_posix())
            ]
            if unread:
                raise ConcordError(
                    f"{name}: {printable(file)} matches {printable(unread[0])}, which is not a "
                    f"file the reader reads ({', '.join(ANSWER_SUFFIXES)})",
                    hint="decompress it (gunzip) or convert it, then land again",
                )
            _refuse_linked_folder(name, directory, file)
            raise ConcordError(
                f"{name}: registered file(s) not found in {directory}: {printable(file)}",
                hint="put the file there (or fix the pattern), or remove the line",
            )
        claimed.extend(line.paths)
    _refuse_repeated(name, claimed + in_place, "matched by more than one line")
    # the harness's results files beside a registered sample log are its provenance
    folders = {
        path.rpartition("/")[0]
        for line in lines
        if line["format"] == "lm_eval" and not line["folder"]
        for path in line.paths
    }
    results = {
        p for p in listed if p.rpartition("/")[0] in folders and RESULTS.match(p.rpartition("/")[2])
    }
    _refuse_unregistered(name, directory, listed, set(claimed) | results)
    return lines
