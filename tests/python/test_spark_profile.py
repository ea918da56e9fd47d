"""The spark target's settings as dbt renders them from profiles.yml: Spark's own defaults
for real data, the small-data tuning only when CONCORD_SPARK_SMALL_DATA=1 asks for it."""

from __future__ import annotations

import os

import pytest
from dbt.config.profile import read_profile
from dbt.config.renderer import ProfileRenderer
from dbt_common.context import set_invocation_context

from concord_io.project import PROJECT_ROOT

SMALL_DATA_JIT = "-XX:TieredStopAtLevel=1"


def spark_settings(monkeypatch: pytest.MonkeyPatch, small_data: str | None) -> dict[str, str]:
    """The spark output's ``server_side_parameters``, rendered as dbt renders them."""
    if small_data is None:
        monkeypatch.delenv("CONCORD_SPARK_SMALL_DATA", raising=False)
    else:
        monkeypatch.setenv("CONCORD_SPARK_SMALL_DATA", small_data)
    monkeypatch.setenv("CONCORD_SPARK_DIR", "/data/spark")
    set_invocation_context(dict(os.environ))  # env_var() reads the invocation's environment
    raw = read_profile(str(PROJECT_ROOT))["concord"]["outputs"]["spark"]
    return ProfileRenderer({}).render_data(raw)["server_side_parameters"]


@pytest.mark.parametrize("small_data", [None, "", "0", " 0 "])
def test_unless_asked_the_spark_target_keeps_sparks_own_defaults(monkeypatch, small_data):
    settings = spark_settings(monkeypatch, small_data)
    assert settings["spark.sql.codegen.wholeStage"] == "true"
    assert settings["spark.sql.codegen.factoryMode"] == "FALLBACK"
    assert settings["spark.sql.adaptive.enabled"] == "true"
    # the JVM's full JIT and default collector: only the metastore's folder is set
    assert settings["spark.driver.extraJavaOptions"] == "-Dderby.system.home=/data/spark"


@pytest.mark.parametrize("small_data", ["1", " 1 "])
def test_asked_for_small_data_the_spark_target_compiles_less(monkeypatch, small_data):
    settings = spark_settings(monkeypatch, small_data)
    assert settings["spark.sql.codegen.wholeStage"] == "false"
    assert settings["spark.sql.codegen.factoryMode"] == "NO_CODEGEN"
    assert settings["spark.sql.adaptive.enabled"] == "false"
    options = settings["spark.driver.extraJavaOptions"].split()
    assert options[0] == SMALL_DATA_JIT
    assert "-XX:+UseSerialGC" in options
    assert options[-1] == "-Dderby.system.home=/data/spark"
