"""Scoring log P(candidate | prompt) for every stimulus and candidate.

Requests (lm-evaluation-harness style): the candidate's tokens are those that follow the
prompt's in the encoding of prompt + candidate together (tokenising the two separately can
split a word differently at the boundary). The prompt's tokens must be a prefix of that joint
encoding and each candidate must keep at least one token.

``build_requests`` encodes each prompt once and finds a candidate's tokens at its boundary
with the prompt: the last few prompt tokens (a window, starting at a token boundary) are
encoded again together with the candidate, and the window's encodings are shared by every
prompt that ends the same way with the same candidates. It is exact where the tokenizer is
local (a token boundary a window before the prompt's end is not moved by what follows),
which pre-tokenizing tokenizers are; it checks that on every window and, against the full
joint encoding, on a sample of stimuli, and encodes jointly wherever a check fails. The
candidates are one list shared by every prompt (the name probe's adjectives) or one list
per prompt (a multiple-choice item's options, as many as the item has); a batch may mix
stimuli with different numbers of candidates.

``score_batched`` computes each prompt once, in one of two layouts chosen per batch:

- **shared** (prompts that open alike, as the name probe's template does): the tokens every
  prompt of the batch starts with run once, their keys and values are broadcast to every
  row; the rest of each prompt, right-padded, runs in a causal pass over that cache, then
  every stimulus's candidates, one row each, with position ids restarting where the prompt
  ends and a small mask (candidate tokens x prompt and candidate tokens) over the cached
  prompt. Each pass after the first copies the cache it extends, which costs less than the
  opening it saves when the opening is a good part of the row.
- **packed** (prompts with little or no common opening, as a multiple-choice task's items):
  one pass, no cache. Each row is a prompt followed by all its candidates, with position
  ids restarting at the prompt's end for every candidate and an additive mask in which a
  candidate token sees its prompt and the earlier tokens of its own candidate. The GPU does
  the packed tokens and nothing else: no cache is written, read back or copied.

The vocabulary projection and log-softmax are computed only at the positions that predict a
candidate token; the scores stay on the device until the last batch. ``score_reference`` is
the reference method (one full forward pass per stimulus and candidate, full log-softmax)
kept for tests and the benchmark.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from probe.errors import ProbeError

# Prompt tokens re-encoded with each candidate: enough to hold any merge across the boundary
# (a pre-tokenizer piece is a word, a number or a run of spaces or punctuation).
BOUNDARY_WINDOW = 8
# Stimuli whose windowed tokens are checked against the full joint encoding.
JOINT_CHECK_SAMPLE = 32
# A batch takes the shared layout when its common opening is at least this share of its mean
# packed row: below it, the cache copies of the shared layout cost more than the opening
# saves (bench/results/probe_mcq_gpu.md: MCQ prompts, whose opening is BOS alone, run faster
# packed; the name probe's template opening is ~60 % of a row).
SHARED_OPENING_MIN_SHARE = 0.25
# Rows are padded to their batch's longest, and rows sorted by length but cut into batches by
# count pad ~11 % of the tokens of the MCQ bench (a batch from 139 down to 104 tokens). A
# batch therefore also ends where a row is this much shorter than the batch's first, once it
# holds enough tokens to keep the GPU's matrix units busy.
BATCH_PADDING_MAX = 0.05
BATCH_MIN_TOKENS = 2**16


class TokenizationError(ProbeError, ValueError):
    """The joint encoding does not split into prompt tokens followed by candidate tokens."""


class NonFiniteScoreError(ProbeError, ValueError):
    """A log-probability is NaN or infinite; nothing is written."""


@dataclass(frozen=True)
class Request:
    index: int  # position of the stimulus in the input order
    prompt_ids: tuple[int, ...]
    candidate_ids: tuple[tuple[int, ...], ...]

    @property
    def packed_length(self) -> int:
        return len(self.prompt_ids) + sum(len(c) for c in self.candidate_ids)


def _split(name: str, prompt_ids, joint_ids, candidate: str) -> tuple[int, ...]:
    """The candidate's tokens: those of the joint encoding after the prompt's."""
    n = len(prompt_ids)
    if list(joint_ids[:n]) != list(prompt_ids):
        raise TokenizationError(
            f"{name}, candidate {candidate!r}: the prompt's tokens are not a "
            "prefix of the tokens of prompt + candidate (the tokenizer merges across the "
            "boundary or appends an end token); change the template or the candidate"
        )
    tail = tuple(joint_ids[n:])
    if not tail:
        raise TokenizationError(f"{name}, candidate {candidate!r}: keeps no token after the prompt")
    return tail


def stimulus_name(index: int) -> str:
    """How messages name prompt ``index`` (0-based) by default."""
    return f"stimulus {index + 1}"


@dataclass(frozen=True)
class _Candidates:
    """The candidates of every prompt: distinct lists (``sets``) and each prompt's list."""

    sets: list[tuple[str, ...]]
    set_of: list[int]  # prompt -> its index in sets

    def of(self, prompt: int) -> tuple[str, ...]:
        return self.sets[self.set_of[prompt]]


