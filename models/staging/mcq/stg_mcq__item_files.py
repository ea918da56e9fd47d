from concord_io.mcq_files import read_item_files


def model(dbt, session):
    """The parallel cloze items, one row per file and data row (row position = item_id)."""
    dbt.config(materialized="table")
    return read_item_files(dbt.ref("mcq_item_files").df(), directory=dbt.config.get("items_dir"))
