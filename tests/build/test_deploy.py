"""`mkdocs gh-deploy` publishes to a gh-pages branch, keeps its history and the custom domain (CNAME);
a build that fails any check (the post rules, the published-URL manifest) publishes nothing.

The remote is a local bare repository, so the real git push path runs without a network.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import MKDOCS_ENV, make_site, post

GIT_ENV = {
    **MKDOCS_ENV,
    "GIT_AUTHOR_NAME": "Deploy Test", "GIT_AUTHOR_EMAIL": "deploy@example.invalid",
    "GIT_COMMITTER_NAME": "Deploy Test", "GIT_COMMITTER_EMAIL": "deploy@example.invalid",
}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


def gh_deploy(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "gh-deploy", "--strict", "--remote-name", "origin"],
                          cwd=cwd, env=GIT_ENV, capture_output=True, text=True, timeout=300)


def first_commit_with_remote(repo: Path, remote: Path) -> Path:
    """The author's repository: everything committed (the build folder ignored), origin = remote."""
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / ".gitignore").write_text("site/\n", encoding="utf-8")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "first post", cwd=repo)
    git("remote", "add", "origin", str(remote), cwd=repo)
    return repo


def test_gh_deploy_to_a_local_bare_remote(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    site = make_site(tmp_path / "author")
    site.write_post("one.md", post(slug="one", title="First deployed post"))
    repo = first_commit_with_remote(site.root, remote)

    first = gh_deploy(repo)
    assert first.returncode == 0, first.stderr
    files = git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote).split()
    assert ".nojekyll" in files
    assert "index.html" in files and "blog/index.html" in files
    assert "blog/2025/03/04/one/index.html" in files

    # A second deploy adds a commit on top; the earlier deploy stays in the branch's history.
    site.write_post("two.md", post(slug="two", title="Second deployed post", date="2025-04-01"))
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "second post", cwd=repo)
    second = gh_deploy(repo)
    assert second.returncode == 0, second.stderr
    history = git("rev-list", "gh-pages", cwd=remote).split()
    assert len(history) == 2
    assert "blog/2025/04/01/two/index.html" in git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote)

    # A post that breaks the rules fails the strict build, and nothing is pushed.
    site.write_post("bad.md", post(slug="bad", categories=("Kernels",)))
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "bad post", cwd=repo)
    failed = gh_deploy(repo)
    assert failed.returncode != 0
    assert "Did you mean 'Kernel'" in failed.stderr and "Traceback" not in failed.stderr
    assert git("rev-list", "gh-pages", cwd=remote).split() == history


def test_gh_deploy_keeps_the_custom_domain_and_never_pushes_a_lost_url(tmp_path: Path) -> None:
    """docs/CNAME is published by every deploy (ghp-import replaces the whole branch, so a custom
    domain survives only as a file of the build), and urls.txt lists it with every other public URL."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    site = make_site(tmp_path / "author")
    (site.docs / "CNAME").write_text("deep-dives.example.org\n", encoding="utf-8")
    site.write_post("one.md", post(slug="one", title="First deployed post"))
    written = site.write_url_manifest()
    assert written.returncode == 0, written.stderr
    assert "  + /CNAME" in written.stdout and "  + /blog/2025/03/04/one/" in written.stdout
    repo = first_commit_with_remote(site.root, remote)

    first = gh_deploy(repo)
    assert first.returncode == 0, first.stderr
    site.write_post("one.md", post(slug="one", title="First deployed post", body="Revised.\n\n<!-- more -->\n"))
    git("commit", "-qam", "revise the post", cwd=repo)
    second = gh_deploy(repo)
    assert second.returncode == 0, second.stderr
    history = git("rev-list", "gh-pages", cwd=remote).split()
    assert len(history) == 2
    for deployed in history:
        assert git("show", f"{deployed}:CNAME", cwd=remote) == "deep-dives.example.org\n"
    assert "Revised." in git("show", "gh-pages:blog/2025/03/04/one/index.html", cwd=remote)

    # A renamed slug without a redirect, and a lost custom domain: the build fails, nothing is pushed.
    site.write_post("one.md", post(slug="renamed", title="First deployed post"))
    (site.docs / "CNAME").unlink()
    git("commit", "-qam", "rename the post, drop the domain", cwd=repo)
    failed = gh_deploy(repo)
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr
    assert "/CNAME was published, and this build no longer writes it" in failed.stderr
    assert "/blog/2025/03/04/one/ was published, and this build neither builds nor redirects it" in failed.stderr
    assert git("rev-list", "gh-pages", cwd=remote).split() == history


def test_workflow_builds_strictly_and_deploys_on_main() -> None:
    import yaml

    root = Path(__file__).resolve().parents[2]
    workflow = yaml.safe_load((root / ".github" / "workflows" / "deploy.yml").read_text(encoding="utf-8"))
    triggers = workflow.get(True) or workflow.get("on")  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"]
    steps = [s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"]]
    assert any("make test" in s for s in steps)
    assert any("mkdocs gh-deploy --strict" in s or "make deploy" in s for s in steps)
    assert os.path.exists(root / "Makefile")