def _candidates(candidates, n_prompts: int) -> _Candidates:
    """One list of strings shared by every prompt, or one list per prompt."""
    if not candidates or isinstance(candidates[0], str):
        return _Candidates([tuple(candidates)], [0] * n_prompts)
    if len(candidates) != n_prompts:
        raise ValueError(f"{len(candidates)} candidate lists for {n_prompts} prompts")
    index = {c: i for i, c in enumerate(dict.fromkeys(tuple(c) for c in candidates))}
    return _Candidates(list(index), [index[tuple(c)] for c in candidates])


def _joint_tails(tokenizer, prompts, prompt_ids, candidates: _Candidates, indices, name):
    """Candidate tokens of the stimuli ``indices`` from the full joint encoding."""
    indices = list(indices)
    texts = [prompts[i] + c for i in indices for c in candidates.of(i)]
    joint = iter(tokenizer(texts, add_special_tokens=True)["input_ids"] if texts else [])
    return {
        i: tuple(_split(name(i), prompt_ids[i], next(joint), c) for c in candidates.of(i))
        for i in indices
    }


def _window_start(ids, offsets, special: set[int]) -> int | None:
    """Index of the first token of the boundary window, or None (joint encoding instead):
    the window starts at a real token with a character offset, after at least one token."""
    start = len(ids) - BOUNDARY_WINDOW
    if start < 1 or any(t in special for t in ids[start:]):
        return None
    if offsets[start][0] <= offsets[start - 1][0]:  # a character split across tokens
        return None
    return start


