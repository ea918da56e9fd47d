{#- The model aliases as landed: where their rules are tested. The staged runs apply them
    (macros/model_aliases.sql), reading the same landed table. -#}
{{ read_landed_seed('models_seeds', 'model_aliases') }}
