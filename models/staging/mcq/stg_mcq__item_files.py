from concord_io.mcq_files import read_item_files
from concord_io.settings import dbt_vars


def model(dbt, session):
    """The parallel cloze items, one row per file and data row (row position = item_id)."""
    dbt.config(materialized="table")
    (items_dir,) = dbt_vars(dbt.config.get("vars"), "mcq_items_dir")
    return read_item_files(dbt.ref("mcq_item_files").df(), directory=items_dir)
