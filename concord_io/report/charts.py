"""The report's chart kinds as Vega-Lite specs (Altair), rendered offline to static SVG.

Each function takes a tidy DataFrame and returns an Altair chart; :func:`to_svg` renders it
with vl-convert (its wheel carries the Vega runtime: no browser, no network) and adds the
hover text. Every data mark carries a ``tip`` column, the text shown when the mark is
hovered; rows are drawn in the order of the frame, never re-sorted alphabetically.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import altair as alt
import pandas as pd
import vl_convert

WIDTH = 560  # the plotting area; axis labels get the room they need beside it
FACET_WIDTH = 760  # panels side by side share this, up to PANELS_PER_ROW on a row
PANELS_PER_ROW = 3
ROW = 22  # height of one row of a horizontal chart
# vl-convert measures label widths with this font where the machine has it (else with its
# built-in sans-serif, narrower than most); the browser draws with the first it has
FONT = "DejaVu Sans, Verdana, sans-serif"
PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d")
NOT_MARKS = {"axis", "legend", "title"}  # graphics-symbol roles that are not data marks

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')

CONFIG = {
    "font": FONT,
    # labelLimit 0: never cut a label short (two datasets cut to the same prefix read alike)
    "axis": {"labelLimit": 0, "labelFontSize": 11, "titleFontSize": 11, "titleFontWeight": 500},
    "header": {"labelLimit": 0, "labelFontSize": 12, "labelFontWeight": 600},
    "legend": {
        "labelLimit": 0,
        "titleLimit": 0,
        "labelFontSize": 11,
        "titleFontSize": 11,
        "orient": "top",
    },
    # about one tick per 90 px: labels such as 0.00, 0.02, … never run into each other
    "axisQuantitative": {"tickCount": 6},
    "view": {"stroke": None},
    "range": {"category": list(PALETTE)},
}


#: Whether each spec is checked against Vega-Lite's JSON schema as it is made. The tests check
#: every figure of the report once (tests/python/test_report.py); a build does not check them
#: again: Altair's schema validation took 2.1 s of the report's 6.8 s on the demo.
VALIDATE_SPECS = False


def finalise(chart: alt.TopLevelMixin) -> dict:
    """The Vega-Lite spec of ``chart`` with the report's look."""
    spec = chart.to_dict(validate=VALIDATE_SPECS)
    spec["config"] = {**CONFIG, **spec.get("config", {})}
    spec["background"] = "white"
    return spec


#: vl-convert's version: a drawing is kept for the version that drew it
VL_CONVERT = importlib.metadata.version("vl-convert-python")


