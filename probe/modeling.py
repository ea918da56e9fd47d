"""Loading a causal LM and its tokenizer, offline, through from_pretrained(path).

The probe never downloads weights: a local folder is loaded as is, and a hub id is accepted
only when it is already in the local Hugging Face cache (local_files_only=True).
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as hf_logging

DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}


class ModelLoadError(RuntimeError):
    """The model or tokenizer cannot be loaded without the network."""


def resolve_device(device: str) -> torch.device:
    """auto: the first CUDA device when one is present, else the CPU."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelLoadError(f"device {device!r} asked for, but no CUDA device is available")
    if device != "cpu" and not device.startswith("cuda"):
        raise ModelLoadError(f"device must be auto, cpu or cuda[:n], got {device!r}")
    return torch.device(device)


def resolve_dtype(dtype: str) -> torch.dtype:
    try:
        return DTYPES[dtype]
    except KeyError:
        raise ModelLoadError(f"dtype must be one of {sorted(DTYPES)}, got {dtype!r}") from None


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def load_model(model: str, device: torch.device, dtype: torch.dtype):
    """(model, tokenizer) from a local folder or the local hub cache, in eval mode."""
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    where = "local folder" if Path(model).is_dir() else "hub id (local cache only)"
    try:
        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
        lm = AutoModelForCausalLM.from_pretrained(model, local_files_only=True, dtype=dtype)
    except OSError as error:
        raise ModelLoadError(
            f"cannot load {model!r} as a {where}: the probe never downloads weights; give a "
            f"local path or a hub id already in the Hugging Face cache ({error})"
        ) from error
    return lm.to(device).eval(), tokenizer


def describe_tokenizer(tokenizer) -> str:
    return (
        f"{type(tokenizer).__name__}({tokenizer.name_or_path}, vocab={len(tokenizer)}, "
        f"bos={tokenizer.bos_token!r})"
    )
