"""Great Expectations data docs that work offline.

The data docs that GX writes load Bootstrap, jQuery, bootstrap-table, Font Awesome, Vega and
more from public CDNs, so without a network the pages show no styles, no tables of
validations and no charts. Concord ships those files (taken from their npm packages, see
``scripts/vendor_gx_assets.py``; licences beside them in ``concord_io/gx_assets/``), copies
them into the site's ``static/vendor/`` and rewrites each page's links to the local copies.
The GX logo, fetched from a web server with tracking parameters (``<img src>`` in the pages,
and the dark theme's ``full_logo_dark.png`` as a CSS ``url(...)`` in the stylesheet GX
inlines into every page and copies into ``static/styles/``), is pointed at the copy GX
already writes into ``static/images/`` (``logo-long.png``; GX ships no dark variant).

After the rewrite no page or stylesheet may still load anything from the network
(``<script src>``, ``<link href>``, ``<img src>``, CSS ``url(...)``): a GX upgrade that adds a
new remote asset fails here with its URL, instead of silently breaking the offline docs.
Plain links (``<a href>``) stay.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ASSETS_DIR = Path(__file__).resolve().parent / "gx_assets"
VENDOR = Path("static") / "vendor"

#: URL loaded by the data docs -> (npm package@version, file in that package). The npm
#: package is the one the CDN serves the URL from; the script fetches exactly these.
ASSETS: dict[str, tuple[str, str]] = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": (
        "bootstrap@4.3.1",
        "dist/css/bootstrap.min.css",
    ),
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": (
        "bootstrap@4.3.1",
        "dist/js/bootstrap.min.js",
    ),
    "https://code.jquery.com/jquery-3.7.1.min.js": ("jquery@3.7.1", "dist/jquery.min.js"),
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": (
        "popper.js@1.12.9",
        "dist/umd/popper.min.js",
    ),
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": (
        "bootstrap-table@1.19.1",
        "dist/bootstrap-table.min.css",
    ),
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": (
        "bootstrap-table@1.19.1",
        "dist/bootstrap-table.min.js",
    ),
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.min.js": (
        "bootstrap-table@1.19.1",
        "dist/extensions/filter-control/bootstrap-table-filter-control.min.js",
    ),
    # GX asks for the 1.19.0 stylesheet of the extension; 1.19.1's is the same rules
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.css": (
        "bootstrap-table@1.19.1",
        "dist/extensions/filter-control/bootstrap-table-filter-control.css",
    ),
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/"
    "bootstrap-table-filter-control.min.css": (
        "bootstrap-table@1.19.1",
        "dist/extensions/filter-control/bootstrap-table-filter-control.min.css",
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/"
    "bootstrap-datepicker.min.css": (
        "bootstrap-datepicker@1.9.0",
        "dist/css/bootstrap-datepicker.min.css",
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/"
    "bootstrap-datepicker.min.js": (
        "bootstrap-datepicker@1.9.0",
        "dist/js/bootstrap-datepicker.min.js",
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": (
        "@fortawesome/fontawesome-free@6.6.0",
        "css/all.min.css",
    ),
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/"
    "bootstrap-prefers-dark.css": (
        "@forevolve/bootstrap-dark@1.1.0",
        "dist/css/bootstrap-prefers-dark.min.css",
    ),
    # GX asks for the latest 5.x / 6.x; these are the latest of each major at vendoring time
    "https://cdn.jsdelivr.net/npm/vega@5": ("vega@5.33.1", "build/vega.min.js"),
    "https://cdn.jsdelivr.net/npm/vega-lite@5": ("vega-lite@5.23.0", "build/vega-lite.min.js"),
    "https://cdn.jsdelivr.net/npm/vega-embed@6": ("vega-embed@6.29.0", "build/vega-embed.min.js"),
}
#: Files a vendored stylesheet loads by relative URL (Font Awesome's fonts; woff2 is what
#: every current browser takes, so the larger ttf fallbacks are not shipped).
EXTRA_FILES: dict[str, list[str]] = {
    "@fortawesome/fontawesome-free@6.6.0": [
        "webfonts/fa-brands-400.woff2",
        "webfonts/fa-regular-400.woff2",
        "webfonts/fa-solid-900.woff2",
        "webfonts/fa-v4compatibility.woff2",
    ],
}
_GX_LOGO = re.compile(
    r"https://great-expectations-web-assets\.s3\.[a-z0-9-]+\.amazonaws\.com/"
    r"(logo-long\.png|full_logo_dark\.png)(\?[^\"')]*)?"
)
# the copy in static/images that stands in for each remote logo
_LOGO_COPY = {"logo-long.png": "logo-long.png", "full_logo_dark.png": "logo-long.png"}
# what makes the browser fetch: src= anywhere, href= on <link>, url(...) in a style
_REMOTE_LOAD = re.compile(
    r"""(?:\bsrc\s*=\s*["']?|<link\b[^>]*?\bhref\s*=\s*["']?|\burl\(\s*["']?)"""
    r"""(https?:)?//[^"'\s>)]+""",
    re.IGNORECASE,
)


class OfflineDocsError(RuntimeError):
    """A data docs page still loads something from the network."""


def package_folder(spec: str) -> Path:
    """Where the files of ``package@version`` are kept: ``gx_assets/<package>@<version>``."""
    return ASSETS_DIR / spec.replace("/", "__")


def asset_files() -> list[tuple[str, str]]:
    """Every (package@version, file) shipped: the assets and the files they load."""
    files = {pair for pair in ASSETS.values()}
    files |= {(spec, f) for spec, extra in EXTRA_FILES.items() for f in extra}
    return sorted(files)


def make_offline(site: Path | str) -> int:
    """Copy the vendored assets into ``site/static/vendor`` and point every page at them.

    Returns the number of pages rewritten. Raises OfflineDocsError naming the page and URL
    when a page still loads something remote after the rewrite.
    """
    site = Path(site)
    vendor = site / VENDOR
    for spec, name in asset_files():
        source = package_folder(spec) / name
        target = vendor / spec.replace("/", "__") / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    rewritten = 0
    pages = sorted(site.rglob("*.html")) + sorted(site.rglob("*.css"))
    for page in pages:
        if page.is_relative_to(vendor):
            continue  # the bundled files themselves (fonts by relative URL only)
        text = page.read_text(encoding="utf-8")
        to_root = Path(os.path.relpath(site, page.parent))
        new = text
        for url, (spec, name) in ASSETS.items():
            local = (to_root / VENDOR / spec.replace("/", "__") / name).as_posix()
            new = new.replace(f'"{url}"', f'"{local}"')
        logo = (to_root / "static" / "images").as_posix()

        def logo_path(match: re.Match[str], logo: str = logo) -> str:
            return f"{logo}/{_LOGO_COPY[match[1]]}"

        new = _GX_LOGO.sub(logo_path, new)
        remote = _REMOTE_LOAD.search(new)
        if remote:
            raise OfflineDocsError(
                f"{page.relative_to(site)}: still loads {remote[0]!r}; add it to "
                "concord_io.gx_offline.ASSETS and run scripts/vendor_gx_assets.py"
            )
        if new != text:
            page.write_text(new, encoding="utf-8")
            rewritten += 1
    return rewritten
