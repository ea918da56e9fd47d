{#- The design's prompt templates, as the probe reads them (probe/stimuli.py). -#}
{{ read_landed_seed('probe_seeds', 'probe_prompt_templates') }}