def build_requests(  # noqa: C901 - one pass over the prompts for both tokenizer kinds and every boundary case: the hot path of tokenization, measured against the joint encoding (bench)
    tokenizer,
    prompts: list[str],
    candidates: list[str] | list[list[str]],
    *,
    name: Callable[[int], str] = stimulus_name,
) -> list[Request]:
    """Each prompt encoded once; each candidate's tokens found at its boundary window.

    ``candidates``: one list shared by every prompt, or one list per prompt. ``name(i)``
    is how a message names prompt i. Raises the TokenizationError of the first stimulus (in
    order) whose prompt tokens are not a prefix of the joint encoding, as a full joint
    encoding would.
    """
    prompts = list(prompts)
    sets = _candidates(candidates, len(prompts))
    fast = getattr(tokenizer, "is_fast", False)
    options = {"return_offsets_mapping": True} if fast else {}
    encoded = tokenizer(prompts, add_special_tokens=True, **options)
    prompt_ids = encoded["input_ids"]
    for i, ids in enumerate(prompt_ids):
        if not ids:
            raise TokenizationError(f"{name(i)}: the prompt has no tokens")
    starts: list[int | None] = [None] * len(prompts)
    if fast:  # slow tokenizers give no offsets: joint encoding throughout
        special = set(tokenizer.all_special_ids)
        starts = [
            _window_start(ids, offsets, special)
            for ids, offsets in zip(prompt_ids, encoded["offset_mapping"], strict=True)
        ]
    # a window is the prompt's last tokens and the candidates that follow them: prompts
    # that end alike and have the same candidates share its encodings
    window_of: list[tuple[str, int] | None] = [None] * len(prompts)
    for i, start in enumerate(starts):
        if start is not None:
            window_of[i] = (prompts[i][encoded["offset_mapping"][i][start][0] :], sets.set_of[i])
    keys = list(dict.fromkeys(w for w in window_of if w is not None))
    windows: dict[tuple[str, int], list[list[int]]] = {}  # its tokens alone, with each candidate
    if keys:
        flat = [text + c for text, s in keys for c in ("", *sets.sets[s])]
        window_enc = iter(tokenizer(flat, add_special_tokens=False)["input_ids"])
        for window in keys:
            windows[window] = [next(window_enc) for _ in range(len(sets.sets[window[1]]) + 1)]
    tails: dict[int, tuple] = {}
    joint_needed, local = [], True
    window_tails: dict[tuple[str, int], tuple | None] = {}  # None: window + c merge
    for i, (key, start) in enumerate(zip(window_of, starts, strict=True)):
        if key is None or start is None or windows[key][0] != prompt_ids[i][start:]:
            joint_needed.append(i)  # no window, or it does not re-encode as in the prompt
            continue
        alone, *with_candidates = windows[key]
        if key not in window_tails:
            try:
                window_tails[key] = tuple(
                    _split(name(i), alone, joint, c)
                    for joint, c in zip(with_candidates, sets.of(i), strict=True)
                )
            except TokenizationError:
                window_tails[key] = None
        found = window_tails[key]
        if found is None:  # the joint encoding has the last word: an error?
            _joint_tails(tokenizer, prompts, prompt_ids, sets, [*joint_needed, i], name)
            local = False  # it is not: the window disagrees with the joint encoding
            break
        tails[i] = found
    if local:
        tails.update(_joint_tails(tokenizer, prompts, prompt_ids, sets, joint_needed, name))
        local = _agrees_with_joint(tokenizer, prompts, prompt_ids, sets, tails, joint_needed)
    if not local:
        print(
            "warning: this tokenizer moves token boundaries far before a candidate; "
            "encoding every prompt + candidate in full (slower, same tokens)",
            file=sys.stderr,
        )
        tails = _joint_tails(tokenizer, prompts, prompt_ids, sets, range(len(prompts)), name)
    return [Request(i, tuple(ids), tails[i]) for i, ids in enumerate(prompt_ids)]


def joint_requests(
    tokenizer, prompts: list[str], candidates, *, name: Callable[[int], str] = stimulus_name
) -> list[Request]:
    """Every prompt + candidate encoded in full: the definition ``build_requests`` keeps to,
    and what lm-evaluation-harness does (the benchmark's baseline)."""
    prompts = list(prompts)
    prompt_ids = tokenizer(prompts, add_special_tokens=True)["input_ids"]
    sets = _candidates(candidates, len(prompts))
    tails = _joint_tails(tokenizer, prompts, prompt_ids, sets, range(len(prompts)), name)
    return [Request(i, tuple(ids), tails[i]) for i, ids in enumerate(prompt_ids)]


def _agrees_with_joint(tokenizer, prompts, prompt_ids, candidates, tails, joint_done) -> bool:
    """The windowed tokens of a sample of stimuli, spread over the design, equal those of
    the full joint encoding."""
    done = set(joint_done)
    spread = np.linspace(0, len(prompts) - 1, min(len(prompts), JOINT_CHECK_SAMPLE))
    sample = sorted({int(i) for i in spread} - done)
    try:
        joint = _joint_tails(tokenizer, prompts, prompt_ids, candidates, sample, stimulus_name)
    except TokenizationError:
        return False
    return all(joint[i] == tails[i] for i in sample)


def _uses_plain_lm_head(model) -> bool:
    """True when logits = lm_head(final hidden state) with no post-processing."""
    config = model.config
    for attribute in ("final_logit_softcapping", "logit_scale", "logits_scaling"):
        if getattr(config, attribute, None) not in (None, 1, 1.0):
            return False
    return model.get_output_embeddings() is not None


