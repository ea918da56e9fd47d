{#- The user datasets' ratings as landed, each with its row in the file (source_row) for the
    quarantine. -#}
{{ read_landed_seed('rater_seeds', 'rater_ratings') }}
