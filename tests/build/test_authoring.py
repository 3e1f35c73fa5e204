"""What an author does, through the Makefile and a real `mkdocs serve`: scaffold, preview, deploy, set up.

Each test copies the real site (mkdocs.yml, overrides, docs, the plugin package, Makefile, requirements)
into tmp_path and runs `make` there with the repository's own .venv (VENV=...), as an author runs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from support import MKDOCS_ENV, ROOT, Site, free_port, make_site, post

VENV = Path(sys.executable).parents[1]
MAKE_FILES = ("Makefile", "requirements.txt", "requirements-test.txt", "requirements.lock", "requirements-test.lock",
              "package.json", "package-lock.json", "pyproject.toml")


def authoring_copy(dest: Path) -> Site:
    site = make_site(dest)
    for name in MAKE_FILES:
        shutil.copy2(ROOT / name, site.root / name)
    shutil.copytree(ROOT / "mlblog", site.root / "mlblog", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def make(site: Site, *args: str, env: dict[str, str] | None = None, timeout: float = 300
         ) -> subprocess.CompletedProcess[str]:
    # The install stamps are taken as up to date (-o): these tests run the targets' recipes against the
    # repository's .venv and node_modules, and must never reinstall into them.
    stamps = ["-o", f"{VENV}/bin/.site-deps", "-o", f"{VENV}/bin/.test-deps", "-o", "node_modules/.installed"]
    return subprocess.run(["make", "--no-print-directory", "-C", str(site.root), f"VENV={VENV}", *stamps, *args],
                          env=env or MKDOCS_ENV, capture_output=True, text=True, timeout=timeout)


# --- the scaffold takes any title --------------------------------------------------------------

TITLES = {
    "Inside `torch.compile` guards": "inside-torch-compile-guards",
    "What's new in $HOME & <b>tags</b>": "whats-new-in-home-b-tags-b",
    'Quotes: "double" and \'single\'': "quotes-double-and-single",
    "Über-fast GEMMs on H100": "uber-fast-gemms-on-h100",
    "Déjà vu — the NCCL ring": "deja-vu-the-nccl-ring",
}


@pytest.mark.parametrize("title", list(TITLES), ids=list(TITLES.values()))
def test_make_new_post_keeps_the_title_exactly(tmp_path: Path, title: str) -> None:
    site = authoring_copy(tmp_path / "src")
    result = make(site, "new-post", f"TITLE={title}", "CATEGORY=Kernel")
    assert result.returncode == 0, result.stdout + result.stderr
    path = site.docs / "blog" / "posts" / f"{TITLES[title]}.md"
    assert path.is_file(), result.stdout
    front_matter = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
    assert front_matter["title"] == title
    assert front_matter["slug"] == TITLES[title]
    assert front_matter["categories"] == ["Kernel"] and front_matter["draft"] is True


def test_make_new_post_without_a_title_says_how(tmp_path: Path) -> None:
    result = make(authoring_copy(tmp_path / "src"), "new-post")
    assert result.returncode != 0
    assert 'usage: make new-post TITLE="My title" CATEGORY="Kernel"' in result.stdout


def test_make_new_post_names_a_wrong_category_and_what_is_accepted(tmp_path: Path) -> None:
    result = make(authoring_copy(tmp_path / "src"), "new-post", "TITLE=Ring buffers", "CATEGORY=Kernal")
    assert result.returncode != 0
    assert "'Kernal' is not an allowed category. Did you mean 'Kernel'? Accepted: Machine Learning " \
        "Performance, Distributed Training" in result.stderr
    assert "usage:" not in result.stdout + result.stderr and "Traceback" not in result.stderr


def test_make_new_post_takes_another_slug_when_the_title_is_taken(tmp_path: Path) -> None:
    site = authoring_copy(tmp_path / "src")
    assert make(site, "new-post", "TITLE=Ring buffers", "CATEGORY=Kernel").returncode == 0
    again = make(site, "new-post", "TITLE=Ring buffers", "CATEGORY=Kernel")
    assert again.returncode != 0 and 'SLUG=another-slug' in again.stderr
    result = make(site, "new-post", "TITLE=Ring buffers", "CATEGORY=Kernel", "SLUG=ring-buffers-2")
    assert result.returncode == 0, result.stdout + result.stderr
    front_matter = yaml.safe_load((site.docs / "blog" / "posts" / "ring-buffers-2.md").read_text(
        encoding="utf-8").split("---\n")[1])
    assert front_matter["slug"] == "ring-buffers-2" and front_matter["title"] == "Ring buffers"


def test_make_help_says_what_clean_deletes() -> None:
    result = subprocess.run(["make", "-C", str(ROOT), "help"], capture_output=True, text=True)
    assert "make clean          Delete site/, .venv/ and node_modules/" in result.stdout


# --- make serve: a port of your choice, a clear line when it is taken ---------------------------

def test_make_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    site = authoring_copy(tmp_path / "src")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = make(site, "serve", f"PORT={port}", timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert (f"Port {port} on 127.0.0.1 is already in use (another make serve?). Run: make serve "
            f"PORT={port + 1}") in result.stderr


# --- mkdocs serve: a failed rebuild is shown in the browser, and the page recovers -------------

def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def wait_for(url: str, predicate, timeout: float = 90) -> tuple[int, str]:
    deadline = time.monotonic() + timeout
    last: tuple[int, str] = (0, "")
    while time.monotonic() < deadline:
        try:
            last = fetch(url)
            if predicate(*last):
                return last
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} never answered as expected; last answer {last[0]}: {last[1][:500]}")


def test_serve_shows_a_broken_post_and_recovers_and_watches_examples(tmp_path: Path) -> None:
    site = make_site(tmp_path / "src")
    included = site.root / "examples" / "fixture_post" / "shown.py"
    included.parent.mkdir(parents=True)
    included.write_text("print('first version')\n", encoding="utf-8")
    body = ('Opening.\n\n<!-- more -->\n\n## Code\n\n```python\n--8<-- "examples/fixture_post/shown.py"\n```\n')
    good = post(body=body)
    site.write_post("p.md", good)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "-f", str(site.root / "mkdocs.yml"),
         "--dev-addr", f"127.0.0.1:{port}", "--livereload"],
        cwd=site.root.parent, env=MKDOCS_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/blog/2025/03/04/a-fixture-post/"
    try:
        wait_for(url, lambda status, text: status == 200 and "first version" in text)
        # Break the post: the page answers with the problem list within seconds, not a hang.
        site.write_post("p.md", post(categories=("Kernels",), body=body))
        status, text = wait_for(url, lambda status, text: status == 500)
        assert "The site did not build" in text
        assert "blog/posts/p.md: field &#x27;categories&#x27;: &#x27;Kernels&#x27; is not an allowed category" in text
        assert "/livereload/" in text  # MkDocs' reload script, so the page recovers by itself
        # Fix it: the page is back.
        site.write_post("p.md", good)
        wait_for(url, lambda status, text: status == 200 and "first version" in text)
        # Include a file that leads outside the repository: refused in the page, its contents never shown.
        (tmp_path / "secret.txt").write_text("the runner's token\n", encoding="utf-8")
        (included.parent / "leak.txt").symlink_to(tmp_path / "secret.txt")
        site.write_post("p.md", post(body=body.replace("shown.py", "leak.txt")))
        status, text = wait_for(url, lambda status, text: status == 500)
        assert "blog/posts/p.md: line 18: the snippet &#x27;examples/fixture_post/leak.txt&#x27; is a link to " \
            f"{tmp_path / 'secret.txt'}, outside the repository" in text
        assert "runner&#x27;s token" not in text
        site.write_post("p.md", good)
        wait_for(url, lambda status, text: status == 200 and "first version" in text)
        # A file included from examples/ is watched too.
        included.write_text("print('second version')\n", encoding="utf-8")
        wait_for(url, lambda status, text: status == 200 and "second version" in text)
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert "Traceback" not in output, output


# --- make deploy: a commit, checked, named ------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    env = {**MKDOCS_ENV, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.invalid",
           "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.invalid"}
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True,
                          text=True).stdout


def test_make_deploy_publishes_a_clean_commit_and_names_it(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    site = authoring_copy(tmp_path / "author")
    site.write_post("one.md", post(slug="one"))
    repo = site.root
    (repo / ".gitignore").write_text("site/\nnode_modules\n", encoding="utf-8")
    urls = make(site, "urls")  # the list of published URLs that every deploy is checked against
    assert urls.returncode == 0 and (repo / "urls.txt").is_file(), urls.stdout + urls.stderr
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first post")
    git(repo, "remote", "add", "origin", str(remote))
    env = {**MKDOCS_ENV, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.invalid",
           "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.invalid"}

    # An uncommitted edit is refused: what is published must be a commit.
    site.write_post("draft.md", post(slug="two", title="Not committed"))
    refused = make(site, "deploy", env=env)
    assert refused.returncode != 0
    assert "make deploy publishes a commit, and these changes are not committed:" in refused.stdout
    assert "?? docs/blog/posts/draft.md" in refused.stdout
    assert subprocess.run(["git", "-C", str(remote), "rev-parse", "--verify", "-q", "gh-pages"],
                          capture_output=True).returncode != 0  # nothing was pushed

    # A committed post that breaks the rules is refused by the checks before any build or push.
    (site.docs / "blog" / "posts" / "draft.md").unlink()
    site.write_post("bad.md", post(slug="bad", categories=("Kernels",)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bad post")
    bad = make(site, "deploy", env=env)
    assert bad.returncode != 0 and "Did you mean 'Kernel'" in bad.stderr

    # A clean, valid commit is published, and the gh-pages commit names it.
    (site.docs / "blog" / "posts" / "bad.md").unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "drop the bad post")
    source = git(repo, "rev-parse", "HEAD").strip()
    ok = make(site, "deploy", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    message = git(remote, "log", "-1", "--format=%s", "gh-pages")
    assert message.startswith(f"Deployed from {source[:7]}")
    assert "blog/2025/03/04/one/index.html" in git(remote, "ls-tree", "-r", "--name-only", "gh-pages")


# --- a fresh machine: Node and npm come from PyPI, not from the system -------------------------

def test_fresh_setup_installs_node_itself_with_no_npm_on_path(tmp_path: Path) -> None:
    site = authoring_copy(tmp_path / "fresh")
    (site.root / "node_modules").unlink()  # make_site linked the repository's; install afresh
    tools = tmp_path / "bin"  # PATH: every system tool except node, npm and npx
    tools.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        for exe in Path(folder).iterdir() if Path(folder).is_dir() else []:
            if exe.name not in {"node", "nodejs", "npm", "npx", "corepack"} and not (tools / exe.name).exists():
                (tools / exe.name).symlink_to(exe)
    python = Path(sys._base_executable).resolve()  # the interpreter .venv was made from
    env = {**MKDOCS_ENV, "PATH": str(tools), "HOME": os.environ.get("HOME", str(tmp_path))}
    assert shutil.which("npm", path=str(tools)) is None
    venv = tmp_path / "venv"
    result = subprocess.run(["make", "-C", str(site.root), f"VENV={venv}", f"PYTHON={python}",
                             "node_modules/.installed"], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (site.root / "node_modules" / "katex" / "dist" / "katex.min.js").is_file()
    assert (site.root / "node_modules" / "mermaid" / "dist" / "mermaid.min.js").is_file()
