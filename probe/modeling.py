"""Loading a causal LM and its tokenizer, offline, through from_pretrained(path).

The probe never downloads weights: a local folder is loaded as is, and a hub id is accepted
only when it is already in the local Hugging Face cache (local_files_only=True). With
``device_map="auto"`` Hugging Face accelerate places the layers across the visible GPUs (and
the CPU, for what does not fit), for models larger than one GPU.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as hf_logging

from probe.errors import ProbeError

DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
    "float16": torch.float16,
    "fp16": torch.float16,
}
DEVICE_MAPS = ("auto", "balanced", "sequential")
# transformers' SDPA attention repeats the key/value heads of a grouped-query model before
# every call that carries a mask (its CUDA path assumes the math kernel otherwise), and the
# scorer's passes carry one. cuDNN's fused kernel takes the grouping and an additive mask
# directly: one layer at 2 169 rows x 96 tokens, 32 heads over 16, 1.9 ms against 3.8 ms with
# the heads repeated on an H200 (bench/results/probe_mcq_gpu.md). Registered as an attention
# implementation of its own and used on CUDA only (on a CPU SDPA would take the math kernel).
GQA_SDPA = "concord_sdpa_gqa"


class ModelLoadError(ProbeError, RuntimeError):
    """The model or tokenizer cannot be loaded (without the network), or does not fit."""


def looks_like_path(model: str) -> bool:
    """A model reference meant as a folder: absolute, relative (./, ../, ~) or with more than
    one '/' (a hub id is exactly owner/name)."""
    return (
        model.startswith(("/", "./", "../", "~", "."))
        or model.count("/") > 1
        or Path(model).expanduser().exists()
    )


def resolve_device(device: str, local_rank: int | None = None) -> torch.device:
    """auto: the rank's own GPU (cuda:LOCAL_RANK under torchrun, else cuda:0) when CUDA is
    present, else the CPU. CUDA_VISIBLE_DEVICES is honoured by torch itself: cuda:0 is the
    first visible device."""
    if device == "auto":
        if not torch.cuda.is_available():
            return torch.device("cpu")
        index = local_rank or 0
        if index >= torch.cuda.device_count():
            raise ModelLoadError(
                f"LOCAL_RANK {index} has no GPU: {torch.cuda.device_count()} visible",
                hint="start at most one process per visible GPU (--nproc_per_node)",
            )
        return torch.device(f"cuda:{index}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelLoadError(
            f"--device {device!r}: no CUDA device is available", hint="use --device cpu"
        )
    if device != "cpu" and not device.startswith("cuda"):
        raise ModelLoadError(f"--device must be auto, cpu or cuda[:n], got {device!r}")
    return torch.device(device)


def resolve_dtype(dtype: str) -> torch.dtype:
    try:
        return DTYPES[dtype]
    except KeyError:
        raise ModelLoadError(f"--dtype must be one of {sorted(DTYPES)}, got {dtype!r}") from None


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def count_parameters(folder: Path) -> int | None:
    """Parameters stored in a folder's safetensors files, from their JSON headers alone
    (8-byte little-endian header length, then the header), without loading any weight."""
    total, found = 0, False
    for path in sorted(Path(folder).glob("*.safetensors")):
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(length))
        for name, tensor in header.items():
            if name != "__metadata__":
                total += math.prod(tensor["shape"])
                found = True
    return total if found else None


def out_of_memory(model: str, dtype: torch.dtype, device: str, error: BaseException):
    """The one-line message for a model that does not fit: dtype and memory it needs."""
    n_params = count_parameters(Path(model)) if Path(model).is_dir() else None
    bytes_each = torch.finfo(dtype).bits // 8
    need = (
        f"its {n_params / 1e9:.2f} B parameters need {n_params * bytes_each / 2**30:.1f} GiB "
        f"in {dtype_name(dtype)} before activations"
        if n_params
        else f"it did not fit in {dtype_name(dtype)}"
    )
    if device.startswith("cuda") and torch.cuda.is_available():
        free, total = torch.cuda.mem_get_info(torch.device(device))
        need += f"; {device} has {free / 2**30:.1f} of {total / 2**30:.1f} GiB free"
    return ModelLoadError(
        f"out of memory loading {model!r} on {device}: {need} ({str(error).splitlines()[0]})",
        hint="try --dtype bfloat16, --device-map auto (several GPUs, CPU offload), or a "
        "smaller --batch-size",
    )


def _options(model: str, revision: str | None, trust_remote_code: bool) -> dict:
    if looks_like_path(model) and not Path(model).expanduser().is_dir():
        raise ModelLoadError(
            f"--model {model!r}: no such folder",
            hint="give the folder that holds config.json and the weights",
        )
    return {"local_files_only": True, "revision": revision, "trust_remote_code": trust_remote_code}


def _not_loadable(model: str, error: BaseException) -> ModelLoadError:
    if not Path(model).is_dir():
        return ModelLoadError(
            f"--model {model!r}: no such folder, nor a hub id in the local Hugging Face cache",
            hint="the probe never downloads weights: give a local folder, or a hub id "
            "already cached (with --revision if not the default)",
        )
    return ModelLoadError(
        f"cannot load {model!r} as a local folder: {str(error).splitlines()[0]}",
        hint="the probe never downloads weights: give a local folder or a hub id already "
        "in the Hugging Face cache (with --revision if not the default)",
    )


def sdpa_gqa_attention(
    module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kwargs
):
    """transformers' SDPA attention, except that a call with an additive mask and fewer
    key/value heads than query heads leaves the grouping to SDPA (no copy of the heads)."""
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    plain = (
        attention_mask is None
        or attention_mask.dtype == torch.bool
        or key.shape[1] == query.shape[1]
        or dropout
        or kwargs.get("position_bias") is not None
        or kwargs.get("output_attentions")
    )
    if plain:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
            is_causal=is_causal, **kwargs,
        )  # fmt: skip
    out = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, scale=scaling, enable_gqa=True
    )
    return out.transpose(1, 2).contiguous(), None


def use_gqa_attention(lm) -> bool:
    """Switch a model that runs transformers' SDPA attention to ``sdpa_gqa_attention``
    (GQA_SDPA); False where it runs another implementation (left as it is)."""
    from transformers import AttentionInterface, AttentionMaskInterface
    from transformers.masking_utils import sdpa_mask

    if getattr(lm.config, "_attn_implementation", None) != "sdpa":
        return False
    AttentionInterface.register(GQA_SDPA, sdpa_gqa_attention)
    AttentionMaskInterface.register(GQA_SDPA, sdpa_mask)
    lm.set_attn_implementation(GQA_SDPA)
    return lm.config._attn_implementation == GQA_SDPA


def load_tokenizer(model: str, *, revision: str | None = None, trust_remote_code: bool = False):
    """The model's tokenizer, from a local folder or the local hub cache."""
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        return AutoTokenizer.from_pretrained(model, **_options(model, revision, trust_remote_code))
    except (OSError, ValueError) as error:
        raise _not_loadable(model, error) from error


