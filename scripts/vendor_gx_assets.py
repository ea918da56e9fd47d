"""Fetch the files that Great Expectations' data docs load into concord_io/gx_assets/.

Run once when GX changes what it loads (concord_io.gx_offline.ASSETS lists the URLs): each
file is taken from its npm package through the npm client (`npm pack`), never from a CDN,
with the package's licence beside it. The build itself never downloads anything.

    python scripts/vendor_gx_assets.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from concord_io.gx_offline import ASSETS_DIR, asset_files, package_folder

LICENCES = ("LICENSE", "LICENSE.txt", "LICENSE.md", "LICENCE")


def main() -> None:
    wanted: dict[str, list[str]] = {}
    for spec, name in asset_files():
        wanted.setdefault(spec, []).append(name)
    shutil.rmtree(ASSETS_DIR, ignore_errors=True)
    readme = [
        "# Files loaded by Great Expectations' data docs, for offline use",
        "",
        "Taken from their npm packages by `scripts/vendor_gx_assets.py` (do not edit by hand);",
        "`concord_io/gx_offline.py` says which URL each replaces.",
        "",
        "| package | licence |",
        "|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for spec, names in sorted(wanted.items()):
            packed = subprocess.run(
                ["npm", "pack", "--silent", spec],
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()[-1]
            with tarfile.open(Path(tmp) / packed) as archive:
                members = {m.name.removeprefix("package/"): m for m in archive.getmembers()}
                meta = json.loads(archive.extractfile(members["package.json"]).read())
                readme.append(f"| {spec} | {meta.get('license', 'see the package')} |")
                folder = package_folder(spec)
                for name in [*names, *(n for n in LICENCES if n in members)]:
                    target = folder / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.extractfile(members[name]).read())
            print(f"{spec}: {len(names)} file(s)")
    (ASSETS_DIR / "README.md").write_text("\n".join(readme) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
