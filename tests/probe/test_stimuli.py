"""The design read from the seeds: 80 stimuli, the reference prompt, strict seed errors."""

from __future__ import annotations

import shutil

import pytest

from probe.stimuli import SeedError, default_seeds_dir, load_design

REFERENCE_PROMPT = (
    "You will read a short message from a coworker.\n"
    "Based only on the message, choose the adjective that best fits your impression of the "
    "person.\n"
    "Choose one from: reliable, dependable, responsible, careful, trustworthy, unreliable, "
    "careless, disorganized, flaky, shady\n"
    'Message: "Hi, I\'m Greg. {message}"\n'
    "This person seems"
)


def test_design_shape(design):
    assert len(design.stimuli) == 80
    assert len({s.msg_id for s in design.stimuli}) == 10
    groups = {}
    for s in design.stimuli:
        groups.setdefault(s.group_name, set()).add(s.sender_name)
    assert len(groups) == 4 and all(len(names) == 2 for names in groups.values())
    assert [c.text for c in design.candidates] == [
        " reliable",
        " dependable",
        " responsible",
        " careful",
        " trustworthy",
        " unreliable",
        " careless",
        " disorganized",
        " flaky",
        " shady",
    ]
    assert [c.group for c in design.candidates] == ["reliable_like"] * 5 + ["unreliable_like"] * 5
    assert [s.stimulus_id for s in design.stimuli] == list(range(1, 81))


def test_prompt_is_the_reference_template(design):
    greg = next(s for s in design.stimuli if s.sender_name == "Greg" and s.msg_id == 1)
    message = greg.text.removeprefix("Hi, I'm Greg. ")
    assert greg.text.startswith("Hi, I'm Greg. ")
    assert greg.prompt == REFERENCE_PROMPT.format(message=message)


def _copy_seeds(tmp_path):
    target = tmp_path / "seeds"
    shutil.copytree(default_seeds_dir(), target)
    return target


@pytest.mark.parametrize(
    ("file", "old", "new", "match"),
    [
        (
            "probe_candidates.csv",
            '" reliable"',
            '"reliable"',
            r"probe_candidates.csv row 2, column candidate",
        ),
        (
            "probe_candidates.csv",
            "reliable_like\n",
            "reliableish\n",
            r"row \d+, column candidate_group",
        ),
        (
            "probe_messages.csv",
            "2,",
            "1,",
            r"probe_messages.csv row 3, column msg_id: '1' repeats row 2",
        ),
        (
            "probe_messages.csv",
            "10,",
            "x,",
            r"row 11, column msg_id: 'x' is not a positive integer",
        ),
        (
            "probe_messages.csv",
            "2,",
            "01,",
            r"row 3, column msg_id: '01' is not a positive integer \(digits alone, no leading",
        ),
        ("probe_names.csv", "Greg", "Emily", r"probe_names.csv row 3, column sender_name"),
        ("probe_prompt_templates.csv", "{message}", "{msg}", r"must contain \{message\}"),
    ],
)
def test_seed_errors_name_file_row_and_column(tmp_path, file, old, new, match):
    seeds = _copy_seeds(tmp_path)
    path = seeds / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(SeedError, match=match):
        load_design(seeds)


def test_braces_in_a_message_are_kept(tmp_path):
    seeds = _copy_seeds(tmp_path)
    path = seeds / "probe_messages.csv"
    path.write_text(path.read_text().replace("Quick heads-up:", "Quick {heads-up}:"))
    design = load_design(seeds)
    assert any("Quick {heads-up}:" in s.prompt for s in design.stimuli)
