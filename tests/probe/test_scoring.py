"""The batched scorer against the reference method (one full forward pass per stimulus and
candidate, full-vocabulary log-softmax), on every stimulus and candidate of the design."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import logsumexp

from probe import scoring
from probe.modeling import GQA_SDPA, load_model, use_gqa_attention
from probe.scoring import (
    TokenizationError,
    build_requests,
    score_batched,
    score_reference,
    shard,
)
from probe.tiny import VARIANTS

CPU = torch.device("cpu")


def _load(path, dtype=torch.float32):
    return load_model(str(path), CPU, dtype)


def _requests(tokenizer, design):
    return build_requests(
        tokenizer, [s.prompt for s in design.stimuli], [c.text for c in design.candidates]
    )


@pytest.fixture(scope="module")
def reference_scores(tiny_model_dirs, design):
    """Reference log-probs per tiny model, computed once."""
    out = {}
    for name, path in tiny_model_dirs.items():
        model, tokenizer = _load(path)
        requests = _requests(tokenizer, design)
        out[name] = (requests, score_reference(model, requests))
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_batched_equals_reference_fp32(name, tiny_model_dirs, reference_scores, design):
    model, tokenizer = _load(tiny_model_dirs[name])
    requests, reference = reference_scores[name]
    assert len(requests) == len(design.stimuli) == 80
    # the design exercises what it must: BOS as configured, multi-token candidates
    has_bos = all(r.prompt_ids[0] == tokenizer.bos_token_id for r in requests)
    assert has_bos == VARIANTS[name][1]
    n_tokens = [len(t) for r in requests for t in r.candidate_ids]
    assert max(n_tokens) > 1 and min(n_tokens) >= 1
    # auto takes the shared layout here (the template's opening); 7 in each layout
    for batch_size, share in (("auto", None), (7, True), (7, False)):
        batched, _ = score_batched(model, requests, batch_size=batch_size, device=CPU, share=share)
        for got_row, want_row in zip(batched, reference, strict=True):
            for got, want in zip(got_row, want_row, strict=True):
                assert got.shape == want.shape
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
                assert abs(got.sum() - want.sum()) <= 1e-5


@pytest.mark.parametrize("name", ["gpt2_bos", "llama"])
def test_batched_equals_reference_with_candidates_per_stimulus(name, tiny_model_dirs, design):
    """A multiple-choice item's options: each stimulus its own two to five candidates, so a
    batch mixes rows of different candidate counts (and shares the template's opening)."""
    model, tokenizer = _load(tiny_model_dirs[name])
    texts = [c.text for c in design.candidates]
    stimuli = design.stimuli[:24]
    candidates = [
        [texts[(i + 3 * k) % len(texts)] + " and" * (k % 2) for k in range(2 + i % 4)]
        for i in range(len(stimuli))
    ]
    requests = build_requests(tokenizer, [s.prompt for s in stimuli], candidates)
    assert [len(r.candidate_ids) for r in requests] == [len(c) for c in candidates]
    reference = score_reference(model, requests)
    for batch_size, share in (("auto", None), (5, True), (5, False)):
        batched, _ = score_batched(model, requests, batch_size=batch_size, device=CPU, share=share)
        for got_row, want_row in zip(batched, reference, strict=True):
            assert len(got_row) == len(want_row)
            for got, want in zip(got_row, want_row, strict=True):
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_reference_is_a_plain_forward_pass(tiny_model_dirs, reference_scores):
    """Golden check of the reference itself on one candidate: recompute log P by hand from
    the model's logits of the concatenated sequence."""
    model, tokenizer = _load(tiny_model_dirs["gpt2"])
    requests, reference = reference_scores["gpt2"]
    request = requests[3]
    tail = request.candidate_ids[7]
    ids = list(request.prompt_ids + tail)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0].double().numpy()
    p = len(request.prompt_ids)
    want = [logits[p - 1 + t, tok] - logsumexp(logits[p - 1 + t]) for t, tok in enumerate(tail)]
    np.testing.assert_allclose(reference[3][7], want, atol=1e-5)


