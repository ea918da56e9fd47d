"""The dbt Python models' shared code: what ``dbt.ref()`` returns as pandas, whatever engine
runs the model, and the bodies several models share (:mod:`concord_models.frames`). It
stands on ``concord_stats`` and ``concord_common`` only: no reader, no serving."""
