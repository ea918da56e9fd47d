"""Tiny causal LMs (random weights, locally trained tokenizers) built once per test session.

They are saved with save_pretrained and loaded back through the probe's own
from_pretrained(path) code, exactly as a real model would be; nothing touches the network.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from mcq_project import make_mcq_project

# One thread: the models are tiny, and on a shared 2-core machine a second thread that
# contends with other jobs makes small matmuls ten times slower.
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory):
    from probe.tiny import VARIANTS, build_tiny_model

    root = tmp_path_factory.mktemp("tiny_models")
    return {
        name: build_tiny_model(root / name, arch=arch, add_bos=bos, seed=i)
        for i, (name, (arch, bos)) in enumerate(VARIANTS.items())
    }


@pytest.fixture(scope="session")
def design():
    from probe.stimuli import load_design

    return load_design()


@pytest.fixture
def mcq_project(tmp_path) -> Path:
    return make_mcq_project(tmp_path / "project")
