from concord_io.mcq_files import read_answer_files


def model(dbt, session):
    """Every registered merged answer file, one row per file and data row, cells as text."""
    dbt.config(materialized="table")
    registry = dbt.ref("mcq_answer_registry").df()
    return read_answer_files(
        registry,
        directory=dbt.config.get("answers_dir"),
        languages=dbt.config.get("languages").split(","),
    )
