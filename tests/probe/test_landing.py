"""Landing a run: atomic rename, replacement of a re-run, refusal of non-finite scores."""

from __future__ import annotations

import math

import pyarrow.parquet as pq
import pytest

from concord_io import paths
from probe import landing
from probe.landing import LandingError, land_run, run_dir, to_table


def _tables(run_id: str, logprob: float = -2.0, model: str = "m"):
    run = {name: None for name in landing.RUNS_SCHEMA.names}
    run.update(run_id=run_id, model=model, candidate_set=[" a"], candidate_groups=["x"])
    score = {name: None for name in landing.SCORES_SCHEMA.names}
    score.update(
        run_id=run_id, stimulus_id=1, logprob=logprob, token_logprobs=[logprob], token_ids=[5]
    )
    stimulus = {name: None for name in landing.STIMULI_SCHEMA.names}
    stimulus.update(run_id=run_id, stimulus_id=1, prompt="p", n_prompt_tokens=3)
    return {
        "runs": to_table("runs", [run]),
        "scores": to_table("scores", [score]),
        "stimuli": to_table("stimuli", [stimulus]),
    }


def _visible(landing_dir):
    return sorted(p.name for p in (landing_dir / "probe").iterdir())


def test_lands_three_files(tmp_path):
    folder = land_run(tmp_path, "r1", _tables("r1"))
    assert folder == run_dir(tmp_path, "r1") == tmp_path / "probe" / "run_id=r1"
    assert sorted(p.name for p in folder.iterdir()) == [
        "runs.parquet",
        "scores.parquet",
        "stimuli.parquet",
    ]
    assert _visible(tmp_path) == ["run_id=r1"]


def test_crash_before_rename_leaves_nothing_visible(tmp_path, monkeypatch):
    def crash(staging, final):
        assert (staging / "scores.parquet").is_file()  # everything was written...
        raise KeyboardInterrupt  # ...and the process dies before the rename

    monkeypatch.setattr(landing.folders, "swap_into_place", crash)
    with pytest.raises(KeyboardInterrupt):
        land_run(tmp_path, "r1", _tables("r1"))
    assert _visible(tmp_path) == []


def test_a_killed_run_leaves_only_a_hidden_folder(tmp_path, monkeypatch):
    """SIGKILL skips the clean-up; what remains must not match the readers' run_id=* glob."""
    monkeypatch.setattr(landing.folders, "swap_into_place", lambda staging, final: None)
    land_run(tmp_path, "r1", _tables("r1"))
    leftovers = _visible(tmp_path)
    assert len(leftovers) == 1 and leftovers[0].startswith(".tmp-run_id=r1")
    assert list((tmp_path / "probe").glob("run_id=*")) == []


def test_rerun_is_refused_unless_replace(tmp_path):
    land_run(tmp_path, "r1", _tables("r1", model="first"))
    with pytest.raises(LandingError, match="'r1' is already landed") as refused:
        land_run(tmp_path, "r1", _tables("r1", model="second"))
    assert "--replace" in refused.value.hint
    land_run(tmp_path, "r1", _tables("r1", model="second"), replace=True)
    assert _visible(tmp_path) == ["run_id=r1"]
    runs = pq.read_table(run_dir(tmp_path, "r1") / "runs.parquet").to_pylist()
    assert [r["model"] for r in runs] == ["second"]


def test_a_replacement_cut_between_its_renames_is_recovered(tmp_path):
    """Killed after moving the old run aside but before moving the new one in: the next
    landing of that run id first restores the old version, then replaces it."""
    land_run(tmp_path, "r1", _tables("r1", model="first"))
    final = run_dir(tmp_path, "r1")
    final.rename(final.with_name(f".old-{final.name}-deadbeef"))  # what the kill leaves
    assert list((tmp_path / "probe").glob("run_id=*")) == []
    land_run(tmp_path, "r1", _tables("r1", model="second"), replace=True)
    assert _visible(tmp_path) == ["run_id=r1"]
    runs = pq.read_table(run_dir(tmp_path, "r1") / "runs.parquet").to_pylist()
    assert [r["model"] for r in runs] == ["second"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_are_refused_before_anything_lands(tmp_path, bad):
    with pytest.raises(LandingError, match="scores.logprob: 1 NaN or infinite"):
        land_run(tmp_path, "r1", _tables("r1", logprob=bad))
    assert not (tmp_path / "probe").exists() or _visible(tmp_path) == []


def test_a_positive_log_probability_is_refused(tmp_path):
    with pytest.raises(LandingError, match="scores.logprob: 1 positive value"):
        land_run(tmp_path, "r1", _tables("r1", logprob=0.25))
    assert not (tmp_path / "probe").exists() or _visible(tmp_path) == []


def test_non_finite_token_logprob_is_refused(tmp_path):
    tables = _tables("r1")
    scores = tables["scores"].to_pylist()
    scores[0]["token_logprobs"] = [-1.0, math.nan]
    tables["scores"] = to_table("scores", scores)
    with pytest.raises(LandingError, match="token_logprobs"):
        land_run(tmp_path, "r1", tables)


@pytest.mark.parametrize("run_id", ["", "a/b", "../x", "run id", "x=1", ".hidden"])
def test_bad_run_ids(tmp_path, run_id):
    with pytest.raises(LandingError, match="run id"):
        land_run(tmp_path, run_id, _tables(run_id))


def test_run_id_must_match_rows(tmp_path):
    with pytest.raises(LandingError, match="run_id column"):
        land_run(tmp_path, "r2", _tables("r1"))


def test_default_landing_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("CONCORD_LANDING_DIR", str(tmp_path))
    assert landing.default_landing_dir() == tmp_path
    monkeypatch.delenv("CONCORD_LANDING_DIR")
    # the probe cannot import concord_io: its default must still be the one concord_io.paths has
    assert landing.default_landing_dir() == paths.landing_dir()
    monkeypatch.setenv("CONCORD_LANDING_DIR", "elsewhere/landing")
    assert landing.default_landing_dir() == paths.landing_dir()


def test_list_and_remove_runs(tmp_path):
    land_run(tmp_path, "r1", _tables("r1", model="first"))
    land_run(tmp_path, "r2", _tables("r2", model="second"))
    listed = landing.list_runs(tmp_path)
    assert [(r["run_id"], r["model"]) for r in listed] == [("r1", "first"), ("r2", "second")]
    assert all(r["bytes"] > 0 for r in listed)
    landing.remove_run(tmp_path, "r1")
    assert _visible(tmp_path) == ["run_id=r2"]  # no hidden leftover either
    with pytest.raises(LandingError, match="'r1' is not landed"):
        landing.remove_run(tmp_path, "r1")
    with pytest.raises(LandingError, match="refused"):
        landing.remove_run(tmp_path, "../r2")
    assert _visible(tmp_path) == ["run_id=r2"]


def test_writers_stay_inside_their_folder(tmp_path):
    from probe.errors import ProbeError, inside

    assert inside(tmp_path, "a.parquet") == tmp_path.resolve() / "a.parquet"
    (tmp_path / "link").symlink_to(tmp_path.parent)
    for name in ("../escape", "/etc/passwd", "link/escape"):
        with pytest.raises(ProbeError, match="outside"):
            inside(tmp_path, name)


def test_a_landing_folder_that_is_a_file_is_refused_in_one_line(tmp_path):
    not_a_folder = tmp_path / "landing"
    not_a_folder.write_text("x")
    with pytest.raises(LandingError, match="is a file, not a folder"):
        land_run(not_a_folder, "r1", _tables("r1"))
    assert not_a_folder.read_text() == "x"
