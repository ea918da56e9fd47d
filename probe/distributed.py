"""torchrun support: which rank this process is, and the collectives the runner needs.

Under ``torchrun`` (one or many nodes) the launcher sets RANK, WORLD_SIZE and LOCAL_RANK; the
process group is PyTorch's own (NCCL between GPUs, gloo on CPU). Without them the probe is one
process and nothing here starts a group. The runner's protocol: every rank scores its share,
rank 0 gathers every share (with each rank's status), lands the run once, and broadcasts the
outcome, so a rank that fails makes every rank fail and nothing lands; a rank that dies
outright is seen by torchrun, which stops the others before rank 0 can land.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist

from probe.errors import ProbeError


@dataclass(frozen=True)
class Ranks:
    rank: int
    world_size: int
    local_rank: int

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    if not value.isdigit():
        raise ProbeError(f"environment variable {name}={value!r} is not a non-negative integer")
    return int(value)


def ranks_from_env() -> Ranks:
    world_size = _env_int("WORLD_SIZE", 1)
    rank = _env_int("RANK", 0)
    local_rank = _env_int("LOCAL_RANK", rank)
    if world_size < 1 or rank >= world_size:
        raise ProbeError(f"RANK={rank} and WORLD_SIZE={world_size} do not fit together")
    return Ranks(rank, world_size, local_rank)


def start(ranks: Ranks, device: torch.device) -> None:
    """Join the process group of a torchrun launch (no-op for one process)."""
    if ranks.world_size == 1 or dist.is_initialized():
        return
    backend = "nccl" if device.type == "cuda" else "gloo"
    if device.type == "cuda":
        torch.cuda.set_device(device)
    # a long timeout: rank 0 waits in the gather while the slowest rank finishes its share
    dist.init_process_group(backend, timeout=timedelta(hours=6))


def stop() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def gather_to_main(ranks: Ranks, payload):
    """Every rank's payload on rank 0 (a list indexed by rank), None elsewhere."""
    if ranks.world_size == 1:
        return [payload]
    gathered = [None] * ranks.world_size if ranks.is_main else None
    dist.gather_object(payload, gathered, dst=0)
    return gathered


def broadcast_from_main(ranks: Ranks, value):
    """Rank 0's value on every rank."""
    if ranks.world_size == 1:
        return value
    box = [value if ranks.is_main else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]
