{#- dbt Python models cannot call var() (dbt-core issue 10914), and the configs in
    dbt_project.yml are rendered before the project's vars exist. So every Python model gets
    the vars it may read here, rendered at run time (--vars overrides apply), as
    dbt.config.get("vars"); concord_common.settings.dbt_vars types them (their ranges were
    checked on run start, macros/run_settings.sql). This wraps dbt's own build_config_dict
    (which still runs first) instead of copying it. Keep the list equal to
    concord_common.settings.VARS (tests/python/test_settings.py checks it). -#}
{% macro build_config_dict(model) -%}
{{ dbt.build_config_dict(model) }}
config_dict["vars"] = {{ {
    "bootstrap_resamples": var("bootstrap_resamples"),
    "bootstrap_confidence": var("bootstrap_confidence"),
    "bootstrap_seed": var("bootstrap_seed"),
    "probe_permutations": var("probe_permutations"),
    "mcq_languages": var("mcq_languages"),
    "mcq_disagreement_types": var("mcq_disagreement_types"),
    "mcq_answers_dir": var("mcq_answers_dir"),
    "mcq_items_dir": var("mcq_items_dir"),
} }}
{%- endmacro %}
