"""The report page: every figure rendered to SVG, the sections, and the Jinja2 template."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2

from concord_common import GO
from concord_io import paths
from concord_io.connect import connect_serving, open_duckdb
from concord_io.errors import ConcordError
from concord_io.report import sections
from concord_io.report.charts import DrawnSvgs, to_svg
from concord_io.report.figures import STUDIES, Figure, Marts, NoData

TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("concord_io.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass
class RenderedFigure:
    key: str
    title: str
    caption: str
    state: str  # "ok" or "empty"
    svg: str | None
    marks: int
    note: str | None


#: Where the report keeps the SVG of each figure's spec (charts.DrawnSvgs), in its folder.
DRAWN = ".drawn"


def render_figure(fig: Figure, marts: Marts, drawn: DrawnSvgs | None = None) -> RenderedFigure:
    try:
        svg, marks = to_svg(fig.draw(marts), drawn)
    except NoData as why:
        return RenderedFigure(fig.key, fig.title, fig.caption, "empty", None, 0, str(why))
    return RenderedFigure(fig.key, fig.title, fig.caption, "ok", svg, marks, None)


def draw_figures(marts: Marts, drawn: DrawnSvgs | None = None) -> dict[str, list[RenderedFigure]]:
    """Every study's figures, by the study's key."""
    return {key: [render_figure(f, marts, drawn) for f in figures] for key, _, figures in STUDIES}


def render_page(
    marts: Marts,
    publication: dict | None,
    *,
    docs_href: str | None = None,
    quality_href: str | None = None,
    drawn: DrawnSvgs | None = None,
    figures: dict[str, list[RenderedFigure]] | None = None,
) -> str:
    """The page from ``marts``; ``figures``: drawn already, from marts of the same rows."""
    figures = draw_figures(marts, drawn) if figures is None else figures
    # a study's table of figures, under its charts
    tables = {"accuracy": sections.accuracy(marts)}
    studies = [
        {
            "key": key,
            "title": title,
            "figures": figures[key],
            "table": tables.get(key),
            "comparisons": sections.comparisons(marts, key)
            if key in sections.COMPARISONS
            else None,
        }
        for key, title, _ in STUDIES
    ]
    return TEMPLATES.get_template("report.html.j2").render(
        publication=publication,
        studies=studies,
        shipped=sections.shipped(marts),
        quarantine=sections.quarantine(marts),
        failing_tests=sections.failing_tests(marts),
        quality_href=quality_href,
        docs_href=docs_href,
        marts=sections.marts_table(marts),
        schema=sections.SCHEMA,
    )


def build_report(
    serving: str | Path,
    out_dir: str | Path,
    quality_dir: str | Path | None = None,
    *,
    figures_from: str | Path | None = None,
    told: Callable[[], bool] | None = None,
) -> Path | None:
    """Write ``out_dir/index.html`` from the serving file; returns its path.

    ``quality_dir`` is where ``concord_io.quality`` wrote the data docs (linked when they
    exist there).

    ``figures_from``: the build database whose marts the figures are drawn from first, then
    ``told()`` is awaited (False: nothing is written, None is returned). The figures are
    kept only when the serving file's version was published from that build's very bytes
    (``meta.publication``); otherwise they are drawn again from the serving file.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    drawn = DrawnSvgs(paths.inside(out_dir, DRAWN))
    ahead = _drawn_ahead(Path(figures_from), drawn) if figures_from is not None else None
    if told is not None and not told():
        return None
    try:
        con = connect_serving(serving)
    except FileNotFoundError as missing:
        raise ConcordError(str(missing), hint="run `make build` to publish one") from None
    try:
        marts = Marts(con)
        publication = None
        has_meta = con.execute(
            "select count(*) from duckdb_tables() where schema_name = 'meta' "
            "and table_name = 'publication'"
        ).fetchone()[0]
        if has_meta:
            rows = marts.rows("select * from meta.publication")
            publication = rows[0] if rows else None
        docs = out_dir / "docs" / "index.html"
        figures = None
        if ahead is not None and publication is not None:
            identity, figures = ahead
            if any(publication.get(f"build_{k}") != v for k, v in identity.items()):
                figures = None  # another build's version: its own rows are drawn
        page = render_page(
            marts,
            publication,
            docs_href="docs/index.html" if docs.is_file() else None,
            quality_href=sections.quality_docs_href(
                out_dir, None if quality_dir is None else Path(quality_dir)
            ),
            drawn=drawn,
            figures=figures,
        )
        drawn.prune()
    finally:
        con.close()
    target = paths.inside(out_dir, "index.html")
    temp = paths.inside(out_dir, ".index.html.tmp")
    temp.write_text(page, encoding="utf-8")
    temp.replace(target)
    return target


def _drawn_ahead(
    database: Path, drawn: DrawnSvgs
) -> tuple[dict[str, object], dict[str, list[RenderedFigure]]]:
    """The identity of the build ``database`` (its bytes) and the figures of its marts."""
    from concord_io.quality import build_identity

    identity = build_identity(database)
    con = open_duckdb(database, read_only=True)
    try:
        return identity, draw_figures(Marts(con), drawn)
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw the static report from the serving file.")
    parser.add_argument("--serving", required=True, help="the serving file (or its symlink)")
    parser.add_argument("--out", required=True, help="folder for index.html")
    parser.add_argument(
        "--quality",
        default=str(paths.quality_dir()),
        help="folder of the Great Expectations data docs to link (default: %(default)s)",
    )
    parser.add_argument(
        "--figures-from",
        metavar="DATABASE",
        help=f"draw the figures from this build database first, then write the page only "
        f"when a line '{GO}' comes on stdin (concord build: while its checkpoint runs)",
    )
    args = parser.parse_args(argv)
    told = None
    if args.figures_from is not None:

        def told() -> bool:
            return sys.stdin.readline().strip() == GO

    path = build_report(
        args.serving, args.out, args.quality, figures_from=args.figures_from, told=told
    )
    if path is not None:
        print(f"report: {path}")
    return 0