@dataclass(frozen=True)
class _Layout:
    """Host-side index arrays of one batch, built with numpy (a Python loop per token cost
    more than the forward pass of a small model)."""

    shared_ids: np.ndarray  # (S,) the tokens every prompt of the batch starts with
    suffix_ids: np.ndarray  # (n, P - S) the rest of each prompt, right-padded
    prompt_lengths: np.ndarray  # (n,) whole prompts
    candidate_ids: np.ndarray  # (n, T) each row's candidates one after another, padded
    candidate_positions: np.ndarray  # (n, T) position ids, restarting at the prompt's end
    segment: np.ndarray  # (n, T) candidate number within the row, -1 on padding
    inner_rows: np.ndarray  # (m,) candidate tokens after a candidate's first: the row
    inner_columns: np.ndarray  # (m,) ... and the column of the token that predicts them
    source: np.ndarray  # (tokens,) logit row of each token: < n prompt end, else n + inner
    target: np.ndarray  # (tokens,) the token id, in (row, candidate, token) order


def _shared_length(requests: list[Request]) -> int:
    """Tokens that every prompt starts with (the template's opening, usually), leaving each
    prompt at least its last token, whose output predicts the candidates' first."""
    prompts = [r.prompt_ids for r in requests]
    first, last = min(prompts), max(prompts)  # the common prefix of all is theirs
    common = next(
        (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first)
    )
    return max(0, min(common, min(map(len, prompts)) - 1))


def _layout(requests: list[Request], shared: int) -> _Layout:
    n = len(requests)
    p = np.array([len(r.prompt_ids) for r in requests])
    sizes = [len(t) for r in requests for t in r.candidate_ids]
    per_row = np.array([len(r.candidate_ids) for r in requests])
    size = np.array(sizes)
    row_tokens = np.add.reduceat(size, np.r_[0, np.cumsum(per_row)[:-1]])
    suffix = p - shared
    suffix_ids = np.zeros((n, suffix.max()), dtype=np.int64)
    suffix_ids[np.arange(suffix.max()) < suffix[:, None]] = np.fromiter(
        (t for r in requests for t in r.prompt_ids[shared:]), np.int64, suffix.sum()
    )
    width = int(row_tokens.max())
    valid = np.arange(width) < row_tokens[:, None]
    target = np.fromiter(
        (t for r in requests for tail in r.candidate_ids for t in tail), np.int64, size.sum()
    )
    candidate_ids = np.zeros((n, width), dtype=np.int64)
    candidate_ids[valid] = target
    # per token: its row, its candidate number in the row, its offset in the candidate
    row_of_candidate = np.repeat(np.arange(n), per_row)
    number = np.arange(len(size)) - np.repeat(np.cumsum(per_row) - per_row, per_row)
    token_row = np.repeat(row_of_candidate, size)
    offset = np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)
    column = np.arange(size.sum()) - np.repeat(np.cumsum(row_tokens) - row_tokens, row_tokens)
    segment = np.full((n, width), -1, dtype=np.int64)
    segment[valid] = np.repeat(number, size)
    positions = np.zeros((n, width), dtype=np.int64)
    positions[valid] = p[token_row] + offset
    inner = offset > 0
    source = token_row.copy()  # a first token is predicted at its prompt's last position
    source[inner] = n + np.arange(inner.sum())
    return _Layout(
        np.array(requests[0].prompt_ids[:shared], dtype=np.int64), suffix_ids, p,
        candidate_ids, positions, segment, token_row[inner], column[inner] - 1, source, target,
    )  # fmt: skip


@dataclass(frozen=True)
class _PackedLayout:
    """Host-side arrays of one batch in the packed layout: row i is prompt i (columns 0 to
    p_i - 1) followed by its candidates' tokens, then padding."""

    input_ids: np.ndarray  # (n, W)
    position_ids: np.ndarray  # (n, W) prompt 0..p-1; a candidate's tokens p, p+1, ...
    segment: np.ndarray  # (n, W) -1 prompt, k the row's k-th candidate, -2 padding
    prompt_end: np.ndarray  # (n,) column of each prompt's last token
    inner_rows: np.ndarray  # (m,) as _Layout's, with the columns of the packed row
    inner_columns: np.ndarray
    source: np.ndarray
    target: np.ndarray


