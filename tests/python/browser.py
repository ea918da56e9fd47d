"""Headless Chromium with no network, for the tests that render a page (marked ``browser``)."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def chromium_offline() -> list[str]:
    """The command line of headless Chromium in its own network namespace where one can be
    made, and pointed at no proxy and no resolver in any case; a missing Chromium fails the
    test naming the command that installs it."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail("chromium is not installed: run `make chromium`", pytrace=False)
    isolate = ["unshare", "--net"] if shutil.which("unshare") else []
    if isolate and subprocess.run([*isolate, "true"], capture_output=True).returncode != 0:
        isolate = []
    return [
        *isolate,
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
    ]
