"""The visual report: a self-contained static page drawn from the published serving file.

One section per study, each figure a Vega-Lite chart (Altair) rendered offline to an inline
SVG (vl-convert) inside ``<figure data-figure=KEY>`` with a one-line caption; the page
comes from a Jinja2 template (``templates/report.html.j2``) and opens offline: no script,
style or font is fetched. A figure whose marts are absent or empty gets a "no data yet"
note instead, so the page always renders. Then the data-quality sections (quarantined
rows, failing dbt tests, the Great Expectations data docs) and every published mart.

``--figures-from DATABASE``: the figures are drawn first from that build database's marts,
then the page waits for ``go`` on stdin and is written from the serving file, keeping those
figures only when its version was copied from that database's very bytes
(``meta.publication``); ``concord build`` draws them so while its checkpoint runs.

    python -m concord_io.report --serving warehouse/serving/concord.duckdb --out warehouse/report
"""

from concord_io.report.figures import STUDIES
from concord_io.report.page import build_report, main

__all__ = ["STUDIES", "build_report", "main"]
