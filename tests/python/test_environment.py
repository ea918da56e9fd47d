"""The environment is the lock: `make install` puts exactly the versions of requirements.lock
in place, and the peers installed without their dependencies (irrCAC, which pins an old
scipy) moved nothing."""

from __future__ import annotations

import re
from importlib import metadata

from concord_io.project import PROJECT_ROOT


def locked() -> dict[str, str]:
    pins = {}
    for line in (PROJECT_ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version.strip()
    return pins


def test_the_numeric_stack_and_the_peers_are_the_locked_versions():
    pins = locked()
    for name in ("numpy", "scipy", "pandas", "irrcac", "statsmodels", "scikit-learn"):
        assert metadata.version(name) == pins[name], name


def test_every_installed_locked_package_is_at_its_locked_version():
    wrong = []
    for name, version in locked().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:  # another extra's (spark, probe)
            continue
        if installed.split("+")[0] != version.split("+")[0]:
            wrong.append(f"{name}: {installed} installed, {version} locked")
    assert not wrong, "run `make install`:\n" + "\n".join(wrong)
