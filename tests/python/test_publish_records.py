"""The serving folder's own files, checked for what they are, not what they are called: the
record of published versions is validated whole before retention acts on it, and the publish
lock is never opened through a link. No warehouse needed: these run in milliseconds."""

from __future__ import annotations

import json
import os

import pytest

from concord_io.serving import publish
from concord_io.serving.publish import LOCK, RECORD, PublishError, prune, read_record

OLD, MID, NEW = "20260101T000000000000Z", "20260201T000000000000Z", "20260301T000000000000Z"


def serving_with(tmp_path, versions, record):
    """A serving folder with a version folder per stamp, ``current`` at the last, and
    ``record`` written as published.json."""
    serving = tmp_path / "serving"
    for stamp in versions:
        (serving / "versions" / stamp).mkdir(parents=True)
        (serving / "versions" / stamp / "concord.duckdb").write_bytes(b"db")
    os.symlink(f"versions/{versions[-1]}", serving / "current")
    (serving / RECORD).write_text(json.dumps(record))
    return serving


def entries(*stamps):
    return {"versions": [{"version": s} for s in stamps]}


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (entries(OLD, MID, MID, NEW), f"names version {MID} twice"),
        (entries(MID, OLD, NEW), "not in publishing order"),
        (entries(OLD, "../../etc", NEW), "'../../etc', which is not a publish stamp"),
        ({"versions": [{"version": OLD, "keep": True}]}, "unreadable"),
        ({"versions": {"version": OLD}}, "unreadable"),
        ([OLD], "unreadable"),
    ],
)
def test_a_record_that_does_not_hold_whole_is_refused_and_nothing_is_removed(
    tmp_path, record, message
):
    serving = serving_with(tmp_path, [OLD, MID, NEW], record)
    with pytest.raises(PublishError, match=message) as refused:
        prune(serving, keep=2)
    assert "nothing was changed" in refused.value.hint
    assert sorted(p.name for p in (serving / "versions").iterdir()) == [OLD, MID, NEW]
    assert json.loads((serving / RECORD).read_text()) == record


def test_a_valid_record_keeps_the_newest_versions(tmp_path):
    serving = serving_with(tmp_path, [OLD, MID, NEW], entries(OLD, MID, NEW))
    removed = prune(serving, keep=2)
    assert [p.name for p in removed] == [OLD]
    assert read_record(serving) == [MID, NEW]


def test_a_record_that_is_a_link_is_refused(tmp_path):
    serving = serving_with(tmp_path, [OLD], entries(OLD))
    elsewhere = tmp_path / "elsewhere.json"
    (serving / RECORD).rename(elsewhere)
    os.symlink(elsewhere, serving / RECORD)
    with pytest.raises(PublishError, match="not a file"):
        read_record(serving)


def test_the_publish_lock_records_its_holder(tmp_path):
    serving = tmp_path / "serving"
    serving.mkdir()
    with publish._publish_lock(serving):
        assert (serving / LOCK).read_text() == str(os.getpid())
        with pytest.raises(PublishError, match=f"another publish is running \\(pid {os.getpid()}"):
            with publish._publish_lock(serving):
                pass


@pytest.mark.parametrize(
    "record",
    [None, b"", b"  \n", json.dumps(entries()).encode()],
    ids=["missing", "empty", "blank", "no-version"],
)
def test_a_missing_or_empty_record_is_rebuilt_from_the_folders_and_nothing_is_removed(
    tmp_path, record
):
    """The bug of "Nothing silently wrong, nothing lost": a lost record made retention delete
    every published version but the current one. The versions up to ``current`` are taken as
    published, every one kept, and one line says so."""
    serving = serving_with(tmp_path, [OLD, MID, NEW], entries())
    if record is None:
        (serving / RECORD).unlink()
    else:
        (serving / RECORD).write_bytes(record)
    assert prune(serving, keep=2) == []
    assert sorted(p.name for p in (serving / "versions").iterdir()) == [OLD, MID, NEW]
    assert read_record(serving) == [OLD, MID, NEW]
    # rebuilt once: from then on, retention counts the rebuilt record
    assert [p.name for p in prune(serving, keep=2)] == [OLD]
    assert read_record(serving) == [MID, NEW]


def test_a_rebuilt_record_leaves_out_a_folder_never_flipped_to(tmp_path):
    """A version newer than ``current`` was written by a publish killed before its flip: never
    published, it is not taken into the rebuilt record (and goes, as such leftovers do)."""
    serving = serving_with(tmp_path, [OLD, MID, NEW], entries())
    os.replace(serving / "current", serving / "gone")
    os.symlink(f"versions/{MID}", serving / "current")
    (serving / RECORD).unlink()
    note = publish.recover_record(serving)
    assert note is not None and "rebuilt from the 2 version folder(s)" in note
    assert read_record(serving) == [OLD, MID]


def test_with_no_current_link_every_version_folder_is_kept(tmp_path):
    serving = serving_with(tmp_path, [OLD, NEW], entries())
    (serving / "current").unlink()
    (serving / RECORD).unlink()
    assert prune(serving, keep=2) == []
    assert read_record(serving) == [OLD, NEW]


def test_no_version_folder_no_record_written(tmp_path):
    serving = tmp_path / "serving"
    (serving / "versions").mkdir(parents=True)
    assert publish.recover_record(serving) is None
    assert not (serving / RECORD).exists()
