"""The probe's inputs: seed CSVs read strictly, stimuli and prompts built from them.

The probe reads the seed files directly (never the warehouse database), so a probe can run on
a machine that has only the seeds. Any malformed row is an error naming file, row and column:
a silently dropped message or name would change the design of the experiment.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from concord_common import project_dir

SEEDS = Path("seeds") / "probe"  # in the project folder
CANDIDATE_GROUPS = ("reliable_like", "unreliable_like")
GREETING = "Hi, I'm {name}. "
TEMPLATE_FIELDS = ("{candidate_list}", "{message}")
POSITIVE_INT = re.compile(r"[1-9][0-9]*")


class SeedError(ValueError):
    """A seed file does not have the expected shape; the message names file, row, column."""


def project_root() -> Path:
    """The Concord project the probe runs in (:mod:`concord_common.project_dir`: the folder
    it runs in, or DBT_PROJECT_DIR), never the package's install location; refused in one
    line where there is none (give --seeds-dir and --landing-dir there)."""
    from probe.errors import ProbeError

    return project_dir.project_root(error=ProbeError)


def default_seeds_dir() -> Path:
    """The design's seed files: the project's seeds/probe."""
    return project_root() / SEEDS


@dataclass(frozen=True)
class Candidate:
    candidate_id: int
    text: str  # with its leading space, as the model must continue the prompt
    group: str


@dataclass(frozen=True)
class Stimulus:
    stimulus_id: int  # 1..N in message-major order (msg_id, then name order in the seed)
    msg_id: int
    group_name: str
    sender_name: str
    text: str  # "Hi, I'm <NAME>. <message>"
    prompt: str


@dataclass(frozen=True)
class ProbeDesign:
    stimuli: tuple[Stimulus, ...]
    candidates: tuple[Candidate, ...]
    template_id: str
    template: str

    def fingerprint(self) -> str:
        """sha256 of everything the model sees and is scored on."""
        payload = {
            "template": self.template,
            "candidates": [(c.text, c.group) for c in self.candidates],
            "stimuli": [(s.msg_id, s.group_name, s.sender_name, s.prompt) for s in self.stimuli],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _read_rows(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    if not path.is_file():
        raise SeedError(f"{path}: seed file not found")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = tuple(reader.fieldnames or ())
        if header != columns:
            raise SeedError(f"{path.name}: header is {list(header)}, expected {list(columns)}")
        rows = []
        for row_number, row in enumerate(reader, start=2):  # row 1 is the header
            if None in row or any(value is None for value in row.values()):
                raise SeedError(f"{path.name} row {row_number}: wrong number of fields")
            for column in columns:
                if column != "candidate" and row[column].strip() == "":
                    raise SeedError(f"{path.name} row {row_number}, column {column}: empty")
            row["_row"] = str(row_number)
            rows.append(row)
    if not rows:
        raise SeedError(f"{path.name}: no rows")
    return rows


def _positive_int(path: Path, row: dict[str, str], column: str) -> int:
    value = row[column]
    # one spelling per number, as the warehouse's reader of these files takes it: `01`
    # beside `1` would be message 1 twice, under keys that differ as text
    if not POSITIVE_INT.fullmatch(value):
        raise SeedError(
            f"{path.name} row {row['_row']}, column {column}: {value!r} is not a positive integer "
            "(digits alone, no leading zero)"
        )
    return int(value)


def _unique(path: Path, rows: list[dict[str, str]], key: str) -> None:
    seen: dict[str, str] = {}
    for row in rows:
        if row[key] in seen:
            raise SeedError(
                f"{path.name} row {row['_row']}, column {key}: {row[key]!r} repeats row "
                f"{seen[row[key]]}"
            )
        seen[row[key]] = row["_row"]


def load_messages(path: Path) -> list[tuple[int, str]]:
    rows = _read_rows(path, ("msg_id", "message"))
    _unique(path, rows, "msg_id")
    return sorted((_positive_int(path, r, "msg_id"), r["message"].strip()) for r in rows)


def load_names(path: Path) -> list[tuple[str, str]]:
    rows = _read_rows(path, ("group_name", "sender_name", "sender_gender", "group_label"))
    _unique(path, rows, "sender_name")
    return [(r["group_name"].strip(), r["sender_name"].strip()) for r in rows]


def load_candidates(path: Path) -> list[Candidate]:
    rows = _read_rows(path, ("candidate_id", "candidate", "candidate_group"))
    _unique(path, rows, "candidate_id")
    _unique(path, rows, "candidate")
    candidates = []
    for r in rows:
        text = r["candidate"]
        if not text.strip() or not text.startswith(" ") or text.startswith("  "):
            raise SeedError(
                f"{path.name} row {r['_row']}, column candidate: {text!r} must be one word "
                "with exactly one leading space"
            )
        if r["candidate_group"] not in CANDIDATE_GROUPS:
            raise SeedError(
                f"{path.name} row {r['_row']}, column candidate_group: "
                f"{r['candidate_group']!r} not in {CANDIDATE_GROUPS}"
            )
        candidates.append(
            Candidate(_positive_int(path, r, "candidate_id"), text, r["candidate_group"])
        )
    candidates.sort(key=lambda c: c.candidate_id)
    missing = set(CANDIDATE_GROUPS) - {c.group for c in candidates}
    if missing:
        raise SeedError(f"{path.name}: no candidate in group(s) {sorted(missing)}")
    return candidates


def load_template(path: Path, template_id: str) -> str:
    rows = _read_rows(path, ("template_id", "template"))
    _unique(path, rows, "template_id")
    for r in rows:
        if r["template_id"] == template_id:
            template = r["template"].replace("\r\n", "\n")
            for field in TEMPLATE_FIELDS:
                if template.count(field) != 1:
                    raise SeedError(
                        f"{path.name} row {r['_row']}, column template: must contain "
                        f"{field} exactly once"
                    )
            return template
    raise SeedError(f"{path.name}: no template with template_id {template_id!r}")


def render_prompt(template: str, candidates: list[Candidate], message: str) -> str:
    """The reference prompt: the candidate list without leading spaces, the message quoted.

    Plain replacement, not str.format, so braces inside a message are kept as they are.
    """
    candidate_list = ", ".join(c.text.strip() for c in candidates)
    return template.replace("{candidate_list}", candidate_list).replace("{message}", message)


def load_design(seeds_dir: Path | str | None = None, template_id: str = "reference"):
    """Read the four seeds (default: the project's) and build every stimulus: messages ×
    names, message-major."""
    seeds_dir = Path(seeds_dir) if seeds_dir else default_seeds_dir()
    messages = load_messages(seeds_dir / "probe_messages.csv")
    names = load_names(seeds_dir / "probe_names.csv")
    candidates = load_candidates(seeds_dir / "probe_candidates.csv")
    template = load_template(seeds_dir / "probe_prompt_templates.csv", template_id)
    stimuli: list[Stimulus] = []
    for msg_id, message in messages:
        for group_name, sender_name in names:
            text = GREETING.format(name=sender_name) + message
            stimuli.append(
                Stimulus(
                    stimulus_id=len(stimuli) + 1,
                    msg_id=msg_id,
                    group_name=group_name,
                    sender_name=sender_name,
                    text=text,
                    prompt=render_prompt(template, candidates, text),
                )
            )
    return ProbeDesign(tuple(stimuli), tuple(candidates), template_id, template)
