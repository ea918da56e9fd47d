-- depends_on: {{ source('mcq_landing', 'option_scores') }}
{# One row per run, task, item, language and option that the source scored (lm-eval's
    log-likelihood tasks): the summed log-likelihood and the option's length
    (docs/landing.md). Empty for runs that give only a chosen letter. -#}
with landed as (
    {{ read_landing('mcq', 'option_scores', landing_columns('mcq_landing', 'option_scores')) }}
),

final as (
    select * from landed
)

select * from final
