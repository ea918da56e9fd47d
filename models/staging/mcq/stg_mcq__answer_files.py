from concord_io.mcq_files import read_answer_files
from concord_io.settings import dbt_vars


def model(dbt, session):
    """Every registered merged answer file, one row per file and data row, cells as text."""
    dbt.config(materialized="table")
    registry = dbt.ref("mcq_answer_registry").df()
    answers_dir, languages = dbt_vars(dbt.config.get("vars"), "mcq_answers_dir", "mcq_languages")
    return read_answer_files(registry, directory=answers_dir, languages=languages)
