{#- A canonical name that is itself a spelling of another model: the alias would have to be
    applied twice. One row per such name, saying which way to fix it. -#}
select
    aliases.spelling,
    aliases.model,
    chained.model as chained_to,
    'model_aliases: ' || aliases.model || ' is a canonical name and a spelling of '
        || chained.model || '; map ' || aliases.spelling || ' to ' || chained.model
        || ' directly' as problem
from {{ ref('stg_models__aliases') }} as aliases
inner join {{ ref('stg_models__aliases') }} as chained
    on aliases.model = chained.spelling
    and chained.model <> chained.spelling
