"""The benchmark's --quick mode runs, so the bench code cannot rot."""

from __future__ import annotations

import importlib.util
import json

from concord_io.project import PROJECT_ROOT


def test_bench_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "bench_probe", PROJECT_ROOT / "bench" / "bench_probe.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.main(["--quick", "--repeats", "1", "--out-dir", str(tmp_path)])
    saved = json.loads((tmp_path / "probe.json").read_text())
    assert saved["n_stimuli"] == result["n_stimuli"] == 8
    cpu = saved["runs"][0]
    assert cpu["device"] == "cpu" and cpu["max_abs_logprob_diff"] < 1e-5
    assert cpu["max_abs_diff_vs_hflm"] < 1e-4 and cpu["hflm_s"] > 0
    assert "speed-up" in (tmp_path / "probe.md").read_text()


def test_bench_imports_traces_a_packages_first_import_not_a_look_up(tmp_path):
    """What the import benchmark records of a run: the modules it imported, and the line that
    imported a traced package first; asking whether a package is installed imports nothing."""
    spec = importlib.util.spec_from_file_location(
        "bench_probe_imports", PROJECT_ROOT / "bench" / "bench_probe_imports.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    (tmp_path / "job.py").write_text(
        "import importlib.util\nimportlib.util.find_spec('wave')\nimport colorsys\n"
    )
    recorded = bench.record(tmp_path, "job", [], tmp_path / "job.json", ("wave", "colorsys"))
    assert "colorsys" in recorded["modules"] and "wave" not in recorded["modules"]
    assert list(recorded["chains"]) == ["colorsys"]
    assert bench._chain(recorded["chains"]["colorsys"], (tmp_path,))[0] == "job.py:3"
    seconds, held = bench.replay(tmp_path, ["colorsys"], tmp_path)
    assert seconds > 0 and held == bench.replay(tmp_path, [], tmp_path)[1] + 1
