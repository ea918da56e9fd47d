"""Great Expectations data docs work offline (concord_io.gx_offline): every remote style and
script the pages load is replaced by a bundled copy, a page that still loads something remote
is refused naming it, and headless Chromium with no network renders the index's table of
validations (which GX's bootstrap-table script draws)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from browser import chromium_offline

from concord_io import quality
from concord_io.gx_offline import ASSETS, VENDOR, OfflineDocsError, asset_files, make_offline
from concord_io.gx_offline import package_folder as vendored
from concord_io.project import PROJECT_ROOT

DARK_LOGO = (
    "url('https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/full_logo_dark.png')"
)
PAGE = """<html><head>
<link rel="stylesheet" href="{css}"/>
<script src="{js}"></script>
<style>.navbar-brand {{ background: {logo} 0 0 no-repeat; }}</style>
</head><body><img src="https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/logo-long.png?d=1&dataContextId=x"/>
<a href="https://greatexpectations.io">a link, not a load</a></body></html>"""


def test_every_bundled_file_is_shipped_with_a_licence_note():
    for spec, name in asset_files():
        assert (vendored(spec) / name).is_file(), f"{spec}/{name} missing: run the vendor script"
    readme = (vendored("x").parent / "README.md").read_text(encoding="utf-8")
    for spec in {spec for spec, _ in asset_files()}:
        assert f"| {spec} |" in readme


def test_pages_at_any_depth_point_at_the_local_copies(tmp_path):
    site = tmp_path / "site"
    css = next(u for u, (_, f) in ASSETS.items() if f.endswith(".css"))
    js = next(u for u, (_, f) in ASSETS.items() if f.endswith(".js"))
    nested = site / "validations" / "suite" / "run" / "page.html"
    for page in (site / "index.html", nested):
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(PAGE.format(css=css, js=js, logo=DARK_LOGO), encoding="utf-8")
    (site / "static" / "images").mkdir(parents=True)
    (site / "static" / "images" / "logo-long.png").write_bytes(b"GX writes its logo here")
    # the stylesheet GX copies beside the pages loads the dark theme's logo too
    stylesheet = site / "static" / "styles" / "data_docs_default_styles.css"
    stylesheet.parent.mkdir(parents=True)
    stylesheet.write_text(f".navbar-brand {{ background: {DARK_LOGO}; }}", encoding="utf-8")
    assert make_offline(site) == 3
    for page in (site / "index.html", nested, stylesheet):
        text = page.read_text(encoding="utf-8")
        assert "https://great-expectations-web-assets" not in text
        loaded = re.findall(r'(?:src|href)="([^"]+\.(?:css|js|png))"', text)
        loaded += re.findall(r"url\('([^']+)'\)", text)
        assert len(loaded) == (1 if page == stylesheet else 4)
        for relative in loaded:
            assert (page.parent / relative).resolve().is_file(), relative
    assert 'href="https://greatexpectations.io"' in (site / "index.html").read_text()
    assert (site / VENDOR).is_dir()


def test_a_page_that_still_loads_something_remote_is_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<script src="https://cdn.example.org/new-library.js"></script>', encoding="utf-8"
    )
    with pytest.raises(OfflineDocsError, match=r"index.html: still loads .*new-library\.js"):
        make_offline(site)
    (site / "index.html").write_text("<p>no loads</p>", encoding="utf-8")
    (site / "theme.css").write_text("a { background: url(//cdn.example.org/x.png) }")
    with pytest.raises(
        OfflineDocsError, match=r"theme.css: still loads .*cdn\.example\.org/x\.png"
    ):
        make_offline(site)


@pytest.mark.browser
def test_the_data_docs_index_shows_the_validations_offline(warehouse, tmp_path):
    suites = tmp_path / "suites"
    suites.mkdir()
    names = ["mcq_agreement_summary", "dq_quarantine"]  # two suites keep the run short
    for name in names:
        shutil.copy(PROJECT_ROOT / quality.SUITES / f"{name}.yml", suites / f"{name}.yml")
    # a copy: a checkpoint run rewrites the quality record beside the file it checks
    database = tmp_path / "concord.duckdb"
    shutil.copy(warehouse, database)
    result = quality.run_quality(database, tmp_path / "quality", suites)
    assert result.success
    html = result.docs_index.read_text(encoding="utf-8")
    assert not re.search(r'(?:src|<link[^>]*href)="https?://', html)
    site = result.docs_index.parent
    written = [*site.rglob("*.html"), *(site / "static" / "styles").glob("*.css")]
    assert len(written) > 2  # pages and GX's stylesheets
    assert not [p for p in written if "great-expectations-web-assets" in p.read_text()]
    dom = subprocess.run(
        [
            *chromium_offline(),
            "--virtual-time-budget=5000",
            "--dump-dom",
            result.docs_index.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    # bootstrap-table (a bundled script) turned the index's data into one row per validation
    rows = re.findall(r'<tr class="clickable-row" data-href="validations/([^/"]+)/', dom)
    assert sorted(rows) == sorted(names)
    assert "bootstrap-table bootstrap4" in dom
