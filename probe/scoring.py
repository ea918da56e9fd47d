"""Scoring log P(candidate | prompt) for every stimulus and candidate.

Requests (lm-evaluation-harness style): prompt and prompt + candidate are tokenised together
and the candidate's tokens are those after the prompt's in the joint encoding (tokenising the
two separately can split a word differently at the boundary). The prompt's tokens must be a
prefix of the joint encoding and each candidate must keep at least one token.

``score_batched`` computes each prompt once: a stimulus becomes one packed row
[prompt, candidate 1, ..., candidate K] in which candidate k attends to the prompt and to its
own earlier tokens only (a block 4-D attention mask) and its position ids restart where the
prompt ends, so every candidate sees exactly the positions and context it would see alone.
Rows are sorted by length and batched (right padding; padded positions attend to themselves
only), and the vocabulary projection and log-softmax are computed only at the positions that
predict a candidate token. ``score_reference`` is the reference method (one full forward
pass per stimulus and candidate, full log-softmax) kept for tests and the benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from probe.errors import ProbeError


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


def build_requests(tokenizer, prompts: list[str], candidates: list[str]) -> list[Request]:
    """Tokenise every prompt and prompt + candidate once, up front, and split them."""
    prompt_enc = tokenizer(list(prompts), add_special_tokens=True)["input_ids"]
    joint_texts = [p + c for p in prompts for c in candidates]
    joint_enc = tokenizer(joint_texts, add_special_tokens=True)["input_ids"]
    requests = []
    for i, prompt_ids in enumerate(prompt_enc):
        if not prompt_ids:
            raise TokenizationError(f"stimulus {i + 1}: the prompt has no tokens")
        tails = []
        for k, candidate in enumerate(candidates):
            joint = joint_enc[i * len(candidates) + k]
            if joint[: len(prompt_ids)] != prompt_ids:
                raise TokenizationError(
                    f"stimulus {i + 1}, candidate {candidate!r}: the prompt's tokens are not a "
                    "prefix of the tokens of prompt + candidate (the tokenizer merges across the "
                    "boundary or appends an end token); change the template or the candidate"
                )
            tail = tuple(joint[len(prompt_ids) :])
            if not tail:
                raise TokenizationError(
                    f"stimulus {i + 1}, candidate {candidate!r}: keeps no token after the prompt"
                )
            tails.append(tail)
        requests.append(Request(i, tuple(prompt_ids), tuple(tails)))
    return requests


def _uses_plain_lm_head(model) -> bool:
    """True when logits = lm_head(final hidden state) with no post-processing."""
    config = model.config
    for attribute in ("final_logit_softcapping", "logit_scale", "logits_scaling"):
        if getattr(config, attribute, None) not in (None, 1, 1.0):
            return False
    return model.get_output_embeddings() is not None


def _pack(requests: list[Request], device: torch.device, mask_dtype: torch.dtype):
    """input ids, position ids and the additive block-causal mask of one batch."""
    length = max(r.packed_length for r in requests)
    n = len(requests)
    # filled in numpy, one slice per row and field: a tensor per candidate cost more than
    # the forward pass of a small model
    ids = np.zeros((n, length), dtype=np.int64)
    pos = np.zeros((n, length), dtype=np.int64)
    seg = np.full((n, length), -1, dtype=np.int64)  # -1 pad, 0 prompt, k candidate k
    for row, request in enumerate(requests):
        p = len(request.prompt_ids)
        sizes = [len(tail) for tail in request.candidate_ids]
        end = p + sum(sizes)
        ids[row, :p] = request.prompt_ids
        ids[row, p:end] = [token for tail in request.candidate_ids for token in tail]
        pos[row, :end] = np.concatenate([np.arange(p), *(np.arange(p, p + m) for m in sizes)])
        seg[row, :end] = np.repeat(np.arange(len(sizes) + 1), [p, *sizes])
    input_ids, positions, segment = (torch.from_numpy(a) for a in (ids, pos, seg))
    idx = torch.arange(length)
    causal = idx[None, :] <= idx[:, None]  # (L, L): key j <= query i
    same = segment[:, :, None] == segment[:, None, :]
    key_in_prompt = (segment == 0)[:, None, :]
    valid_query = (segment >= 0)[:, :, None]
    allowed = causal & (key_in_prompt | same) & valid_query
    allowed |= torch.eye(length, dtype=torch.bool) & ~valid_query  # padding sees itself
    mask = torch.zeros((n, 1, length, length), dtype=mask_dtype)
    mask.masked_fill_(~allowed[:, None], torch.finfo(mask_dtype).min)
    return input_ids.to(device), positions.to(device), mask.to(device)


def _targets(requests: list[Request]):
    """For every candidate token: the (row, position) whose output predicts it, and its id."""
    rows, sources, targets, owners = [], [], [], []
    for row, request in enumerate(requests):
        p = len(request.prompt_ids)
        start = p
        for k, tail in enumerate(request.candidate_ids):
            for t, token in enumerate(tail):
                rows.append(row)
                sources.append(p - 1 if t == 0 else start + t - 1)
                targets.append(token)
                owners.append((row, k))
            start += len(tail)
    return rows, sources, targets, owners


@torch.no_grad()
def _score_batch(model, requests: list[Request], device: torch.device) -> list[list[np.ndarray]]:
    param_dtype = model.get_input_embeddings().weight.dtype
    input_ids, positions, mask = _pack(requests, device, param_dtype)
    rows, sources, targets, owners = _targets(requests)
    pairs = torch.tensor(list(zip(rows, sources, strict=True)), dtype=torch.long)
    unique_pairs, inverse = torch.unique(pairs, dim=0, return_inverse=True)
    if _uses_plain_lm_head(model):
        hidden = model.base_model(
            input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=False
        ).last_hidden_state
        # under a device map the last layer (and the head) may sit on another device
        picked = hidden[unique_pairs[:, 0].to(hidden.device), unique_pairs[:, 1].to(hidden.device)]
        logits = model.get_output_embeddings()(picked)
    else:  # logits are post-processed: take them from the full model, still only where needed
        all_logits = model(
            input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=False
        ).logits
        where = all_logits.device
        logits = all_logits[unique_pairs[:, 0].to(where), unique_pairs[:, 1].to(where)]
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    where = log_probs.device
    token_lp = log_probs[inverse.to(where), torch.tensor(targets, device=where)]
    token_lp = token_lp.cpu().numpy()
    out: list[list[list[float]]] = [[[] for _ in r.candidate_ids] for r in requests]
    for value, (row, k) in zip(token_lp, owners, strict=True):
        out[row][k].append(value)
    return [[np.asarray(c, dtype=float) for c in row] for row in out]


def _is_out_of_memory(error: BaseException) -> bool:
    if isinstance(error, torch.OutOfMemoryError):
        return True
    return isinstance(error, RuntimeError) and (
        "out of memory" in str(error).lower() or "can't allocate memory" in str(error).lower()
    )


def auto_batch_size(device: torch.device, n_requests: int) -> int:
    """Starting size for batch_size='auto'; the scorer halves it on out-of-memory.

    On a GPU the largest batch is the fastest, so start with every stimulus (at most 256
    rows). On a CPU throughput does not grow with the batch while the block masks do: with
    the ~30M-parameter bench model, 80 stimuli took 5.3 s in batches of 8 or 16 and 7.3 s in
    one batch of 80, so start at 16.
    """
    return max(1, min(n_requests, 256 if device.type == "cuda" else 16))


def score_batched(
    model,
    requests: list[Request],
    *,
    batch_size: int | str = "auto",
    device: torch.device | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[list[np.ndarray]], int]:
    """Per-token log-probs, [request.index][candidate] -> array, and the batch size used.

    Longest rows first, so an out-of-memory error comes at the first batch; on one, the batch
    size is halved and the batch retried (down to 1, then the error is raised).
    """
    device = device or model.get_input_embeddings().weight.device
    order = sorted(requests, key=lambda r: r.packed_length, reverse=True)
    size = auto_batch_size(device, len(order)) if batch_size == "auto" else int(batch_size)
    if size < 1:
        raise ValueError(f"batch_size must be >= 1 or 'auto', got {batch_size!r}")
    results: dict[int, list[np.ndarray]] = {}
    start = 0
    while start < len(order):
        batch = order[start : start + size]
        try:
            scored = _score_batch(model, batch, device)
        except RuntimeError as error:  # torch.OutOfMemoryError is one
            if not _is_out_of_memory(error) or size == 1:
                raise
            size //= 2
            if device.type == "cuda":
                torch.cuda.empty_cache()
            continue
        for request, token_lps in zip(batch, scored, strict=True):
            results[request.index] = token_lps
        start += len(batch)
        if progress is not None:
            progress(len(batch))
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


def check_finite(token_logprobs: list[np.ndarray]) -> None:
    """Refuse a NaN or infinite token log-probability (a broken model or dtype overflow)."""
    if not all(np.isfinite(lp).all() for lp in token_logprobs):
        raise NonFiniteScoreError("a candidate token log-probability is NaN or infinite")


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


def packing_agrees(model, request: Request, device: torch.device) -> float:
    """Largest |packed - one pass per candidate| summed log-prob on one request, in nats.

    The packed row relies on the model honouring a 4-D additive mask and explicit position
    ids; a model (or an attention implementation, or a device map) that ignores either gives
    a large difference here, and the runner then falls back to one pass per candidate.
    """
    packed = _score_batch(model, [request], device)[0]
    single = score_reference(model, [request])[0]
    return max(abs(float(a.sum()) - float(b.sum())) for a, b in zip(packed, single, strict=True))
