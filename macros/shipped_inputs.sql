{#- The demo data Concord ships, by the sha256 of each file's bytes (the landing's
    content_hash): what dq_shipped_inputs recognises in a warehouse, whatever the files are
    called or wherever they lie (docs/data-sources.md says why each is not real data).
    tests/python/test_shipped_inputs.py holds this list to the files in seeds/. -#}
{% macro shipped_inputs() -%}
    {{ return([
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/GPT4o_Merged_Multilingual.csv', 'sha256': '8b9a76048d92c36d920ee505a7dc64fae7be9d0ad9b768ea5c6cd6d84394a1e4'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/GPT4o_Shuffled_Merged_Multilingual.csv', 'sha256': '37565f5016529c8e90cbc968b367e895bb22f521ca4327280ab8e2ebb3f6eb1a'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/LLaMA3.1_70_Merged_Multilingual.csv', 'sha256': '0a142014611d223e5ba9bc42cf83f96db1b18da796188244eaa414f93bc8c58c'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/LLaMA3.1_Shuffled_Merged_Multilingual.csv', 'sha256': '3ed8ebf54bbdf3022ebe89e3cbe96a9d533689d74d390f0b2175ed1ff6291bf1'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/LLaMA3.2_Merged_Multilingual.csv', 'sha256': '4253a5eeeff9473adb7cdb6679f4402ce276be37e1faba83dc07343caf788847'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/Qwen2.5_Merged_Multilingual.csv', 'sha256': 'f1134c55c101514640423e8c8020e5c7f2f053ae637416fa8630255d7ab4267c'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/XLM-R_Merged_Multilingual.csv', 'sha256': '760b06f138a32faa3a731e5a2408700888d45321494f09281bd4f27e1b336f93'},
        {'study': 'mcq', 'what': 'reconstructed answers', 'file': 'seeds/mcq/answers/mBERT_Merged_Multilingual.csv', 'sha256': 'cf54134494fa163dc9da022d312b6a62b12b54eafdc08ed5ae1e12b08beb2704'},
        {'study': 'ranking', 'what': 'synthetic rankings', 'file': 'seeds/ranking/ranking_rankings.csv', 'sha256': 'db71a494ed5d7a030bf4ba2e819e27ed979e08d9524f641c600aaa022ab0dc16'},
    ]) }}
{%- endmacro %}
