{#- Per-item agreement and disagreement of several raters over K nominal categories
    (the rater-disagreement method, with its errors corrected: docs/formulas.md).
    One macro per formula, over per-item aggregates of the category counts n_j:
      n          number of raters of the item, Σ n_j
      sum_sq     Σ n_j²
      k          number of DECLARED categories (used or not)
      n_used     number of non-empty categories
      sum_n_ln_n Σ n_j ln n_j over non-empty categories (rater_n_ln_n per category, summed)
    Each returns null where the formula is 0/0; rater_null_reason says why. These macros are
    the only home of the per-item formulas; tests/python/test_rater.py runs them in DuckDB
    against independent recomputations (brute-force rater pairs, scipy's entropy). -#}

{#- Double-precision arithmetic whatever the count columns' integer type. -#}
{% macro rater_as_double(expr) -%}
    {{ return(adapter.dispatch('rater_as_double')(expr)) }}
{%- endmacro %}

{% macro default__rater_as_double(expr) -%}
    cast({{ expr }} as double)
{%- endmacro %}

{#- Dispersion index (Walker 1999): K (n² − Σ n_j²) / ((K − 1) n²). Null for K = 1 (0/0;
    the document's JavaScript returns 1) and n = 0. -#}
{% macro rater_dispersion_index(n, sum_sq, k) -%}
    case
        when {{ n }} > 0 and {{ k }} > 1
            then {{ rater_as_double(k) }} * ({{ rater_as_double(n) }} * {{ n }} - {{ sum_sq }})
                / (({{ k }} - 1) * {{ rater_as_double(n) }} * {{ n }})
    end
{%- endmacro %}

{#- Fleiss' (1971) per-item agreement Pi = (Σ n_j² − n) / (n (n − 1)): the share of ordered
    pairs of distinct raters who agree. Null for n < 2 (no pairs). -#}
{% macro rater_fleiss_pi(n, sum_sq) -%}
    case
        when {{ n }} >= 2
            then ({{ rater_as_double(sum_sq) }} - {{ n }})
                / ({{ rater_as_double(n) }} * ({{ n }} - 1))
    end
{%- endmacro %}

{#- 1 − Pi, the document's disagreement form of Pi. Null for n < 2. -#}
{% macro rater_one_minus_pi(n, sum_sq) -%}
    1 - {{ rater_fleiss_pi(n, sum_sq) }}
{%- endmacro %}

{#- Group disagreement (Whitworth 2007): Σ_j n_j (n − n_j) / (n (n − 1)) = (n² − Σ n_j²) /
    (n (n − 1)). Equals 1 − Pi (not 1 − kappa, as the document says). Null for n < 2. -#}
{% macro rater_group_disagreement(n, sum_sq) -%}
    case
        when {{ n }} >= 2
            then ({{ rater_as_double(n) }} * {{ n }} - {{ sum_sq }})
                / ({{ rater_as_double(n) }} * ({{ n }} - 1))
    end
{%- endmacro %}

{#- Simpson's (1949) diversity index, finite form: 1 − Σ n_j (n_j − 1) / (n (n − 1)), with
    Σ n_j (n_j − 1) = Σ n_j² − n. Equals GD. Null for n < 2. -#}
{% macro rater_simpson_index(n, sum_sq) -%}
    case
        when {{ n }} >= 2
            then 1 - ({{ rater_as_double(sum_sq) }} - {{ n }})
                / ({{ rater_as_double(n) }} * ({{ n }} - 1))
    end
{%- endmacro %}

{#- Gini–Simpson index 1 − Σ p_j² (draws with replacement): a different quantity from
    Simpson's index, (n − 1)/n · GD. Null for n = 0. -#}
{% macro rater_gini_simpson(n, sum_sq) -%}
    case
        when {{ n }} > 0
            then 1 - {{ rater_as_double(sum_sq) }} / ({{ rater_as_double(n) }} * {{ n }})
    end
{%- endmacro %}

{#- One category's term of Σ n_j ln n_j; empty categories contribute 0 (the limit), which
    the document's JavaScript gets wrong (0 · ln 0 = NaN). -#}
{% macro rater_n_ln_n(count) -%}
    case when {{ count }} > 0 then {{ rater_as_double(count) }} * ln({{ count }}) else 0 end
{%- endmacro %}

{#- Shannon entropy in nats over non-empty categories: H = −Σ p_j ln p_j
    = ln n − Σ n_j ln n_j / n. Exactly 0 when one category is used. Null for n = 0. -#}
{% macro rater_entropy_nats(n, sum_n_ln_n, n_used) -%}
    case
        when {{ n }} > 0 and {{ n_used }} <= 1 then 0
        when {{ n }} > 0
            then ln({{ rater_as_double(n) }}) - {{ sum_n_ln_n }} / {{ rater_as_double(n) }}
    end
{%- endmacro %}

{#- Shannon entropy in bits: H / ln 2. -#}
{% macro rater_entropy_bits(n, sum_n_ln_n, n_used) -%}
    {{ rater_entropy_nats(n, sum_n_ln_n, n_used) }} / ln(2)
{%- endmacro %}

{#- Entropy normalised by its maximum over K declared categories, H / ln K: 1 for an even
    spread over all K. Null for K = 1. -#}
{% macro rater_entropy_norm_k(n, sum_n_ln_n, n_used, k) -%}
    case
        when {{ k }} > 1 then {{ rater_entropy_nats(n, sum_n_ln_n, n_used) }} / ln({{ k }})
    end
{%- endmacro %}

{#- Entropy divided by ln n, as the document normalises it; with n > K it can never reach 1,
    hence the distinct name. Null for n < 2. -#}
{% macro rater_entropy_norm_n(n, sum_n_ln_n, n_used) -%}
    case
        when {{ n }} >= 2 then {{ rater_entropy_nats(n, sum_n_ln_n, n_used) }} / ln({{ n }})
    end
{%- endmacro %}

{#- Why some measures of an item are null. -#}
{% macro rater_null_reason(n, k) -%}
    {%- set one_rater -%}
        one rater: fleiss_pi, one_minus_pi, group_disagreement and simpson_index are 0/0 (no rater pairs), entropy_norm_n divides by ln(1) = 0
    {%- endset -%}
    {%- set one_category -%}
        one declared category: dispersion_index and entropy_norm_k divide by K - 1 = 0 and ln(1) = 0
    {%- endset -%}
    case
        when {{ n }} = 0 then 'no ratings: every measure is undefined'
        when {{ n }} = 1 and {{ k }} = 1 then '{{ one_rater }}; {{ one_category }}'
        when {{ n }} = 1 then '{{ one_rater }}'
        when {{ k }} = 1 then '{{ one_category }}'
    end
{%- endmacro %}

{#- A readable identifier from a free-text name: lower case, each run of other characters
    than a-z and 0-9 becomes one underscore, none at the ends ('GPT-4o' -> 'gpt_4o'). -#}
{% macro rater_slug(expr) -%}
    {{ return(adapter.dispatch('rater_slug')(expr)) }}
{%- endmacro %}

{% macro default__rater_slug(expr) -%}
    regexp_replace(regexp_replace(lower({{ expr }}), '[^a-z0-9]+', '_'), '^_+|_+$', '')
{%- endmacro %}

{#- DuckDB replaces only the first match unless told 'g'. -#}
{% macro duckdb__rater_slug(expr) -%}
    regexp_replace(regexp_replace(lower({{ expr }}), '[^a-z0-9]+', '_', 'g'), '^_+|_+$', '', 'g')
{%- endmacro %}

{#- The rater datasets derived from the cross-lingual study, named once here: the study's
    task (mcq_default_task) keeps the names it has always had, models_as_raters_<language>
    (baseline variant) and languages_as_raters_<model slug>_<variant>; any other task, or
    another variant of the models' answers, adds its name. -#}
{% macro models_as_raters_dataset(task, variant, language) -%}
    case
        when {{ task }} = '{{ var("mcq_default_task") }}'
            and {{ variant }} = '{{ var("mcq_baseline_variant") }}'
            then {{ dbt.concat(["'models_as_raters_'", language]) }}
        else {{ dbt.concat([
            "'models_as_raters_'", rater_slug(task), "'_'", rater_slug(variant), "'_'", language
        ]) }}
    end
{%- endmacro %}

{% macro languages_as_raters_dataset(task, model, variant) -%}
    case
        when {{ task }} = '{{ var("mcq_default_task") }}'
            then {{ dbt.concat(["'languages_as_raters_'", rater_slug(model), "'_'", variant]) }}
        else {{ dbt.concat([
            "'languages_as_raters_'", rater_slug(task), "'_'", rater_slug(model), "'_'", variant
        ]) }}
    end
{%- endmacro %}
