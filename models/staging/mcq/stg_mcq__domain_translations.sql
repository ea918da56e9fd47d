with source as (
    {{ read_landed_seed('mcq_seeds', 'mcq_domain_translations') }}
),

final as (

    select
        language,  -- landed canonical (en, pt-BR): lower() would break a region
        trim(domain) as domain_label,
        trim(domain_en) as domain_en
    from source

)

select * from final
