"""What the reader needs to know about the cross-lingual study, read from where the project
declares it once: the folders, languages and option keys from ``dbt_project.yml`` (``vars:``,
overridden by the vars a dbt call was given, ``--vars``, which the dbt plugin hands on), and
the registries' columns from their source tables (:mod:`concord_io.landing.seed_sources`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from concord_common.project_dir import project_vars
from concord_common.settings import DBT_VARS
from concord_io.errors import ConcordError
from concord_io.landing.identities import canonical_language, check_name
from concord_io.landing.seed_sources import declared_seeds

SEEDS = Path("seeds") / "mcq"
REGISTRIES = ("mcq_answer_registry", "mcq_item_files", "mcq_answer_sources")
TRANSLATIONS = "mcq_domain_translations"
LISTS = ("mcq_languages", "mcq_options")


@dataclass(frozen=True)
class Study:
    root: Path
    answers_dir: Path
    items_dir: Path
    sources_dir: Path
    #: the languages the study compares, as the vars write them; empty: every language the
    #: answers hold
    languages: list[str]
    options: list[str]
    #: the task of answers that name none and of the item files (var mcq_default_task)
    task: str
    #: registry name -> its declared columns
    columns: dict[str, list[str]]
    #: registry name -> the declared columns its file may lack (read as empty)
    optional: dict[str, tuple[str, ...]]

    #: the same languages, canonical (made so once, when the study is loaded)
    compared: list[str]

    def registry(self, name: str) -> Path:
        return self.root / SEEDS / f"{name}.csv"

    def relative(self, path: Path) -> str:
        """``path`` relative to the project where it lies inside it (as provenance)."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.resolve().as_posix()


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
    root = Path(root)
    variables = project_vars(root, overrides)
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
    )