def _packed_layout(requests: list[Request]) -> _PackedLayout:
    """The packed layout, from the two-pass layout with no shared opening (the same
    candidate numbering, positions and scored tokens; only the columns move)."""
    two = _layout(requests, 0)
    n, p = len(requests), two.prompt_lengths
    in_prompt = np.arange(two.suffix_ids.shape[1]) < p[:, None]
    is_candidate = two.segment >= 0
    row_tokens = is_candidate.sum(axis=1)
    width = int((p + row_tokens).max())
    columns = np.arange(width)
    segment = np.full((n, width), -2, dtype=np.int64)
    segment[columns < p[:, None]] = -1
    candidate_at = (columns >= p[:, None]) & (columns < (p + row_tokens)[:, None])
    segment[candidate_at] = two.segment[is_candidate]
    input_ids = np.zeros((n, width), dtype=np.int64)
    input_ids[columns < p[:, None]] = two.suffix_ids[in_prompt]
    input_ids[candidate_at] = two.candidate_ids[is_candidate]
    position_ids = np.broadcast_to(columns, (n, width)).copy()
    position_ids[candidate_at] = two.candidate_positions[is_candidate]
    return _PackedLayout(
        input_ids, position_ids, segment, p - 1, two.inner_rows,
        p[two.inner_rows] + two.inner_columns, two.source, two.target,
    )  # fmt: skip