def load_weights(
    model: str,
    device: torch.device,
    dtype: torch.dtype,
    *,
    device_map: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
):
    """The causal LM in eval mode, its weights read straight onto ``device`` in ``dtype``
    (no copy on the host first), or placed by accelerate under a device map."""
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    options = _options(model, revision, trust_remote_code)
    if device_map is not None and device_map not in DEVICE_MAPS:
        raise ModelLoadError(f"--device-map must be one of {DEVICE_MAPS}, got {device_map!r}")
    try:
        lm = AutoModelForCausalLM.from_pretrained(
            model, dtype=dtype, device_map=device_map or {"": device}, **options
        )
    except torch.OutOfMemoryError as error:
        raise out_of_memory(model, dtype, device_map or str(device), error) from error
    except RuntimeError as error:
        if "out of memory" in str(error).lower() or "can't allocate memory" in str(error).lower():
            raise out_of_memory(model, dtype, device_map or str(device), error) from error
        raise
    except (OSError, ValueError) as error:
        raise _not_loadable(model, error) from error
    if input_device(lm).type == "cuda":
        use_gqa_attention(lm)
    return lm.eval()


def load_model(model: str, device: torch.device, dtype: torch.dtype, **options):
    """(model, tokenizer) from a local folder or the local hub cache, in eval mode; the
    options are load_weights'."""
    tokenizer_options = {k: v for k, v in options.items() if k != "device_map"}
    return load_weights(model, device, dtype, **options), load_tokenizer(model, **tokenizer_options)


def input_device(model) -> torch.device:
    """Where the input ids go: the device of the input embeddings (the first layer under a
    device map; accelerate's hooks move activations between the layers)."""
    return model.get_input_embeddings().weight.device


def describe_tokenizer(tokenizer) -> str:
    return (
        f"{type(tokenizer).__name__}({tokenizer.name_or_path}, vocab={len(tokenizer)}, "
        f"bos={tokenizer.bos_token!r})"
    )
