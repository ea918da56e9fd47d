"""The probe's landing tables (docs/probe.md, "The landing"), in the one place both sides
read them: the probe writes its runs with them, and the warehouse's reader writes the
empty tables Spark reads before the first run (concord_io.landing.placeholders)."""

from __future__ import annotations

import pyarrow as pa

RUNS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("model", pa.string()),
        ("config_hash", pa.string()),
        ("design_hash", pa.string()),
        ("tokenizer", pa.string()),
        ("dtype", pa.string()),
        ("device", pa.string()),
        ("device_map", pa.string()),
        ("revision", pa.string()),
        ("attention", pa.string()),
        ("batch_size", pa.int32()),
        ("world_size", pa.int32()),
        ("rank_requests", pa.list_(pa.int32())),
        ("rank_tokens", pa.list_(pa.int64())),
        ("template_id", pa.string()),
        ("prompt_template", pa.string()),
        ("candidate_set", pa.list_(pa.string())),
        ("candidate_groups", pa.list_(pa.string())),
        ("n_stimuli", pa.int32()),
        ("n_candidates", pa.int32()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("scoring_seconds", pa.float64()),
        ("torch_version", pa.string()),
        ("transformers_version", pa.string()),
    ]
)
# The columns that identify a stimulus, first in the scores and the stimulus indices.
STIMULUS_FIELDS = [
    ("run_id", pa.string()),
    ("stimulus_id", pa.int32()),
    ("msg_id", pa.int32()),
    ("group_name", pa.string()),
    ("sender_name", pa.string()),
    ("stimulus", pa.string()),
]
SCORES_SCHEMA = pa.schema(
    [
        *STIMULUS_FIELDS,
        ("candidate_id", pa.int32()),
        ("candidate", pa.string()),
        ("candidate_group", pa.string()),
        ("logprob", pa.float64()),
        ("n_tokens", pa.int32()),
        ("token_logprobs", pa.list_(pa.float64())),
        ("token_ids", pa.list_(pa.int64())),
    ]
)
STIMULI_SCHEMA = pa.schema(
    [
        *STIMULUS_FIELDS,
        ("prompt", pa.string()),
        ("n_prompt_tokens", pa.int32()),
    ]
)
SCHEMAS = {"runs": RUNS_SCHEMA, "scores": SCORES_SCHEMA, "stimuli": STIMULI_SCHEMA}
