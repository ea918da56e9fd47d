{#- The version-1 cross-lingual marts (deprecated, removed in 0.3.0; docs/migration.md) are
    views over version 2 in the shape 0.1 published: the study's task (mcq_default_task),
    one column per language of the three-language study, the five three-language types. -#}

{% macro mcq_v1_languages() -%}
    {{ return(['en', 'it', 'fa']) }}
{%- endmacro %}

{#- The 0.1 type of an item from its version-2 type and departing languages. -#}
{% macro mcq_v1_type(type, departing) -%}
    case {{ type }}
        when 'full_agreement' then 'all_same'
        when 'one_diverged' then {{ departing }} || '_diverged'
        when 'no_majority' then 'all_different'
        else {{ type }}
    end
{%- endmacro %}

{% macro mcq_v1_types() -%}
    {{ return(['all_same', 'fa_diverged', 'it_diverged', 'en_diverged', 'all_different']) }}
{%- endmacro %}

{#- The rows of a version-2 relation that version 1 shows. -#}
{% macro mcq_v1_rows() -%}
    task = '{{ var("mcq_default_task") }}'
{%- endmacro %}

{#- A version-1 mart that only renames version 2's columns: its columns as its yml declares
    them, each from the version-2 column `renamed` maps it to (else the one of its own name),
    over the rows version 1 shows. -#}
{% macro mcq_v1_view(v2_model, renamed={}) -%}
with v2 as (

    select * from {{ ref(v2_model, v=2) }}
    where {{ mcq_v1_rows() }}

),

final as (

    select
        {%- for name in model.columns %}
        {{ renamed.get(name, name) }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from v2

)

select * from final
{%- endmacro %}

{#- Per model, variant (0.1's run) and `by`, the items of each 0.1 type, from version 2's
    item fact. -#}
{% macro mcq_v1_type_counts(by=[]) -%}
    {%- set keys = ['model', 'variant'] + by -%}
    select
        {{ keys | join(', ') }},
        count(*) as n_items,
        count(*) filter (where type_v1 not in ('all_same', 'incomplete')) as n_disagree,
        {% for type in mcq_v1_types() %}
        count(*) filter (where type_v1 = '{{ type }}') as n_{{ type }},
        {% endfor %}
        count(*) filter (where type_v1 = 'incomplete') as n_incomplete
    from (
        select
            *,
            {{ mcq_v1_type('disagreement_type', 'departing_languages') }} as type_v1
        from {{ ref('fct_mcq_item_agreement', v=2) }}
        where {{ mcq_v1_rows() }}
    ) as items
    group by {{ keys | join(', ') }}
{%- endmacro %}