def _packed_mask(segment: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Additive (n, 1, W, W) mask of the packed layout: a prompt token sees the prompt up to
    itself; a candidate token its prompt and its own candidate up to itself; a padding
    token itself only (a row with no key would give NaN)."""
    width = segment.shape[1]
    index = torch.arange(width, device=segment.device)
    causal = index[None, :] <= index[:, None]
    seen_by = (segment[:, None, :] == -1) | (segment[:, None, :] == segment[:, :, None])
    allowed = causal & seen_by & (segment[:, None, :] != -2)
    allowed |= (
        torch.eye(width, dtype=torch.bool, device=segment.device) & (segment == -2)[:, :, None]
    )
    mask = torch.zeros(allowed.shape, dtype=dtype, device=segment.device)
    return mask.masked_fill_(~allowed, torch.finfo(dtype).min)[:, None]


def _upload(layout, device: torch.device) -> dict[str, torch.Tensor]:
    """Every array of the layout on ``device`` in one copy. From pinned host memory the copy
    is queued behind the GPU's work; from ordinary memory it would first wait for the GPU to
    finish, and the GPU would then wait for the next batch to be laid out."""
    arrays = {k: getattr(layout, k) for k in layout.__dataclass_fields__}
    flat = np.concatenate([a.ravel() for a in arrays.values()])
    host = torch.from_numpy(flat)
    if device.type == "cuda":
        host = host.pin_memory()
    buffer = host.to(device, non_blocking=True)
    out, at = {}, 0
    for name, array in arrays.items():
        out[name] = buffer[at : at + array.size].view(array.shape)
        at += array.size
    return out


def _candidate_mask(on: dict[str, torch.Tensor], dtype: torch.dtype) -> torch.Tensor:
    """Additive (n, 1, T, P + T) mask of the candidate pass: a candidate token sees its own
    prompt (not the padding after it) and the earlier tokens of its own candidate; a padding
    query sees itself only (a row with no key would give NaN)."""
    segment = on["segment"]
    device, width = segment.device, segment.shape[1]
    prompt_width = on["shared_ids"].shape[0] + on["suffix_ids"].shape[1]
    index = torch.arange(width, device=device)
    query_valid = (segment >= 0)[:, :, None]
    keys = torch.arange(prompt_width, device=device)
    sees_prompt = (keys < on["prompt_lengths"][:, None])[:, None, :] & query_valid
    same = segment[:, :, None] == segment[:, None, :]
    sees_candidate = same & (index[None, :] <= index[:, None]) & query_valid
    sees_candidate |= torch.eye(width, dtype=torch.bool, device=device) & ~query_valid
    allowed = torch.cat([sees_prompt.expand(-1, width, -1), sees_candidate], dim=2)
    mask = torch.zeros(allowed.shape, dtype=dtype, device=device)
    return mask.masked_fill_(~allowed, torch.finfo(dtype).min)[:, None]


def _repeat_rows(cache, n: int) -> None:
    """The one-row cache of the shared tokens as n rows: a broadcast view where the cache
    keeps its keys and values as tensors (the next pass copies them once, into its own),
    else the cache's own repeat (a copy)."""
    layers = getattr(cache, "layers", None)
    if layers and all(
        isinstance(getattr(layer, "keys", None), torch.Tensor)
        and isinstance(getattr(layer, "values", None), torch.Tensor)
        for layer in layers
    ):
        for layer in layers:
            layer.keys = layer.keys.expand(n, *layer.keys.shape[1:])
            layer.values = layer.values.expand(n, *layer.values.shape[1:])
    else:
        cache.batch_repeat_interleave(n)


def _forward(model, plain_head: bool, **inputs):
    """(hidden states or logits, cache) of one pass."""
    if plain_head:
        out = model.base_model(use_cache=True, **inputs)
        return out.last_hidden_state, out.past_key_values
    out = model(use_cache=True, **inputs)  # logits are post-processed: take them whole
    return out.logits, out.past_key_values


def _log_probs(model, plain_head: bool, picked, on, dtype) -> torch.Tensor:
    """Log-probs of the target tokens from the hidden states (or logits) that predict
    them: the vocabulary projection and log-softmax at those rows only."""
    logits = model.get_output_embeddings()(picked) if plain_head else picked
    # float64 for a float32 model (its scores are then exact to ~1e-7), float32 for 16-bit
    # ones (whose logits carry 8-11 bits): the log-softmax never adds to the model's error
    logits = logits.double() if dtype == torch.float32 else logits.float()
    source, target = on["source"].to(logits.device), on["target"].to(logits.device)
    return logits[source, target] - torch.logsumexp(logits, dim=-1)[source]


def _shares_opening(requests: list[Request]) -> bool:
    """Whether the shared layout pays for this batch (SHARED_OPENING_MIN_SHARE)."""
    mean_row = sum(r.packed_length for r in requests) / len(requests)
    return _shared_length(requests) >= SHARED_OPENING_MIN_SHARE * mean_row


@torch.no_grad()
def _score_packed(model, requests: list[Request], device: torch.device) -> torch.Tensor:
    """Token log-probs of one batch in the packed layout (one pass, no cache)."""
    on = _upload(_packed_layout(requests), device)
    dtype = model.get_input_embeddings().weight.dtype
    plain_head = _uses_plain_lm_head(model)
    out = model.base_model if plain_head else model
    hidden = out(
        input_ids=on["input_ids"],
        position_ids=on["position_ids"],
        attention_mask=_packed_mask(on["segment"], dtype),
        use_cache=False,
    )
    hidden = hidden.last_hidden_state if plain_head else hidden.logits
    where = hidden.device  # under a device map the last layer may sit elsewhere
    rows = torch.arange(len(requests), device=where)
    picked = torch.cat(
        [
            hidden[rows, on["prompt_end"].to(where)],
            hidden[on["inner_rows"].to(where), on["inner_columns"].to(where)],
        ]
    )
    return _log_probs(model, plain_head, picked, on, dtype)


@torch.no_grad()
def _score_batch(
    model, requests: list[Request], device: torch.device, share: bool | None = None
) -> torch.Tensor:
    """Token log-probs of one batch, flat in (request, candidate, token) order, on the
    device. ``share``: the shared layout (True), the packed one (False), or whichever pays
    for this batch (None)."""
    if share is None:
        share = _shares_opening(requests)
    if not share:
        return _score_packed(model, requests, device)
    layout = _layout(requests, _shared_length(requests))
    on = _upload(layout, device)
    dtype = model.get_input_embeddings().weight.dtype
    plain_head = _uses_plain_lm_head(model)
    n = len(requests)
    cache = None
    if len(layout.shared_ids):
        _, cache = _forward(model, plain_head, input_ids=on["shared_ids"][None])
        _repeat_rows(cache, n)
    # right padding and causal attention: no real token sees the padding after it
    prompt_out, cache = _forward(
        model, plain_head, input_ids=on["suffix_ids"], past_key_values=cache
    )
    where = prompt_out.device  # under a device map the last layer may sit elsewhere
    suffix_lengths = (on["prompt_lengths"] - len(layout.shared_ids)).to(where)
    prompt_end = prompt_out[torch.arange(n, device=where), suffix_lengths - 1]
    candidate_out, _ = _forward(
        model,
        plain_head,
        input_ids=on["candidate_ids"],
        position_ids=on["candidate_positions"],
        attention_mask=_candidate_mask(on, dtype),
        past_key_values=cache,
    )
    inner = candidate_out[on["inner_rows"].to(where), on["inner_columns"].to(where)]
    return _log_probs(model, plain_head, torch.cat([prompt_end, inner]), on, dtype)


def _is_out_of_memory(error: BaseException) -> bool:
    if isinstance(error, torch.OutOfMemoryError):
        return True
    return isinstance(error, RuntimeError) and (
        "out of memory" in str(error).lower() or "can't allocate memory" in str(error).lower()
    )


def auto_batch_size(model, device: torch.device, requests: list[Request]) -> int:
    """Starting size for batch_size='auto'; the scorer halves it on out-of-memory.

    On a GPU the largest batch is the fastest: as many stimuli (at most 4096) as half the
    free memory holds, counting per token the cached keys and values and a layer's
    activations, and per stimulus the float32 logits of the positions scored. On a CPU
    throughput does not grow with the batch, so start at 16.
    """
    if not requests:
        return 1
    if device.type != "cuda":
        return min(len(requests), 16)
    config = model.config.get_text_config()
    hidden = config.hidden_size
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or hidden // heads
    layers = config.num_hidden_layers
    width = torch.finfo(model.get_input_embeddings().weight.dtype).bits // 8
    intermediate = getattr(config, "intermediate_size", None) or 4 * hidden
    per_token = width * (2 * layers * kv_heads * head_dim + 4 * hidden + 3 * intermediate)
    longest = max(requests, key=lambda r: r.packed_length)
    scored = 1 + sum(len(t) - 1 for t in longest.candidate_ids)
    per_stimulus = per_token * longest.packed_length + 8 * scored * config.vocab_size
    free, _ = torch.cuda.mem_get_info(device)
    return max(1, min(len(requests), 4096, int(free // 2 // per_stimulus)))


def _batch_end(lengths: np.ndarray, start: int, size: int) -> int:
    """End of the batch that starts at ``start`` (``lengths`` descending): at most ``size``
    rows, cut before the first row more than BATCH_PADDING_MAX shorter than the first once
    the rows before it hold BATCH_MIN_TOKENS tokens."""
    end = min(len(lengths), start + size)
    rows = lengths[start:end]
    short = rows < (1 - BATCH_PADDING_MAX) * rows[0]
    full = np.cumsum(rows) - rows >= BATCH_MIN_TOKENS  # the rows before hold enough
    cut = np.flatnonzero(short & full)
    return start + int(cut[0]) if cut.size else end


def score_batched(
    model,
    requests: list[Request],
    *,
    batch_size: int | str = "auto",
    device: torch.device | None = None,
    progress: Callable[[int], None] | None = None,
    share: bool | None = None,
) -> tuple[list[list[np.ndarray]], int]:
    """Per-token log-probs, [request.index][candidate] -> array, and the batch size used.

    ``share``: every batch in the shared layout (True) or the packed one (False); by default
    each batch takes the one that pays for it (see the module's docstring).

    Longest rows first, so an out-of-memory error comes at the first batch; on one, the batch
    size is halved and the batch retried (down to 1, then the error is raised). The batches
    are queued without waiting for the device, and their scores copied back once at the end.
    """
    device = device or model.get_input_embeddings().weight.device
    order = sorted(requests, key=lambda r: r.packed_length, reverse=True)
    if batch_size == "auto":
        size = auto_batch_size(model, device, order)
    else:
        size = int(batch_size)
    if size < 1:
        raise ValueError(f"batch_size must be >= 1 or 'auto', got {batch_size!r}")
    scored: list[torch.Tensor] = []
    lengths = np.array([r.packed_length for r in order])
    start = 0
    while start < len(order):
        batch = order[start : _batch_end(lengths, start, size)]
        try:
            scored.append(_score_batch(model, batch, device, share))
        except RuntimeError as error:  # torch.OutOfMemoryError is one
            if not _is_out_of_memory(error) or size == 1:
                raise
            size //= 2
            if device.type == "cuda":
                torch.cuda.empty_cache()
            continue
        start += len(batch)
        if progress is not None:
            progress(len(batch))
    if not order:
        return [], size
    flat = torch.cat(scored).cpu().double().numpy()  # the one wait for the device
    counts = [len(tail) for r in order for tail in r.candidate_ids]
    pieces = np.split(flat, np.cumsum(counts)[:-1])
    results, at = {}, 0
    for request in order:
        k = len(request.candidate_ids)
        results[request.index] = pieces[at : at + k]
        at += k
    return [results[r.index] for r in sorted(requests, key=lambda r: r.index)], size


@torch.no_grad()
def score_reference(model, requests: list[Request]) -> list[list[np.ndarray]]:
    """Reference method: one full forward pass per stimulus and candidate.

    log P(c | prompt) = Σ_t log softmax(logits[P - 1 + t])[c_t] over the whole vocabulary,
    exactly as the reference README describes (with the joint tokenisation fix).
    """
    device = model.get_input_embeddings().weight.device
    out = []
    for request in sorted(requests, key=lambda r: r.index):
        p = len(request.prompt_ids)
        per_candidate = []
        for tail in request.candidate_ids:
            ids = torch.tensor([request.prompt_ids + tail], device=device)
            log_probs = torch.log_softmax(model(input_ids=ids).logits[0].double(), dim=-1)
            picked = log_probs[torch.arange(p - 1, p - 1 + len(tail)), torch.tensor(tail)]
            per_candidate.append(picked.cpu().numpy())
        out.append(per_candidate)
    return out


def shard(requests: list[Request], world_size: int) -> list[list[Request]]:
    """Split requests into ``world_size`` shares of nearly equal token count.

    Greedy longest-processing-time: requests by packed length, longest first, each to the
    share with the fewest tokens so far (ties to the lower rank), which is within 4/3 of the
    best balance (Graham 1969) and deterministic, so every rank computes the same split.
    The cost of a packed row is its token count (attention is quadratic, but at prompt
    lengths the layers' linear maps dominate).
    """
    shares: list[list[Request]] = [[] for _ in range(world_size)]
    loads = [0] * world_size
    for request in sorted(requests, key=lambda r: (-r.packed_length, r.index)):
        rank = min(range(world_size), key=lambda k: (loads[k], k))
        shares[rank].append(request)
        loads[rank] += request.packed_length
    return shares


def prefix_sharing_agrees(model, request: Request, device: torch.device) -> float:
    """Largest |either layout - one pass per candidate| summed log-prob on one request, in
    nats.

    Both layouts rely on the model honouring a 4-D additive mask and explicit position ids,
    the shared one also a cache of keys and values; a model (or an attention
    implementation, or a device map) that ignores one gives a large difference here, and
    the runner then falls back to one pass per candidate.
    """
    single = score_reference(model, [request])[0]
    gap = 0.0
    for share in (True, False):
        scores, _ = score_batched(model, [request], batch_size=1, device=device, share=share)
        gap = max(
            gap,
            *(abs(float(a.sum()) - float(b.sum())) for a, b in zip(scores[0], single, strict=True)),
        )
    return gap
