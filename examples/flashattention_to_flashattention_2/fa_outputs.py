"""Write the post's generated figures, or check that the committed ones are current."""

from __future__ import annotations

from pathlib import Path

SLUG = "flashattention-to-flashattention-2"
ROOT = Path(__file__).resolve().parents[2]
FIG_DIR = ROOT / "docs" / "blog" / "posts" / SLUG


def write_or_check(outputs: dict[str, str], *, check: bool) -> None:
    """Write each file under docs/blog/posts/<slug>/; with check=True, fail if one differs."""
    FIG_DIR.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, text in outputs.items():
        path = FIG_DIR / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
        print(f"figure data: docs/blog/posts/{SLUG}/{name}")
    if stale:
        raise SystemExit(f"out of date (rerun without --check): {', '.join(stale)}")