class DrawnSvgs:
    """The SVG vl-convert drew of each spec, kept in ``folder`` by the spec's digest (and
    vl-convert's version): a spec drawn before is read back, not drawn again. Rendering is
    most of the report's time (1.5 s of 3.5 s on the demo) and a pure function of the spec,
    whose inline datasets Altair names by their content: a figure whose rows did not change
    is not drawn again. :meth:`prune` keeps only the drawings used since it was opened."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()

    def svg(self, spec: dict) -> str:
        key = hashlib.sha256(f"{VL_CONVERT}\0{_spec_text(spec)}".encode()).hexdigest()
        self.used.add(key)
        path = self.folder / f"{key}.svg"
        if path.is_file() and not path.is_symlink():
            return path.read_text(encoding="utf-8")
        svg = _drawn(spec)
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self.folder / f".{key}.partial"
        partial.write_text(svg, encoding="utf-8")
        partial.replace(path)
        return svg

    def prune(self) -> None:
        for path in self.folder.glob("*.svg"):
            if path.stem not in self.used:
                path.unlink()
        for path in self.folder.glob(".*.partial"):  # a report ended while it wrote one
            path.unlink()


_URL = re.compile(r"url\(#([^)]+)\)")


def _own_ids(root: ET.Element, prefix: str) -> None:
    """Each ``id`` in the drawing (and each ``url(#id)`` that points at it) renamed
    ``<prefix>-<n>``, ``prefix`` the spec's digest, ``n`` its place in the drawing.
    vl-convert numbers a legend's gradients and a chart's clips on from the last it drew in
    its process (``gradient_0``, ...): drawings made in different builds and kept
    (:class:`DrawnSvgs`) would share ids on one page, where ``url(#gradient_0)`` takes the
    first in the page, and the page would depend on what its process drew before."""
    elements = [e for e in root.iter() if e.get("id") is not None]
    renamed = {e.get("id"): f"{prefix}-{n}" for n, e in enumerate(elements)}
    for element in root.iter():
        if (own := element.get("id")) is not None:
            element.set("id", renamed[own])
        for name, value in element.attrib.items():
            if "url(#" in value:
                element.set(name, _URL.sub(lambda m: f"url(#{renamed.get(m[1], m[1])})", value))


def _spec_text(spec: dict) -> str:
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)


def _drawn(spec: dict) -> str:
    # inline data only: no base URL is allowed, so nothing can be fetched while rendering
    return vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])


def to_svg(chart: alt.TopLevelMixin, drawn: DrawnSvgs | None = None) -> tuple[str, int]:
    """The chart as an inline ``<svg>`` element and its number of data marks (drawn again
    only where ``drawn`` does not hold it).

    Vega's SVG renderer writes no ``<title>`` for the ``tooltip`` encoding: tooltips are
    a runtime handler of the interactive view, which a static page does not have. It does
    write each mark's ``description`` (set to the same text as the tooltip) as its
    ``aria-label``, so each data mark gets that text as an SVG ``<title>``, which browsers
    show on hover, and the class ``mark`` the page's own check counts.
    """
    spec = finalise(chart)
    root = ET.fromstring(drawn.svg(spec) if drawn is not None else _drawn(spec))
    _own_ids(root, hashlib.sha256(_spec_text(spec).encode()).hexdigest()[:12])
    marks = 0
    for element in root.iter():
        label = element.get("aria-label")
        if (
            label is None
            or element.get("role") != "graphics-symbol"
            or element.get("aria-roledescription") in NOT_MARKS
        ):
            continue
        title = ET.Element(f"{{{SVG_NS}}}title")
        title.text = label
        element.insert(0, title)
        element.set("class", "mark")
        marks += 1
    root.set("role", "img")
    # a label the viewer's font draws wider than vl-convert measured overflows, never clips
    root.set("style", "max-width:100%;height:auto;overflow:visible")
    # inline SVG in HTML needs no namespace declarations (and the page keeps no URL at all)
    return _XMLNS.sub("", ET.tostring(root, encoding="unicode")), marks


def _tipped(**encodings) -> dict:
    """Encodings plus the hover text: ``tooltip`` for interactive viewers of the spec,
    ``description`` (the same text) for the static SVG (see :func:`to_svg`)."""
    return {**encodings, "tooltip": alt.Tooltip("tip:N"), "description": alt.Description("tip:N")}


def _rows(order: list[str], title: str | None = None, **kwargs) -> alt.Y:
    return alt.Y("label:N", sort=order, title=title, **kwargs)


def _reference(value: float) -> alt.Chart:
    """A dashed vertical rule at ``value`` (no hover text: it is not data); the data it
    inherits are counted first, so that one rule is drawn, not one per row."""
    return (
        alt.Chart()
        .transform_aggregate(n="count()")
        .mark_rule(color="#999", strokeDash=[4, 3], aria=False)
        .encode(x=alt.datum(value))
    )


def interval_chart(
    frame: pd.DataFrame,
    x_title: str,
    *,
    domain: tuple[float, float] | None = None,
    ref: float | None = None,
    color: str | None = None,
    color_order: list[str] | None = None,
    column: str | None = None,
) -> alt.TopLevelMixin:
    """One row per ``label``: a dot at ``estimate`` and a line from ``low`` to ``high``.

    Optional ``color`` (a column) draws several estimates per row, offset within the row
    (``color_order`` sets their order); ``column`` draws one panel per value, side by side
    with a shared axis. ``tip_estimate`` and ``tip_interval`` are the hover texts.
    """
    order = list(dict.fromkeys(frame["label"]))
    scale = (
        alt.Scale(domain=list(domain), nice=False)
        if domain
        else alt.Scale(
            zero=False, padding=8
        )  # an interval ending at the extreme stays clear of the frame
    )
    extra, whisker_style, dot_style = {}, {"color": PALETTE[0]}, {"color": "#1f3b63"}
    if color:
        # more series than the palette has colours: a scheme with twenty
        many = frame[color].nunique() > len(PALETTE)
        extra["color"] = alt.Color(
            f"{color}:N",
            sort=color_order,
            title=None,
            scale=alt.Scale(scheme="tableau20") if many else alt.Undefined,
        )
        extra["yOffset"] = alt.YOffset(f"{color}:N", sort=color_order)
        whisker_style = dot_style = {}
    # with several estimates per row, a rule between rows (grid at the band's edge) keeps
    # each row's estimates together
    separated = alt.Axis(grid=True, bandPosition=0, gridColor="#ddd", ticks=False)
    base = alt.Chart().encode(y=_rows(order, axis=separated) if color else _rows(order), **extra)
    whisker = (
        base.transform_calculate(tip="datum.tip_interval")
        .mark_rule(strokeWidth=2.5, **whisker_style)
        .encode(
            **_tipped(x=alt.X("low:Q", title=None if column else x_title, scale=scale), x2="high:Q")
        )
    )
    dot = (
        base.transform_calculate(tip="datum.tip_estimate")
        .mark_circle(size=60, opacity=1, **dot_style)
        .encode(**_tipped(x=alt.X("estimate:Q", scale=scale)))
    )
    layers = [whisker, dot] if ref is None else [_reference(ref), whisker, dot]
    # with an offset the step is that of one estimate within its row, not of the row
    height = alt.Step(12 if color else ROW)
    if column is None:
        return alt.layer(*layers, data=frame).properties(width=WIDTH, height=height)
    return _panelled(alt.layer(*layers).properties(height=height), frame, column, x_title)


def _panelled(
    chart: alt.TopLevelMixin, frame: pd.DataFrame, column: str, x_title: str
) -> alt.TopLevelMixin:
    """``chart`` once per value of ``column`` (in the frame's order), side by side on a
    shared x axis, up to PANELS_PER_ROW on a row, each headed by its value."""
    panels = list(dict.fromkeys(frame[column]))
    per_row = min(len(panels), PANELS_PER_ROW)
    width = (FACET_WIDTH - 30 * per_row) // per_row
    # one axis title under all panels (the column header's), not one per panel to overlap;
    # a panel's label breaks at " · " (model, then run) so that long names fit above it
    facet = alt.Facet(
        f"{column}:N",
        sort=panels,
        title=x_title,
        header=alt.Header(
            labelOrient="top",
            titleOrient="bottom",
            labelExpr="split(datum.value, ' · ')",
            titleFontWeight="normal",
            titleFontSize=11,
        ),
    )
    return (
        chart.properties(width=width)
        .facet(facet, data=frame, columns=per_row)
        .resolve_scale(x="shared")
    )


def stacked_bars(
    frame: pd.DataFrame, series_order: list[str], x_title: str, *, column: str | None = None
) -> alt.TopLevelMixin:
    """One horizontal bar per ``label`` split into ``series`` by ``value`` (shares of 100);
    ``column`` draws one panel per value, side by side on a shared axis."""
    order = list(dict.fromkeys(frame["label"]))
    frame = frame.assign(series_rank=frame["series"].map(series_order.index))
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            **_tipped(
                y=_rows(order),
                x=alt.X(
                    "value:Q",
                    title=None if column else x_title,
                    scale=alt.Scale(domain=[0, 100]),
                ),
                color=alt.Color("series:N", sort=series_order, title=None),
                order=alt.Order("series_rank:Q"),
            )
        )
        .properties(height=alt.Step(ROW))
    )
    if column is None:
        return bars.properties(data=frame, width=WIDTH)
    return _panelled(bars, frame, column, x_title)


def heatmap(
    frame: pd.DataFrame,
    rows: list[str],
    columns: list[str],
    domain: tuple[float, float],
    legend_title: str,
    *,
    diverging: bool = False,
    reverse: bool = False,
    panel: str | None = None,
    per_row: int | None = None,
) -> alt.TopLevelMixin:
    """One cell per (``row``, ``column``) coloured by ``value``, with ``text`` written in it
    where the cells are wide enough (the hover text names every cell).

    ``reverse`` darkens the low end of the scale instead of the high one. ``panel`` draws
    one heatmap per value of that column (in the frame's order), ``per_row`` on a row (as
    many as fit, by default), each with its own rows and columns in the order of ``rows``
    and ``columns``, under one colour legend.
    """
    scheme = alt.Scale(
        domain=list(domain),
        scheme="redblue" if diverging else "reds",
        clamp=True,
        reverse=reverse or alt.Undefined,
    )
    widest = int(frame.groupby(panel)["column"].nunique().max() if panel else len(columns))
    if per_row is None:
        per_row = max(1, min(PANELS_PER_ROW, FACET_WIDTH // (34 * widest + 90))) if panel else 1
    room = WIDTH if per_row == 1 else (FACET_WIDTH - 30 * per_row) // per_row
    # many columns (40 languages): narrow cells without text rather than a page-wide chart
    cell = max(12, min(60, room // max(widest, 1)))
    base = alt.Chart().encode(
        x=alt.X("column:N", sort=columns, title=None, axis=alt.Axis(orient="top", labelAngle=-40)),
        y=alt.Y("row:N", sort=rows, title=None),
    )
    layers = [
        base.mark_rect(stroke="white").encode(
            **_tipped(color=alt.Color("value:Q", scale=scheme, title=legend_title))
        )
    ]
    if cell >= 30:
        mid, span = (domain[0] + domain[1]) / 2, domain[1] - domain[0]
        # dark cells get white text: far from the middle (diverging) or near the dark end
        if diverging:
            dark = f"abs(datum.value - {mid}) > {0.35 * span}"
        elif reverse:
            dark = f"datum.value < {domain[1] - 0.6 * span}"
        else:
            dark = f"datum.value > {domain[0] + 0.6 * span}"
        layers.append(
            base.mark_text(fontSize=10, aria=False).encode(
                text="text:N", color=alt.condition(dark, alt.value("white"), alt.value("#222"))
            )
        )
    size = {"width": alt.Step(cell), "height": alt.Step(ROW)}
    if panel is None:
        return alt.layer(*layers, data=frame).properties(**size)
    # panels concatenated, not faceted: Vega-Lite cannot size a faceted layer by steps of
    # scales that differ from panel to panel ("Unrecognized signal name: child_height")
    title = {"anchor": "start", "fontSize": 12, "fontWeight": 600}
    panels = [
        alt.layer(*layers, data=frame[frame[panel] == name]).properties(
            title=alt.TitleParams(name, **title), **size
        )
        for name in dict.fromkeys(frame[panel])
    ]
    return alt.concat(*panels, columns=per_row).resolve_scale(color="shared")


def bar_chart(frame: pd.DataFrame, x_title: str) -> alt.LayerChart:
    """Horizontal bars from 0, one per ``label`` at ``value``, with ``note`` written beside."""
    order = list(dict.fromkeys(frame["label"]))
    base = alt.Chart(frame).encode(y=_rows(order))
    bars = base.mark_bar(color=PALETTE[0]).encode(**_tipped(x=alt.X("value:Q", title=x_title)))
    notes = base.mark_text(align="left", dx=6, fontSize=10, color="#555", aria=False).encode(
        x=alt.value(WIDTH), text="note:N"
    )
    return alt.layer(bars, notes).properties(width=WIDTH, height=alt.Step(ROW))


def reliability_chart(frame: pd.DataFrame, series_order: list[str]) -> alt.TopLevelMixin:
    """A reliability diagram per ``panel``: per ``series`` and confidence bin a point at
    (``x``: mean confidence, ``y``: accuracy), its area the bin's items (``n``), the points
    of a series joined in order of confidence; the dashed diagonal is perfect calibration."""
    unit = alt.Scale(domain=[0, 1], nice=False)
    encode = {
        "x": alt.X("x:Q", scale=unit, title="mean confidence of the top option"),
        "y": alt.Y("y:Q", scale=unit, title="accuracy"),
        "color": alt.Color("series:N", sort=series_order, title=None),
    }
    diagonal = (
        alt.Chart()
        .transform_aggregate(n="count()")
        .mark_rule(color="#999", strokeDash=[4, 3], aria=False)
        .encode(x=alt.datum(0), y=alt.datum(0), x2=alt.datum(1), y2=alt.datum(1))
    )
    line = alt.Chart().mark_line(strokeWidth=1.5, aria=False).encode(**encode, order="x:Q")
    points = (
        alt.Chart()
        .mark_circle(opacity=0.85)
        .encode(**_tipped(**encode, size=alt.Size("n:Q", title="items in the bin")))
    )
    panels = list(dict.fromkeys(frame["panel"]))
    per_row = min(len(panels), PANELS_PER_ROW)
    side = min(360, (FACET_WIDTH - 30 * per_row) // per_row)
    layered = alt.layer(diagonal, line, points).properties(width=side, height=side)
    facet = alt.Facet(
        "panel:N",
        sort=panels,
        title=None,
        header=alt.Header(labelOrient="top", labelFontWeight=600),
    )
    return layered.facet(facet, data=frame, columns=per_row)
