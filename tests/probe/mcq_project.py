"""A throw-away Concord project for the MCQ probe's tests (its own module, not conftest: a
test module imports it by name)."""

from __future__ import annotations

from pathlib import Path

#: Two items in English and Italian: item 1 has two options (its C and D cells are blank),
#: item 2 four.
MCQ_ITEMS = {
    "en.csv": "Domain,Prompt,A,B,C,D\nHealth,A nurse who is [ADJ] can help.,Kind,Calm,,\n"
    "Art,A painter who is [ADJ] can paint.,Red and bold,Blue,Green,Gray\n",
    "it.csv": "Domain,Prompt,A,B,C,D\nSalute,Un infermiere che è [AGG] può aiutare.,Gentile,"
    "Calmo,,\nArte,Un pittore che è [AGG] può dipingere.,Rosso e audace,Blu,Verde,Grigio\n",
}


def make_mcq_project(root: Path, items: dict[str, str] | None = None) -> Path:
    """A throw-away Concord project whose study is ``items`` (default MCQ_ITEMS) in English
    and Italian, with no answers; the registries' columns are the shipped ones."""
    from concord_io.paths import PROJECT_ROOT

    def write(relative: str, text: str) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    write(
        "dbt_project.yml",
        "vars:\n  mcq_languages: [en, it]\n  mcq_options: [A, B, C, D]\n"
        "  mcq_answers_dir: seeds/mcq/answers\n  mcq_items_dir: seeds/mcq/items\n"
        "  mcq_answer_sources_dir: seeds/mcq/answer_sources\n",
    )
    seeds = PROJECT_ROOT / "seeds" / "mcq" / "_mcq__seeds.yml"
    write("seeds/mcq/_mcq__seeds.yml", seeds.read_text(encoding="utf-8"))
    write("seeds/mcq/mcq_answer_registry.csv", "file,model,prefix,run,presented_option_order\n")
    write(
        "seeds/mcq/mcq_answer_sources.csv",
        "file,format,model,run,language,presented_option_order,item_key,task_pattern\n",
    )
    write("seeds/mcq/mcq_item_files.csv", "file,language,variant\nen.csv,en,base\nit.csv,it,base\n")
    write(
        "seeds/mcq/mcq_domain_translations.csv",
        "language,domain,domain_en\nen,Health,Health\nit,Salute,Health\nen,Art,Art\nit,Arte,Art\n",
    )
    for name, text in (items or MCQ_ITEMS).items():
        write(f"seeds/mcq/items/{name}", text)
    (root / "seeds" / "mcq" / "answer_sources").mkdir()
    return root
