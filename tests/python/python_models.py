"""The project's dbt Python models as modules for the tests: models/ is no package (dbt
reads each file by path), so a model is loaded from its file, found by its name."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from concord_io.project import PROJECT_ROOT


def python_model(name: str) -> ModuleType:
    (path,) = (PROJECT_ROOT / "models").rglob(f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
