"""Tiny causal LMs with random weights, for the demo, the tests and the benchmark; and
throw-away cross-lingual studies for ``probe mcq`` to score (``write_mcq_study``).

A byte-level BPE tokenizer is trained locally (``tokenizers``) on the probe's own prompts,
the model is built from a config with random weights, and both are saved with
save_pretrained, so the probe loads them through the same from_pretrained(path) code as a
real model, without network or weights.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig, PreTrainedTokenizerFast
from transformers.utils import logging as hf_logging

from probe.stimuli import load_design, project_root

EOS, BOS = "<|endoftext|>", "<s>"
ARCHITECTURES = ("gpt2", "llama")
# (hidden size, layers, heads, model vocabulary, tokenizer vocabulary) of the named sizes;
# "bench" is ~30M parameters. The tiny tokenizer is kept small so that most candidates split
# into several tokens (the multi-token path is the one that needs testing).
SIZES = {
    "tiny": (32, 2, 4, 320, 320),
    "bench": (512, 8, 8, 8192, 2000),
    "1b": (2048, 16, 32, 32000, 8000),  # Llama: 1.14 B parameters (the GPU benchmark)
    "8b": (4096, 32, 32, 128256, 8000),  # Llama-3-8B's shape: 8.03 B parameters
}
# What a size's Llama config sets beyond the table (default: intermediate 4 x hidden, half
# as many key/value heads as heads): Llama-3-8B's MLP, grouped-query attention and RoPE base.
LLAMA_SHAPE = {"8b": {"intermediate_size": 14336, "num_key_value_heads": 8, "rope_theta": 5e5}}
# A wider initialisation for the tiny models gives peaked, varied next-token distributions,
# so a wrong mask or position id shows up as a large score difference in the tests.
INIT_RANGE = {"tiny": 0.1, "bench": 0.02, "1b": 0.02, "8b": 0.02}

# The test matrix: name -> (architecture, tokenizer adds BOS).
VARIANTS = {
    "gpt2": ("gpt2", False),
    "gpt2_bos": ("gpt2", True),
    "llama_bos": ("llama", True),
    "llama": ("llama", False),
}

FILLER = [
    "The meeting moved to Thursday and the notes are in the shared folder.",
    "Please send the numbers before lunch so we can check them together.",
    "She said the client liked the draft but wants a shorter summary.",
    "Thanks for the update, I will look at it this afternoon.",
]


def train_tokenizer(texts: list[str], vocab_size: int, add_bos: bool) -> PreTrainedTokenizerFast:
    """Byte-level BPE trained on ``texts``; with add_bos, every encoding starts with <s>."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS, BOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    if add_bos:
        tok.post_processor = processors.TemplateProcessing(
            single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, 1)]
        )
    else:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=EOS, model_max_length=1024
    )


def build_tiny_model(
    path: Path | str,
    *,
    arch: str = "gpt2",
    add_bos: bool = False,
    size: str = "tiny",
    seed: int = 0,
    seeds_dir: Path | str | None = None,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str = "cpu",
) -> Path:
    """Save a random-weight ``arch`` model (weights stored in ``dtype``, as checkpoints of
    large models are in bfloat16) and a locally trained tokenizer under ``path``. The weights
    are drawn on ``device`` (a GPU draws an 8 B model's in seconds, a CPU in minutes)."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"arch must be one of {ARCHITECTURES}, got {arch!r}")
    hidden, layers, heads, vocab, tokenizer_vocab = SIZES[size]
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    design = load_design(seeds_dir)
    corpus = [s.text for s in design.stimuli] + FILLER
    if size != "tiny":  # realistic token counts: the template's words become whole tokens
        corpus += [s.prompt for s in design.stimuli]
    tokenizer = train_tokenizer(corpus, vocab_size=tokenizer_vocab, add_bos=add_bos)
    ids = {
        "bos_token_id": 1,
        "eos_token_id": 0,
        "pad_token_id": 0,
        "initializer_range": INIT_RANGE[size],
    }
    vocab = max(vocab, len(tokenizer))
    if arch == "gpt2":
        config = GPT2Config(
            vocab_size=vocab, n_positions=1024, n_embd=hidden, n_layer=layers, n_head=heads, **ids
        )
    else:
        shape = {
            "intermediate_size": 4 * hidden,
            "num_key_value_heads": max(1, heads // 2),
            **LLAMA_SHAPE.get(size, {}),
        }
        config = LlamaConfig(
            vocab_size=vocab,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            max_position_embeddings=1024,
            **shape,
            **ids,
        )
    # every probe command names a run of this model "... (random weights)"
    config.concord_random_weights = True
    torch.manual_seed(seed)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def write_mcq_study(
    root: Path | str,
    items: dict[str, list[list[str]]],
    options: str = "ABCD",
    *,
    with_gold: bool = False,
) -> Path:
    """A Concord project at ``root`` whose cross-lingual study is ``items``: language -> the
    rows of its item file (domain, question, one text per option; a blank text is an option
    the item does not have; with ``with_gold``, last the gold option's key, in a ``Gold``
    column the registry names), each domain its own English name, no answers. The
    registries' columns are this project's (models/staging/mcq/_mcq__sources.yml)."""
    root = Path(root)
    mcq = root / "seeds" / "mcq"
    (mcq / "items").mkdir(parents=True, exist_ok=True)
    (mcq / "answer_sources").mkdir(exist_ok=True)

    def table(header: list[str], rows) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *rows])
        return out.getvalue()

    languages = list(items)
    (root / "dbt_project.yml").write_text(
        "name: concord\n"
        f"vars:\n  mcq_languages: [{', '.join(languages)}]\n"
        f"  mcq_options: [{', '.join(options)}]\n  mcq_answers_dir: seeds/mcq/answers\n"
        "  mcq_items_dir: seeds/mcq/items\n  mcq_answer_sources_dir: seeds/mcq/answer_sources\n",
        encoding="utf-8",
    )
    sources = Path("models") / "staging" / "mcq" / "_mcq__sources.yml"
    (root / sources).parent.mkdir(parents=True, exist_ok=True)
    (root / sources).write_bytes((project_root() / sources).read_bytes())
    files = {
        "mcq_answer_registry.csv": "file,model,prefix,run,presented_option_order\n",
        "mcq_answer_sources.csv": "file,format,model,run,language,presented_option_order,"
        "item_key,task_pattern,domain_field\n",
        "mcq_task_languages.csv": "task,language\n",
        "mcq_item_files.csv": table(
            ["file", "language", "variant", "gold_column"],
            [[f"{lang}.csv", lang, "base", "Gold" if with_gold else ""] for lang in items],
        ),
        "mcq_domain_translations.csv": table(
            ["language", "domain", "domain_en"],
            sorted({(lang, row[0], row[0]) for lang, rows in items.items() for row in rows}),
        ),
        **{
            f"items/{lang}.csv": table(
                ["Domain", "Prompt", *options, *(["Gold"] if with_gold else [])], rows
            )
            for lang, rows in items.items()
        },
    }
    for name, text in files.items():
        (mcq / name).write_text(text, encoding="utf-8")
    return root
