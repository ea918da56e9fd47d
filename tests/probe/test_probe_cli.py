"""The probe's command line at its boundary: expected failures are one line (and a hint)
with exit status 2, tracebacks only with --debug; runs are listed and removed."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from probe.__main__ import main
from probe.errors import run_main


def _fails(capsys, argv: list[str]) -> list[str]:
    with pytest.raises(SystemExit) as exited:
        run_main(main, argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert not any("Traceback" in line for line in err)
    assert 1 <= len(err) <= 2 and err[0].startswith("error: ")
    return err


def test_missing_model_folder_says_no_such_folder(capsys, tmp_path):
    absent = tmp_path / "no-model-here"
    err = _fails(capsys, ["run", "--model", str(absent), "--landing-dir", str(tmp_path)])
    assert err[0] == f"error: --model {str(absent)!r}: no such folder"


def test_refused_run_id_is_one_line(capsys, tmp_path):
    err = _fails(
        capsys,
        ["run", "--model", str(tmp_path), "--run-id", "../../x", "--landing-dir", str(tmp_path)],
    )
    assert err[0] == "error: run id '../../x' refused"
    assert "letters, digits" in err[1]
    assert not (tmp_path / "probe").exists() or not any((tmp_path / "probe").iterdir())


def test_landed_run_id_is_refused_without_replace(capsys, tmp_path):
    (tmp_path / "probe" / "run_id=taken").mkdir(parents=True)
    err = _fails(
        capsys,
        ["run", "--model", str(tmp_path), "--run-id", "taken", "--landing-dir", str(tmp_path)],
    )
    assert "'taken' is already landed" in err[0] and "--replace" in err[1]


def test_debug_shows_the_traceback(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CONCORD_DEBUG", "1")
    with pytest.raises(SystemExit):
        run_main(main, ["run", "--model", str(tmp_path / "absent")])
    assert "Traceback" in capsys.readouterr().err


def test_a_models_file_must_name_models(capsys, tmp_path):
    listing = tmp_path / "models.txt"
    listing.write_text("# nothing yet\n\n", encoding="utf-8")
    err = _fails(capsys, ["run", "--models-file", str(listing)])
    assert err[0] == f"error: --models-file {str(listing)!r}: no model in it"


def test_runs_lists_and_removes(capsys, tmp_path, tiny_model_dirs):
    common = ["--landing-dir", str(tmp_path)]
    model = str(tiny_model_dirs["gpt2"])
    flags = ["--device", "cpu", "--no-progress", *common]
    assert main(["run", "--model", model, "--run-id", "keep", *flags]) == 0
    assert main(["run", "--model", model, "--run-id", "drop", *flags]) == 0
    capsys.readouterr()
    assert main(["runs", *common]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("run_id\tmodel") and len(listed) == 3
    assert listed[1].startswith("drop\tgpt2 (random weights)\t") and listed[2].startswith("keep\t")
    assert main(["runs", "remove", "drop", *common]) == 0
    assert sorted(p.name for p in (tmp_path / "probe").iterdir()) == ["run_id=keep"]
    err = _fails(capsys, ["runs", "remove", "drop", *common])
    assert "'drop' is not landed" in err[0]


def test_name_is_what_the_run_records_and_names_one_model(capsys, tmp_path, tiny_model_dirs):
    """--name sets the run's model; the tiny model stays marked as random weights; a sweep
    of several models takes no one --name."""
    model = str(tiny_model_dirs["gpt2"])
    flags = ["--device", "cpu", "--no-progress", "--landing-dir", str(tmp_path)]
    assert main(["run", "--model", model, "--name", "GPT-2 tiny", "--run-id", "n", *flags]) == 0
    runs = pq.read_table(tmp_path / "probe" / "run_id=n" / "runs.parquet").to_pylist()
    assert runs[0]["model"] == "GPT-2 tiny (random weights)"
    err = _fails(capsys, ["run", "--model", model, "--model", model, "--name", "x", *flags])
    assert err[0] == "error: --name names one model; this sweep has 2"
