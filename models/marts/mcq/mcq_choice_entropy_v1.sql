{#- Version 1 (deprecated): choice entropy per model, run and language. -#}
{{ mcq_v1_view('mcq_choice_entropy', renamed={'run': 'variant'}) }}
