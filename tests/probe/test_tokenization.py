"""build_requests against the full joint encoding, over tokenizers of every family.

The probe encodes each prompt once and finds a candidate's tokens in a window at the
boundary. The tokens (or the error) must be exactly those of encoding prompt + candidate
together: checked here on every stimulus and candidate of the design, for byte-level BPE,
SentencePiece-style Metaspace (which adds a prefix space), a legacy normaliser that prepends
one to the whole text, BPE with no pre-tokenizer (whose merges cross the boundary), and
WordPiece with an end token; and the window must do the work (no full joint encoding
beyond the sample) wherever the tokenizer is local. The same with one list of candidates per
prompt, of different lengths (a multiple-choice item's options).
"""

from __future__ import annotations

import pytest
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers import PreTrainedTokenizerFast

from probe.scoring import JOINT_CHECK_SAMPLE, TokenizationError, build_requests
from probe.tiny import FILLER, train_tokenizer


def _wrap(tok: Tokenizer, **special) -> PreTrainedTokenizerFast:
    return PreTrainedTokenizerFast(tokenizer_object=tok, **special)


def _bpe(corpus, pre_tokenizer=None, normalizer=None, vocab_size=600):
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>", "<s>"], show_progress=False
    )
    tok.train_from_iterator(corpus, trainer)
    return tok


def _tokenizers(corpus):
    byte_level = train_tokenizer(corpus, vocab_size=600, add_bos=True)
    metaspace = _bpe(corpus, pre_tokenizers.Metaspace(prepend_scheme="first"))
    metaspace.decoder = decoders.Metaspace(prepend_scheme="first")
    legacy = _bpe(  # SentencePiece's words: a piece starts at each "▁"
        corpus,
        pre_tokenizers.Split("▁", behavior="merged_with_next"),
        normalizer=normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
    )
    legacy.post_processor = processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", 1)]
    )
    no_pre = _bpe(corpus, vocab_size=2000)  # merges span spaces, so across the boundary
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.train_from_iterator(
        corpus,
        trainers.WordPieceTrainer(
            vocab_size=600, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False
        ),
    )
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", wordpiece.token_to_id("[CLS]")), ("[SEP]", 2)],
    )
    return {
        "byte-level BPE": byte_level,
        "Metaspace BPE": _wrap(metaspace, unk_token="<unk>", bos_token="<s>"),
        "legacy prepend": _wrap(legacy, unk_token="<unk>", bos_token="<s>"),
        "BPE, no pre-tokenizer": _wrap(no_pre, unk_token="<unk>"),
        "WordPiece + [SEP]": _wrap(wordpiece, unk_token="[UNK]", sep_token="[SEP]"),
    }


class Recording:
    """Keeps the texts a tokenizer is asked to encode."""

    def __init__(self, tokenizer):
        self.tokenizer, self.texts = tokenizer, []

    def __getattr__(self, name):
        return getattr(self.tokenizer, name)

    def __call__(self, texts, **options):
        self.texts += texts
        return self.tokenizer(texts, **options)


def _joint(tokenizer, prompts, candidates):
    """The definition: encode prompt and prompt + candidate, split after the prompt
    (``candidates``: one list for every prompt, or one list per prompt)."""
    out = []
    for i, prompt in enumerate(prompts):
        ids = tokenizer(prompt)["input_ids"]
        tails = []
        for c in candidates if isinstance(candidates[0], str) else candidates[i]:
            joint = tokenizer(prompt + c)["input_ids"]
            if joint[: len(ids)] != ids or len(joint) == len(ids):
                return f"stimulus {i + 1}, candidate {c!r}"
            tails.append(tuple(joint[len(ids) :]))
        out.append((tuple(ids), tuple(tails)))
    return out


def _windowed(tokenizer, prompts, candidates):
    try:
        requests = build_requests(tokenizer, prompts, candidates)
    except TokenizationError as error:
        return str(error).split(":")[0]
    return [(r.prompt_ids, r.candidate_ids) for r in requests]


@pytest.fixture(scope="module")
def corpus(design):
    prompts = [s.prompt for s in design.stimuli]
    return [p + c.text for p in prompts for c in design.candidates] + FILLER


def _per_prompt(design) -> list[list[str]]:
    """Each prompt's own candidates: two to five of the design's, some of them two words."""
    texts = [c.text for c in design.candidates]
    return [
        [texts[(i + k) % len(texts)] + (" and" + texts[k] if (i + k) % 3 == 0 else "")
         for k in range(2 + i % 4)]
        for i in range(len(design.stimuli))
    ]  # fmt: skip


FAMILIES = [
    ("byte-level BPE", True, False),
    ("Metaspace BPE", True, False),
    ("legacy prepend", False, False),
    ("BPE, no pre-tokenizer", False, True),
    ("WordPiece + [SEP]", False, True),
]


@pytest.mark.parametrize("shared", [True, False], ids=["shared candidates", "per prompt"])
@pytest.mark.parametrize("name, local, merges", FAMILIES)
def test_tokens_are_those_of_the_joint_encoding(name, local, merges, shared, corpus, design):
    tokenizer = _tokenizers(corpus)[name]
    prompts = [s.prompt for s in design.stimuli]
    candidates = [c.text for c in design.candidates] if shared else _per_prompt(design)
    want = _joint(tokenizer, prompts, candidates)
    recording = Recording(tokenizer)
    assert _windowed(recording, prompts, candidates) == want
    # the families: an error where the joint encoding merges across the boundary (or ends
    # with a token of its own), the same tokens elsewhere
    assert isinstance(want, str) == merges
    if local:  # each prompt once, short windows, and the joint encoding of the sample only
        texts = recording.texts
        assert texts[: len(prompts)] == prompts
        joint = [t for t in texts[len(prompts) :] if len(t) > min(map(len, prompts))]
        per_prompt = [candidates] * len(prompts) if shared else candidates
        most = max(map(len, per_prompt))  # candidates of a prompt
        assert 0 < len(joint) <= JOINT_CHECK_SAMPLE * most < len(prompts) * most
        longest = max(len(c) for row in per_prompt for c in row)
        assert max(len(t) for t in texts[len(prompts) :] if t not in joint) < 70 + longest
