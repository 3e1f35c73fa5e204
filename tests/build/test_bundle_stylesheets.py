"""mlblog/publish/stylesheets.py: every page links one stylesheet, Material's two and the site's joined."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import material as material_package
import rcssmin
from support import ROOT, Site, head_links

MATERIAL_CSS = Path(material_package.__file__).parent / "templates" / "assets" / "stylesheets"


def stripped(css: str) -> str:
    return re.sub(r"/\*# sourceMappingURL=[^*]*\*/", "", css).strip()


def test_the_bundle_is_materials_sheets_then_the_sites_in_order(reader_site: Site) -> None:
    [bundle] = (reader_site.site_dir / "assets" / "stylesheets").glob("site.*.min.css")
    css = bundle.read_text(encoding="utf-8")
    assert bundle.name == f"site.{hashlib.sha256(css.encode()).hexdigest()[:8]}.min.css"
    listed = re.search(r"^extra_css:\n((?:  - .*\n)+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    extra = re.findall(r"  - (\S+)", listed.group(1))
    assert extra == ["stylesheets/site.css", "stylesheets/figures.css"]
    parts = [stripped(next(MATERIAL_CSS.glob(f"{name}.*.min.css")).read_text(encoding="utf-8"))
             for name in ("main", "palette")]
    parts += [stripped(rcssmin.cssmin((ROOT / "docs" / path).read_text(encoding="utf-8"))) for path in extra]
    assert css == "\n".join(parts) + "\n"  # the cascade's order: Material's, then the site's as listed
    assert "sourceMappingURL" not in css
    # Nothing links the site's sheets on their own, so they are not published on their own.
    assert not (reader_site.site_dir / "stylesheets").exists()


def test_every_page_links_the_bundle_and_only_katex_besides(reader_site: Site) -> None:
    pages = 0
    for html in reader_site.site_dir.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        if "<head>" not in text or 'http-equiv="refresh"' in text:  # redirect stubs link nothing
            continue
        sheets = [link["href"].rsplit("/", 1)[-1] for link in head_links(text)
                  if "stylesheet" in link.get("rel", "").split()]
        assert len(sheets) in (1, 2) and re.fullmatch(r"site\.[0-9a-f]{8}\.min\.css", sheets[0]), (html, sheets)
        assert sheets[1:] in ([], ["katex.min.css"]), (html, sheets)
        pages += 1
    assert pages >= 10


def test_a_stylesheet_on_another_host_or_missing_is_refused(site: Site) -> None:
    config = (site.root / "mkdocs.yml").read_text(encoding="utf-8")
    theirs = "assets/stylesheets/" + next(MATERIAL_CSS.glob("main.*.min.css")).name  # the theme's, not the site's
    for sheet, said in (("https://cdn.example.com/x.css", "is on another host"),
                        ("stylesheets/missing.css", "is not a file under"), (theirs, "is not a file under")):
        (site.root / "mkdocs.yml").write_text(
            config.replace("  - stylesheets/figures.css\n", f"  - stylesheets/figures.css\n  - {sheet}\n", 1),
            encoding="utf-8")
        result = site.build()
        assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
        assert f"extra_css: {sheet}" in result.stderr and said in result.stderr, result.stderr
