{#- Version 1 (deprecated): option counts by presented letter (n) and original option. -#}
{{ mcq_v1_view('mcq_option_frequency', renamed={
    'run': 'variant',
    'n': 'n_position',
    'pct': 'pct_position',
    'n_original': 'n_option',
    'pct_original': 'pct_option',
}) }}
