{#- Each user dataset's declared categories, as landed. -#}
{{ read_landed_seed('rater_seeds', 'rater_categories') }}
