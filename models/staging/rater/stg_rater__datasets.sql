{#- Each user dataset's weighting, as landed. -#}
{{ read_landed_seed('rater_seeds', 'rater_datasets') }}
