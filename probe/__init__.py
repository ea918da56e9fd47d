"""The reliability probe: log-probability scoring of candidate continuations.

The probe never downloads: Hugging Face libraries are put offline before they are imported
(a hub id is accepted only when it is already in the local cache).
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