def test_bf16_runs_and_is_close(tiny_model_dirs, reference_scores):
    model, _ = _load(tiny_model_dirs["llama_bos"], torch.bfloat16)
    requests, reference = reference_scores["llama_bos"]
    batched, _ = score_batched(model, requests[:16], device=CPU)
    got = np.array([lp.sum() for row in batched for lp in row])
    want = np.array([lp.sum() for row in reference[:16] for lp in row])
    assert np.isfinite(got).all()
    # bf16 keeps 8 bits of mantissa: per-token errors of a few hundredths of a nat
    assert np.abs(got - want).max() < 0.5
    assert np.corrcoef(got, want)[0, 1] > 0.99


def test_out_of_memory_halves_the_batch(monkeypatch, tiny_model_dirs, reference_scores):
    model, _ = _load(tiny_model_dirs["gpt2"])
    requests, reference = reference_scores["gpt2"]
    real = scoring._score_batch

    def limited(model, batch, device, *options):
        if len(batch) > 5:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(model, batch, device, *options)

    monkeypatch.setattr(scoring, "_score_batch", limited)
    batched, used = score_batched(model, requests, batch_size=40, device=CPU)
    assert used == 5
    for got_row, want_row in zip(batched, reference, strict=True):
        for got, want in zip(got_row, want_row, strict=True):
            np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("world_size", [1, 2, 3, 7])
def test_shards_partition_the_requests_balanced_by_tokens(world_size):
    rng = np.random.default_rng(world_size)
    requests = [
        scoring.Request(i, tuple(range(int(n))), ((1,), (2, 3)))
        for i, n in enumerate(rng.integers(5, 200, size=101))
    ]
    shares = shard(requests, world_size)
    assert sorted(r.index for s in shares for r in s) == list(range(101))
    loads = [sum(r.packed_length for r in s) for s in shares]
    # greedy LPT: no share exceeds the mean by more than the longest request
    assert max(loads) - sum(loads) / world_size <= max(r.packed_length for r in requests)
    assert shard(requests, world_size) == shares  # deterministic: every rank agrees


class AppendsEnd:
    """A tokenizer that appends an end token: the prompt is then never a prefix."""

    def __call__(self, texts, add_special_tokens=True):
        return {"input_ids": [[ord(ch) for ch in text] + [0] for text in texts]}


class CharTokenizer:
    def __call__(self, texts, add_special_tokens=True):
        return {"input_ids": [[ord(ch) for ch in text] for text in texts]}


def test_prefix_and_empty_candidate_checks():
    with pytest.raises(TokenizationError, match="not a prefix"):
        build_requests(AppendsEnd(), ["seems"], [" ok"])
    with pytest.raises(TokenizationError, match="keeps no token"):
        build_requests(CharTokenizer(), ["seems"], [" ok", ""])
    requests = build_requests(CharTokenizer(), ["ab"], [" c", " de"])
    assert requests[0].prompt_ids == (97, 98)
    assert requests[0].candidate_ids == ((32, 99), (32, 100, 101))


def test_joint_tokenisation_of_the_real_prompt(tiny_model_dirs, design):
    """The candidate tokens are those after the prompt in the joint encoding."""
    _, tokenizer = _load(tiny_model_dirs["llama_bos"])
    requests = _requests(tokenizer, design)
    for request, stimulus in zip(requests[:5], design.stimuli[:5], strict=True):
        for tail, candidate in zip(request.candidate_ids, design.candidates, strict=True):
            joint = tokenizer(stimulus.prompt + candidate.text)["input_ids"]
            assert list(request.prompt_ids + tail) == joint
            assert tokenizer.decode(list(tail)) == candidate.text


def _openings_removed(stimuli) -> list[str]:
    """The messages without their common "Hi, I'm <name>." opening."""
    return [s.text.split(". ", 1)[1] for s in stimuli]


