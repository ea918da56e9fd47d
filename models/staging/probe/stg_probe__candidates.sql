{#- The design's candidates, with their leading space (what the model continues with). -#}
{{ read_landed_seed('probe_seeds', 'probe_candidates') }}
