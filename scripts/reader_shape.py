"""The reader's shape: its modules, their lines and the imports among them.

    .venv/bin/python scripts/reader_shape.py

Prints one line per module of ``concord_io.landing`` (lines, and the reader's modules it
imports), then the totals. The layers themselves are import-linter's contract in
pyproject.toml (``make lint``); ``test_project_structure.py`` holds the module and edge
ceilings, this prints what they are measured on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grimp

READER = "concord_io.landing"
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Shape:
    #: module name -> its lines (``wc -l``)
    lines: dict[str, int]
    #: (importer, imported), both modules of the reader
    edges: list[tuple[str, str]]


def reader_shape() -> Shape:
    graph = grimp.build_graph("concord_io")
    modules = sorted(m for m in graph.modules if m == READER or m.startswith(READER + "."))
    lines = {}
    for module in modules:
        path = ROOT / Path(*module.split("."))
        file = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        lines[module] = len(file.read_bytes().splitlines())
    edges = [
        (importer, imported)
        for importer in modules
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if imported in lines and imported != importer
    ]
    return Shape(lines, edges)


def main() -> None:
    shape = reader_shape()
    for module, count in shape.lines.items():
        imported = [b.rpartition(".")[2] for a, b in shape.edges if a == module]
        print(f"{module:32} {count:5}  -> {', '.join(imported) or '-'}")
    print(
        f"{len(shape.lines)} modules, {sum(shape.lines.values())} lines, "
        f"{len(shape.edges)} import edges among them"
    )


if __name__ == "__main__":
    main()