def test_a_batch_takes_the_layout_that_pays(tiny_model_dirs, design):
    """The name probe's prompts open with the template's ~60 % of a row: shared. Prompts
    that share only BOS (a multiple-choice task's items): packed, one pass, no cache."""
    _, tokenizer = _load(tiny_model_dirs["llama_bos"])
    texts = [c.text for c in design.candidates]
    alike = build_requests(tokenizer, [s.prompt for s in design.stimuli[:8]], texts)
    assert scoring._shares_opening(alike)
    unlike = build_requests(tokenizer, _openings_removed(design.stimuli[::8]), texts)
    assert scoring._shared_length(unlike) <= 2  # BOS, and "I" at most
    assert not scoring._shares_opening(unlike)


@pytest.mark.parametrize("name", ["gpt2", "llama_bos"])
def test_packed_layout_equals_reference_on_prompts_that_share_nothing(
    name, tiny_model_dirs, design
):
    """Prompts that open differently (the messages without the template), options of one to
    five tokens, several batch sizes: the packed layout, chosen by default, equals the
    reference."""
    model, tokenizer = _load(tiny_model_dirs[name])
    texts = [c.text for c in design.candidates]
    prompts = _openings_removed(design.stimuli[:80:4])
    candidates = [[texts[(i + k) % len(texts)] for k in range(1 + i % 5)] for i in range(20)]
    requests = build_requests(tokenizer, prompts, candidates)
    assert not scoring._shares_opening(requests)
    reference = score_reference(model, requests)
    for batch_size in ("auto", 1, 6):
        batched, _ = score_batched(model, requests, batch_size=batch_size, device=CPU)
        for got_row, want_row in zip(batched, reference, strict=True):
            for got, want in zip(got_row, want_row, strict=True):
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_grouped_query_attention_left_to_sdpa_scores_the_same(monkeypatch, tiny_model_dirs, design):
    """GQA_SDPA (what a CUDA model runs): the tiny Llama's 4 heads over 2 key/value heads
    go to SDPA ungrouped, with the mask, in both layouts; the scores do not move."""
    model, tokenizer = _load(tiny_model_dirs["llama_bos"])
    texts = [c.text for c in design.candidates]
    alike = build_requests(tokenizer, [s.prompt for s in design.stimuli[:12]], texts)
    unlike = build_requests(tokenizer, _openings_removed(design.stimuli[:80:8]), texts)
    before = [score_batched(model, r, device=CPU)[0] for r in (alike, unlike)]
    assert use_gqa_attention(model) and model.config._attn_implementation == GQA_SDPA
    calls = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs.get("enable_gqa", False) and kwargs.get("attn_mask") is not None)
        return sdpa(*args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spy)
    after = [score_batched(model, r, device=CPU)[0] for r in (alike, unlike)]
    assert any(calls)  # the masked passes took the ungrouped path
    for got_rows, want_rows in zip(after, before, strict=True):
        for got_row, want_row in zip(got_rows, want_rows, strict=True):
            for got, want in zip(got_row, want_row, strict=True):
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


def test_a_batch_ends_where_its_padding_would_grow(monkeypatch):
    """Rows by length, descending: a batch ends before a row 5 % shorter than its first once
    the rows before it hold the minimum tokens, else at the batch size."""
    monkeypatch.setattr(scoring, "BATCH_MIN_TOKENS", 250)
    lengths = np.array([100, 99, 98, 96, 95, 90, 89, 60, 59, 58])
    assert scoring._batch_end(lengths, 0, 8) == 5  # 95 is within 5 % of 100; 90 is not
    assert scoring._batch_end(lengths, 0, 4) == 4  # the size first
    # 90 + 89 hold < 250 tokens, so the 60s join them; the next row short of 85.5 ends it
    assert scoring._batch_end(lengths, 5, 8) == 9
    monkeypatch.setattr(scoring, "BATCH_MIN_TOKENS", 10**6)
    assert scoring._batch_end(lengths, 0, 10) == 10  # too few tokens to cut at all
