with source as (
    {{ read_landed_seed('mcq_seeds', 'mcq_domain_translations') }}
),

final as (

    select
        lower(trim(language)) as language,
        trim(domain) as domain_label,
        trim(domain_en) as domain_en
    from source

)

select * from final
